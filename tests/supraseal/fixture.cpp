// The test fixtures of the supraseal C tests (supraseal_test.c), made with cuzk's own
// functions so that the C side needs nothing but the library under test:
//
//   supraseal_fixture assign <key.params> <circuit.r1cs> <witness.wtns> <out.fixture> <public.json>
//     bellman_assignment(r1cs, witness) — what bellperson's synthesis hands supraseal — and
//     kBlindings pairs (r_i, s_i) with the proof prove_bellman (the prover of `cuzk prove`)
//     makes with each, in supraseal's groth16_proof layout; public.json for `cuzk verify`.
//   supraseal_fixture encode <proof.raw> <proof.bin>
//     a groth16_proof (384 bytes) as the 192-byte compressed bellman proof.
//
// Fixture file (little-endian): "CUZKFIX1", u64 a_aux_bit_len, a_aux_popcount, b_inp_bit_len,
// b_inp_popcount, b_aux_bit_len, b_aux_popcount, abc_size, inp_size, aux_size, blindings; the
// three bitmaps (⌈bits/64⌉ words each); a, b, c, inputs, aux (32 bytes each); then per
// blinding r, s (32 bytes each) and the expected proof (384 bytes).

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "cuzk/supraseal_types.h"
#include "formats/params.hpp"
#include "formats/r1cs.hpp"
#include "formats/wtns.hpp"
#include "groth16/bellman.hpp"
#include "groth16/bellman_assignment.hpp"
#include "groth16/json.hpp"
#include "supraseal/proof_layout.hpp"

namespace {

using namespace cuzk;
using Fr = bls12_381::Fr;
constexpr uint64_t kBlindings = 10;

void put_u64(std::ofstream& out, uint64_t v) { out.write(reinterpret_cast<const char*>(&v), 8); }

template <class T>
void put_span(std::ofstream& out, std::span<const T> values) {
  out.write(reinterpret_cast<const char*>(values.data()), std::streamsize(values.size_bytes()));
}

int assign(const char* params_path, const char* r1cs_path, const char* wtns_path,
           const char* out_path, const char* public_path) {
  const auto params = formats::read_bellman_params(params_path);
  const auto r1cs = formats::read_r1cs<groth16::BellmanCurve>(r1cs_path);
  const auto witness = formats::read_wtns<groth16::BellmanCurve>(wtns_path);
  const auto owned = groth16::bellman_assignment(r1cs, witness);
  const groth16::BellmanAssignmentView& v = owned.view();

  std::ofstream out(out_path, std::ios::binary);
  out.write("CUZKFIX1", 8);
  for (uint64_t x :
       {uint64_t(v.a_aux_bit_len), uint64_t(v.a_aux_popcount), uint64_t(v.b_inp_bit_len),
        uint64_t(v.b_inp_popcount), uint64_t(v.b_aux_bit_len), uint64_t(v.b_aux_popcount),
        uint64_t(v.a.size()), uint64_t(v.inputs.size()), uint64_t(v.aux.size()), kBlindings}) {
    put_u64(out, x);
  }
  put_span(out, v.a_aux_density);
  put_span(out, v.b_inp_density);
  put_span(out, v.b_aux_density);
  for (auto values : {v.a, v.b, v.c, v.inputs, v.aux}) put_span(out, values);

  for (uint64_t i = 0; i < kBlindings; ++i) {
    groth16::ProveOptions<groth16::BellmanCurve> options;
    options.blinding = groth16::Blinding<groth16::BellmanCurve>{Fr::from_u64(1000 + 2 * i),
                                                                Fr::from_u64(1001 + 2 * i)};
    const auto result = groth16::prove_bellman(params, r1cs, witness, options);
    put_span(out, std::span<const Fr>(&options.blinding->r, 1));
    put_span(out, std::span<const Fr>(&options.blinding->s, 1));
    const groth16_proof proof =
        supraseal::to_groth16_proof(groth16::proof_to_bellman(result.proof));
    out.write(reinterpret_cast<const char*>(&proof), sizeof proof);
    if (i == 0) {
      std::ofstream(public_path) << groth16::snarkjs_text(
          groth16::public_inputs_to_json<groth16::BellmanCurve>(result.public_inputs));
    }
  }
  if (!out) {
    std::cerr << out_path << ": write failed\n";
    return 1;
  }
  return 0;
}

// groth16_proof → BellmanProof: the limbs back into cuzk's points (the same layout).
int encode(const char* raw_path, const char* bin_path) {
  std::ifstream in(raw_path, std::ios::binary);
  groth16_proof raw;
  if (!in.read(reinterpret_cast<char*>(&raw), sizeof raw)) {
    std::cerr << raw_path << ": not a 384-byte groth16_proof\n";
    return 1;
  }
  formats::BellmanProof proof;
  static_assert(sizeof(proof) == sizeof(raw));
  std::memcpy(&proof, &raw, sizeof raw);
  const auto bytes = formats::encode_bellman_proof(proof);
  std::ofstream(bin_path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string command = argc > 1 ? argv[1] : "";
    if (command == "assign" && argc == 7)
      return assign(argv[2], argv[3], argv[4], argv[5], argv[6]);
    if (command == "encode" && argc == 4) return encode(argv[2], argv[3]);
    std::cerr << "usage: supraseal_fixture assign <key.params> <circuit.r1cs> <witness.wtns> "
                 "<out.fixture> <public.json>\n"
                 "       supraseal_fixture encode <proof.raw> <proof.bin>\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "supraseal_fixture: " << e.what() << "\n";
    return 1;
  }
}
