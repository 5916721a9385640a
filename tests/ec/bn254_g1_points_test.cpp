// The point suite (point_suite.hpp) for bn254 G1: one group per file keeps each translation
// unit small.

#include "tests/ec/point_suite.hpp"

namespace cuzk::test {
INSTANTIATE_TYPED_TEST_SUITE_P(Bn254G1, PointTest, Bn254G1);
}  // namespace cuzk::test
