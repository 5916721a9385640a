#!/bin/sh
# `cuzk setup | prove | verify` with a bellman .params key, end to end, and the refusals of bad
# input: each step checks the exit code (0 ok, 1 invalid proof, 2 bad input) and, where it
# matters, the message. Usage: params_round_trip.sh <cuzk binary> <scratch dir>
set -u
CUZK=$1
DIR=$2
rm -rf "$DIR"
mkdir -p "$DIR"
cd "$DIR" || exit 1
failures=0

fail() {
  echo "FAILED: $*" >&2
  failures=$((failures + 1))
}

# expect <exit code> <text the output must contain, or ""> <command...>
expect() {
  want=$1
  text=$2
  shift 2
  "$@" >out.txt 2>&1
  rc=$?
  if [ "$rc" -ne "$want" ]; then
    fail "'$*' exited $rc, expected $want; output:"
    cat out.txt >&2
  elif [ -n "$text" ] && ! grep -qF -- "$text" out.txt; then
    fail "'$*' did not print '$text'; output:"
    cat out.txt >&2
  fi
}

# flip_byte <file> <offset> <output>: a copy with the byte at offset XOR 1.
flip_byte() {
  cp "$1" "$3"
  value=$(od -An -tu1 -j"$2" -N1 "$1" | tr -d ' ')
  printf "\\$(printf %o $((value ^ 1)))" | dd of="$3" bs=1 seek="$2" count=1 conv=notrunc 2>/dev/null
}

size_of() { wc -c <"$1" | tr -d ' '; }

# A BLS12-381 porep-like circuit of 300 constraints (not a power of two) with 2 public inputs.
expect 0 "" "$CUZK" gen --curve bls12_381 --shape porep --constraints 300 --public 2 --seed 3 \
  --r1cs circuit.r1cs --wtns witness.wtns
expect 0 '"qap_ms"' "$CUZK" setup circuit.r1cs key.params --json
[ -s key.params ] && [ -s key.vk ] || fail "setup did not write key.params and key.vk"

# Prove, verify with the .vk and with the .params; the proof is 192 bytes.
expect 0 '"key_load_ms"' "$CUZK" prove key.params witness.wtns proof.bin public.json \
  --r1cs circuit.r1cs --json
[ "$(size_of proof.bin)" = 192 ] || fail "proof.bin holds $(size_of proof.bin) bytes, not 192"
expect 0 '"valid": true' "$CUZK" verify key.vk public.json proof.bin --json
expect 0 "OK" "$CUZK" verify key.params public.json proof.bin

# Fixed blinding: the same proof twice (decimal and hex spellings), verified; random blinding
# differs; values that are not integers below the modulus are refused.
expect 0 "" "$CUZK" prove key.params witness.wtns fixed1.bin fixed_public.json \
  --r1cs circuit.r1cs --blinding 1000,1001
expect 0 "" "$CUZK" prove key.params witness.wtns fixed2.bin fixed_public.json \
  --r1cs circuit.r1cs --blinding 0x3e8,0X3E9
cmp -s fixed1.bin fixed2.bin || fail "the same blinding gave two different proofs"
cmp -s fixed1.bin proof.bin && fail "a fixed blinding gave the randomly blinded proof"
expect 0 "OK" "$CUZK" verify key.vk fixed_public.json fixed1.bin
expect 2 "expected R,S" "$CUZK" prove key.params witness.wtns x.bin x.json --r1cs circuit.r1cs \
  --blinding 1000
expect 2 "not a decimal or 0x-hex integer" "$CUZK" prove key.params witness.wtns x.bin x.json \
  --r1cs circuit.r1cs --blinding 10z,1
expect 2 "does not fit 256 bits" "$CUZK" prove key.params witness.wtns x.bin x.json \
  --r1cs circuit.r1cs --blinding 1,0x1$(printf '%064d' 0)
expect 2 "not below the scalar field's modulus" "$CUZK" prove key.params witness.wtns x.bin x.json --r1cs circuit.r1cs \
  --blinding 1,0x$(printf 'f%.0s' $(seq 64))

