// Proving keys in VRAM or streamed from pinned host memory: every query reads back byte for
// byte, the footprint known before the upload is what the upload takes, and the host constants
// are the key's.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "formats/params.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/prover/device_proving_key.hpp"
#include "gpu_test_support.cuh"
#include "groth16/setup.hpp"
#include "prover_test_support.hpp"

namespace cuzk::gpu::prover {
namespace {

template <class T>
std::vector<T> read_back(const T* device, size_t count) {
  std::vector<T> host(count);
  if (count != 0) {
    CUDA_CHECK(cudaMemcpy(host.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
  }
  return host;
}

template <class T>
void expect_query(const std::string& what, const std::vector<T>& expected, const T* device) {
  EXPECT_EQ(
      gpu::test::compare_and_report("key", what, expected, read_back(device, expected.size())), 0u)
      << what;
}

template <class Curve>
class GpuKeyTest : public ::testing::Test {};
using Curves = ::testing::Types<formats::Bn254, formats::Bls12_381>;
TYPED_TEST_SUITE(GpuKeyTest, Curves);

// The points a query keeps: all, or those of the density list's wires.
template <class T>
std::vector<T> kept(const std::vector<T>& points,
                    const std::optional<std::vector<uint32_t>>& wires) {
  if (!wires) return points;
  std::vector<T> out;
  for (uint32_t w : *wires) out.push_back(points[w]);
  return out;
}

// The density rule on its own (host only): a wire leaves a query when its A point (both B
// points) is at infinity, and a query is filtered only when a sixteenth of it or more goes.
TYPED_TEST(GpuKeyTest, ZkeyDensityRule) {
  using Curve = TypeParam;
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;
  const size_t n = 64;
  formats::Groth16Zkey<Curve> key;
  key.a.assign(n, G1::generator());
  key.b1.assign(n, G1::generator());
  key.b2.assign(n, G2::generator());
  key.a[5] = key.a[9] = key.a[40] = G1::infinity();  // 3 < 64 / 16 = 4: kept whole
  EXPECT_FALSE(zkey_density(key).a_wires.has_value());
  key.a[63] = G1::infinity();  // 4: filtered
  const auto a = zkey_density(key).a_wires;
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->size(), n - 4);
  EXPECT_TRUE(std::is_sorted(a->begin(), a->end()));
  for (uint32_t w : {5u, 9u, 40u, 63u}) EXPECT_FALSE(std::binary_search(a->begin(), a->end(), w));
  // B: a wire stays while either of its points is finite.
  for (size_t i = 0; i < 8; ++i) key.b1[i] = G1::infinity();
  for (size_t i = 4; i < 12; ++i) key.b2[i] = G2::infinity();
  const auto b = zkey_density(key).b_wires;
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->size(), n - 4);
  EXPECT_EQ(b->front(), 0u);
  EXPECT_FALSE(std::binary_search(b->begin(), b->end(), 4u));
  EXPECT_FALSE(std::binary_search(b->begin(), b->end(), 7u));
  EXPECT_TRUE(std::binary_search(b->begin(), b->end(), 8u));
  // Every point at infinity: an empty list, not an unfiltered query.
  key.a.assign(n, G1::infinity());
  ASSERT_TRUE(zkey_density(key).a_wires.has_value());
  EXPECT_TRUE(zkey_density(key).a_wires->empty());
  const KeyFootprint f = footprint(key.header);
  EXPECT_EQ(f.wire_list_bytes, 0u);
}

TYPED_TEST(GpuKeyTest, ZkeyQueriesReadBack) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  // A porep-shaped circuit leaves three quarters of its private wires out of B: their B points
  // are at infinity and the upload drops them.
  const auto circuit =
      test::make_circuit<Curve>({circuits::Shape::kPorep, 1500, 3}, cuzk::test::seed());
  const auto key = groth16::setup(circuit.r1cs);
  const KeyFootprint whole = footprint(key.header);
  EXPECT_EQ(whole.bytes(), (key.a.size() + key.b1.size() + key.c.size() + key.h.size()) *
                                   sizeof(typename Curve::G1) +
                               key.b2.size() * sizeof(typename Curve::G2));
  const ZkeyDensity density = zkey_density(key);
  ASSERT_TRUE(density.b_wires.has_value()) << "a porep-shaped key's B query is filtered";
  EXPECT_LT(density.b_wires->size(), key.b1.size() / 2);
  for (size_t w = 0, k = 0; w < key.b1.size(); ++w) {  // what is dropped is at infinity
    if (k < density.b_wires->size() && (*density.b_wires)[k] == w) {
      ++k;
    } else {
      EXPECT_TRUE(key.b1[w].is_infinity() && key.b2[w].is_infinity()) << "wire " << w;
    }
  }
  const KeyFootprint filtered = footprint(key);
  EXPECT_LT(filtered.bytes(), whole.bytes());
  const auto a_points = kept(key.a, density.a_wires);
  const auto b1_points = kept(key.b1, density.b_wires);
  const auto b2_points = kept(key.b2, density.b_wires);

