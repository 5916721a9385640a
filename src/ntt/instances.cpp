// Explicit instantiation of the NTT layer for the scalar fields of both curves.

#include "ntt/instances.hpp"

namespace cuzk::ntt {
CUZK_NTT_DECLARE_FOR_FIELD(, bls12_381::Fr)
CUZK_NTT_DECLARE_FOR_FIELD(, bn254::Fr)
}  // namespace cuzk::ntt
