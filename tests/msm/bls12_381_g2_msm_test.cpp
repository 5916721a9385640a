// The MSM suite (msm_suite.hpp) for bls12_381 G2: one group per file keeps each translation unit
// small.

#include "tests/msm/msm_suite.hpp"

namespace cuzk::test {
INSTANTIATE_TYPED_TEST_SUITE_P(Bls12381G2, MsmTest, Bls12381G2);
}  // namespace cuzk::test
