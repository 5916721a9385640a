#!/usr/bin/env bash
# Times builds of several revisions against each other on a GPU machine, without building
# there: the binaries are built here (nvcc, no GPU needed) and travel as one archive.
#
#   scripts/gpu-variants.sh pack ARCHIVE REV... [--bench-only REV...]   (here, repository root)
#   scripts/gpu-variants.sh run ARCHIVE           (on the GPU machine)
#   scripts/gpu-variants.sh summarize OUT         (anywhere: the table of what a run left)
#
# pack: checks each revision (a commit or a branch, e.g. main try/ntt-quads) out in one
#   worktree, build/variants/src, and builds the benchmark and the test binary in one build
#   directory, build/variants/build, so that each revision after the first rebuilds only what
#   it changes. The first build configures that directory (Release, CUDA architecture 90).
#   ARCHIVE (.tar.xz) holds variants/<name>/{bench,test,commit} (the name is the revision
#   with '/' as '-') and lib/ with the shared libraries a bare machine lacks (oneTBB). The
#   revisions after --bench-only go without their tests: timing bounds whose results are wrong
#   by design. A revision may carry patches, REV+FILE[+FILE...] (e.g.
#   main+a-change.patch, files relative to the repository root):
#   they are applied onto REV in the worktree in that order, and the variant is named after REV
#   and the patches.
# run: unpacks ARCHIVE, runs each variant's test binary once (unless RUN_TESTS=0; with
#   CUZK_REQUIRE_GPU=1, so that a GPU the tests cannot see fails them instead of skipping),
#   then ROUNDS rounds of every variant's benchmark, the order of the variants reversed every
#   other round so that a drift of the card's clocks does not favour one. Logs and each round's
#   JSON go to $OUT/rounds as they are written; then summarize.
# summarize: from OUT/rounds, OUT/variants.json (every finished round's results by variant) and
#   OUT/variants.txt, the table printed last: per case, each variant's mean of its round
#   medians and the largest gap between its rounds (variants numbered v1.. in the order packed,
#   with their commits and finished rounds above the table). A run cut short by a time limit
#   leaves the rounds it finished, which this summarizes here.
#
# Binaries beside the variants: PACK_EXTRA (paths in the build directory, e.g.
# "tests/gpu/cuzk_gpu_prover_test tests/gpu/cuzk_gpu_engine_test cuzk") are built from the first
# revision and packed in bin/; run runs every bin/*_test (with CUZK_REQUIRE_GPU=1, so that a
# missing GPU fails them) and, where bin/cuzk is packed, `cuzk example --backend cuda` on both
# curves, before the variants' tests: the GPU checks of a revision whose kernels are timed here.
#
# Environment: VARIANT_BENCH (default bench/gpu/ntt/bench_gpu_ntt) and VARIANT_TEST (default
# tests/gpu/cuzk_gpu_ntt_test; empty for none), paths in the build directory; BENCH_ARGS
# (default "--runs 7 --twiddles compact,full 20 24 27"), ONLY (names of the variants to run, in
# the packed order; default all), ROUNDS (default 2), RUN_TESTS (default
# 1), OUT (default ./variants-out).
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
    local patches=()
    if [[ $rev == *+* ]]; then
      IFS=+ read -r -a patches <<<"${rev#*+}"
      rev=${rev%%+*}
    fi
    local name=${rev//\//-} applied=""
    git -C "$src" reset -q --hard
    git -C "$src" checkout -q --detach "$rev" || fail "no revision $rev"
    for patch in "${patches[@]}"; do
      [[ -f $patch ]] || fail "no patch $patch"
      git -C "$src" apply "$(realpath "$patch")" || fail "$patch does not apply to $rev${applied}"
      applied+=+$(basename "$patch" .patch)
    done
    name+=$applied
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
    printf '%s%s\n' "$(git -C "$src" rev-parse --short HEAD)" "$applied" \
      >"$stage/variants/$name/commit"
    printf '%s\n' "$name" >>"$stage/order"
    if [[ -n ${PACK_EXTRA:-} && ! -d $stage/bin ]]; then
      read -r -a extra <<<"$PACK_EXTRA"
      local extra_targets=()
      for path in "${extra[@]}"; do extra_targets+=("$(basename "$path")"); done
      cmake --build "$build" --target "${extra_targets[@]}" -j "$(nproc)" >"$root/build.log" 2>&1 ||
        { tail -n 30 "$root/build.log"; fail "building $PACK_EXTRA at $rev"; }
      mkdir -p "$stage/bin"
      for path in "${extra[@]}"; do cp "$build/$path" "$stage/bin/"; done
      cp "$stage/variants/$name/commit" "$stage/bin/commit"
    fi
  done
  # Shared libraries outside the C and C++ runtimes, which a bare GPU machine may not have.
  local binaries=("$build/$BENCH")
  [[ -d $stage/bin ]] && mapfile -t -O 1 binaries < <(find "$stage/bin" -type f -perm -u+x)
  { ldd "${binaries[@]}" || true; } | awk '/=> \// {print $3}' |
    { grep -v -E '/lib(c|m|stdc\+\+|gcc_s)\.so' || true; } | xargs -r -I{} cp -L {} "$stage/lib/"
  tar -C "$stage" -cJf "$archive" .
  printf 'packed %s: %s\n' "$archive" "$(tr '\n' ' ' <"$stage/order")"
}

