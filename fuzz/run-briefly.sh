#!/usr/bin/env bash
# Builds the fuzz targets with clang into build/fuzz, writes their seed corpus with the
# formats' own writers, and runs each target for CUZK_FUZZ_SECONDS seconds (default 20).
# Exits non-zero on the first finding; the crashing input is left in build/fuzz/findings/.
#
#   fuzz/run-briefly.sh                      # all five targets, 20 s each
#   CUZK_FUZZ_SECONDS=600 fuzz/run-briefly.sh zkey
#
# Environment: CUZK_FUZZ_SECONDS, CUZK_FUZZ_JOBS (build parallelism, default 2),
# CUZK_FUZZ_BUILD_DIR (default <repo>/build/fuzz).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${CUZK_FUZZ_BUILD_DIR:-$root/build/fuzz}
seconds=${CUZK_FUZZ_SECONDS:-20}
jobs=${CUZK_FUZZ_JOBS:-2}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then targets=(container r1cs wtns zkey params); fi

generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi
cmake -S "$root/fuzz" -B "$build" "${generator[@]}" -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build "$build" -j "$jobs"

# Seeds are regenerated every run; inputs libFuzzer found interesting accumulate next to them.
"$build/cuzk_fuzz_seeds" "$build/corpus"

for target in "${targets[@]}"; do
  mkdir -p "$build/findings/$target"
  echo "== fuzz_$target for ${seconds}s"
  "$build/fuzz_$target" -max_total_time="$seconds" -print_final_stats=1 \
    -dict="$root/fuzz/formats.dict" -artifact_prefix="$build/findings/$target/" \
    "$build/corpus/$target"
done
echo "== no findings"
