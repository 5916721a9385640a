// Files made by circom 2.2.3 and snarkjs 0.7.6, when CUZK_SHARED_FIXTURES names the folder
// holding them ({bn128,bls12381}_k{10,14}/ with circuit.r1cs, witness.wtns,
// circuit_final.zkey); skipped otherwise, since the project's own tests make their own files.
// Each circuit is the chain t[i+1] = t[i]² + 7 with public input x and public output y, of
// 2^k − 3 constraints, so its domain is exactly 2^k.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <tuple>

#include "formats/mapped_file.hpp"
#include "formats/r1cs.hpp"
#include "formats/wtns.hpp"
#include "formats/zkey.hpp"
#include "tests/formats/formats_test_support.hpp"

namespace cuzk::formats::test {
namespace {

std::filesystem::path fixture_dir(const std::string& name) {
  const char* root = std::getenv("CUZK_SHARED_FIXTURES");
  if (root == nullptr || *root == '\0') return {};
  return std::filesystem::path(root) / name;
}

// (A·w)(B·w) = C·w for every row.
template <class Curve>
bool satisfied(const R1cs<Curve>& r1cs, std::span<const typename Curve::Fr> w) {
  using Fr = typename Curve::Fr;
  auto dot = [&](const SparseMatrix<Fr>& m, size_t row) {
    Fr acc = Fr::zero();
    auto columns = m.row_columns(row);
    auto values = m.row_values(row);
    for (size_t t = 0; t < columns.size(); ++t) acc += values[t] * w[columns[t]];
    return acc;
  };
  for (size_t row = 0; row < r1cs.header.n_constraints; ++row) {
    if (dot(r1cs.a, row) * dot(r1cs.b, row) != dot(r1cs.c, row)) return false;
  }
  return true;
}

template <class Curve>
void check_fixture(const std::string& name, uint32_t k) {
  using Fr = typename Curve::Fr;
  std::filesystem::path dir = fixture_dir(name);
  if (dir.empty()) GTEST_SKIP() << "CUZK_SHARED_FIXTURES is not set";
  ASSERT_TRUE(std::filesystem::exists(dir)) << dir;
  const auto r1cs_path = dir / "circuit.r1cs";
  const auto wtns_path = dir / "witness.wtns";
  const auto zkey_path = dir / "circuit_final.zkey";
  for (const auto& path : {r1cs_path, wtns_path, zkey_path}) {
    EXPECT_EQ(sniff_curve(path), Curve::kId) << path;
  }

  R1cs<Curve> r1cs = read_r1cs<Curve>(r1cs_path, {.read_labels = true});
  const R1csHeader& h = r1cs.header;
  EXPECT_EQ(h.n_constraints, (1u << k) - 3);
  EXPECT_EQ(h.n_pub_out, 1u);
  EXPECT_EQ(h.n_pub_in, 1u);
  EXPECT_EQ(h.n_prv_in, 0u);
  EXPECT_EQ(r1cs.wire_labels.size(), h.n_wires);

  std::vector<Fr> w = read_wtns<Curve>(wtns_path, {.expected_count = h.n_wires});
  EXPECT_TRUE(satisfied(r1cs, std::span<const Fr>(w)));

  // Full validation of the 2^14 keys' 10^5 points takes tens of seconds on a small machine;
  // they get the on-curve checks only (the header's points are always checked fully).
  ZkeyReadOptions options;
  if (k > 10) options.subgroup_check = io::SubgroupCheck::kOff;
  Groth16Zkey<Curve> key = read_zkey<Curve>(zkey_path, options);
  const Groth16Header<Curve>& kh = key.header;
  EXPECT_EQ(kh.domain_size, 1u << k);
  EXPECT_EQ(kh.log_domain_size(), k);
  EXPECT_EQ(kh.n_public, 2u);
  EXPECT_EQ(kh.n_vars, h.n_wires);
  EXPECT_TRUE(kh.alpha1.is_on_curve() && !kh.alpha1.is_infinity());
  EXPECT_TRUE(kh.delta1.is_on_curve() && !kh.delta1.is_infinity());
  EXPECT_EQ(kh.gamma2, Curve::G2::generator());
  EXPECT_EQ(key.h.size(), size_t(1) << k);
  EXPECT_EQ(key.c.size(), h.n_wires - 3);

  // Section 4 is A and B of the r1cs plus one row per public value (and the constant wire):
  // compare coefficient by coefficient, summing repeated (row, wire) pairs on both sides.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Fr> from_r1cs, from_zkey;
  auto add = [](auto& map, std::tuple<uint32_t, uint32_t, uint32_t> at, const Fr& v) {
    auto [it, fresh] = map.try_emplace(at, v);
    if (!fresh) it->second += v;
  };
  for (uint32_t m = 0; m < 2; ++m) {
    const SparseMatrix<Fr>& matrix = m == 0 ? r1cs.a : r1cs.b;
    for (uint32_t row = 0; row < h.n_constraints; ++row) {
      auto columns = matrix.row_columns(row);
      auto values = matrix.row_values(row);
      for (size_t t = 0; t < columns.size(); ++t) add(from_r1cs, {m, row, columns[t]}, values[t]);
    }
  }
  for (uint32_t j = 0; j <= kh.n_public; ++j)
    add(from_r1cs, {0, h.n_constraints + j, j}, Fr::one());
  for (const auto& e : key.coefficients) add(from_zkey, {e.matrix, e.row, e.wire}, e.coefficient());
  EXPECT_EQ(key.coefficients.size(), r1cs.a.nnz() + r1cs.b.nnz() + kh.n_public + 1);
  EXPECT_TRUE(from_zkey == from_r1cs);

  // Our writer reproduces snarkjs's bytes for every section except the order (snarkjs wrote
  // this key, after contributions, in id order; ours is zkey_new's order).
  std::vector<uint8_t> ours = zkey_to_bytes(key);
  MappedFile theirs = MappedFile::open(zkey_path);
  auto by_id = [](std::vector<Section> sections) {
    std::sort(sections.begin(), sections.end(),
              [](const Section& a, const Section& b) { return a.id < b.id; });
    return sections;
  };
  std::vector<Section> ours_sorted = by_id(split_container(ours, {"zkey", 1}));
  std::vector<Section> theirs_sorted = by_id(split_container(theirs.bytes(), {"zkey", 1}));
  ASSERT_EQ(ours_sorted.size(), theirs_sorted.size());
  for (size_t i = 0; i < ours_sorted.size(); ++i) {
    EXPECT_EQ(ours_sorted[i].id, theirs_sorted[i].id);
    EXPECT_TRUE(ours_sorted[i].body == theirs_sorted[i].body) << "section " << ours_sorted[i].id;
  }
  // And the witness and constraint files byte for byte, but for circom's section order.
  MappedFile wtns_file = MappedFile::open(wtns_path);
  EXPECT_TRUE(wtns_to_bytes<Curve>(w) ==
              std::vector<uint8_t>(wtns_file.bytes().begin(), wtns_file.bytes().end()));
  std::vector<Section> r1cs_ours = by_id(split_container(r1cs_to_bytes(r1cs), {"r1cs", 1}));
  MappedFile r1cs_file = MappedFile::open(r1cs_path);
  std::vector<Section> r1cs_theirs = by_id(split_container(r1cs_file.bytes(), {"r1cs", 1}));
  ASSERT_EQ(r1cs_ours.size(), r1cs_theirs.size());
  for (size_t i = 0; i < r1cs_ours.size(); ++i) {
    EXPECT_TRUE(r1cs_ours[i].body == r1cs_theirs[i].body) << "r1cs section " << r1cs_ours[i].id;
  }
}

TEST(SharedFixtures, Bn254K10) { check_fixture<Bn254>("bn128_k10", 10); }
TEST(SharedFixtures, Bn254K14) { check_fixture<Bn254>("bn128_k14", 14); }
TEST(SharedFixtures, Bls12_381K10) { check_fixture<Bls12_381>("bls12381_k10", 10); }
TEST(SharedFixtures, Bls12_381K14) { check_fixture<Bls12_381>("bls12381_k14", 14); }

}  // namespace
}  // namespace cuzk::formats::test
