#!/usr/bin/env bash
# Builds cuzk once (Release; CUDA sources are compiled too when nvcc is on PATH or in
# /usr/local/cuda) and runs every test with CTest. GPU tests skip themselves without a GPU.
# CUZK_TEST_SCALE scales randomized case counts (default 1); CUZK_JOBS sets parallelism.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=${CUZK_JOBS:-$(nproc)}
if ! command -v nvcc >/dev/null && [[ -x /usr/local/cuda/bin/nvcc ]]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
cmake --preset release
cmake --build --preset release -j "$jobs"
ctest --preset release -j "$jobs" --timeout 900
