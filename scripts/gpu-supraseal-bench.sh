#!/usr/bin/env bash
# The supraseal C interface on the GPU (op "supraseal_abi", bench/README.md): 10 porep-shaped
# circuits per generate_groth16_proofs_c call at 2^24 and 2^26, the key in VRAM, and again with
# the VRAM the engine may use capped at 24 GB (a 1 GiB key budget and a 23 GiB partition arena:
# the key stays in pinned host memory and is streamed; one worker per GPU, so that the circuits
# of a call are computed in groups as large as the arena holds, each crossing PCIe once). Writes one results file per run under
# $OUT and their concatenation, $OUT/supraseal_abi.json.
#
#   scripts/gpu-supraseal-bench.sh [BUILD_DIR] [LOG_N...]     default build/gpu, 24 26
#
# Circuits and keys are made once under $WORK (default BUILD_DIR/supraseal-bench): `cuzk gen`
# and the development setup `cuzk setup ... .params` (minutes at 2^26 on 16 cores).
# CIRCUITS (10) and CALLS (3) override the batch size and the calls per measurement, RESIDENCIES
# ("vram capped") the runs.
set -uo pipefail

BUILD_DIR=${1:-build/gpu}
shift || true
SIZES=("$@")
[[ ${#SIZES[@]} -gt 0 ]] || SIZES=(24 26)
OUT=${OUT:-$BUILD_DIR/gpu-supraseal-bench}
WORK=${WORK:-$BUILD_DIR/supraseal-bench}
CIRCUITS=${CIRCUITS:-10}
CALLS=${CALLS:-3}
mkdir -p "$OUT" "$WORK"
exec > >(tee "$OUT/gpu-supraseal-bench.log") 2>&1
fail() {
  printf '\nSUPRASEAL BENCH FAILED: %s\n' "$*"
  exit 1
}

nvidia-smi -L || fail "no GPU visible"
source scripts/deps-env.sh
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unversioned)
GENERATOR=()
command -v ninja >/dev/null && GENERATOR=(-G Ninja)
SERVICE=OFF
pkg-config --exists grpc++ 2>/dev/null && SERVICE=ON
cmake -S . -B "$BUILD_DIR" "${GENERATOR[@]}" -DCMAKE_BUILD_TYPE=Release -DCUZK_BUILD_SERVICE=$SERVICE \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DCUZK_BUILD_FUZZERS=OFF -DCUZK_BUILD_BENCH=ON "${CMAKE_DEPS_PREFIX[@]}" || fail "configuration"
cmake --build "$BUILD_DIR" -j "$(nproc)" --target cuzk bench_supraseal_abi || fail "the build"
BENCH=$BUILD_DIR/bench/supraseal/bench_supraseal_abi

printf '[engine]\nbackend = "cuda"\n' >"$OUT/vram.toml"
printf '[engine]\nbackend = "cuda"\nworkers_per_gpu = 1\nvram_arena_bytes = "23GiB"\n[keys.budgets]\nvram = "1GiB"\npinned = "200GiB"\n' \
  >"$OUT/capped.toml"

results=()
for log_n in "${SIZES[@]}"; do
  dir=$WORK/porep_$log_n
  if [[ ! -f $dir/key.params ]]; then
    mkdir -p "$dir"
    # bellman's domain holds the constraints and one row per public input (the one included).
    constraints=$(((1 << log_n) - 8))
    echo "making a porep circuit of $constraints constraints and its key (2^$log_n)"
    "$BUILD_DIR/cuzk" gen --curve bls12_381 --shape porep --constraints "$constraints" --public 4 \
      --r1cs "$dir/circuit.r1cs" --wtns "$dir/witness.wtns" || fail "cuzk gen 2^$log_n"
    "$BUILD_DIR/cuzk" setup "$dir/circuit.r1cs" "$dir/key.params" "$dir/key.vk" ||
      fail "cuzk setup 2^$log_n"
  fi
  for residency in ${RESIDENCIES:-vram capped}; do
    out=$OUT/supraseal_abi_2p${log_n}_$residency.json
    echo "2^$log_n, key $residency: $CIRCUITS circuits per call, $CALLS calls"
    CUZK_CONFIG=$OUT/$residency.toml "$BENCH" --params "$dir/key.params" --r1cs "$dir/circuit.r1cs" \
      --wtns "$dir/witness.wtns" --log-n "$log_n" --circuits "$CIRCUITS" --calls "$CALLS" \
      --device "$device" --commit "$commit" --command "scripts/gpu-supraseal-bench.sh ($residency)" \
      >"$out" 2>"$OUT/supraseal_abi_2p${log_n}_$residency.log" || fail "2^$log_n $residency (see its .log)"
    cat "$out"
    results+=("$out")
  done
done
python3 - "$OUT/supraseal_abi.json" "$device" "$commit" "${results[@]}" <<'PY'
import datetime, json, sys
out, device, commit, files = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
entries = [e for f in files for e in json.load(open(f))["results"]]
json.dump({"device": device, "commit": commit, "date": datetime.date.today().isoformat(),
           "command": "scripts/gpu-supraseal-bench.sh", "results": entries}, open(out, "w"), indent=1)
print("wrote", out)
PY
