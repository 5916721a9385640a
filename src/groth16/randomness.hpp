#pragma once
// The source of the secrets a prover and a setup draw: blinding factors r, s and toxic waste.
//
// SystemRandom is a UniformRandomBitGenerator of 64-bit words taken from std::random_device,
// which in libstdc++ reads the hardware generator (RDRAND/RDSEED) or the kernel's CSPRNG
// (getentropy, /dev/urandom), never a deterministic engine. Each value costs a system call or a
// hardware instruction; a proof draws 2 scalars and a setup 5, so speed does not matter here.
//
// Thread-safety: one SystemRandom per thread.

#include <cstdint>
#include <random>

#include "groth16/types.hpp"

namespace cuzk::groth16 {

class SystemRandom {
 public:
  using result_type = uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~uint64_t(0); }
  result_type operator()() {
    static_assert(sizeof(std::random_device::result_type) == 4);
    const uint64_t high = device_();
    return (high << 32) | device_();
  }

 private:
  std::random_device device_;
};

// r and s uniform in Fr.
template <class Curve, class Rng>
Blinding<Curve> random_blinding(Rng& rng) {
  using Fr = typename Curve::Fr;
  return {Fr::random(rng), Fr::random(rng)};
}

// τ, α, β, γ, δ uniform in Fr \ {0}. A τ on the domain or its coset is refused by the setup
// instead (probability n/r, about 2^-230).
template <class Curve, class Rng>
ToxicWaste<Curve> random_toxic_waste(Rng& rng) {
  using Fr = typename Curve::Fr;
  auto nonzero = [&rng] {
    for (;;) {
      const Fr value = Fr::random(rng);
      if (!value.is_zero()) return value;
    }
  };
  ToxicWaste<Curve> waste;
  waste.tau = nonzero();
  waste.alpha = nonzero();
  waste.beta = nonzero();
  waste.gamma = nonzero();
  waste.delta = nonzero();
  return waste;
}

}  // namespace cuzk::groth16
