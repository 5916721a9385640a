// bench_ff: host field arithmetic and G1 mixed addition. Usage as for any Google Benchmark
// binary, e.g. --benchmark_filter=ff_mul --benchmark_repetitions=5 --benchmark_min_time=0.2
// --benchmark_out=ff.json --benchmark_out_format=json.

#include <benchmark/benchmark.h>

namespace cuzk::bench {
bool register_field_benchmarks();
void register_g1_benchmarks();
}  // namespace cuzk::bench

int main(int argc, char** argv) {
  if (!cuzk::bench::register_field_benchmarks()) return 1;
  cuzk::bench::register_g1_benchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
