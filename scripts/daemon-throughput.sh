#!/usr/bin/env bash
# The daemon process on the GPUs: steady-state throughput of porep-like partitions through
# `cuzk serve --backend cuda`, a client submitting over the unix socket as a proving farm does,
# and proofs from every GPU checked with `cuzk verify`.
#
#   scripts/daemon-throughput.sh BIN_DIR WORK_DIR RESULTS_JSON
#
# BIN_DIR holds `cuzk` (built with the service and CUDA) and `write_bench_key`; WORK_DIR gets
# the keys, witnesses, configs, logs and timelines (a 2^26 key is ~40 GB). Environment:
#   LOG_NS="24 26"  sizes      GPU_COUNTS="1 2"  GPUs per run (CUDA_VISIBLE_DEVICES=0..g-1)
#   WORKERS=2       K          PARTITIONS=16     partitions of the measured job
#   CURVE=bls12_381            VERIFY_CONSTRAINTS=200000   size of the verified-proofs run
#   BACKEND=cuda    (cpu rehearses the script on a machine without a GPU: one "GPU" count of 1)
#
# Throughput: for each size and GPU count, a daemon with the key preloaded on every visible GPU
# (write_bench_key's random key: its proofs cannot verify, so that daemon runs with
# verify_proofs = false), a warm-up job of K partitions per GPU, then one job of PARTITIONS
# partitions submitted at once by path; tools/daemon_throughput.py reads the daemon's
# timeline. Verified proofs: a development key (`cuzk setup`) for a synthetic circuit, a daemon
# on every GPU with verify_proofs = true (each proof checked before it is returned), one job of
# 8 partitions per GPU, every proof written by `cuzk await` and checked again with `cuzk
# verify`, and the timeline showing that every GPU proved some of them.
set -euo pipefail

BIN=$(realpath "$1")
WORK=$(realpath -m "$2")
RESULTS=$3
LOG_NS=${LOG_NS-"24 26"}
GPU_COUNTS=${GPU_COUNTS:-"1 2"}
WORKERS=${WORKERS:-2}
PARTITIONS=${PARTITIONS:-16}
CURVE=${CURVE:-bls12_381}
VERIFY_CONSTRAINTS=${VERIFY_CONSTRAINTS:-200000}
BACKEND=${BACKEND:-cuda}
TOOLS=$(dirname "$(realpath "$0")")/../tools
mkdir -p "$WORK"
RUNS="$WORK/runs.jsonl"
: >"$RUNS"
SOCKET="$WORK/cuzk.sock"
DAEMON=""

stop_daemon() {
  if [[ -n "$DAEMON" ]]; then
    kill -TERM "$DAEMON" 2>/dev/null || true
    wait "$DAEMON" || true
    DAEMON=""
  fi
}
trap stop_daemon EXIT

# start_daemon CONFIG LOG GPUS: starts `cuzk serve` and waits until it answers (keys preloaded).
start_daemon() {
  local config=$1 log=$2 gpus=$3
  CUDA_VISIBLE_DEVICES=$(seq -s, 0 $((gpus - 1))) "$BIN/cuzk" serve --config "$config" \
    2>"$log" &
  DAEMON=$!
  for _ in $(seq 1200); do
    if "$BIN/cuzk" status --socket "$SOCKET" >/dev/null 2>&1; then return 0; fi
    if ! kill -0 "$DAEMON" 2>/dev/null; then
      cat "$log"
      echo "daemon-throughput: the daemon exited during start-up" >&2
      exit 1
    fi
    sleep 0.5
  done
  echo "daemon-throughput: the daemon did not answer within 600 s" >&2
  exit 1
}

# write_config PATH KEY_ID KEY_PATH VERIFY TIMELINE
write_config() {
  cat >"$1" <<TOML
[server]
socket = "$SOCKET"
http_address = ""
timeline_file = "$5"
timeline_flush_s = 1
[engine]
backend = "$BACKEND"
workers_per_gpu = $WORKERS
verify_proofs = $4
[keys]
preload = ["$2"]
check_subgroups = false
[keys.files]
$2 = "$3"
TOML
}

# submit KEY WTNS COUNT: queues a job of COUNT partitions (the same witness, by path).
submit() {
  local args=()
  for _ in $(seq "$3"); do args+=(--wtns "$2"); done
  "$BIN/cuzk" submit --socket "$SOCKET" --key "$1" --by-path "${args[@]}"
}

