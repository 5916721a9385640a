#!/bin/sh
# `cuzk serve` end to end: a real daemon process (sim backend, 2-second partitions) on a unix
# socket; a client submits a job and waits for it; SIGTERM arrives while the job runs. The
# daemon must refuse new jobs (UNAVAILABLE), finish the one in flight (the waiting client
# gets its result), write the timeline, remove its socket and exit 0. Then a second daemon
# gets two signals: the second cancels the drain (the waiter gets CANCELLED), and it still
# exits 0. Usage: sigterm_drain.sh <cuzk binary> <work folder>
set -u
cuzk=$1
work=$2
rm -rf "$work" && mkdir -p "$work" || exit 1
fail() {
  echo "FAIL: $*" >&2
  for f in "$work"/*.log; do echo "--- $f" >&2; cat "$f" >&2; done
  exit 1
}

start_daemon() { # name
  sock="$work/$1.sock"
  "$cuzk" serve --backend sim --socket "$sock" --http "" --sim-gpus 1 --workers-per-gpu 1 \
    --sim-key slow=2000000 --sim-kernel-ns 1000 --drain-timeout 30 \
    --timeline "$work/$1.timeline.jsonl" --log-level info 2>"$work/$1.daemon.log" &
  pid=$!
  i=0
  until "$cuzk" status --socket "$sock" >/dev/null 2>&1; do
    i=$((i + 1))
    [ $i -gt 100 ] && fail "$1: the daemon did not answer within 20 s"
    kill -0 $pid 2>/dev/null || fail "$1: the daemon exited at start"
    sleep 0.2
  done
}

printf 'witness-bytes' >"$work/w.wtns"

# 1. Drain: the job in flight completes, new jobs are refused, exit 0.
start_daemon drain
job=$("$cuzk" submit --key slow --wtns "$work/w.wtns" --socket "$sock") || fail "submit"
"$cuzk" await "$job" --timeout 60 --socket "$sock" --proof "$work/proof.txt" \
  >"$work/await.json" 2>"$work/await.log" &
await_pid=$!
sleep 0.5
kill -TERM $pid
sleep 0.3
if "$cuzk" submit --key slow --wtns "$work/w.wtns" --socket "$sock" 2>"$work/late.log"; then
  fail "a submission during the drain was accepted"
fi
grep -q UNAVAILABLE "$work/late.log" || fail "a submission during the drain was not UNAVAILABLE"
wait $pid
rc=$?
[ $rc -eq 0 ] || fail "the daemon exited $rc after SIGTERM"
wait $await_pid || fail "await of the job in flight failed"
grep -q JOB_STATE_SUCCEEDED "$work/await.json" || fail "the job in flight did not succeed"
grep -q "sim-proof:witness-bytes" "$work/proof.txt" || fail "the proof file is not the job's"
grep -q "event=drain_begin" "$work/drain.daemon.log" || fail "no drain_begin log line"
grep -q "event=daemon_stopped drained=true" "$work/drain.daemon.log" || fail "not drained"
grep -q "\"job\":$job" "$work/drain.timeline.jsonl" || fail "the timeline lacks the job"
[ -e "$sock" ] && fail "the socket file was left behind"

# 2. A second signal cancels the drain; the daemon still exits 0.
start_daemon cancel
job=$("$cuzk" submit --key slow --wtns "$work/w.wtns" --wtns "$work/w.wtns" --wtns "$work/w.wtns" \
  --socket "$sock") || fail "submit"
"$cuzk" await "$job" --timeout 60 --socket "$sock" >"$work/await2.json" 2>"$work/await2.log" &
await_pid=$!
sleep 0.5
kill -TERM $pid
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 0 ] || fail "the daemon exited $rc after SIGTERM + SIGINT"
wait $await_pid && fail "await of a cancelled job succeeded"
grep -q CANCELLED "$work/await2.log" || fail "the waiter was not told CANCELLED"
grep -q "event=drain_cancel reason=\"second signal\"" "$work/cancel.daemon.log" ||
  fail "no drain_cancel log line"
echo "PASS"
