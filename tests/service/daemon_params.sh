#!/bin/sh
# A bellman .params key through a real daemon (`cuzk serve`, cpu backend): the key directory
# holds key.params and its key.r1cs; `cuzk submit` queues two partitions, `cuzk await --proof`
# writes each proof as the 192-byte file that `cuzk prove` writes, and `cuzk verify` accepts
# both with the key's .vk; `cuzk status` lists the key. A witness that violates a constraint
# fails its job. Usage: daemon_params.sh <cuzk binary> <work folder>
set -u
cuzk=$1
work=$2
rm -rf "$work" && mkdir -p "$work/keys" || exit 1
pid=""
fail() {
  echo "FAIL: $*" >&2
  for f in "$work"/*.log; do echo "--- $f" >&2; cat "$f" >&2; done
  [ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null
  exit 1
}
size_of() { wc -c <"$1" | tr -d ' '; }

"$cuzk" gen --curve bls12_381 --shape porep --constraints 300 --public 2 --seed 5 \
  --r1cs "$work/keys/key.r1cs" --wtns "$work/witness.wtns" >"$work/gen.log" 2>&1 || fail "gen"
"$cuzk" setup "$work/keys/key.r1cs" "$work/keys/key.params" >"$work/setup.log" 2>&1 ||
  fail "setup"
mv "$work/keys/key.vk" "$work/key.vk" || fail "setup wrote no key.vk"

sock="$work/d.sock"
"$cuzk" serve --backend cpu --cpu-workers 2 --socket "$sock" --http "" --key-dir "$work/keys" \
  --key-budget pinned=1GiB --log-level info 2>"$work/daemon.log" &
pid=$!
i=0
until "$cuzk" status --socket "$sock" >/dev/null 2>&1; do
  i=$((i + 1))
  [ $i -gt 100 ] && fail "the daemon did not answer within 20 s"
  kill -0 $pid 2>/dev/null || fail "the daemon exited at start"
  sleep 0.2
done

job=$("$cuzk" submit --key key --wtns "$work/witness.wtns" --wtns "$work/witness.wtns" \
  --socket "$sock" 2>"$work/submit.log") || fail "submit"
"$cuzk" await "$job" --timeout 120 --socket "$sock" --proof "$work/proof.bin" \
  --public "$work/public.json" >"$work/await.json" 2>"$work/await.log" || fail "await"
grep -q JOB_STATE_SUCCEEDED "$work/await.json" || fail "the job did not succeed"
for p in 0 1; do
  proof="$work/proof.$p.bin"
  [ -f "$proof" ] || fail "await wrote no proof file for partition $p: $(ls "$work")"
  [ "$(size_of "$proof")" = 192 ] || fail "partition $p's proof holds $(size_of "$proof") bytes"
  public="$work/public.$p.json"
  "$cuzk" verify "$work/key.vk" "$public" "$proof" >"$work/verify$p.log" 2>&1 ||
    fail "cuzk verify rejects partition $p's proof"
  grep -q OK "$work/verify$p.log" || fail "cuzk verify did not say OK for partition $p"
done
"$cuzk" status --socket "$sock" >"$work/status.txt" 2>&1 || fail "status"
grep -q "key key: pinned" "$work/status.txt" || fail "status does not list the .params key"

# The last wire's value is defined by the last constraint only: flipping its lowest byte breaks
# that constraint, and the job fails rather than returning a proof.
cp "$work/witness.wtns" "$work/bad.wtns"
offset=$(($(size_of "$work/witness.wtns") - 32))
value=$(od -An -tu1 -j"$offset" -N1 "$work/witness.wtns" | tr -d ' ')
printf "\\$(printf %o $((value ^ 1)))" |
  dd of="$work/bad.wtns" bs=1 seek="$offset" count=1 conv=notrunc 2>/dev/null
bad=$("$cuzk" submit --key key --wtns "$work/bad.wtns" --socket "$sock" 2>"$work/submit2.log") ||
  fail "submit of the bad witness"
if "$cuzk" await "$bad" --timeout 120 --socket "$sock" --proof "$work/bad.bin" \
  >"$work/await2.json" 2>"$work/await2.log"; then
  fail "a witness that violates a constraint got a proof"
fi
[ -e "$work/bad.bin" ] && fail "a failed job wrote a proof file"

kill -TERM $pid
wait $pid || fail "the daemon exited $? after SIGTERM"
echo "PASS"
