#include "supraseal/proof_layout.hpp"

#include <cstring>
#include <string>
#include <type_traits>

namespace cuzk::supraseal {
namespace {

static_assert(sizeof(cuzk_fp_t) == sizeof(bls12_381::Fp) && sizeof(cuzk_fp_t) == 48);
static_assert(sizeof(groth16_proof) == 384);
static_assert(std::is_trivially_copyable_v<bls12_381::Fp>);

void put(cuzk_fp_t& out, const bls12_381::Fp& value) {
  static_assert(sizeof(value.mont) == sizeof(out.limbs));
  std::memcpy(out.limbs, value.mont, sizeof(out.limbs));
}

// Affine (0, 0) is the point at infinity in both representations (ec/affine.hpp, blst).
cuzk_g1_affine_t put(const bls12_381::G1Affine& p) {
  cuzk_g1_affine_t out;
  put(out.x, p.x);
  put(out.y, p.y);
  return out;
}

cuzk_g2_affine_t put(const bls12_381::G2Affine& p) {
  cuzk_g2_affine_t out;
  put(out.x[0], p.x.c0);
  put(out.x[1], p.x.c1);
  put(out.y[0], p.y.c0);
  put(out.y[1], p.y.c1);
  return out;
}

}  // namespace

groth16_proof to_groth16_proof(const formats::BellmanProof& proof) {
  return {put(proof.a), put(proof.b), put(proof.c)};
}

groth16_proof to_groth16_proof(const engine::PartitionOutput& output) {
  if (output.format != engine::ProofFormat::kBellman ||
      output.proof.size() != formats::kBellmanProofBytes) {
    CUZK_THROW(ErrorKind::kInternal, "the engine's proof is not a bellman proof (" +
                                         std::to_string(output.proof.size()) + " bytes)");
  }
  return to_groth16_proof(formats::decode_bellman_proof(output.proof, "engine proof"));
}

}  // namespace cuzk::supraseal
