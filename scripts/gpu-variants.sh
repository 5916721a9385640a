#!/usr/bin/env bash
# Times builds of several revisions against each other on a GPU machine, without building
# there: the binaries are built here (nvcc, no GPU needed) and travel as one archive.
#
#   scripts/gpu-variants.sh pack ARCHIVE REV... [--bench-only REV...]   (here, repository root)
#   scripts/gpu-variants.sh run ARCHIVE           (on the GPU machine)
#
# pack: checks each revision (a commit or a branch, e.g. main try/ntt-quads) out in one
#   worktree, build/variants/src, and builds the benchmark and the test binary in one build
#   directory, build/variants/build, so that each revision after the first rebuilds only what
#   it changes. The first build configures that directory (Release, CUDA architecture 90).
#   ARCHIVE (.tar.xz) holds variants/<name>/{bench,test,commit} (the name is the revision
#   with '/' as '-') and lib/ with the shared libraries a bare machine lacks (oneTBB). The
#   revisions after --bench-only go without their tests: timing bounds whose results are wrong
#   by design.
# run: unpacks ARCHIVE, runs each variant's test binary once, then ROUNDS rounds of every
#   variant's benchmark, the order of the variants reversed every other round so that a drift
#   of the card's clocks does not favour one. Writes $OUT/variants.json (every round's results
#   by variant) and $OUT/variants.txt, the table printed last: per case, each variant's mean of
#   its round medians and the largest gap between its rounds (variants numbered v1.. in the
#   order packed, with their commits above the table).
#
# Environment: VARIANT_BENCH (default bench/gpu/ntt/bench_gpu_ntt) and VARIANT_TEST (default
# tests/gpu/cuzk_gpu_ntt_test; empty for none), paths in the build directory; BENCH_ARGS
# (default "--runs 7 --twiddles compact,full 20 24 27"), ROUNDS (default 2), OUT (default
# ./variants-out).
set -euo pipefail

fail() {
  printf 'gpu-variants: %s\n' "$*" >&2
  exit 1
}

BENCH=${VARIANT_BENCH:-bench/gpu/ntt/bench_gpu_ntt}
TEST=${VARIANT_TEST-tests/gpu/cuzk_gpu_ntt_test}