# A flipped byte in each of A, B and C, and a wrong public input: not accepted (1 when the
# bytes still decode to points, 2 when they do not; never 0).
for offset in 20 100 170; do
  flip_byte proof.bin $offset flipped.bin
  "$CUZK" verify key.vk public.json flipped.bin >out.txt 2>&1
  rc=$?
  [ "$rc" -eq 1 ] || [ "$rc" -eq 2 ] || fail "a proof with byte $offset flipped: exit $rc"
done
sed 's/"[0-9][0-9]*"/"5"/' public.json >wrong_public.json
cmp -s public.json wrong_public.json && fail "could not change public.json"
expect 1 "INVALID" "$CUZK" verify key.vk wrong_public.json proof.bin

# Bad input, exit 2 with a message naming the problem.
expect 2 "needs its circuit's .r1cs" "$CUZK" prove key.params witness.wtns p.bin pub.json
head -c 5000 key.params >truncated.params
expect 2 "truncated" "$CUZK" prove truncated.params witness.wtns p.bin pub.json --r1cs circuit.r1cs
flip_byte key.params 3000 corrupted.params
expect 2 "h[19]" "$CUZK" prove corrupted.params witness.wtns p.bin pub.json \
  --r1cs circuit.r1cs
head -c 400 circuit.r1cs >truncated.r1cs
expect 2 "truncated.r1cs" "$CUZK" prove key.params witness.wtns p.bin pub.json \
  --r1cs truncated.r1cs
head -c $(($(size_of witness.wtns) - 10)) witness.wtns >truncated.wtns
expect 2 "truncated.wtns" "$CUZK" prove key.params truncated.wtns p.bin pub.json \
  --r1cs circuit.r1cs

# Curve mismatch: a BN254 circuit with a BLS12-381 key, and a BN254 .params setup.
expect 0 "" "$CUZK" gen --curve bn254 --shape porep --constraints 300 --public 2 --seed 3 \
  --r1cs bn.r1cs --wtns bn.wtns
expect 2 "belongs to BLS12-381 but bn.r1cs to BN254" "$CUZK" prove key.params bn.wtns p.bin pub.json --r1cs bn.r1cs
expect 2 "BLS12-381 only" "$CUZK" setup bn.r1cs bn.params

# Witness length mismatch: the witness of a larger circuit.
expect 0 "" "$CUZK" gen --curve bls12_381 --shape porep --constraints 310 --public 2 --seed 3 \
  --r1cs big.r1cs --wtns big.wtns
expect 2 "the witness has" "$CUZK" prove key.params big.wtns p.bin pub.json --r1cs circuit.r1cs
# The .r1cs of another circuit than the key's.
expect 2 "does not belong" "$CUZK" prove key.params big.wtns p.bin pub.json --r1cs big.r1cs

# A witness that violates a constraint: the last wire is defined by the last constraint (299)
# only. Its value's lowest byte (little-endian) is 32 bytes before the end of the file. The
# failing constraint is named, and an existing output file is left as it was.
flip_byte witness.wtns $(($(size_of witness.wtns) - 32)) bad.wtns
echo sentinel >existing.bin
echo sentinel >existing.json
expect 2 "constraint 299" "$CUZK" prove key.params bad.wtns existing.bin existing.json \
  --r1cs circuit.r1cs
[ "$(cat existing.bin)" = sentinel ] || fail "a refused proof changed existing.bin"
[ "$(cat existing.json)" = sentinel ] || fail "a refused proof changed existing.json"
[ -e existing.bin.partial ] && fail "a refused proof left existing.bin.partial"

# The snarkjs path names the constraint too when given the .r1cs.
expect 0 "" "$CUZK" setup circuit.r1cs key.zkey vk.json
expect 2 "constraint 299" "$CUZK" prove key.zkey bad.wtns existing.json existing_pub.json \
  --r1cs circuit.r1cs
[ "$(cat existing.json)" = sentinel ] || fail "a refused .zkey proof changed existing.json"

if [ "$failures" -ne 0 ]; then
  echo "$failures check(s) failed" >&2
  exit 1
fi
echo "all checks passed"
