// GPU differential test of the BLS12-381 fields (Fp, Fr, Fp2): device results equal the
// host's bit for bit. The checks are in field_diff_cases.cuh.

#include "curves/bls12_381_fields.hpp"
#include "tests/gpu/field_diff_cases.cuh"

namespace cuzk::gpu::test {
namespace {

struct Bls12381Fp {
  using Field = bls12_381::Fp;
  static constexpr const char* kName = "bls12_381.Fp";
};
struct Bls12381Fr {
  using Field = bls12_381::Fr;
  static constexpr const char* kName = "bls12_381.Fr";
};
struct Bls12381Fp2 {
  using Field = bls12_381::Fp2;
  static constexpr const char* kName = "bls12_381.Fp2";
};

using Fields = ::testing::Types<Bls12381Fp, Bls12381Fr>;
INSTANTIATE_TYPED_TEST_SUITE_P(Bls12381, FieldDiffTest, Fields);
INSTANTIATE_TYPED_TEST_SUITE_P(Bls12381, Fp2DiffTest, ::testing::Types<Bls12381Fp2>);

}  // namespace
}  // namespace cuzk::gpu::test
