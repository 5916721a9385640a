#!/usr/bin/env bash
# Every GPU check of this tree, in phases that fit one device machine's calls (from the
# repository root; each phase reuses what the earlier ones left in build/):
#
#   build     this tree's command, GPU prover and engine tests, supraseal libraries, C tests and
#             benchmark in build/gpu (Release, sm_90, no daemon), and the baseline's command in
#             build/compare-before from $BASELINE (default .prev/before.tar.gz, `git archive` of
#             the baseline commit) unless a build/compare-before/cuzk is there already; with
#             neither, this tree's targets alone
#   tests     the MSM's pinned and batched tests, scripts/gpu-assignment.sh, every engine test on
#             the cuda backend, then scripts/gpu-supraseal.sh (the C tests on the GPU)
#   compare   scripts/gpu-prove-compare.sh run: `cuzk prove` of both builds on the GPU cases
#   bench     bench_host_upload (2 and 8 GiB), scripts/gpu-supraseal-bench.sh at $BENCH_SIZES
#             (default 24)
#
#   scripts/gpu-all.sh PHASE...        logs and results under $OUT (default build/gpu-all)
#
# Exit status: that of the first phase that failed (the later ones still run).
set -uo pipefail
export OUT=${OUT:-build/gpu-all}
mkdir -p "$OUT"
BASELINE=${BASELINE:-.prev/before.tar.gz}
status=0
for phase in "$@"; do
  start=$(date +%s)
  echo "==== $phase ($(date -u '+%H:%M:%S UTC'))"
  case $phase in
    build)
      if [[ -f $BASELINE || -x build/compare-before/cuzk ]]; then
        AFTER_TARGETS="bench_supraseal_abi supraseal_static_c_test cuzk_gpu_msm_test bench_host_upload" \
          OUT=$OUT/build scripts/gpu-prove-compare.sh "$BASELINE" build
      else
        # No baseline: this tree's targets alone.
        source scripts/deps-env.sh
        mkdir -p "$OUT/build"
        cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
          -DCUZK_BUILD_SERVICE=OFF -DCUZK_BUILD_TESTS=ON -DCUZK_BUILD_BENCH=ON \
          -DCUZK_BUILD_FUZZERS=OFF "${CMAKE_DEPS_PREFIX[@]}" >"$OUT/build/configure.log" &&
          cmake --build build/gpu -j "$(nproc)" --target cuzk cuzk_gpu_prover_test \
            cuzk_gpu_engine_test cuzk_gpu_msm_test cuzk_supraseal cuzk_supraseal_curio \
            cuzk_supraseal_static cuzk_supraseal_curio_static supraseal_fixture supraseal_c_test \
            supraseal_curio_c_test supraseal_static_c_test bench_supraseal_abi bench_host_upload \
            >"$OUT/build/build.log" 2>&1 || { tail -n 40 "$OUT/build/build.log"; false; }
      fi
      ;;
    tests)
      # The MSM's streamed and batched paths, then the provers and the engine's cuda backend
      # (every test: the pinned-key jobs compute their partitions in groups), then the C tests.
      build/gpu/tests/gpu/cuzk_gpu_msm_test --gtest_filter='*Batch*:*Pinned*:*ScalarIndex*:*BadArguments*' \
        --gtest_output="json:$OUT/msm.json" >"$OUT/msm.log" 2>&1 &&
        OUT=$OUT/assignment scripts/gpu-assignment.sh build/gpu &&
        build/gpu/tests/gpu/cuzk_gpu_engine_test --gtest_output="json:$OUT/engine.json" \
          >"$OUT/engine.log" 2>&1 &&
        OUT=$OUT/supraseal scripts/gpu-supraseal.sh build/gpu
      ;;
    compare)
      OUT=$OUT/compare RUNS=${RUNS:-3} scripts/gpu-prove-compare.sh "$BASELINE" run \
        ${COMPARE_CASES:-cuda:bls12_381:porep:22 cuda:bls12_381:porep:22:params \
        cuda:bn254:chain:22 cuda:bls12_381:porep:24}
      ;;
    bench)
      # The uploads of a 2^24 and a 2^26 assignment's inputs (a, b, c, assignments), then the
      # supraseal C interface.
      mkdir -p "$OUT/bench"
      for bytes in 2GiB 8GiB; do
        build/gpu/bench/gpu/engine/bench_host_upload --bytes $bytes --runs 3 \
          --json "$OUT/bench/host_upload_$bytes.json"
      done
      OUT=$OUT/bench scripts/gpu-supraseal-bench.sh build/gpu ${BENCH_SIZES:-24}
      ;;
    *)
      echo "unknown phase $phase (build, tests, compare or bench)" >&2
      false
      ;;
  esac
  rc=$?
  echo "==== $phase: exit $rc after $(($(date +%s) - start)) s"
  ((rc != 0 && status == 0)) && status=$rc
done
exit $status
