#pragma once
// The engine's proof of a .params key (PartitionOutput in ProofFormat::kBellman: the 192-byte
// compressed bellman proof) as supraseal's groth16_proof: affine points, coordinates in
// Montgomery form with blst's limb layout, which is cuzk's own (ff/field.hpp: N little-endian
// 64-bit limbs of a·R; Fp2 as c0 then c1), so the conversion copies limbs.

#include "cuzk/supraseal_types.h"
#include "engine/job.hpp"
#include "formats/params.hpp"

namespace cuzk::supraseal {

groth16_proof to_groth16_proof(const formats::BellmanProof& proof);
// Throws kInternal when the output is not a bellman proof.
groth16_proof to_groth16_proof(const engine::PartitionOutput& output);

}  // namespace cuzk::supraseal
