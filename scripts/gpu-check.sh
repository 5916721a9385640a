#!/usr/bin/env bash
# The GPU check: builds (if needed) and runs the GPU differential tests on a machine with an
# NVIDIA GPU. Every device operation is compared bit for bit with the host reference; the
# field-multiplication throughput is printed for information.
#
#   scripts/gpu-check.sh [BUILD_DIR]     run from the repository root; BUILD_DIR defaults to
#                                        build/gpu
#
# - If BUILD_DIR already holds the test binaries (built elsewhere and carried along), they are
#   run as they are; otherwise BUILD_DIR is configured (Release, CUDA architecture 90, no
#   fuzzers; the daemon only where gRPC is installed) and only the GPU tests and the CLI are
#   built (scripts/gpu-bench.sh builds the GPU benchmarks in the same directory).
# - Then the CLI proves on the GPU as a user would: `cuzk example --backend cuda` on both
#   curves (a development key, a proof, its verification), and again with the key streamed
#   from pinned host memory (`cuzk prove --key-memory host`).
# - If .deps/ exists in the repository root (packages unpacked there, e.g. GoogleTest and GMP
#   for a machine without them), its lib/ goes on LD_LIBRARY_PATH and it becomes a CMake
#   prefix.
# - Logs and gtest's JSON reports are written to $OUT (default BUILD_DIR/gpu-check).
# - Exit status: 0 only if the build and every test passed. A missing GPU is a failure here
#   (CUZK_REQUIRE_GPU=1), not a skip as in CI.
set -uo pipefail

BUILD_DIR=${1:-build/gpu}
OUT=${OUT:-$BUILD_DIR/gpu-check}
mkdir -p "$OUT"
LOG="$OUT/gpu-check.log"
exec > >(tee "$LOG") 2>&1

section() { printf '\n==== %s ====\n' "$*"; }
fail() {
  printf '\nGPU CHECK FAILED: %s\n' "$*"
  exit 1
}

section "GPU check of $(git rev-parse --short HEAD 2>/dev/null || echo 'an unversioned tree') on $(hostname), $(date -u '+%Y-%m-%d %H:%M UTC')"
nvidia-smi || echo "nvidia-smi failed: no driver or no GPU visible"
nvcc --version 2>/dev/null | tail -n 2 || echo "nvcc not found"
cmake --version | head -n 1

CMAKE_PREFIX_ARGS=()
if [[ -d .deps ]]; then
  DEPS=$(pwd)/.deps
  echo "using dependencies from $DEPS"
  export LD_LIBRARY_PATH="$DEPS/lib:$DEPS/lib/x86_64-linux-gnu:$DEPS/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
  export PKG_CONFIG_PATH="$DEPS/lib/pkgconfig:$DEPS/lib/x86_64-linux-gnu/pkgconfig:$DEPS/usr/lib/x86_64-linux-gnu/pkgconfig:${PKG_CONFIG_PATH:-}"
  CMAKE_PREFIX_ARGS=("-DCMAKE_PREFIX_PATH=$DEPS;$DEPS/usr")
fi

TEST_BINARIES=("$BUILD_DIR"/tests/gpu/*_test)
if [[ -x "${TEST_BINARIES[0]}" ]]; then
  section "using the test binaries already built in $BUILD_DIR"
else
  section "configuring and building the GPU tests in $BUILD_DIR"
  GENERATOR=()
  command -v ninja >/dev/null && GENERATOR=(-G Ninja)
  # The daemon (and the cuzk commands using it) only where gRPC's packages are installed.
  SERVICE=OFF
  pkg-config --exists grpc++ 2>/dev/null && SERVICE=ON
  cmake -S . -B "$BUILD_DIR" "${GENERATOR[@]}" -DCMAKE_BUILD_TYPE=Release -DCUZK_BUILD_SERVICE=$SERVICE \
    -DCMAKE_CUDA_ARCHITECTURES=90 -DCUZK_BUILD_BENCH=ON -DCUZK_BUILD_FUZZERS=OFF "${CMAKE_PREFIX_ARGS[@]}" ||
    fail "CMake configuration failed (see above; missing GoogleTest or GMP can be supplied in .deps/)"
  TARGETS=(cuzk_gpu_tests cuzk)
  cmake --build "$BUILD_DIR" --target "${TARGETS[@]}" -j "$(nproc)" || fail "the build failed"
  TEST_BINARIES=("$BUILD_DIR"/tests/gpu/*_test)
fi

export CUZK_REQUIRE_GPU=1
status=0
for binary in "${TEST_BINARIES[@]}"; do
  name=$(basename "$binary")
  section "running $name"
  "$binary" --gtest_output="json:$OUT/$name.json" || status=1
done

# The operator's check: `cuzk selftest` runs the host checks of both curves and the device
# arithmetic check through the library, as a user would on a new machine.
if [[ -x "$BUILD_DIR/cuzk" ]]; then
  section "cuzk selftest"
  "$BUILD_DIR/cuzk" selftest --json >"$OUT/selftest.json" || status=1
  "$BUILD_DIR/cuzk" selftest || status=1
  for curve in bn254 bls12_381; do
    section "cuzk example --backend cuda --curve $curve"
    "$BUILD_DIR/cuzk" example --backend cuda --curve "$curve" --dir "$OUT/example-$curve" || status=1
    # The same files with the key streamed from pinned host memory (keys larger than VRAM).
    ex="$OUT/example-$curve"
    section "cuzk prove --backend cuda --key-memory host --curve $curve"
    "$BUILD_DIR/cuzk" prove --backend cuda --key-memory host "$ex/circuit.zkey" "$ex/witness.wtns" \
      "$ex/proof_streamed.json" "$ex/public_streamed.json" &&
      "$BUILD_DIR/cuzk" verify "$ex/verification_key.json" "$ex/public_streamed.json" \
        "$ex/proof_streamed.json" || status=1
  done
fi

section "summary"
grep -h -E '^\[gpu-(diff|throughput)\]' "$LOG" | grep -v '^\[gpu-throughput\] device' || true
grep -h -E '^\[gpu-throughput\] device' "$LOG" || true
grep -h -E '^\[  (PASSED|FAILED|SKIPPED) \]' "$LOG" || true
if [[ $status -ne 0 ]]; then
  fail "at least one test failed (the [gpu-diff] lines above show which check and how many mismatches)"
fi
printf '\nGPU CHECK PASSED: device results equal the host reference.\n'
