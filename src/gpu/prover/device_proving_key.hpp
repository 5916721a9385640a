#pragma once
// A Groth16 proving key's point queries resident in VRAM (DESIGN.md §2.2, "hot-device"), plus
// the host-side constants the epilogue needs (α, β, δ, the verifying key).
//
//   query  snarkjs .zkey (nVars = N_v, domain n)      bellman .params
//   a      A_i(τ), N_v points (G1)                    a: wires with a non-zero A polynomial
//   b1     B_i(τ), N_v points (G1)                    b_g1: wires with a non-zero B polynomial
//   b2     B_i(τ), N_v points (G2)                    b_g2: the same wires
//   c      C: private wires (N_v − nPublic − 1)       l: private wires
//   h      n odd-coset Lagrange points                h: n − 1 coefficient-basis points
// Points keep the host layout (ec::Affine, Montgomery coordinates), which is the device layout
// byte for byte (src/gpu/README.md). The bellman a/b queries are density-filtered: the MSM
// must take the scalars of the listed wires only (groth16/bellman.hpp).
//
// Ownership: upload() allocates with blocking cudaMalloc and copies synchronously: start-up
// work, done when a key is loaded into the key store, never per partition. The key is
// read-only afterwards and may be used by any number of workers' streams at once. Move-only.
//
// Residency: only kDevice exists. kStreamed (the queries in pinned host memory, streamed into
// the MSM with double buffering, for keys larger than the free VRAM) is the seam for later:
// footprint() already tells the key store how much VRAM kDevice would take, so the choice can
// be made before any allocation; asking for kStreamed throws kInvalidInput "not implemented".

#include <cstddef>
#include <cstdint>

#include "formats/params.hpp"
#include "formats/zkey.hpp"
#include "gpu/device_memory.hpp"
#include "groth16/types.hpp"

namespace cuzk::gpu::prover {

enum class KeyConvention { kSnarkjs, kBellman };
enum class KeyResidency { kDevice, kStreamed };

// Point counts and the VRAM they take when resident.
struct KeyFootprint {
  size_t a = 0, b1 = 0, b2 = 0, c = 0, h = 0;  // points per query
  size_t g1_bytes = 0, g2_bytes = 0;           // bytes per point

  size_t bytes() const { return (a + b1 + c + h) * g1_bytes + b2 * g2_bytes; }
};

template <class Curve>
KeyFootprint footprint(const formats::Groth16Header<Curve>& header);
KeyFootprint footprint(const formats::BellmanParams& params);

// What the host combines after the MSMs (the epilogue) and checks the proof against.
template <class Curve>
struct KeyConstants {
  typename Curve::G1 alpha1, beta1, delta1;
  typename Curve::G2 beta2, delta2;
  groth16::VerifyingKey<Curve> vk;
};

template <class Curve>
class DeviceProvingKey {
 public:
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;

  DeviceProvingKey() = default;
  // Blocking uploads (start-up work). Throws kInvalidInput for residency kStreamed, and when
  // the key's vectors do not have the sizes its header implies; kCuda when VRAM is short.
  static DeviceProvingKey upload(const formats::Groth16Zkey<Curve>& key,
                                 KeyResidency residency = KeyResidency::kDevice);
  // BLS12-381 only (bellman's keys are): DeviceProvingKey<formats::Bls12_381>::upload(params).
  static DeviceProvingKey upload(const formats::BellmanParams& params,
                                 KeyResidency residency = KeyResidency::kDevice);

  KeyConvention convention() const { return convention_; }
  const KeyFootprint& footprint() const { return footprint_; }
  size_t bytes() const { return footprint_.bytes(); }
  const KeyConstants<Curve>& constants() const { return constants_; }

  // Device arrays of footprint().a, .b1, ... points.
  const G1* a() const { return a_.data(); }
  const G1* b1() const { return b1_.data(); }
  const G2* b2() const { return b2_.data(); }
  const G1* c() const { return c_.data(); }  // C (zkey) or L (params)
  const G1* h() const { return h_.data(); }

 private:
  KeyConvention convention_ = KeyConvention::kSnarkjs;
  KeyFootprint footprint_;
  KeyConstants<Curve> constants_;
  DeviceBuffer<G1> a_, b1_, c_, h_;
  DeviceBuffer<G2> b2_;
};

}  // namespace cuzk::gpu::prover
