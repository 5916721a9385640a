// write_bench_key: the files of an engine benchmark, for the daemon to prove with
// (scripts/daemon-throughput.sh): DIR/bench_<curve>_<LOG_N>.zkey and .wtns, a porep-shaped
// synthetic circuit filling the domain 2^LOG_N and a key of RANDOM POINTS for it
// (porep_bench_files.hpp: the proofs cannot verify; the daemon proving with it needs
// `verify_proofs = false`).
//
//   write_bench_key [--curve bls12_381|bn254] --dir DIR LOG_N ...

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

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
  try {
    std::string curve = "bls12_381";
    fs::path dir;
    std::vector<unsigned> log_sizes;
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--curve" && i + 1 < argc) {
        curve = argv[++i];
      } else if (arg == "--dir" && i + 1 < argc) {
        dir = argv[++i];
      } else if (const int n = std::atoi(arg.c_str()); n >= 10 && n <= 28) {
        log_sizes.push_back(unsigned(n));
      } else {
        CUZK_INVALID_INPUT("unknown argument '" + arg +
                           "' (usage: write_bench_key [--curve bls12_381|bn254] --dir DIR "
                           "LOG_N ...)");
      }
    }
    if (dir.empty() || log_sizes.empty()) CUZK_INVALID_INPUT("--dir and a LOG_N are required");
    if (curve != "bls12_381" && curve != "bn254") CUZK_INVALID_INPUT("unknown curve " + curve);
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
