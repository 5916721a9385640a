// Domain constants in both conventions, checked against the sources that define them.

#include "tests/ntt/ntt_test_support.hpp"

namespace cuzk::ntt::test {
namespace {

template <class Fr>
class DomainTest : public ::testing::Test {};
TYPED_TEST_SUITE(DomainTest, ScalarFields);

// ω has order exactly n, and the derived inverses are inverses.
TYPED_TEST(DomainTest, RootsHaveTheDomainOrder) {
  using Fr = TypeParam;
  for (Convention convention : {Convention::kSnarkjs, Convention::kBellman}) {
    for (unsigned k : {0u, 1u, 2u, 5u, 13u, unsigned(Fr::kTwoAdicity)}) {
      Domain<Fr> domain(k, convention);
      Fr w = domain.omega();
      for (unsigned i = 0; i + 1 < k; ++i) w = w.sqr();
      // w = ω^(n/2) must be −1 (for n = 1, ω itself must be 1).
      EXPECT_EQ(w, k == 0 ? Fr::one() : -Fr::one()) << "k = " << k;
      EXPECT_EQ(domain.omega() * domain.omega_inv(), Fr::one());
      EXPECT_EQ(domain.size_inv() * Fr::from_u64(domain.size()), Fr::one());
      EXPECT_NE(domain.coset_shift().pow(uint64_t(domain.size())), Fr::one());
    }
  }
}

// snarkjs: ω_n = Fr.w[k] and the odd-coset shift is Fr.w[k + 1], both from nqr^t
// (ffjavascript wasm_field1.js), the field's root_of_unity(k).
TYPED_TEST(DomainTest, SnarkjsRootsAndOddCosetShift) {
  using Fr = TypeParam;
  for (unsigned k = 0; k < 20; ++k) {
    Domain<Fr> domain(k, Convention::kSnarkjs);
    EXPECT_EQ(domain.omega(), Fr::root_of_unity(k));
    EXPECT_EQ(domain.coset_shift(), Fr::root_of_unity(k + 1));
  }
}

// ffjavascript searches nqr upwards from 2 and sets shift = nqr²; snarkjs 0.7.6 prints
// Fr.shift = 25 for both curves (tests/ntt/make_snarkjs_vectors.mjs). It is the shift of the
// largest domain, where ω_2n does not exist.
TYPED_TEST(DomainTest, SnarkjsShiftOfTheLargestDomainIs25) {
  using Fr = TypeParam;
  for (uint64_t v = 2; v < 5; ++v) EXPECT_EQ(Fr::from_u64(v).legendre(), 1) << v;
  EXPECT_EQ(Fr::from_u64(5).legendre(), -1);
  if constexpr (Fr::kTwoAdicity <= 28) {  // BLS12-381's 2^32 domain would only be slower
    Domain<Fr> domain(Fr::kTwoAdicity, Convention::kSnarkjs);
    EXPECT_EQ(domain.coset_shift(), Fr::from_u64(25));
  }
}

// bellman: ω_(2^s) = 7^t and the coset generator is 7 (on both curves).
TYPED_TEST(DomainTest, BellmanRootsAndCoset) {
  using Fr = TypeParam;
  const Fr root = Fr::from_u64(7).pow(Fr::kOddPart);
  Domain<Fr> largest(Fr::kTwoAdicity, Convention::kBellman);
  EXPECT_EQ(largest.omega(), root);
  Domain<Fr> domain(10, Convention::kBellman);
  Fr expected = root;
  for (size_t i = 10; i < Fr::kTwoAdicity; ++i) expected = expected.sqr();
  EXPECT_EQ(domain.omega(), expected);
  EXPECT_EQ(domain.coset_shift(), Fr::from_u64(7));
  EXPECT_NE(domain.omega(), Domain<Fr>(10, Convention::kSnarkjs).omega());
}

// zkcrypto bls12_381 src/scalar.rs: ROOT_OF_UNITY = GENERATOR^t (GENERATOR = 7), stored in
// Montgomery form with R = 2^256 (the representation of ff::Field as well).
TEST(DomainBls12381, BellmanRootMatchesZkcrypto) {
  using Fr = bls12_381::Fr;
  const Fr zkcrypto_root = Fr::from_montgomery(
      Fr::Int{{0xb9b58d8c5f0e466a, 0x5b1b4c801819d7ec, 0x0af53ae352a31e64, 0x5bf3adda19e9b27b}});
  EXPECT_EQ(Domain<Fr>(32, Convention::kBellman).omega(), zkcrypto_root);
}

TYPED_TEST(DomainTest, RejectsSizesBeyondTheTwoAdicity) {
  using Fr = TypeParam;
  try {
    Domain<Fr> domain(Fr::kTwoAdicity + 1, Convention::kSnarkjs);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidInput);
    EXPECT_NE(std::string(e.what()).find("exceeds"), std::string::npos) << e.what();
  }
}

TYPED_TEST(DomainTest, RejectsVectorsOfTheWrongSize) {
  using Fr = TypeParam;
  Domain<Fr> domain(4, Convention::kSnarkjs);
  std::vector<Fr> values(15, Fr::one());
  try {
    domain.forward(values);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidInput);
    EXPECT_NE(std::string(e.what()).find("15 values"), std::string::npos) << e.what();
  }
  EXPECT_THROW(domain.inverse(std::span<Fr>(values).first(8)), Error);
  EXPECT_THROW(domain.coset_forward(std::span<Fr>(values).first(0)), Error);
  EXPECT_THROW(domain.coset_inverse(std::span<Fr>(values).first(1)), Error);
}

}  // namespace
}  // namespace cuzk::ntt::test
