// GPU differential test of the BN254 fields (Fp, Fr, Fp2): device results equal the
// host's bit for bit. The checks are in field_diff_cases.cuh.

#include "curves/bn254_fields.hpp"
#include "tests/gpu/field_diff_cases.cuh"

namespace cuzk::gpu::test {
namespace {

struct Bn254Fp {
  using Field = bn254::Fp;
  static constexpr const char* kName = "bn254.Fp";
};
struct Bn254Fr {
  using Field = bn254::Fr;
  static constexpr const char* kName = "bn254.Fr";
};
struct Bn254Fp2 {
  using Field = bn254::Fp2;
  static constexpr const char* kName = "bn254.Fp2";
};

using Fields = ::testing::Types<Bn254Fp, Bn254Fr>;
INSTANTIATE_TYPED_TEST_SUITE_P(Bn254, FieldDiffTest, Fields);
INSTANTIATE_TYPED_TEST_SUITE_P(Bn254, Fp2DiffTest, ::testing::Types<Bn254Fp2>);

}  // namespace
}  // namespace cuzk::gpu::test
