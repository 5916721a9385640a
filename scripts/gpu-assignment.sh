#!/usr/bin/env bash
# The GPU prover from bellman assignments (src/gpu/prover/assignment_prover.hpp) on a machine
# with an NVIDIA GPU: builds the GPU prover's tests (sm_90) and runs them, the assignment tests
# first (proofs byte-equal to the CPU's prove_bellman_assignment: key in VRAM without matrices,
# streamed from pinned memory, with an H table; refusals), then the rest of the prover's tests
# (the circuit path shares its stages with the assignment path), and the engine's cuda backend
# proving assignments with a .params key registered without matrices.
#
#   scripts/gpu-assignment.sh [BUILD_DIR]    run from the repository root; BUILD_DIR defaults
#                                            to build/gpu-assignment
#
# Logs and gtest's JSON reports go to $OUT (default BUILD_DIR/gpu-assignment). Exit status 0
# only if the build and every test passed; a missing GPU is a failure (CUZK_REQUIRE_GPU=1).
set -uo pipefail

BUILD_DIR=${1:-build/gpu-assignment}
OUT=${OUT:-$BUILD_DIR/gpu-assignment}
mkdir -p "$OUT"
LOG="$OUT/gpu-assignment.log"
exec > >(tee "$LOG") 2>&1

section() { printf '\n==== %s ====\n' "$*"; }
fail() {
  printf '\nGPU ASSIGNMENT CHECK FAILED: %s\n' "$*"
  exit 1
}

section "$(git rev-parse --short HEAD 2>/dev/null || echo 'an unversioned tree') on $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC')"
nvidia-smi || echo "nvidia-smi failed: no driver or no GPU visible"

source scripts/deps-env.sh
CMAKE_PREFIX_ARGS=("${CMAKE_DEPS_PREFIX[@]}")

BINARY="$BUILD_DIR/tests/gpu/cuzk_gpu_prover_test"
if [[ ! -x "$BINARY" || ! -x "$BUILD_DIR/tests/gpu/cuzk_gpu_engine_test" ]]; then
  section "configuring and building the GPU prover's tests in $BUILD_DIR"
  GENERATOR=()
  command -v ninja >/dev/null && GENERATOR=(-G Ninja)
  cmake -S . -B "$BUILD_DIR" "${GENERATOR[@]}" -DCMAKE_BUILD_TYPE=Release -DCUZK_BUILD_SERVICE=OFF \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DCUZK_BUILD_BENCH=OFF -DCUZK_BUILD_FUZZERS=OFF \
    "${CMAKE_PREFIX_ARGS[@]}" || fail "CMake configuration failed"
  cmake --build "$BUILD_DIR" --target cuzk_gpu_prover_test cuzk_gpu_engine_test -j "$(nproc)" ||
    fail "the build failed"
fi

export CUZK_REQUIRE_GPU=1
status=0
section "assignment tests"
"$BINARY" --gtest_filter='GpuAssignment*' --gtest_output="json:$OUT/assignment.json" || status=1
section "the engine on the cuda backend: assignments with a .params key alone (VRAM, pinned)"
"$BUILD_DIR/tests/gpu/cuzk_gpu_engine_test" --gtest_filter='*Assignment*' \
  --gtest_output="json:$OUT/engine_assignment.json" || status=1
section "the rest of the GPU prover's tests"
"$BINARY" --gtest_filter='-GpuAssignment*' --gtest_output="json:$OUT/prover.json" || status=1

section "summary"
grep -h -E '^\[gpu-diff\]' "$LOG" || true
grep -h -E '^\[  (PASSED|FAILED|SKIPPED) \]' "$LOG" || true
[[ $status -eq 0 ]] || fail "at least one test failed (see the [gpu-diff] lines)"
printf '\nGPU ASSIGNMENT CHECK PASSED: GPU proofs from assignments equal the CPU prover'"'"'s.\n'