pack() {
  local archive=$1
  shift
  [[ $# -gt 0 ]] || fail "pack needs at least one revision"
  local root=build/variants
  local src=$root/src build=$root/build stage=$root/stage
  if [[ ! -d $src ]]; then
    git worktree prune
    git worktree add --detach "$src" HEAD >/dev/null
  fi
  rm -rf "$stage"
  mkdir -p "$stage/variants" "$stage/lib"
  local with_test=1
  for rev in "$@"; do
    if [[ $rev == --bench-only ]]; then
      with_test=0
      continue
    fi
    local name=${rev//\//-}
    git -C "$src" checkout -q --detach "$rev" || fail "no revision $rev"
    if [[ ! -f $build/CMakeCache.txt ]]; then
      cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DCUZK_BUILD_BENCH=ON -DCUZK_BUILD_SERVICE=OFF -DCUZK_BUILD_FUZZERS=OFF >/dev/null ||
        fail "configuring $build"
    fi
    local test=""
    [[ $with_test == 1 ]] && test=$TEST
    local targets=("$(basename "$BENCH")")
    [[ -n $test ]] && targets+=("$(basename "$test")")
    printf '== %s (%s)\n' "$name" "$(git -C "$src" rev-parse --short HEAD)"
    cmake --build "$build" --target "${targets[@]}" -j "$(nproc)" >"$root/build.log" 2>&1 ||
      { tail -n 30 "$root/build.log"; fail "building $rev"; }
    mkdir -p "$stage/variants/$name"
    cp "$build/$BENCH" "$stage/variants/$name/bench"
    [[ -n $test ]] && cp "$build/$test" "$stage/variants/$name/test"
    git -C "$src" rev-parse --short HEAD >"$stage/variants/$name/commit"
    printf '%s\n' "$name" >>"$stage/order"
  done
  # Shared libraries outside the C and C++ runtimes, which a bare GPU machine may not have.
  ldd "$build/$BENCH" | awk '/=> \// {print $3}' | { grep -v -E '/lib(c|m|stdc\+\+|gcc_s)\.so' || true; } |
    xargs -r -I{} cp -L {} "$stage/lib/"
  tar -C "$stage" -cJf "$archive" .
  printf 'packed %s: %s\n' "$archive" "$(tr '\n' ' ' <"$stage/order")"
}

run() {
  local archive=$1
  local out=${OUT:-variants-out} dir
  dir=$(mktemp -d)
  mkdir -p "$out"
  tar -C "$dir" -xJf "$archive"
  export LD_LIBRARY_PATH="$dir/lib:${LD_LIBRARY_PATH:-}"
  mapfile -t names <"$dir/order"
  nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader 2>/dev/null || true
  for name in "${names[@]}"; do
    [[ -x $dir/variants/$name/test ]] || continue
    local verdict=passed
    "$dir/variants/$name/test" --gtest_brief=1 >"$dir/$name.test.log" 2>&1 || verdict=FAILED
    printf 'tests of %s (%s): %s\n' "$name" "$(cat "$dir/variants/$name/commit")" "$verdict"
    [[ $verdict == passed ]] || tail -n 20 "$dir/$name.test.log"
  done
  local rounds=${ROUNDS:-2}
  read -r -a args <<<"${BENCH_ARGS:---runs 7 --twiddles compact,full 20 24 27}"
  for ((r = 1; r <= rounds; ++r)); do
    local order=("${names[@]}")
    if ((r % 2 == 0)); then
      order=()
      for ((i = ${#names[@]} - 1; i >= 0; --i)); do order+=("${names[i]}"); done
    fi
    for name in "${order[@]}"; do
      printf 'round %d: %s\n' "$r" "$name"
      "$dir/variants/$name/bench" --json "$dir/$name.r$r.json" "${args[@]}" >"$dir/$name.r$r.log" 2>&1 ||
        { tail -n 5 "$dir/$name.r$r.log"; fail "the benchmark of $name failed in round $r"; }
    done
  done
  python3 - "$dir" "$out" "$rounds" "${names[@]}" <<'EOF'
import json, sys
d, out, rounds, names = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]
runs = {n: [json.load(open(f"{d}/{n}.r{r}.json"))["results"] for r in range(1, rounds + 1)]
        for n in names}
json.dump(runs, open(f"{out}/variants.json", "w"), indent=1)
cases = []
for x in runs[names[0]][0]:
    key = (x["curve"], x["op"], x["log_n"])
    if key not in cases:
        cases.append(key)
commits = {n: open(f"{d}/variants/{n}/commit").read().strip() for n in names}
lines = ["v%d = %s (%s)" % (i + 1, n, commits[n]) for i, n in enumerate(names)]
lines.append("%-10s %-26s %5s " % ("curve", "op", "log_n") +
             " ".join("%22s" % ("v%d ms ± rounds" % (i + 1)) for i in range(len(names))))
for key in cases:
    cells = []
    for n in names:
        ms = [x["median_ms"] for rr in runs[n] for x in rr if (x["curve"], x["op"], x["log_n"]) == key]
        cells.append("%12.3f ±%7.3f" % (sum(ms) / len(ms), max(ms) - min(ms)) if ms else " " * 22)
    lines.append("%-10s %-26s %5d " % key + " ".join(cells))
open(f"{out}/variants.txt", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
  rm -rf "$dir"
}

usage="usage: scripts/gpu-variants.sh pack ARCHIVE REV... [--bench-only REV...] | run ARCHIVE"
case ${1:-} in
  pack) [[ $# -ge 3 ]] || fail "$usage"; shift; pack "$@" ;;
  run) [[ $# -eq 2 ]] || fail "$usage"; run "$2" ;;
  *) fail "$usage" ;;
esac