for n in $LOG_NS; do
  "$BIN/write_bench_key" --curve "$CURVE" --dir "$WORK" "$n"
  zkey="$WORK/bench_${CURVE}_$n.zkey"
  wtns="$WORK/bench_${CURVE}_$n.wtns"
  for g in $GPU_COUNTS; do
    name="${CURVE}_2p${n}_${g}gpu_K${WORKERS}"
    timeline="$WORK/timeline_$name.jsonl"
    write_config "$WORK/$name.toml" bench "$zkey" false "$timeline"
    start_daemon "$WORK/$name.toml" "$WORK/daemon_$name.log" "$g"
    preload_ms=$(grep -o 'event=key_preloaded.* ms=[0-9.]*' "$WORK/daemon_$name.log" |
      sed 's/.* ms=//' | head -n 1)
    "$BIN/cuzk" await --socket "$SOCKET" "$(submit bench "$wtns" $((WORKERS * g)))" >/dev/null
    t0=$(date +%s%N)
    job=$(submit bench "$wtns" "$PARTITIONS")
    "$BIN/cuzk" await --socket "$SOCKET" "$job" >"$WORK/result_$name.json"
    t1=$(date +%s%N)
    stop_daemon
    printf '{"timeline": "%s", "job": %s, "wall_ms": %s, "curve": "%s", "log_n": %s, "gpus": %s, "workers_per_gpu": %s, "partitions": %s, "preload_ms": %s}\n' \
      "$timeline" "$job" "$(((t1 - t0) / 1000))e-3" "$CURVE" "$n" "$g" "$WORKERS" \
      "$PARTITIONS" "${preload_ms:-null}" >>"$RUNS"
    grep -qi '"state": *"[a-z_]*succeeded"' "$WORK/result_$name.json" ||
      { cat "$WORK/result_$name.json"; echo "daemon-throughput: job $job failed" >&2; exit 1; }
  done
  rm -f "$zkey" "$wtns"
done

if [[ $BACKEND == cuda ]]; then
  gpus=$(nvidia-smi -L | wc -l)
  device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
else
  gpus=1
  device="$(nproc)-core CPU ($BACKEND backend)"
fi
python3 "$TOOLS/daemon_throughput.py" --runs "$RUNS" --out "$RESULTS" --device "$device" \
  --commit "${CUZK_BENCH_COMMIT:-unknown}" \
  --command "BACKEND=$BACKEND LOG_NS=\"$LOG_NS\" GPU_COUNTS=\"$GPU_COUNTS\" WORKERS=$WORKERS PARTITIONS=$PARTITIONS scripts/daemon-throughput.sh"

# Verified proofs from every GPU through the daemon.
v="$WORK/verified"
mkdir -p "$v"
"$BIN/cuzk" gen --curve "$CURVE" --shape porep --constraints "$VERIFY_CONSTRAINTS" --public 2 \
  --r1cs "$v/circuit.r1cs" --wtns "$v/circuit.wtns"
"$BIN/cuzk" setup "$v/circuit.r1cs" "$v/circuit.zkey" "$v/verification_key.json"
write_config "$v/daemon.toml" real "$v/circuit.zkey" true "$v/timeline.jsonl"
start_daemon "$v/daemon.toml" "$v/daemon.log" "$gpus"
job=$(submit real "$v/circuit.wtns" $((8 * gpus)))
"$BIN/cuzk" await --socket "$SOCKET" "$job" --proof "$v/proof.json" --public "$v/public.json" \
  >"$v/result.json"
stop_daemon
verified=0
for proof in "$v"/proof.*.json; do
  "$BIN/cuzk" verify "$v/verification_key.json" "${proof/proof./public.}" "$proof" >/dev/null
  verified=$((verified + 1))
done
devices=$(grep -o '"device":[0-9]*' "$v/timeline.jsonl" | sort -u | tr '\n' ' ')
echo "verified proofs through the daemon: $verified of $((8 * gpus)) checked by cuzk verify;" \
  "partitions proved on: $devices"
[[ $verified -eq $((8 * gpus)) ]]
[[ $(grep -o '"device":[0-9]*' "$v/timeline.jsonl" | sort -u | wc -l) -eq $gpus ]]
