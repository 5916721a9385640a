#!/usr/bin/env bash
# Every GPU check of this tree, in phases that fit one device machine's calls (from the
# repository root; each phase reuses what the earlier ones left in build/):
#
#   build     this tree's command, GPU prover and engine tests, supraseal libraries, C tests and
#             benchmark in build/gpu (Release, sm_90, no daemon), and the baseline's command in
#             build/compare-before from $BASELINE (default .prev/before.tar.gz, `git archive` of
#             the baseline commit) unless a build/compare-before/cuzk is there already
#   tests     scripts/gpu-assignment.sh, then scripts/gpu-supraseal.sh (the C tests on the GPU)
#   compare   scripts/gpu-prove-compare.sh run: `cuzk prove` of both builds on the GPU cases
#   bench     scripts/gpu-supraseal-bench.sh at $BENCH_SIZES (default 24)
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
      AFTER_TARGETS="bench_supraseal_abi supraseal_static_c_test" OUT=$OUT/build \
        scripts/gpu-prove-compare.sh "$BASELINE" build
      ;;
    tests)
      OUT=$OUT/assignment scripts/gpu-assignment.sh build/gpu &&
        OUT=$OUT/supraseal scripts/gpu-supraseal.sh build/gpu
      ;;
    compare)
      OUT=$OUT/compare RUNS=${RUNS:-3} scripts/gpu-prove-compare.sh "$BASELINE" run \
        ${COMPARE_CASES:-cuda:bls12_381:porep:22 cuda:bls12_381:porep:22:params \
        cuda:bn254:chain:22 cuda:bls12_381:porep:24}
      ;;
    bench)
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
