// gpu_file_prover (file_prover.hpp).

#include "gpu/prover/file_prover.hpp"

#include <chrono>

#include "gpu/prover/resident_circuit.hpp"
#include "groth16/bellman.hpp"
#include "groth16/stage_timing.hpp"

namespace cuzk::gpu::prover {

namespace {

using groth16::timing::announce;
using groth16::timing::Clock;
using groth16::timing::milliseconds_since;

// Upload (`make_resident` builds the ResidentCircuit), prove, verify.
template <class Curve, class MakeResident>
groth16::ProveResult<Curve> prove_on_device(std::span<const typename Curve::Fr> witness,
                                            const groth16::ProveOptions<Curve>& options,
                                            double check_ms, MakeResident make_resident) {
  const auto start = Clock::now();
  announce(options, "uploading the circuit and key to the GPU");
  const ResidentCircuit<Curve> resident = make_resident();
  if (resident.key().residency() == KeyResidency::kStreamed) {
    announce(options, "the key stays in pinned host memory and is streamed into the MSMs");
  }
  PinnedWitness<typename Curve::Fr> pinned(witness.size());
  pinned.assign_montgomery(witness);
  auto buffers = PartitionBuffers<Curve>::allocate(resident.shape());
  const Stream stream;
  const double upload_ms = milliseconds_since(start);

  announce(options, "proving on the GPU");
  GpuProveOptions<Curve> gpu_options;
  gpu_options.blinding = options.blinding;
  gpu_options.self_verify = true;
  auto result = prove(resident.circuit(), resident.key(), resident.domain(), pinned, buffers,
                      stream, gpu_options);
  result.timings.witness_check_ms += check_ms;
  result.timings.upload_ms = upload_ms;
  result.timings.total_ms += check_ms + upload_ms;
  return result;
}

class GpuFileProver final : public groth16::FileProver {
 public:
  explicit GpuFileProver(KeyPlacement placement) : placement_(placement) {}
  const char* name() const override { return "cuda"; }

  groth16::ProveResult<formats::Bn254> prove_zkey(
      const formats::Groth16Zkey<formats::Bn254>& key, std::span<const bn254::Fr> witness,
      const groth16::ProveOptions<formats::Bn254>& options) const override {
    return zkey_proof(key, witness, options);
  }
  groth16::ProveResult<formats::Bls12_381> prove_zkey(
      const formats::Groth16Zkey<formats::Bls12_381>& key, std::span<const bls12_381::Fr> witness,
      const groth16::ProveOptions<formats::Bls12_381>& options) const override {
    return zkey_proof(key, witness, options);
  }
  groth16::ProveResult<groth16::BellmanCurve> prove_params(
      const formats::BellmanParams& params, const formats::R1cs<groth16::BellmanCurve>& r1cs,
      std::span<const bls12_381::Fr> witness,
      const groth16::ProveOptions<groth16::BellmanCurve>& options) const override {
    announce(options, "checking the witness against the .r1cs");
    const auto start = Clock::now();
    groth16::check_bellman_inputs(params, r1cs, witness);
    return prove_on_device(witness, options, milliseconds_since(start), [&] {
      return ResidentCircuit<groth16::BellmanCurve>::from_params(params, r1cs, placement_);
    });
  }

 private:
  template <class Curve>
  groth16::ProveResult<Curve> zkey_proof(const formats::Groth16Zkey<Curve>& key,
                                         std::span<const typename Curve::Fr> witness,
                                         const groth16::ProveOptions<Curve>& options) const {
    announce(options, "checking the witness");
    const auto start = Clock::now();
    groth16::check_prove_inputs(key, witness, options);
    return prove_on_device(witness, options, milliseconds_since(start),
                           [&] { return ResidentCircuit<Curve>::from_zkey(key, placement_); });
  }

  KeyPlacement placement_;
};

}  // namespace

const groth16::FileProver& gpu_file_prover(KeyPlacement placement) {
  static const GpuFileProver automatic(KeyPlacement::kAuto), device(KeyPlacement::kDevice),
      streamed(KeyPlacement::kStreamed);
  switch (placement) {
    case KeyPlacement::kDevice:
      return device;
    case KeyPlacement::kStreamed:
      return streamed;
    case KeyPlacement::kAuto:
      break;
  }
  return automatic;
}

}  // namespace cuzk::gpu::prover
