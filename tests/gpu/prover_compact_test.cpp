// Host-only checks of the GPU prover's compact constraint matrices: the coefficient encodings
// round trip, the encoding choice and byte counts, bad input, and the synthesis index math
// (emulated on the host with the kernels' own row functions) against plain CSR arithmetic.
// These run without a GPU.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "gpu/prover/compact_matrix.hpp"
#include "gpu/prover/device_proving_key.hpp"
#include "groth16/setup.hpp"
#include "prover_test_support.hpp"
#include "util/error.hpp"

namespace cuzk::gpu::prover {
namespace {

template <class Curve>
class CompactMatrixTest : public ::testing::Test {};
using Curves = ::testing::Types<formats::Bn254, formats::Bls12_381>;
TYPED_TEST_SUITE(CompactMatrixTest, Curves);

// A random CSR of `rows` rows whose values are drawn from `distinct` random field elements
// (0: every value fresh), with row lengths in [0, max_terms].
template <class Fr>
struct RandomCsr {
  std::vector<uint64_t> row_start{0};
  std::vector<uint32_t> column;
  std::vector<Fr> value;
};

template <class Fr>
RandomCsr<Fr> random_csr(std::mt19937_64& rng, uint32_t rows, uint32_t max_terms, uint32_t columns,
                         size_t distinct) {
  std::vector<Fr> pool(distinct);
  for (auto& v : pool) v = Fr::random(rng);
  RandomCsr<Fr> m;
  for (uint32_t r = 0; r < rows; ++r) {
    const uint32_t terms = uint32_t(rng() % (max_terms + 1));
    for (uint32_t t = 0; t < terms; ++t) {
      m.column.push_back(uint32_t(rng() % columns));
      m.value.push_back(distinct == 0 ? Fr::random(rng) : pool[rng() % distinct]);
    }
    m.row_start.push_back(m.column.size());
  }
  return m;
}

TYPED_TEST(CompactMatrixTest, EncodingsRoundTrip) {
  using Fr = typename TypeParam::Fr;
  auto rng = cuzk::test::rng("compact round trip");
  struct Case {
    size_t distinct;
    uint32_t rows, max_terms;
    CoefficientEncoding expected;
  };
  const Case cases[] = {
      {1, 3000, 5, CoefficientEncoding::kIndex8},
      {256, 3000, 5, CoefficientEncoding::kIndex8},
      {257, 3000, 5, CoefficientEncoding::kIndex16},
      {70000, 200000, 7, CoefficientEncoding::kIndex32},  // ~700k terms: a table still pays
      {0, 3000, 5, CoefficientEncoding::kFull},           // every value distinct
  };
  for (const Case& c : cases) {
    const RandomCsr<Fr> csr = random_csr<Fr>(rng, c.rows, c.max_terms, 5000, c.distinct);
    const CompactMatrix<Fr> m = compact_matrix<Fr>(csr.row_start, csr.column, csr.value, 5000);
    std::printf("[compact] %s\n", describe(m, "random").c_str());
    EXPECT_EQ(m.encoding, c.expected)
        << "distinct " << c.distinct << ": got " << encoding_name(m.encoding);
    EXPECT_EQ(m.rows, c.rows);
    EXPECT_EQ(m.column, csr.column);
    ASSERT_EQ(m.row_start.size(), csr.row_start.size());
    for (size_t r = 0; r < csr.row_start.size(); ++r) {
      ASSERT_EQ(m.row_start[r], csr.row_start[r]) << "row offset " << r;
    }
    const std::vector<Fr> decoded = decode_coefficients(m);
    EXPECT_EQ(test::first_difference(decoded, csr.value), -1)
        << "distinct " << c.distinct << ": a decoded coefficient differs";
    // The byte count is what the arrays hold, and the chosen form is never larger than full.
    const size_t width = c.expected == CoefficientEncoding::kIndex8    ? 1
                         : c.expected == CoefficientEncoding::kIndex16 ? 2
                         : c.expected == CoefficientEncoding::kIndex32 ? 4
                                                                       : 0;
    const size_t nnz = csr.column.size();
    const size_t values = c.expected == CoefficientEncoding::kFull ? nnz : m.values.size();
    EXPECT_EQ(m.bytes(), (c.rows + 1) * 4 + nnz * 4 + nnz * width + values * sizeof(Fr) +
                             m.heavy_segment_start.size() * 4);
    EXPECT_LE(m.bytes(), (c.rows + 1) * 4 + nnz * (4 + sizeof(Fr)) + 4);
  }
}

// More terms than one block of the parallel build (compact_matrix.cpp, 2^20 terms): the blocks'
// tables merge into the table of a single pass, values in order of first occurrence, and a
// wire past the columns is named by its first term.
TYPED_TEST(CompactMatrixTest, BlocksMergeIntoTheFirstOccurrenceTable) {
  using Fr = typename TypeParam::Fr;
  auto rng = cuzk::test::rng("compact blocks");
  const RandomCsr<Fr> csr = random_csr<Fr>(rng, 600000, 8, 5000, 300);  // ~2.4M terms
  ASSERT_GT(csr.column.size(), size_t(2) << 20);
  const CompactMatrix<Fr> m = compact_matrix<Fr>(csr.row_start, csr.column, csr.value, 5000);
  EXPECT_EQ(m.encoding, CoefficientEncoding::kIndex16);
  std::vector<Fr> first_seen;
  for (const Fr& v : csr.value) {
    if (std::find(first_seen.begin(), first_seen.end(), v) == first_seen.end()) {
      first_seen.push_back(v);
    }
    if (first_seen.size() == 300) break;  // the whole pool
  }
  EXPECT_EQ(m.values, first_seen) << "the table is in order of first occurrence";
  EXPECT_EQ(test::first_difference(decode_coefficients(m), csr.value), -1);
  // Two wires past the columns in different blocks: the error names the first.
  RandomCsr<Fr> bad = csr;
  bad.column[(size_t(2) << 20) + 5] = 5000;
  bad.column[(size_t(1) << 20) + 7] = 5001;
  try {
    compact_matrix<Fr>(bad.row_start, bad.column, bad.value, 5000);
    ADD_FAILURE() << "a wire past the columns was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("term " + std::to_string((size_t(1) << 20) + 7) +
                                         " names wire 5001"),
              std::string::npos)
        << e.what();
  }
}

