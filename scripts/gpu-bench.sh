#!/usr/bin/env bash
# The GPU benchmarks: builds every GPU benchmark (CMake target cuzk_gpu_benches) and runs each
# with its default sizes, writing JSON in the shape of DESIGN.md §6 to $OUT.
#
#   scripts/gpu-bench.sh [BUILD_DIR] [-- extra arguments for every benchmark]
#
# BUILD_DIR defaults to build/gpu and is configured as scripts/gpu-check.sh configures it (run
# that first on the same machine to share the build). Each benchmark binary bench/gpu/<op>/
# bench_<name> takes `--json <file>`; CUZK_BENCH_COMMIT and CUZK_BENCH_DATE label the results.
# Copy the JSON files to bench/results/<topic>/<date>_h200_<commit>_<op>.json and list them in
# bench/results/INDEX.md to commit them.
set -uo pipefail

BUILD_DIR=${1:-build/gpu}
shift || true
[[ ${1:-} == "--" ]] && shift
OUT=${OUT:-$BUILD_DIR/gpu-bench}
mkdir -p "$OUT"
exec > >(tee "$OUT/gpu-bench.log") 2>&1

fail() {
  printf '\nGPU BENCH FAILED: %s\n' "$*"
  exit 1
}

export CUZK_BENCH_COMMIT=${CUZK_BENCH_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
export CUZK_BENCH_DATE=${CUZK_BENCH_DATE:-$(date -u +%Y-%m-%d)}
if [[ -d .deps ]]; then
  DEPS=$(pwd)/.deps
  export LD_LIBRARY_PATH="$DEPS/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
fi
[[ -f "$BUILD_DIR/CMakeCache.txt" ]] || fail "$BUILD_DIR is not configured: run scripts/gpu-check.sh $BUILD_DIR first"
cmake --build "$BUILD_DIR" --target cuzk_gpu_benches -j "$(nproc)" || fail "the build failed"

status=0
for binary in "$BUILD_DIR"/bench/gpu/*/bench_*; do
  [[ -x $binary ]] || continue
  name=$(basename "$binary")
  printf '\n==== %s ====\n' "$name"
  "$binary" --json "$OUT/$name.json" "$@" || status=1
done
[[ $status -eq 0 ]] || fail "at least one benchmark failed"
printf '\nGPU BENCH DONE: JSON in %s\n' "$OUT"
