#pragma once
// The files an engine benchmark proves with: a synthetic porep-shaped circuit filling the domain
// 2^log_n, a .zkey of random points for it (random_key.hpp: NOT A REAL KEY, its proofs cannot
// verify) and the circuit's witness. As in a real key (and bench_gpu_prove's), the A and B
// points of wires outside the circuit's A and B densities are at infinity, so the prover drops
// them: with a point for every wire, a 2^24 partition took ~50 ms more of GPU time in the A
// and B MSMs than a real key's would. bench_engine_throughput proves them in process;
// write_bench_key writes them for the daemon (scripts/daemon-throughput.sh).

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "circuits/synthetic.hpp"
#include "formats/wtns.hpp"
#include "formats/zkey.hpp"
#include "groth16/qap.hpp"
#include "groth16/setup.hpp"
#include "random_key.hpp"

namespace cuzk::bench {

struct PorepBenchFiles {
  std::filesystem::path zkey;
  std::vector<uint8_t> wtns;  // the witness as .wtns bytes
};

// Writes DIR/bench_<curve_name>_<log_n>.zkey and returns its path with the witness. The seed of
// the circuit and of the key's points is log_n, so a size always gives the same files.
template <class Curve>
PorepBenchFiles write_porep_bench_files(const std::filesystem::path& dir,
                                        const std::string& curve_name, unsigned log_n) {
  circuits::SyntheticSpec spec;
  spec.shape = circuits::Shape::kPorep;
  spec.public_inputs = 1;
  spec.constraints = (uint32_t(1) << log_n) - spec.public_inputs - 1;  // fills the domain
  spec.seed = log_n;
  const auto circuit = circuits::generate_circuit<Curve>(spec);
  std::mt19937_64 rng(log_n);
  const auto density = groth16::wire_density(circuit.r1cs);
  auto key = random_zkey<Curve>(circuit.r1cs.header, rng, &density.a_wires, &density.b_wires);
  key.coefficients = groth16::zkey_coefficients(circuit.r1cs);
  std::filesystem::create_directories(dir);
  PorepBenchFiles files;
  files.zkey = dir / ("bench_" + curve_name + "_" + std::to_string(log_n) + ".zkey");
  formats::write_zkey<Curve>(files.zkey, key);
  files.wtns = formats::wtns_to_bytes<Curve>(circuit.witness);
  return files;
}

}  // namespace cuzk::bench
