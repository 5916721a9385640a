#!/usr/bin/env bash
# Where the NTT pass kernels' warps wait, instruction by instruction: Nsight Compute's full set
# (warp-state sampling included) on the three passes of one BLS12-381 forward transform of
# 2^LOG_N elements (default 27; natural → bit-reversed, the benchmark's `ntt`), and the
# kernels' SASS. Run on a GPU machine from the repository root:
#
#   scripts/gpu-ntt-profile.sh BENCH OUT_DIR
#
# BENCH: a bench_gpu_ntt binary (a build's bench/gpu/ntt/bench_gpu_ntt, or a variant's `bench`
# from scripts/gpu-variants.sh). Writes to OUT_DIR: ntt_pass.ncu-rep (the report), details.csv
# (every section's metrics), source.csv (one row per SASS instruction: samples by stall reason,
# executed counts), pass_kernel.sass (cuobjdump) and summary.txt (tools/ncu_source_summary.py).
# The benchmark's warm-up transform launches the first three pass kernels; the profiled ones
# are the next three, the timed run. TWIDDLES (compact or full, default compact) picks the
# twiddle tables. Clocks are left as the card runs them (--clock-control none), as the
# benchmarks run.
set -euo pipefail

fail() {
  printf 'gpu-ntt-profile: %s\n' "$*" >&2
  exit 1
}

[[ $# -eq 2 ]] || fail "usage: scripts/gpu-ntt-profile.sh BENCH OUT_DIR"
bench=$1
out=$2
[[ -x $bench ]] || fail "$bench is not an executable"
mkdir -p "$out"
# A CUDA tool on PATH or where the toolkit and Nsight Compute install it; empty if none.
find_tool() {
  command -v "$1" || ls /usr/local/cuda/bin/"$1" /opt/nvidia/nsight-compute/*/"$1" 2>/dev/null |
    head -1 || true
}
ncu=$(find_tool ncu)
[[ -n $ncu ]] || fail "ncu not found"
cuobjdump=$(find_tool cuobjdump)

"$ncu" --set full --import-source no --clock-control none -k regex:pass_kernel \
  --launch-skip 3 --launch-count 3 -f -o "$out/ntt_pass" \
  "$bench" --runs 1 --no-h --twiddles "${TWIDDLES:-compact}" "${LOG_N:-27}" >"$out/ncu.log" 2>&1 ||
  { tail -n 20 "$out/ncu.log"; fail "profiling failed (see $out/ncu.log)"; }
"$ncu" --import "$out/ntt_pass.ncu-rep" --page details --csv >"$out/details.csv" ||
  fail "exporting the details page"
# --print-source asks for the SASS view; a version of Nsight Compute without the option gets
# the page's default view (SASS where the binary has no line information, as here).
report=$out/ntt_pass.ncu-rep
"$ncu" --import "$report" --page source --csv --print-source sass >"$out/source.csv" ||
  "$ncu" --import "$report" --page source --csv >"$out/source.csv" ||
  fail "exporting the source page"
if [[ -n $cuobjdump ]]; then
  # Every function whose name holds pass_kernel, from its header to the next function's.
  "$cuobjdump" -sass "$bench" |
    awk '/Function : / {keep = /pass_kernel/} keep' >"$out/pass_kernel.sass" ||
    fail "disassembling $bench"
fi
python3 tools/ncu_source_summary.py "$out/source.csv" >"$out/summary.txt" ||
  fail "summarizing $out/source.csv"
grep -E '^==|samples, ' "$out/summary.txt"
printf 'gpu-ntt-profile: results in %s\n' "$out"
