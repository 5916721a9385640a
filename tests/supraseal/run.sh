#!/bin/sh
# One shape of the supraseal C tests: a circuit from `cuzk gen`, a key from `cuzk setup
# ... .params`, the fixture (fixture.cpp), the C test against the library, and `cuzk verify`
# of every proof of its 10-circuit batch, the first compared byte for byte with `cuzk prove --blinding`.
#   run.sh <cuzk> <supraseal_fixture> <c test> <shape> <constraints> <work dir>
set -eu
cuzk=$1 fixture=$2 test=$3 shape=$4 constraints=$5 dir=$6
rm -rf "$dir" && mkdir -p "$dir/out"
# Three public inputs where the shape takes a count (chain has one input and one output).
public="--public 3"
[ "$shape" = chain ] && public=""
# shellcheck disable=SC2086
"$cuzk" gen --curve bls12_381 --shape "$shape" --constraints "$constraints" $public \
  --r1cs "$dir/circuit.r1cs" --wtns "$dir/witness.wtns" > /dev/null
"$cuzk" setup "$dir/circuit.r1cs" "$dir/key.params" "$dir/key.vk" > /dev/null
"$fixture" assign "$dir/key.params" "$dir/circuit.r1cs" "$dir/witness.wtns" \
  "$dir/circuit.fixture" "$dir/public.json"
"$test" "$dir/key.params" "$dir/circuit.fixture" "$dir/out"
for raw in "$dir"/out/proof_*.raw; do
  "$fixture" encode "$raw" "${raw%.raw}.bin"
  "$cuzk" verify "$dir/key.vk" "$dir/public.json" "${raw%.raw}.bin" > /dev/null
done
# The library's proof with blinding 0 of the fixture (r = 1000, s = 1001) is byte for byte
# `cuzk prove`'s with that blinding, on the same .params, .r1cs and .wtns.
"$cuzk" prove "$dir/key.params" "$dir/witness.wtns" "$dir/cli_proof.bin" "$dir/cli_public.json" \
  --r1cs "$dir/circuit.r1cs" --blinding 1000,1001 > /dev/null 2>&1
cmp "$dir/cli_proof.bin" "$dir/out/proof_0.bin" ||
  { echo "$shape: the library's proof differs from cuzk prove's with the same blinding"; exit 1; }
echo "$shape: $(ls "$dir"/out/proof_*.bin | wc -l) proofs verified, the first equal to cuzk prove's"
