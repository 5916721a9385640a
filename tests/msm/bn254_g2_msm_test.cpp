// The MSM suite (msm_suite.hpp) for bn254 G2: one group per file keeps each translation unit
// small.

#include "tests/msm/msm_suite.hpp"

namespace cuzk::test {
INSTANTIATE_TYPED_TEST_SUITE_P(Bn254G2, MsmTest, Bn254G2);
}  // namespace cuzk::test
