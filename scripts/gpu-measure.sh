#!/usr/bin/env bash
# Measurements on a GPU machine beyond the standard benchmarks (scripts/gpu-bench.sh), by name:
#
#   scripts/gpu-measure.sh BUILD_DIR STEP...      (run from the repository root)
#
#   build        configure BUILD_DIR as scripts/gpu-check.sh does and build the cuzk command and
#                the GPU benchmarks
#   cpu-vs-gpu   the whole `cuzk prove` command on the CPU and on the GPU, same files: a porep-
#                like circuit of 2^LOG_N − 2 constraints (LOG_N=20), a real development key
#                (`cuzk setup`), both proofs verified; JSON of both runs in $OUT/cpu_vs_gpu_*.json
#   window-sweep the G1 MSM at 2^22, 2^24, 2^26 and the G2 MSM at 2^22 (BLS12-381, random
#                scalars) for every window width in WINDOWS (default 12..18); other sizes
#                with WINDOW_G1 and WINDOW_G2 (comma-separated logs, empty for none), curves
#                WINDOW_CURVES (default bls12_381), reduction segments of SEGMENT_BUCKETS
#                (default: the tuning table):
#                $OUT/msm_window_<c>.json
#   segment-sweep the G1 MSM at 2^24 and 2^26 and G2 at 2^22 and 2^24 (BLS12-381, random
#                scalars) and msm_shifted at G1 2^24, for each length of the bucket reduction's
#                segments in SEGMENTS (default 32 64 128 256): $OUT/msm_segment_<L>.json and
#                $OUT/msm_segment_shifted_<L>.json
#   shifted-sweep msm_shifted (precomputed shifted bases) at the G1 sizes 2^24 and 2^26 and G2
#                2^22 (BLS12-381, random scalars) for each table window in SHIFTED_WINDOWS
#                (default 20 22 24): $OUT/msm_shifted_sweep.json
#   table-rows   msm_shifted on partial tables: the G1 MSM at 2^TABLE_LOGS (default 26,27;
#                BLS12-381, random scalars) plain and with tables of each row count in
#                TABLE_ROWS (default 2 3 4 6 0; 0: the whole table, where it fits), the window
#                the tuning model picks for the rows: $OUT/msm_table_rows.json
#   accumulate-sweep the G1 MSM at 2^24 and 2^26 and G2 at 2^22 (BLS12-381, random scalars,
#                plain and shifted) for each accumulation launch size in ACCUMULATE_THREADS
#                (default 131072 524288 1048576 threads): $OUT/msm_accumulate_<threads>.json
#   occupancy-sweep the G1 MSM at 2^24 and 2^26 and G2 at 2^22 (BLS12-381 and BN254, random
#                scalars, plain and shifted) for each occupancy bound of the accumulation kernel
#                in MIN_BLOCKS (default 0 3 4 5): $OUT/msm_min_blocks_<b>.json
#   partials-sweep the G1 MSM at 2^24 and 2^26 and G2 at 2^22 and 2^24 (BLS12-381, random and
#                porep scalars) for each fan-in of the partial sums' combining levels in PARTIALS
#                (default 4 8 16 32): $OUT/msm_partials_<p>.json
#   sums-sweep   the G1 MSM at 2^24 and 2^26 and G2 at 2^22 and 2^24 (both curves, random and
#                porep scalars) with the accumulation's running sums in registers and in shared
#                memory, for each occupancy bound in MIN_BLOCKS (default 3 4 5):
#                $OUT/msm_sums_<storage>_<b>.json
#   partition    bench_gpu_prove at PARTITION_LOGS (default 27) with a key in PARTITION_KEY_FORMAT
#                (zkey, the default, or params), with its H table if PARTITION_H_TABLE=1:
#                $OUT/prove_<format>[_htable]_<logs>.json
#   streamed-msm the MSM on bases in pinned host memory (a streamed key's), G1 at 2^24 and 2^26
#                and G2 at 2^24 (BLS12-381, random and porep scalars), staged in chunks of 2^k
#                points for k in CHUNK_LOGS (default 20 22 24), next to the plain copy of the
#                bases and the device-resident MSM: $OUT/msm_streamed.json
#   msm-kernels  the time of each kernel of the G1 MSM at 2^MSM_LOG (default 26) and the G2 MSM
#                at 2^(MSM_LOG − 2) (BLS12-381, random and porep scalars, one run each after
#                the warm-up) under Nsight Compute with the clocks left alone, summed by kernel
#                name: $OUT/msm_kernels_<shape>.csv (raw) and $OUT/msm_kernels.txt (summary);
#                MSM_SHAPES (default random porep) and MSM_WINDOWS (window widths, default 0:
#                tuned; others add _c<c> to the file names) select the cases; MSM_SHIFTED=1 adds
#                msm_shifted at the tuned table window (MSM 2 and 3 of each size, the table's
#                making before them)
#   engine-pinned the engine with the key in pinned host memory and with it in VRAM, 2^LOG_N
#                porep partitions (default 24), K = 2: $OUT/engine_<tier>_2p<LOG_N>.json
#   engine-h-tables the engine with the key in VRAM with and without its H table, 2^LOG_N porep
#                partitions (default 24), K in ENGINE_WORKERS (default 1,2,3), ENGINE_PARTITIONS
#                partitions (default 16): $OUT/engine_{plain,htable}_2p<LOG_N>.json
#
# Environment: OUT (default BUILD_DIR/gpu-measure), CUZK_BENCH_COMMIT / CUZK_BENCH_DATE label the
# JSON. .deps/ in the repository root is used as in scripts/gpu-check.sh.
set -uo pipefail