# check LABEL LOG COMMAND...: runs COMMAND with CUZK_REQUIRE_GPU=1 (a GPU it cannot see fails
# it instead of letting it skip), its output to LOG; prints LABEL and the verdict, and LOG's end
# where it failed. Its status is the command's.
check() {
  local label=$1 log=$2
  shift 2
  if CUZK_REQUIRE_GPU=1 "$@" >"$log" 2>&1; then
    printf '%s: passed\n' "$label"
  else
    printf '%s: FAILED\n' "$label"
    tail -n 20 "$log"
    return 1
  fi
}

run() {
  local archive=$1
  local out=${OUT:-variants-out} dir
  dir=$(mktemp -d)
  # Logs, the variants' order and commits, and each round's JSON go to $out/rounds as they are
  # written: a run cut short by a time limit still returns what it measured (`summarize`).
  local logs=$out/rounds
  mkdir -p "$logs"
  tar -C "$dir" -xJf "$archive"
  export LD_LIBRARY_PATH="$dir/lib:${LD_LIBRARY_PATH:-}"
  mapfile -t names <"$dir/order"
  if [[ -n ${ONLY:-} ]]; then
    local only=" $ONLY " kept=()
    for name in "${names[@]}"; do [[ $only == *" $name "* ]] && kept+=("$name"); done
    ((${#kept[@]})) || fail "none of ONLY ($ONLY) is in $archive"
    names=("${kept[@]}")
  fi
  printf '%s\n' "${names[@]}" >"$logs/order"
  for name in "${names[@]}"; do cp "$dir/variants/$name/commit" "$logs/$name.commit"; done
  nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader 2>/dev/null || true
  if [[ ${RUN_TESTS:-1} == 1 ]]; then
    if [[ -d $dir/bin ]]; then
      local checks=$out/checks commit
      commit=$(cat "$dir/bin/commit")
      mkdir -p "$checks"
      for test in "$dir"/bin/*_test; do
        [[ -x $test ]] || continue
        local test_name
        test_name=$(basename "$test")
        check "$test_name ($commit)" "$checks/$test_name.log" "$test" --gtest_brief=1 || true
      done
      if [[ -x $dir/bin/cuzk ]]; then
        for curve in bn254 bls12_381; do
          check "cuzk example --backend cuda --curve $curve" "$checks/example_$curve.log" \
            "$dir/bin/cuzk" example --backend cuda --curve $curve --dir "$dir/example-$curve" &&
            tail -n 3 "$checks/example_$curve.log"
        done
      fi
    fi
    for name in "${names[@]}"; do
      [[ -x $dir/variants/$name/test ]] || continue
      check "tests of $name ($(cat "$logs/$name.commit"))" "$logs/$name.test.log" \
        "$dir/variants/$name/test" --gtest_brief=1 || true
    done
  fi
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
      "$dir/variants/$name/bench" --json "$logs/$name.r$r.json" "${args[@]}" >"$logs/$name.r$r.log" 2>&1 ||
        { tail -n 5 "$logs/$name.r$r.log"; fail "the benchmark of $name failed in round $r"; }
    done
  done
  rm -rf "$dir"
  summarize "$out"
}

# The table of what $1/rounds holds: every round each variant finished.
summarize() {
  local out=$1
  [[ -f $out/rounds/order ]] || fail "$out/rounds/order not found: not the output of run"
  python3 - "$out" <<'EOF'
import glob, json, re, sys
out = sys.argv[1]
logs = f"{out}/rounds"
names = open(f"{logs}/order").read().split()
runs = {}
for n in names:
    files = sorted(glob.glob(f"{logs}/{glob.escape(n)}.r*.json"),
                   key=lambda f: int(re.search(r"\.r(\d+)\.json$", f).group(1)))
    runs[n] = [json.load(open(f))["results"] for f in files]
json.dump(runs, open(f"{out}/variants.json", "w"), indent=1)
cases = []
for rr in runs.values():
    for x in (x for r in rr for x in r):
        key = (x["curve"], x["op"], x["log_n"])
        if key not in cases:
            cases.append(key)
commits = {n: open(f"{logs}/{n}.commit").read().strip() for n in names}
lines = ["v%d = %s (%s), %d rounds" % (i + 1, n, commits[n], len(runs[n]))
         for i, n in enumerate(names)]
lines.append("(each cell: the mean of the round medians ± the largest gap between rounds; after\n"
             " v1, the change against v1, negative where faster)")
lines.append("%-10s %-26s %5s " % ("curve", "op", "log_n") +
             " ".join("%22s" % "v1 ms ± rounds" if i == 0 else
                      "%30s" % ("v%d ms ± rounds  vs v1" % (i + 1)) for i in range(len(names))))
for key in cases:
    cells, first = [], None
    for i, n in enumerate(names):
        ms = [x["median_ms"] for rr in runs[n] for x in rr if (x["curve"], x["op"], x["log_n"]) == key]
        mean = sum(ms) / len(ms) if ms else None
        cell = "%12.3f ±%7.3f" % (mean, max(ms) - min(ms)) if ms else " " * 22
        if i == 0:
            first = mean
        else:
            cell += " %+6.1f%%" % (100 * (mean / first - 1)) if ms and first else " " * 8
        cells.append(cell)
    lines.append("%-10s %-26s %5d " % key + " ".join(cells))
open(f"{out}/variants.txt", "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
EOF
}

usage="usage: scripts/gpu-variants.sh pack ARCHIVE REV... [--bench-only REV...] | run ARCHIVE | summarize OUT"
case ${1:-} in
  pack) [[ $# -ge 3 ]] || fail "$usage"; shift; pack "$@" ;;
  run) [[ $# -eq 2 ]] || fail "$usage"; run "$2" ;;
  summarize) [[ $# -eq 2 ]] || fail "$usage"; summarize "$2" ;;
  *) fail "$usage" ;;
esac
