// GPU NTT differential tests on the bls12_381 scalar field (checks in ntt_cases.cuh).

#include "tests/gpu/ntt_cases.cuh"

namespace cuzk::gpu::ntt::test {
namespace {

TEST(GpuNtt_bls12_381, TransformsMatchCpu) {
  CUZK_SKIP_WITHOUT_GPU();
  check_transforms<bls12_381::Fr>("bls12_381");
}

TEST(GpuNtt_bls12_381, HPolynomialsMatchCpu) {
  CUZK_SKIP_WITHOUT_GPU();
  check_h_polynomials<bls12_381::Fr>("bls12_381");
}

TEST(GpuNtt_bls12_381, FullTwiddleTablesMatchCpu) {
  CUZK_SKIP_WITHOUT_GPU();
  check_full_twiddles<bls12_381::Fr>("bls12_381");
}

TEST(GpuNtt_bls12_381, BadInputIsRefused) {
  CUZK_SKIP_WITHOUT_GPU();
  check_errors<bls12_381::Fr>();
}

}  // namespace
}  // namespace cuzk::gpu::ntt::test
