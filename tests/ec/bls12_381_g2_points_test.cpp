// The point suite (point_suite.hpp) for bls12_381 G2: one group per file keeps each translation
// unit small.

#include "tests/ec/point_suite.hpp"

namespace cuzk::test {
INSTANTIATE_TYPED_TEST_SUITE_P(Bls12381G2, PointTest, Bls12381G2);
}  // namespace cuzk::test
