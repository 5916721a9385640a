// GPU NTT differential tests on the bn254 scalar field (checks in ntt_cases.cuh).

#include "tests/gpu/ntt_cases.cuh"

namespace cuzk::gpu::ntt::test {
namespace {

TEST(GpuNtt_bn254, TransformsMatchCpu) {
  CUZK_SKIP_WITHOUT_GPU();
  check_transforms<bn254::Fr>("bn254");
}

TEST(GpuNtt_bn254, HPolynomialsMatchCpu) {
  CUZK_SKIP_WITHOUT_GPU();
  check_h_polynomials<bn254::Fr>("bn254");
}

TEST(GpuNtt_bn254, FullTwiddleTablesMatchCpu) {
  CUZK_SKIP_WITHOUT_GPU();
  check_full_twiddles<bn254::Fr>("bn254");
}

TEST(GpuNtt_bn254, BadInputIsRefused) {
  CUZK_SKIP_WITHOUT_GPU();
  check_errors<bn254::Fr>();
}

}  // namespace
}  // namespace cuzk::gpu::ntt::test