TYPED_TEST(CompactMatrixTest, RowSplitCoversHeavyRowsExactly) {
  using Fr = typename TypeParam::Fr;
  auto rng = cuzk::test::rng("compact split");
  RandomCsr<Fr> csr = random_csr<Fr>(rng, 50, 40, 100, 3);
  const RowSplit split{10, 7};
  const CompactMatrix<Fr> m = compact_matrix<Fr>(csr.row_start, csr.column, csr.value, 100, split);
  ASSERT_EQ(m.heavy_segment_start.size(), m.heavy_rows.size() + 1);
  size_t expected_heavy = 0;
  for (uint32_t r = 0; r < 50; ++r) {
    const uint64_t terms = csr.row_start[r + 1] - csr.row_start[r];
    if (terms <= split.heavy_row_terms) continue;
    ASSERT_LT(expected_heavy, m.heavy_rows.size());
    EXPECT_EQ(m.heavy_rows[expected_heavy], r);
    // Its segments tile the row's terms in order, none longer than segment_terms.
    uint64_t at = csr.row_start[r];
    for (uint32_t s = m.heavy_segment_start[expected_heavy];
         s < m.heavy_segment_start[expected_heavy + 1]; ++s) {
      EXPECT_EQ(m.segments[s].begin, at) << "row " << r << " segment " << s;
      EXPECT_LE(m.segments[s].end - m.segments[s].begin, split.segment_terms);
      at = m.segments[s].end;
    }
    EXPECT_EQ(at, csr.row_start[r + 1]) << "row " << r << ": segments do not reach its end";
    ++expected_heavy;
  }
  EXPECT_EQ(expected_heavy, m.heavy_rows.size());
  EXPECT_GT(expected_heavy, 0u) << "the random matrix should have rows beyond 10 terms";
}