  const auto device = DeviceProvingKey<Curve>::upload(key);
  EXPECT_EQ(device.bytes(), filtered.bytes());
  EXPECT_EQ(device.convention(), KeyConvention::kSnarkjs);
  EXPECT_EQ(device.footprint().a, a_points.size());
  EXPECT_EQ(device.footprint().b2, b2_points.size());
  expect_query("A", a_points, device.a());
  expect_query("B1", b1_points, device.b1());
  expect_query("B2", b2_points, device.b2());
  expect_query("C", key.c, device.c());
  expect_query("H", key.h, device.h());
  EXPECT_TRUE(device.b_filtered());
  EXPECT_EQ(read_back(device.b_wires(), density.b_wires->size()), *density.b_wires);
  EXPECT_EQ(device.a_filtered(), density.a_wires.has_value());
  const auto& k = device.constants();
  EXPECT_TRUE(k.alpha1 == key.header.alpha1 && k.beta1 == key.header.beta1 &&
              k.delta1 == key.header.delta1 && k.beta2 == key.header.beta2 &&
              k.delta2 == key.header.delta2);
  EXPECT_TRUE(k.vk == groth16::verifying_key_from_zkey(key));

  EXPECT_EQ(device.residency(), KeyResidency::kDevice);
  EXPECT_EQ(device.device_bytes(), filtered.bytes());

