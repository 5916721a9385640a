// Synthetic circuits: every shape satisfies its constraints on both curves at sizes that are
// not powers of two, the porep shape has the requested densities, and the output depends on
// the seed only.

#include <gtest/gtest.h>

#include <oneapi/tbb/task_arena.h>

#include <unistd.h>
#include <cstdlib>
#include <filesystem>

#include "circuits/synthetic.hpp"
#include "formats/mapped_file.hpp"
#include "formats/r1cs.hpp"
#include "formats/wtns.hpp"
#include "tests/formats/formats_test_support.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::circuits {
namespace {

using formats::test::Curves;

// The first row where (A·w)(B·w) ≠ C·w, or -1.
template <class Curve>
int64_t first_unsatisfied_row(const formats::R1cs<Curve>& r1cs,
                              std::span<const typename Curve::Fr> w) {
  using Fr = typename Curve::Fr;
  auto dot = [&](const formats::SparseMatrix<Fr>& m, size_t row) {
    Fr acc = Fr::zero();
    auto columns = m.row_columns(row);
    auto values = m.row_values(row);
    for (size_t t = 0; t < columns.size(); ++t) acc += values[t] * w[columns[t]];
    return acc;
  };
  for (size_t row = 0; row < r1cs.header.n_constraints; ++row) {
    if (dot(r1cs.a, row) * dot(r1cs.b, row) != dot(r1cs.c, row)) return int64_t(row);
  }
  return -1;
}

template <class Curve>
class SyntheticCircuits : public ::testing::Test {};
TYPED_TEST_SUITE(SyntheticCircuits, Curves);

TYPED_TEST(SyntheticCircuits, EveryShapeIsSatisfied) {
  using Curve = TypeParam;
  for (Shape shape : {Shape::kPorep, Shape::kDense, Shape::kChain}) {
    for (uint32_t n : {1u, 7u, 1000u, 4099u}) {
      SyntheticSpec spec{.shape = shape, .constraints = n, .seed = cuzk::test::seed() + n};
      if (shape != Shape::kChain) spec.public_inputs = n % 3;
      SyntheticCircuit<Curve> c = generate_circuit<Curve>(spec);
      const formats::R1csHeader& h = c.r1cs.header;
      EXPECT_EQ(h.n_constraints, n);
      EXPECT_EQ(c.witness.size(), h.n_wires);
      EXPECT_EQ(c.witness[0], Curve::Fr::one());
      EXPECT_EQ(first_unsatisfied_row(c.r1cs, std::span<const typename Curve::Fr>(c.witness)), -1)
          << shape_name(shape) << " " << n;
      // What the formats layer writes, it reads back unchanged.
      EXPECT_EQ(formats::parse_r1cs<Curve>(formats::r1cs_to_bytes(c.r1cs), "synthetic.r1cs"),
                c.r1cs);
      if (n == 4099) {
        // The check can fail: a changed witness value breaks some row.
        auto broken = c.witness;
        broken.back() += Curve::Fr::one();
        EXPECT_NE(first_unsatisfied_row(c.r1cs, std::span<const typename Curve::Fr>(broken)), -1);
      }
    }
  }
}

// DESIGN.md §1: a PoRep partition has per constraint 2.37 terms in A, 1.0 in B and 2.17 in C,
// 25% of its private wires in B and mostly bits for values.
TYPED_TEST(SyntheticCircuits, PorepShapeHasTheRequestedDensities) {
  using Curve = TypeParam;
  const uint32_t n = 1u << 14;
  SyntheticSpec spec{
      .shape = Shape::kPorep, .constraints = n, .public_inputs = 2, .seed = cuzk::test::seed()};
  SyntheticCircuit<Curve> c = generate_circuit<Curve>(spec);
  CircuitStats s = measure_circuit<Curve>(c.r1cs, c.witness);
  EXPECT_EQ(s.wires, n + 3);
  EXPECT_EQ(s.public_wires, 2u);
  EXPECT_EQ(s.private_wires, n);
  // Standard deviations at this size: bits ~0.0023, B density ~0.0034, terms/row ~0.004.
  EXPECT_NEAR(s.private_bit_fraction(), 0.9, 0.015);
  EXPECT_NEAR(s.b_aux_density(), 0.25, 0.02);
  EXPECT_NEAR(double(s.nnz_a) / n, 2.37, 0.03);
  EXPECT_EQ(s.nnz_b, n);
  EXPECT_NEAR(double(s.nnz_c) / n, 2.17, 0.03);

  // Other settings move the measured values with them.
  spec.bit_fraction = 0.5;
  spec.b_aux_density = 0.1;
  spec.terms_a = 4.5;
  spec.terms_c = 3;
  c = generate_circuit<Curve>(spec);
  s = measure_circuit<Curve>(c.r1cs, c.witness);
  EXPECT_EQ(first_unsatisfied_row(c.r1cs, std::span<const typename Curve::Fr>(c.witness)), -1);
  EXPECT_NEAR(s.private_bit_fraction(), 0.5, 0.02);
  EXPECT_NEAR(s.b_aux_density(), 0.1, 0.015);
  EXPECT_NEAR(double(s.nnz_a) / n, 4.5, 0.03);
  EXPECT_EQ(s.nnz_c, 3 * uint64_t(n));
}

TYPED_TEST(SyntheticCircuits, DenseShapeHasNoSmallValues) {
  using Curve = TypeParam;
  SyntheticSpec spec{.shape = Shape::kDense, .constraints = 3000, .seed = cuzk::test::seed()};
  SyntheticCircuit<Curve> c = generate_circuit<Curve>(spec);
  CircuitStats s = measure_circuit<Curve>(c.r1cs, c.witness);
  EXPECT_EQ(s.private_bits, 0u);
  size_t unit_coefficients = 0;
  for (const auto& v : c.r1cs.a.value)
    unit_coefficients += v == Curve::Fr::one() || v == -Curve::Fr::one();
  EXPECT_EQ(unit_coefficients, 0u);
  EXPECT_NEAR(s.b_aux_density(), 0.25, 0.05);
}

TYPED_TEST(SyntheticCircuits, SameSeedSameBytesWhateverTheThreads) {
  using Curve = TypeParam;
  for (Shape shape : {Shape::kPorep, Shape::kDense, Shape::kChain}) {
    SyntheticSpec spec{
        .shape = shape, .constraints = 3 * kRowsPerBlock + 5, .seed = cuzk::test::seed()};
    SyntheticCircuit<Curve> many = generate_circuit<Curve>(spec);
    SyntheticCircuit<Curve> one;
    tbb::task_arena(1).execute([&] { one = generate_circuit<Curve>(spec); });
    EXPECT_TRUE(formats::r1cs_to_bytes(many.r1cs) == formats::r1cs_to_bytes(one.r1cs));
    EXPECT_TRUE(formats::wtns_to_bytes<Curve>(many.witness) ==
                formats::wtns_to_bytes<Curve>(one.witness));
    spec.seed += 1;
    SyntheticCircuit<Curve> other = generate_circuit<Curve>(spec);
    EXPECT_FALSE(other.witness == many.witness) << shape_name(shape);
    if (shape != Shape::kChain) {
      EXPECT_FALSE(other.r1cs == many.r1cs) << shape_name(shape);
    }
  }
}

TYPED_TEST(SyntheticCircuits, ChainIsTheCircomRecurrence) {
  using Curve = TypeParam;
  using Fr = typename Curve::Fr;
  SyntheticSpec spec{.shape = Shape::kChain, .constraints = 5, .chain_input = 3};
  SyntheticCircuit<Curve> c = generate_circuit<Curve>(spec);
  const formats::R1csHeader& h = c.r1cs.header;
  EXPECT_EQ(h.n_wires, 7u);
  EXPECT_EQ(h.n_pub_out, 1u);
  EXPECT_EQ(h.n_pub_in, 1u);
  Fr x = Fr::from_u64(3);
  EXPECT_EQ(c.witness[2], x);
  for (int i = 0; i < 5; ++i) x = x * x + Fr::from_u64(7);
  EXPECT_EQ(c.witness[1], x);  // the public output
  // Row 0 as circom writes it: A = −x_0, B = x_0, C = 7 − x_1 (x_0 is wire 2, x_1 wire 3).
  EXPECT_EQ(c.r1cs.a.column[0], 2u);
  EXPECT_EQ(c.r1cs.a.value[0], -Fr::one());
  EXPECT_EQ(c.r1cs.c.column[1], 3u);
  EXPECT_EQ(c.r1cs.c.value[0], Fr::from_u64(7));
}

std::filesystem::path fixture_dir(const std::string& name) {
  const char* root = std::getenv("CUZK_SHARED_FIXTURES");
  if (root == nullptr || *root == '\0') return {};
  return std::filesystem::path(root) / name;
}

// The circom fixtures (tests/formats/fixtures_test.cpp) hold the chain of 2^k − 3 constraints
// compiled by circom 2.2.3 and its witness for x = 3 (input.json): our chain must reproduce
// their constraint section and their witness file byte for byte.
template <class Curve>
void compare_with_circom(const std::string& name, uint32_t k) {
  std::filesystem::path dir = fixture_dir(name);
  if (dir.empty()) GTEST_SKIP() << "CUZK_SHARED_FIXTURES is not set";
  SyntheticSpec spec{.shape = Shape::kChain, .constraints = (1u << k) - 3, .chain_input = 3};
  SyntheticCircuit<Curve> c = generate_circuit<Curve>(spec);
  formats::MappedFile r1cs_file = formats::MappedFile::open(dir / "circuit.r1cs");
  auto theirs = formats::test::split_container(r1cs_file.bytes(), {"r1cs", 1});
  auto ours = formats::test::split_container(formats::r1cs_to_bytes(c.r1cs), {"r1cs", 1});
  EXPECT_TRUE(formats::test::find_section(ours, 2).body ==
              formats::test::find_section(theirs, 2).body);
  formats::MappedFile wtns_file = formats::MappedFile::open(dir / "witness.wtns");
  EXPECT_TRUE(formats::wtns_to_bytes<Curve>(c.witness) ==
              std::vector<uint8_t>(wtns_file.bytes().begin(), wtns_file.bytes().end()));
}

TEST(SyntheticChain, MatchesCircomBn254) { compare_with_circom<formats::Bn254>("bn128_k10", 10); }
TEST(SyntheticChain, MatchesCircomBls12_381) {
  compare_with_circom<formats::Bls12_381>("bls12381_k10", 10);
}

TEST(SyntheticSpecs, OutOfRangeSpecsAreRefused) {
  using formats::Bn254;
  EXPECT_INVALID_INPUT(generate_circuit<Bn254>({.constraints = 0}),
                       "synthetic circuit: needs at least one constraint");
  EXPECT_INVALID_INPUT(generate_circuit<Bn254>({.bit_fraction = 1.5}),
                       "bit_fraction = 1.500000 is outside [0.000000, 1.000000]");
  EXPECT_INVALID_INPUT(generate_circuit<Bn254>({.terms_c = 1}), "terms_c = 1.000000 is outside");
  EXPECT_INVALID_INPUT(generate_circuit<Bn254>({.terms_a = 65}), "terms_a");
  EXPECT_INVALID_INPUT(generate_circuit<Bn254>({.shape = Shape::kChain, .public_inputs = 2}),
                       "the chain shape has one public input and one public output, not 2");
  EXPECT_INVALID_INPUT(generate_circuit<Bn254>({.constraints = UINT32_MAX - 1, .public_inputs = 5}),
                       "wires exceed the 2^32 − 1");
  EXPECT_INVALID_INPUT(parse_shape("sha256"), "unknown circuit shape \"sha256\"");
  EXPECT_EQ(parse_shape("dense"), Shape::kDense);
}

TEST(SyntheticFiles, WrittenFilesReadBack) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto r1cs_path = dir / ("cuzk_synthetic_" + std::to_string(getpid()) + ".r1cs");
  const auto wtns_path = dir / ("cuzk_synthetic_" + std::to_string(getpid()) + ".wtns");
  SyntheticSpec spec{.constraints = 777, .public_inputs = 3, .seed = cuzk::test::seed()};
  CircuitStats stats =
      write_synthetic_circuit(formats::CurveId::kBls12_381, spec, r1cs_path, wtns_path);
  SyntheticCircuit<formats::Bls12_381> expected = generate_circuit<formats::Bls12_381>(spec);
  EXPECT_EQ(formats::read_r1cs<formats::Bls12_381>(r1cs_path), expected.r1cs);
  EXPECT_EQ(formats::read_wtns<formats::Bls12_381>(wtns_path), expected.witness);
  EXPECT_EQ(stats.constraints, 777u);
  EXPECT_EQ(stats.wires, 777u + 4);
  EXPECT_EQ(stats.nnz_b, expected.r1cs.b.nnz());
  std::filesystem::remove(r1cs_path);
  std::filesystem::remove(wtns_path);
}

}  // namespace
}  // namespace cuzk::circuits
