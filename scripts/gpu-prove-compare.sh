#!/usr/bin/env bash
# `cuzk prove` of this tree against a baseline on a GPU machine: both built there, then timed on
# the same circuits and keys, alternating runs (bench/groth16/compare_builds.py), on the CPU
# (two cores) and on the GPU. For changes that must keep the command's speed.
#
#   scripts/gpu-prove-compare.sh BASELINE.tar.gz build     (from the repository root)
#   scripts/gpu-prove-compare.sh BASELINE.tar.gz run [CASE...]
#
# BASELINE.tar.gz is `git archive <commit> | gzip` of the baseline. `build` configures and builds
# the cuzk command of both trees (Release, CUDA architecture 90, no daemon) in
# build/compare-{after,before}, and this tree's GPU tests too (scripts/gpu-check.sh
# build/compare-after runs them); `run` times the cases (default below) and writes
# $OUT/prove_compare.json. .deps/ in the repository root is used as in scripts/gpu-check.sh.
set -euo pipefail
archive=$1
step=$2
shift 2
OUT=${OUT:-build/compare-out}
mkdir -p "$OUT"
if [[ -d .deps ]]; then
  DEPS=$(pwd)/.deps
  export LD_LIBRARY_PATH="$DEPS/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
  export LIBRARY_PATH="$DEPS/usr/lib/x86_64-linux-gnu:${LIBRARY_PATH:-}"
  export CPATH="$DEPS/usr/include:$DEPS/usr/include/x86_64-linux-gnu:${CPATH:-}"
  export PKG_CONFIG_PATH="$DEPS/usr/lib/x86_64-linux-gnu/pkgconfig:$DEPS/usr/share/pkgconfig:${PKG_CONFIG_PATH:-}"
  PREFIX=("-DCMAKE_PREFIX_PATH=$DEPS;$DEPS/usr")
else
  PREFIX=()
fi
export PATH=/usr/local/cuda/bin:$PATH
before_src=build/compare-before-src
case $step in
  build)
    rm -rf "$before_src" && mkdir -p "$before_src" && tar -xzf "$archive" -C "$before_src"
    configure() {
      cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DCUZK_BUILD_SERVICE=OFF -DCUZK_BUILD_TESTS="$3" -DCUZK_BUILD_BENCH=OFF \
        -DCUZK_BUILD_FUZZERS=OFF "${PREFIX[@]}" >"$OUT/configure_$(basename "$2").log"
    }
    configure . build/compare-after ON
    configure "$before_src" build/compare-before OFF
    cmake --build build/compare-after --target cuzk cuzk_gpu_tests -j 10 >"$OUT/build_after.log" 2>&1 &
    after=$!
    cmake --build build/compare-before --target cuzk -j 6 >"$OUT/build_before.log" 2>&1 &
    before=$!
    wait $after || { tail -n 40 "$OUT/build_after.log"; exit 1; }
    wait $before || { tail -n 40 "$OUT/build_before.log"; exit 1; }
    ls -la build/compare-after/cuzk build/compare-before/cuzk
    ;;
  run)
    cases=("$@")
    if ((${#cases[@]} == 0)); then
      cases=(cpu:bn254:chain:16 cpu:bls12_381:chain:16 cpu:bn254:chain:18
             cuda:bls12_381:porep:20 cuda:bls12_381:porep:22 cuda:bls12_381:porep:22:params
             cuda:bn254:chain:22 cuda:bls12_381:porep:24)
    fi
    device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
    python3 bench/groth16/compare_builds.py --before build/compare-before/cuzk \
      --after build/compare-after/cuzk --cases "${cases[@]}" --runs 5 --device "$device" \
      --out "$OUT/prove_compare.json"
    ;;
  *)
    echo "unknown step $step (build or run)" >&2
    exit 2
    ;;
esac