BUILD_DIR=${1:?usage: scripts/gpu-measure.sh BUILD_DIR STEP...}
shift
OUT=${OUT:-$BUILD_DIR/gpu-measure}
mkdir -p "$OUT"
export CUZK_BENCH_COMMIT=${CUZK_BENCH_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
export CUZK_BENCH_DATE=${CUZK_BENCH_DATE:-$(date -u +%Y-%m-%d)}
CMAKE_PREFIX_ARGS=()
if [[ -d .deps ]]; then
  DEPS=$(pwd)/.deps
  export LD_LIBRARY_PATH="$DEPS/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
  CMAKE_PREFIX_ARGS=("-DCMAKE_PREFIX_PATH=$DEPS;$DEPS/usr")
fi
fail() {
  printf '\nGPU MEASURE FAILED: %s\n' "$*"
  exit 1
}
status=0

for step in "$@"; do
  printf '\n==== %s ====\n' "$step"
  case $step in
    build)
      cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DCUZK_BUILD_SERVICE=OFF \
        -DCUZK_BUILD_FUZZERS=OFF -DCMAKE_CUDA_ARCHITECTURES=90 "${CMAKE_PREFIX_ARGS[@]}" >"$OUT/configure.log" ||
        fail "configuration (see $OUT/configure.log)"
      cmake --build "$BUILD_DIR" --target cuzk cuzk_gpu_benches -j "$(nproc)" >"$OUT/build.log" 2>&1 ||
        fail "build (see $OUT/build.log)"
      ;;
    cpu-vs-gpu)
      log_n=${LOG_N:-20}
      dir=$OUT/cpu-vs-gpu
      mkdir -p "$dir"
      cuzk=$BUILD_DIR/cuzk
      "$cuzk" gen --curve bls12_381 --shape porep --constraints $(((1 << log_n) - 2)) --public 1 \
        --r1cs "$dir/circuit.r1cs" --wtns "$dir/witness.wtns" || status=1
      time "$cuzk" setup "$dir/circuit.r1cs" "$dir/circuit.zkey" "$dir/vk.json" || status=1
      for backend in cpu cuda; do
        for run in 1 2 3; do
          "$cuzk" prove --backend $backend --json "$dir/circuit.zkey" "$dir/witness.wtns" \
            "$dir/proof_$backend.json" "$dir/public_$backend.json" >"$OUT/cpu_vs_gpu_${backend}_$run.json" || status=1
        done
        "$cuzk" verify "$dir/vk.json" "$dir/public_$backend.json" "$dir/proof_$backend.json" || status=1
      done
      ;;
    window-sweep)
      for c in ${WINDOWS:-12 13 14 15 16 17 18}; do
        "$BUILD_DIR/bench/gpu/msm/bench_gpu_msm" --g1 "${WINDOW_G1-22,24,26}" --g2 "${WINDOW_G2-22}" \
          --curves "${WINDOW_CURVES:-bls12_381}" --shapes random --runs 5 --window "$c" --no-shifted \
          ${SEGMENT_BUCKETS:+--segment-buckets "$SEGMENT_BUCKETS"} \
          --json "$OUT/msm_window_$c.json" >"$OUT/msm_window_$c.log" 2>&1 ||
          status=1
        grep -E "median|ms" "$OUT/msm_window_$c.log" | head -5
      done
      ;;
    shifted-sweep)
      windows=${SHIFTED_WINDOWS:-20 22 24}
      "$BUILD_DIR/bench/gpu/msm/bench_gpu_msm" --g1 24,26 --g2 22 --curves bls12_381 --shapes random \
        --runs 5 --shifted "${windows// /,}" --json "$OUT/msm_shifted_sweep.json" \
        >"$OUT/msm_shifted_sweep.log" 2>&1 || status=1
      grep -E "shifted" "$OUT/msm_shifted_sweep.log"
      ;;
    table-rows)
      rows=${TABLE_ROWS:-2 3 4 6 0}
      "$BUILD_DIR/bench/gpu/msm/bench_gpu_msm" --g1 "${TABLE_LOGS:-26,27}" --g2 "" \
        --curves bls12_381 --shapes random --runs 5 --table-rows "${rows// /,}" \
        --json "$OUT/msm_table_rows.json" >"$OUT/msm_table_rows.log" 2>&1 || status=1
      grep -E "^(#|bls12)" "$OUT/msm_table_rows.log"
      ;;
    accumulate-sweep)
      for threads in ${ACCUMULATE_THREADS:-131072 524288 1048576}; do
        "$BUILD_DIR/bench/gpu/msm/bench_gpu_msm" --g1 24,26 --g2 22 --curves bls12_381 \
          --shapes random --runs 5 --accumulate-threads "$threads" \
          --json "$OUT/msm_accumulate_$threads.json" >"$OUT/msm_accumulate_$threads.log" 2>&1 || status=1
        grep -E "^bls12" "$OUT/msm_accumulate_$threads.log"
      done
      ;;
    occupancy-sweep)
      for blocks in ${MIN_BLOCKS:-0 3 4 5}; do
        "$BUILD_DIR/bench/gpu/msm/bench_gpu_msm" --g1 24,26 --g2 22 --curves bls12_381,bn254 \
          --shapes random --runs 5 --accumulate-min-blocks "$blocks" \
          --json "$OUT/msm_min_blocks_$blocks.json" >"$OUT/msm_min_blocks_$blocks.log" 2>&1 || status=1
        grep -E "^(bls12|bn254)" "$OUT/msm_min_blocks_$blocks.log"
      done
      ;;
    partials-sweep)
      for p in ${PARTIALS:-4 8 16 32}; do
        "$BUILD_DIR/bench/gpu/msm/bench_gpu_msm" --g1 24,26 --g2 22,24 --curves bls12_381 \
          --shapes random,porep --no-shifted --partials-per-thread "$p" \
          --json "$OUT/msm_partials_$p.json" || status=1
      done
      ;;
    segment-sweep)
      for l in ${SEGMENTS:-32 64 128 256}; do
        "$BUILD_DIR/bench/gpu/msm/bench_gpu_msm" --g1 24,26 --g2 22,24 --curves bls12_381 \
          --shapes random --runs 5 --no-shifted --segment-buckets "$l" \
          --json "$OUT/msm_segment_$l.json" >"$OUT/msm_segment_$l.log" 2>&1 || status=1
        "$BUILD_DIR/bench/gpu/msm/bench_gpu_msm" --g1 24 --g2 "" --curves bls12_381 \
          --shapes random --runs 5 --shifted 0 --segment-buckets "$l" \
          --json "$OUT/msm_segment_shifted_$l.json" >"$OUT/msm_segment_shifted_$l.log" 2>&1 ||
          status=1
        grep -E "^bls12" "$OUT/msm_segment_$l.log" "$OUT/msm_segment_shifted_$l.log"
      done
      ;;
    sums-sweep)
      for sums in registers shared; do
        for blocks in ${MIN_BLOCKS:-3 4 5}; do
          "$BUILD_DIR/bench/gpu/msm/bench_gpu_msm" --g1 24,26 --g2 22,24 --curves bls12_381,bn254 \
            --shapes random,porep --no-shifted --accumulate-sums "$sums" \
            --accumulate-min-blocks "$blocks" --json "$OUT/msm_sums_${sums}_$blocks.json" \
            >"$OUT/msm_sums_${sums}_$blocks.log" 2>&1 || status=1
          grep -E "^(bls12|bn254)" "$OUT/msm_sums_${sums}_$blocks.log"
        done
      done
      ;;
    partition)
      logs=${PARTITION_LOGS:-27}
      format=${PARTITION_KEY_FORMAT:-zkey}
      table=()
      [[ ${PARTITION_H_TABLE:-0} == 1 ]] && table=(--h-table)
      "$BUILD_DIR/bench/gpu/prover/bench_gpu_prove" --runs 3 --key-format "$format" "${table[@]}" \
        --json "$OUT/prove_${format}${table:+_htable}_${logs// /_}.json" $logs || status=1
      ;;
    streamed-msm)
      chunks=${CHUNK_LOGS:-20 22 24}
      "$BUILD_DIR/bench/gpu/msm/bench_gpu_msm" --g1 24,26 --g2 24 --curves bls12_381 \
        --shapes random,porep --runs 5 --no-shifted --pinned-chunks "${chunks// /,}" \
        --json "$OUT/msm_streamed.json" >"$OUT/msm_streamed.log" 2>&1 || status=1
      grep -E "^(#|bls12)" "$OUT/msm_streamed.log"
      ;;
    engine-pinned)
      log_n=${LOG_N:-24}
      for tier in pinned vram; do
        "$BUILD_DIR/bench/gpu/engine/bench_engine_throughput" --workers 2 --partitions 8 \
          --key-tier $tier --json "$OUT/engine_${tier}_2p$log_n.json" "$log_n" || status=1
      done
      ;;
    engine-h-tables)
      log_n=${LOG_N:-24}
      workers=${ENGINE_WORKERS:-1,2,3}
      partitions=${ENGINE_PARTITIONS:-16}
      for table in plain htable; do
        flag=()
        [[ $table == htable ]] && flag=(--h-tables)
        "$BUILD_DIR/bench/gpu/engine/bench_engine_throughput" --workers "$workers" \
          --partitions "$partitions" "${flag[@]}" --json "$OUT/engine_${table}_2p$log_n.json" \
          "$log_n" || status=1
      done
      ;;
    msm-kernels)
      ncu_bin=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
      [[ -n $ncu_bin ]] || fail "ncu not found"
      log=${MSM_LOG:-26}
      for c in ${MSM_WINDOWS:-0}; do
        for shape in ${MSM_SHAPES:-random porep}; do
          name=msm_kernels_$shape$([[ $c == 0 ]] || echo "_c$c")
          "$ncu_bin" --clock-control none --metrics gpu__time_duration.sum --csv \
            "$BUILD_DIR/bench/gpu/msm/bench_gpu_msm" --g1 "$log" --g2 $((log - 2)) \
            --curves bls12_381 --shapes $shape --runs 1 --window "$c" \
            $([[ ${MSM_SHIFTED:-0} == 1 ]] || echo --no-shifted) \
            >"$OUT/$name.csv" 2>"$OUT/$name.log" || status=1
        done
      done
      python3 tools/kernel_times.py "$OUT"/msm_kernels_*.csv >"$OUT/msm_kernels.txt" || status=1
      cat "$OUT/msm_kernels.txt"
      ;;
    *) fail "unknown step $step" ;;
  esac
done
[[ $status -eq 0 ]] || fail "a step failed (see above)"
printf '\nGPU MEASURE DONE: results in %s\n' "$OUT"