TYPED_TEST(CompactMatrixTest, BadInputIsRefused) {
  using Fr = typename TypeParam::Fr;
  const std::vector<uint32_t> column = {0, 1, 2};
  const std::vector<Fr> value = {Fr::one(), Fr::one(), Fr::one()};
  const std::vector<uint64_t> good = {0, 2, 3};
  EXPECT_NO_THROW(compact_matrix<Fr>(good, column, value, 3));
  const auto expect_invalid = [&](std::vector<uint64_t> offsets, uint32_t columns,
                                  const char* what) {
    try {
      compact_matrix<Fr>(offsets, column, value, columns);
      ADD_FAILURE() << what << ": accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kInvalidInput) << what;
    }
  };
  expect_invalid({0, 2, 3}, 2, "a column beyond the wires");
  expect_invalid({0, 2, 4}, 3, "offsets ending past the terms");
  expect_invalid({1, 2, 3}, 3, "offsets not starting at 0");
  expect_invalid({0, 3, 2, 3}, 3, "decreasing offsets");
  EXPECT_THROW(compact_matrix<Fr>(good, column, value, 3, RowSplit{0, 4}), Error);
}

// The kernels' index math on the host, against the plain CSR: every synthetic shape, both
// sources (.r1cs with C and binding rows; .zkey with c = a∘b), the default split and a tiny
// one that sends most rows through the segment path.
TYPED_TEST(CompactMatrixTest, EmulatedSynthesisMatchesReference) {
  using Curve = TypeParam;
  using Fr = typename Curve::Fr;
  const uint64_t seed = cuzk::test::seed();
  for (const test::CircuitCase& c : test::circuit_cases(/*large=*/true)) {
    const auto circuit = test::make_circuit<Curve>(c, seed);
    const std::vector<Fr> w_std = test::standard_form(circuit.witness);
    for (const RowSplit split : {RowSplit{}, RowSplit{2, 3}}) {
      const auto host = host_circuit_from_r1cs(circuit.r1cs, 0, split);
      const auto expected =
          test::reference_from_r1cs(circuit.r1cs, circuit.witness, host.domain_size);
      const auto actual = test::emulate_synthesis(host, w_std);
      const std::string what = c.name() + " r1cs split " + std::to_string(split.heavy_row_terms);
      EXPECT_EQ(test::first_difference(expected.a, actual.a), -1) << what << ": a";
      EXPECT_EQ(test::first_difference(expected.b, actual.b), -1) << what << ": b";
      EXPECT_EQ(test::first_difference(expected.c, actual.c), -1) << what << ": c";
    }
  }
  // The zkey source on small circuits (a development setup per case).
  for (const test::CircuitCase& c : test::circuit_cases(/*large=*/false)) {
    const auto circuit = test::make_circuit<Curve>(c, seed);
    const auto key = groth16::setup(circuit.r1cs);
    const std::vector<Fr> w_std = test::standard_form(circuit.witness);
    const auto expected = test::reference_from_zkey(key, circuit.witness);
    for (const RowSplit split : {RowSplit{}, RowSplit{1, 2}}) {
      const auto host = host_circuit_from_zkey(key, split);
      ASSERT_FALSE(host.c.has_value());
      const auto actual = test::emulate_synthesis(host, w_std);
      const std::string what = c.name() + " zkey split " + std::to_string(split.heavy_row_terms);
      EXPECT_EQ(test::first_difference(expected.a, actual.a), -1) << what << ": a";
      EXPECT_EQ(test::first_difference(expected.b, actual.b), -1) << what << ": b";
      EXPECT_EQ(test::first_difference(expected.c, actual.c), -1) << what << ": c";
      // For a satisfying witness, the zkey's a∘b equals the .r1cs's C·w on the constraint rows.
      const auto from_r1cs =
          test::reference_from_r1cs(circuit.r1cs, circuit.witness, key.header.domain_size);
      EXPECT_EQ(test::first_difference(from_r1cs.c, actual.c), -1) << what << ": a∘b vs C·w";
    }
  }
}

