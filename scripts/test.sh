#!/usr/bin/env bash
# Builds cuzk once (Release; CUDA sources are compiled too when nvcc is on PATH or in
# /usr/local/cuda) and runs every test with CTest. GPU tests skip themselves without a GPU.
# Then the engine's tests under ThreadSanitizer (CUZK_SKIP_TSAN=1 skips them).
# Then every libFuzzer target runs briefly (fuzz/run-briefly.sh; needs clang, which
# scripts/setup.sh installs).
# CUZK_TEST_SCALE scales randomized case counts (default 1); CUZK_JOBS sets parallelism;
# CUZK_FUZZ_SECONDS sets the seconds per fuzz target (default 20, 0 skips fuzzing).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${CUZK_JOBS:-$(nproc)}
if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
cmake --preset release
cmake --build --preset release -j "$jobs"
ctest --preset release -j "$jobs" --timeout 900
# ThreadSanitizer: the engine's tests in a build of their own (engine_test only: components,
# the sim facade, and the 32-client stress run at CUZK_TSAN_SCALE, default 16 = 10,000
# partitions per K = 1..4). -O1 -g1 compiles a quarter faster than -O2 -g and keeps line numbers
# in reports; about 5 minutes on 2 cores. CUZK_SKIP_TSAN=1 skips it.
if [[ ${CUZK_SKIP_TSAN:-0} != 1 ]]; then
  cmake -S . -B build/tsan-engine -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DCMAKE_CXX_FLAGS=-fsanitize=thread -fno-omit-frame-pointer" \
    "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
    -DCMAKE_CUDA_COMPILER=CMAKE_CUDA_COMPILER-NOTFOUND -DCUZK_BUILD_BENCH=OFF
  cmake --build build/tsan-engine --target engine_test -j "$jobs"
  build/tsan-engine/tests/engine/engine_test --gtest_filter='-*Stress*'
  CUZK_TEST_SCALE=${CUZK_TSAN_SCALE:-16} build/tsan-engine/tests/engine/engine_test \
    --gtest_filter='*Stress*'
fi
# Every libFuzzer target briefly (fuzz/run-briefly.sh: its own clang build in build/fuzz).
fuzz_seconds=${CUZK_FUZZ_SECONDS:-20}
if [[ $fuzz_seconds != 0 ]]; then
  CUZK_FUZZ_SECONDS=$fuzz_seconds CUZK_FUZZ_JOBS=$jobs fuzz/run-briefly.sh
fi
