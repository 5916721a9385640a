#!/usr/bin/env bash
# The supraseal C tests (tests/supraseal) with the GPU backend: builds the two libraries, the
# fixture tool, the C tests and the CLI for sm_90 (H100/H200), then runs every supraseal test
# (both libraries; porep, dense and chain circuits; batches of 1, 3 and 10; four threads;
# the fork's pending batches with gpu_index; every bad input; the exported symbols) and checks
# that the library's engine really ran on the GPU (its start line, backend=cuda).
#
#   scripts/gpu-supraseal.sh [BUILD_DIR]     from the repository root; default build/gpu
#
# Logs go to $OUT (default BUILD_DIR/gpu-supraseal). Exit status 0 only when all passed.
set -uo pipefail

BUILD_DIR=${1:-build/gpu}
OUT=${OUT:-$BUILD_DIR/gpu-supraseal}
mkdir -p "$OUT"
exec > >(tee "$OUT/gpu-supraseal.log") 2>&1
fail() {
  printf '\nGPU SUPRASEAL FAILED: %s\n' "$*"
  exit 1
}

echo "supraseal on the GPU: $(git rev-parse --short HEAD 2>/dev/null || echo unversioned), $(date -u '+%F %H:%M UTC')"
nvidia-smi -L || fail "no GPU visible"
source scripts/deps-env.sh
GENERATOR=()
command -v ninja >/dev/null && GENERATOR=(-G Ninja)
SERVICE=OFF
pkg-config --exists grpc++ 2>/dev/null && SERVICE=ON
cmake -S . -B "$BUILD_DIR" "${GENERATOR[@]}" -DCMAKE_BUILD_TYPE=Release -DCUZK_BUILD_SERVICE=$SERVICE \
  -DCMAKE_CUDA_ARCHITECTURES=90 -DCUZK_BUILD_FUZZERS=OFF "${CMAKE_DEPS_PREFIX[@]}" || fail "configuration"
cmake --build "$BUILD_DIR" -j "$(nproc)" --target cuzk cuzk_supraseal cuzk_supraseal_curio \
  cuzk_supraseal_static cuzk_supraseal_curio_static supraseal_fixture supraseal_c_test \
  supraseal_static_c_test \
  supraseal_curio_c_test || fail "the build"

# A configuration that forces the GPU backend: the tests fail rather than fall back to the CPU.
printf '[engine]\nbackend = "cuda"\n' >"$OUT/cuzk-gpu.toml"
export CUZK_CONFIG=$OUT/cuzk-gpu.toml
ctest --test-dir "$BUILD_DIR" -R '^supraseal' -V --timeout 600 >"$OUT/ctest.log" 2>&1
status=$?
grep -E '^[0-9]+: (supraseal test|[a-z]+: [0-9]+ proofs verified)|Test +#|tests passed|FAIL' \
  "$OUT/ctest.log" || true
grep -q 'event=supraseal_engine backend=cuda' "$OUT/ctest.log" ||
  fail "the library's engine did not start on the cuda backend (see $OUT/ctest.log)"
[[ $status -eq 0 ]] || fail "a supraseal test failed (see $OUT/ctest.log)"
echo "all supraseal tests passed on the GPU"
