// The MSM suite (msm_suite.hpp) for bn254 G1: one group per file keeps each translation unit
// small.

#include "tests/msm/msm_suite.hpp"

namespace cuzk::test {
INSTANTIATE_TYPED_TEST_SUITE_P(Bn254G1, MsmTest, Bn254G1);
}  // namespace cuzk::test
