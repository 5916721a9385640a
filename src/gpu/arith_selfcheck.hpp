#pragma once
// The device-arithmetic part of `cuzk selftest`: random field products and sums, Fp2 products
// and G1/G2 additions of both curves computed by kernels and compared bit for bit with the
// host. The full differential suite is tests/gpu; this is the quick check an operator runs on
// a new machine. Allocates and synchronizes freely: never on the proving path.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cuzk::gpu {

struct ArithCheck {
  std::string what;  // "bls12_381.Fp mul"
  size_t cases = 0;
  size_t mismatches = 0;
};

struct ArithSelfcheck {
  bool device_present = false;
  std::string device;  // describe(device_info(0)), or why there is none
  std::vector<ArithCheck> checks;
  bool passed() const {
    for (const auto& c : checks) {
      if (c.mismatches != 0) return false;
    }
    return device_present;
  }
};

// Runs every check with `cases` random inputs each (points: cases / 16) on device 0.
ArithSelfcheck arith_selfcheck(size_t cases, uint64_t seed);

}  // namespace cuzk::gpu
