// write_bench_key: the files of an engine benchmark, for the daemon to prove with
// (scripts/daemon-throughput.sh): DIR/bench_<curve>_<LOG_N>.zkey and .wtns, a porep-shaped
// synthetic circuit filling the domain 2^LOG_N and a key of RANDOM POINTS for it
// (porep_bench_files.hpp: the proofs cannot verify; the daemon proving with it needs
// `verify_proofs = false`).
//
//   write_bench_key [--curve bls12_381|bn254] --dir DIR LOG_N ...

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "porep_bench_files.hpp"
#include "util/error.hpp"

namespace {

using namespace cuzk;
namespace fs = std::filesystem;

template <class Curve>
void write_size(const fs::path& dir, const std::string& curve, unsigned log_n) {
  const auto t = std::chrono::steady_clock::now();
  const auto files = bench::write_porep_bench_files<Curve>(dir, curve, log_n);
  fs::path wtns = files.zkey;
  wtns.replace_extension(".wtns");
  std::ofstream out(wtns, std::ios::binary);
  out.write(reinterpret_cast<const char*>(files.wtns.data()), std::streamsize(files.wtns.size()));
  if (!out.flush()) CUZK_INVALID_INPUT("cannot write " + wtns.string());
  std::printf(
      "%s (%.1f GB), %s in %.0f ms\n", files.zkey.c_str(), double(fs::file_size(files.zkey)) / 1e9,
      wtns.c_str(),
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count());
}

}  // namespace

int main(int argc, char** argv) {
  std::string curve = "bls12_381";
  fs::path dir;
  std::vector<unsigned> log_sizes;
  CLI::App app{"write the key and witness files of an engine benchmark"};
  app.add_option("log_sizes", log_sizes, "log2 domain sizes")
      ->required()
      ->check(CLI::Range(10u, 28u));
  app.add_option("--dir", dir, "where the files go")->required();
  app.add_option("--curve", curve, "bls12_381 or bn254")
      ->check(CLI::IsMember({"bls12_381", "bn254"}));
  CLI11_PARSE(app, argc, argv);
  try {
    for (unsigned log_n : log_sizes) {
      if (curve == "bn254") {
        write_size<formats::Bn254>(dir, curve, log_n);
      } else {
        write_size<formats::Bls12_381>(dir, curve, log_n);
      }
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "write_bench_key: %s\n", e.what());
    return 1;
  }
}