// The zkey's matrices do not depend on the order of its coefficient section beyond the order
// of each row's terms: rows in file order (as setups write them, the parallel scatter) and rows
// shuffled (the serial counting sort) give the same matrices.
TYPED_TEST(CompactMatrixTest, ZkeyMatricesDoNotDependOnTheSectionsRowOrder) {
  using Curve = TypeParam;
  const uint64_t seed = cuzk::test::seed();
  const auto circuit = test::make_circuit<Curve>(test::circuit_cases(false).front(), seed);
  const auto key = groth16::setup(circuit.r1cs);
  auto shuffled = key;
  // Reverse the order of the rows, keeping each row's terms in file order.
  std::stable_sort(shuffled.coefficients.begin(), shuffled.coefficients.end(),
                   [](const auto& x, const auto& y) { return x.row > y.row; });
  ASSERT_NE(shuffled.coefficients.front().row, key.coefficients.front().row);
  const auto in_order = host_circuit_from_zkey(key);
  const auto reordered = host_circuit_from_zkey(shuffled);
  for (const auto* pair : {&in_order.a, &in_order.b}) {
    const auto& other = pair == &in_order.a ? reordered.a : reordered.b;
    EXPECT_EQ(pair->row_start, other.row_start);
    EXPECT_EQ(pair->column, other.column);
    EXPECT_EQ(test::first_difference(decode_coefficients(*pair), decode_coefficients(other)), -1);
  }
}

// A .zkey's footprint from its coefficients (what the engine charges before reading the points)
// equals the footprint its upload takes from the points, for keys a setup made: the circuit
// shapes (porep leaves most wires out of B, so its B queries are filtered), both curves. In a
// filtered query, a point made finite where its wire has no coefficient shows in the points'
// footprint only, which is what the engine's check at load compares.
TYPED_TEST(CompactMatrixTest, CoefficientFootprintEqualsTheUploadsFootprint) {
  using Curve = TypeParam;
  const uint64_t seed = cuzk::test::seed();
  bool some_filtered = false;
  for (const test::CircuitCase& c : test::circuit_cases(/*large=*/false)) {
    const auto circuit = test::make_circuit<Curve>(c, seed);
    auto key = groth16::setup(circuit.r1cs);
    const KeyFootprint from_points = footprint(key);
    const KeyFootprint from_coefficients =
        coefficient_footprint<Curve>(key.header, key.coefficients);
    EXPECT_EQ(from_coefficients.points_bytes(), from_points.points_bytes()) << c.name();
    EXPECT_EQ(from_coefficients.wire_list_bytes, from_points.wire_list_bytes) << c.name();
    EXPECT_EQ(from_coefficients.b1, from_points.b1) << c.name();
    EXPECT_EQ(from_coefficients.a, from_points.a) << c.name();
    if (from_points.b1 == key.header.n_vars) continue;  // B unfiltered: every point uploaded
    some_filtered = true;
    // A finite B point for a wire that B leaves out: the points count it, the coefficients not.
    for (size_t w = 0; w < key.b1.size(); ++w) {
      if (key.b1[w].is_infinity()) {
        key.b1[w] = key.header.beta1;
        EXPECT_GT(footprint(key).points_bytes(), from_coefficients.points_bytes()) << c.name();
        break;
      }
    }
  }
  EXPECT_TRUE(some_filtered) << "no case has a filtered B query";
  // A coefficient naming a wire past the key's is refused.
  const auto circuit = test::make_circuit<Curve>(test::circuit_cases(false).front(), seed);
  auto key = groth16::setup(circuit.r1cs);
  key.coefficients.front().wire = key.header.n_vars;
  EXPECT_THROW(coefficient_footprint<Curve>(key.header, key.coefficients), Error);
}

}  // namespace
}  // namespace cuzk::gpu::prover