  // Streamed: the same points in pinned host memory; only the wire lists take VRAM.
  const auto streamed = DeviceProvingKey<Curve>::upload(key, KeyResidency::kStreamed);
  EXPECT_EQ(streamed.residency(), KeyResidency::kStreamed);
  EXPECT_EQ(streamed.device_bytes(), filtered.wire_list_bytes);
  EXPECT_EQ(streamed.bytes(), filtered.bytes());
  const auto same_bytes = [](const auto& expected, const auto* pinned) {
    return std::memcmp(expected.data(), pinned, expected.size() * sizeof(expected[0])) == 0;
  };
  EXPECT_TRUE(same_bytes(a_points, streamed.a()) && same_bytes(b1_points, streamed.b1()) &&
              same_bytes(b2_points, streamed.b2()) && same_bytes(key.c, streamed.c()) &&
              same_bytes(key.h, streamed.h()))
      << "a streamed key's queries are the key's kept points";
  EXPECT_TRUE(streamed.constants().vk == groth16::verifying_key_from_zkey(key));
  auto broken = key;
  broken.h.pop_back();
  EXPECT_THROW(DeviceProvingKey<Curve>::upload(broken), Error) << "an H query one point short";
}

// The filtered upload gathers the kept points into VRAM 2^20 at a time (DeviceProvingKey::place):
// a key widened to 2^21 + 5 wires keeps about 1.4M A points and 1.6M B points, two chunks each,
// and every point must land in order. The widened key is no key of a circuit (the upload does
// not look at its points' meaning); its points cycle through a real key's, with a period that
// no chunk boundary shares, so a shifted or repeated chunk shows.
TYPED_TEST(GpuKeyTest, ZkeyFilteredGatherSpansSeveralChunks) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;
  auto key = groth16::setup(
      test::make_circuit<Curve>({circuits::Shape::kDense, 600, 3}, cuzk::test::seed()).r1cs);
  std::vector<G1> g1_pool;
  std::vector<G2> g2_pool;
  for (size_t w = 0; w < key.a.size(); ++w) {
    if (!key.a[w].is_infinity()) g1_pool.push_back(key.a[w]);
    if (!key.b2[w].is_infinity()) g2_pool.push_back(key.b2[w]);
  }
  ASSERT_GT(g1_pool.size(), 100u);
  ASSERT_GT(g2_pool.size(), 100u);
  const size_t small = key.a.size();
  const size_t wires = (size_t(1) << 21) + 5;
  key.header.n_vars = uint32_t(wires);
  key.a.resize(wires);
  key.b1.resize(wires);
  key.b2.resize(wires);
  key.c.resize(wires - key.header.n_public - 1, g1_pool.front());
  for (size_t w = small; w < wires; ++w) {
    key.a[w] = w % 3 == 0 ? G1::infinity() : g1_pool[w % g1_pool.size()];
    // B keeps a wire while either point is finite: here three in four wires, one of them with
    // its G1 point at infinity.
    const bool dropped = w % 4 == 0;
    key.b1[w] = dropped || w % 4 == 1 ? G1::infinity() : g1_pool[(w * 7) % g1_pool.size()];
    key.b2[w] = dropped ? G2::infinity() : g2_pool[w % g2_pool.size()];
  }
  const ZkeyDensity density = zkey_density(key);
  ASSERT_TRUE(density.a_wires.has_value() && density.b_wires.has_value());
  ASSERT_GT(density.a_wires->size(), size_t(1) << 20) << "A must span two gather chunks";
  ASSERT_GT(density.b_wires->size(), size_t(1) << 20) << "B must span two gather chunks";
  const auto device = DeviceProvingKey<Curve>::upload(key);
  expect_query("A (two chunks)", kept(key.a, density.a_wires), device.a());
  expect_query("B1 (two chunks)", kept(key.b1, density.b_wires), device.b1());
  expect_query("B2 (two chunks)", kept(key.b2, density.b_wires), device.b2());
  EXPECT_EQ(read_back(device.a_wires(), density.a_wires->size()), *density.a_wires);
  EXPECT_EQ(read_back(device.b_wires(), density.b_wires->size()), *density.b_wires);
}

// A .params-shaped key (its points borrowed from a zkey: the upload does not look at them).
TEST(GpuKeyTest, BellmanQueriesReadBack) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = formats::Bls12_381;
  const auto circuit =
      test::make_circuit<Curve>({circuits::Shape::kPorep, 700, 2}, cuzk::test::seed());
  const auto key = groth16::setup(circuit.r1cs);
  formats::BellmanParams params;
  params.vk = {key.header.alpha1,
               key.header.beta1,
               key.header.beta2,
               key.header.gamma2,
               key.header.delta1,
               key.header.delta2,
               key.ic};
  params.h.assign(key.h.begin(), key.h.end() - 1);
  params.l = key.c;
  params.a.assign(key.a.begin(), key.a.begin() + 600);
  params.b_g1.assign(key.b1.begin(), key.b1.begin() + 300);
  params.b_g2.assign(key.b2.begin(), key.b2.begin() + 300);
  const auto device = DeviceProvingKey<Curve>::upload(params);
  EXPECT_EQ(device.convention(), KeyConvention::kBellman);
  EXPECT_EQ(device.bytes(), footprint(params).bytes());
  expect_query("a", params.a, device.a());
  expect_query("b_g1", params.b_g1, device.b1());
  expect_query("b_g2", params.b_g2, device.b2());
  expect_query("l", params.l, device.c());
  expect_query("h", params.h, device.h());
  EXPECT_TRUE(device.constants().vk.ic == key.ic);
  params.b_g2.pop_back();
  EXPECT_THROW(DeviceProvingKey<Curve>::upload(params), Error) << "b_g2 shorter than b_g1";
}

}  // namespace
}  // namespace cuzk::gpu::prover
