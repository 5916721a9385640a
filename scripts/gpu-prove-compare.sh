#!/usr/bin/env bash
# `cuzk prove` of this tree against a baseline on a GPU machine: both built there, then timed on
# the same circuits and keys, alternating runs (bench/groth16/compare_builds.py), on the CPU
# (two cores) and on the GPU. For changes that must keep the command's speed.
#
#   scripts/gpu-prove-compare.sh BASELINE.tar.gz build     (from the repository root)
#   scripts/gpu-prove-compare.sh BASELINE.tar.gz run [CASE...]
#
# BASELINE.tar.gz is `git archive <commit> | gzip` of the baseline. `build` configures and builds
# the cuzk command of both trees (Release, CUDA architecture 90, no daemon): the baseline in
# build/compare-before, this tree in $AFTER_DIR (default build/gpu) with its GPU prover and
# engine tests, the supraseal libraries and their tests too (AFTER_TARGETS adds more, e.g.
# bench_supraseal_abi; CUZK_ONLY=1 builds the command alone), so that scripts/gpu-supraseal.sh
# finds them built there; a build/compare-before/cuzk already there is used as the baseline; `run` times the cases
# (default below) and writes $OUT/prove_compare.json. .deps/ in the repository root is used as
# in scripts/gpu-check.sh.
set -euo pipefail
archive=$1
step=$2
shift 2
OUT=${OUT:-build/compare-out}
mkdir -p "$OUT"
source scripts/deps-env.sh
before_src=build/compare-before-src
AFTER_DIR=${AFTER_DIR:-build/gpu}
case $step in
  build)
    rm -rf "$before_src" && mkdir -p "$before_src" && tar -xzf "$archive" -C "$before_src"
    configure() {
      cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DCUZK_BUILD_SERVICE=OFF -DCUZK_BUILD_TESTS="$3" -DCUZK_BUILD_BENCH="$3" \
        -DCUZK_BUILD_FUZZERS=OFF "${CMAKE_DEPS_PREFIX[@]}" >"$OUT/configure_$(basename "$2").log"
    }
    configure . "$AFTER_DIR" ON
    # A baseline command built elsewhere for sm_90 may be there already (carried in).
    [[ -x build/compare-before/cuzk ]] && baseline_built=1 || baseline_built=0
    ((baseline_built)) || configure "$before_src" build/compare-before OFF
    targets=(cuzk cuzk_gpu_prover_test cuzk_gpu_engine_test cuzk_supraseal cuzk_supraseal_curio
             cuzk_supraseal_static cuzk_supraseal_curio_static supraseal_fixture
             supraseal_c_test supraseal_curio_c_test ${AFTER_TARGETS:-})
    [[ ${CUZK_ONLY:-0} == 1 ]] && targets=(cuzk)  # the command alone, for timings
    cmake --build "$AFTER_DIR" --target "${targets[@]}" -j 12 >"$OUT/build_after.log" 2>&1 &
    after=$!
    if ((baseline_built)); then
      true &
    else
      cmake --build build/compare-before --target cuzk -j 6 >"$OUT/build_before.log" 2>&1 &
    fi
    before=$!
    wait $after || { tail -n 40 "$OUT/build_after.log"; exit 1; }
    wait $before || { tail -n 40 "$OUT/build_before.log"; exit 1; }
    ls -la "$AFTER_DIR/cuzk" build/compare-before/cuzk
    ;;
  run)
    cases=("$@")
    if ((${#cases[@]} == 0)); then
      cases=(cpu:bn254:chain:16 cpu:bls12_381:chain:16 cuda:bls12_381:porep:22
             cuda:bls12_381:porep:22:params cuda:bls12_381:porep:24)
    fi
    device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
    python3 bench/groth16/compare_builds.py --before build/compare-before/cuzk \
      --after "$AFTER_DIR/cuzk" --cases "${cases[@]}" --runs "${RUNS:-5}" --device "$device" \
      --out "$OUT/prove_compare.json"
    ;;
  *)
    echo "unknown step $step (build or run)" >&2
    exit 2
    ;;
esac
