// Proving keys in VRAM or streamed from pinned host memory: every query reads back byte for
// byte, the footprint known before the upload is what the upload takes, and the host constants
// are the key's.

#include <gtest/gtest.h>

#include <cstring>
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

TYPED_TEST(GpuKeyTest, ZkeyQueriesReadBack) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  const auto circuit =
      test::make_circuit<Curve>({circuits::Shape::kPorep, 1500, 3}, cuzk::test::seed());
  const auto key = groth16::setup(circuit.r1cs);
  const KeyFootprint before = footprint(key.header);
  EXPECT_EQ(before.bytes(), (key.a.size() + key.b1.size() + key.c.size() + key.h.size()) *
                                    sizeof(typename Curve::G1) +
                                key.b2.size() * sizeof(typename Curve::G2));
  const auto device = DeviceProvingKey<Curve>::upload(key);
  EXPECT_EQ(device.bytes(), before.bytes());
  EXPECT_EQ(device.convention(), KeyConvention::kSnarkjs);
  expect_query("A", key.a, device.a());
  expect_query("B1", key.b1, device.b1());
  expect_query("B2", key.b2, device.b2());
  expect_query("C", key.c, device.c());
  expect_query("H", key.h, device.h());
  const auto& k = device.constants();
  EXPECT_TRUE(k.alpha1 == key.header.alpha1 && k.beta1 == key.header.beta1 &&
              k.delta1 == key.header.delta1 && k.beta2 == key.header.beta2 &&
              k.delta2 == key.header.delta2);
  EXPECT_TRUE(k.vk == groth16::verifying_key_from_zkey(key));

  EXPECT_EQ(device.residency(), KeyResidency::kDevice);
  EXPECT_EQ(device.device_bytes(), before.bytes());

  // Streamed: the same points in pinned host memory, no VRAM.
  const auto streamed = DeviceProvingKey<Curve>::upload(key, KeyResidency::kStreamed);
  EXPECT_EQ(streamed.residency(), KeyResidency::kStreamed);
  EXPECT_EQ(streamed.device_bytes(), 0u);
  EXPECT_EQ(streamed.bytes(), before.bytes());
  const auto same_bytes = [](const auto& expected, const auto* pinned) {
    return std::memcmp(expected.data(), pinned, expected.size() * sizeof(expected[0])) == 0;
  };
  EXPECT_TRUE(same_bytes(key.a, streamed.a()) && same_bytes(key.b1, streamed.b1()) &&
              same_bytes(key.b2, streamed.b2()) && same_bytes(key.c, streamed.c()) &&
              same_bytes(key.h, streamed.h()))
      << "a streamed key's queries are the key's points";
  EXPECT_TRUE(streamed.constants().vk == groth16::verifying_key_from_zkey(key));
  auto broken = key;
  broken.h.pop_back();
  EXPECT_THROW(DeviceProvingKey<Curve>::upload(broken), Error) << "an H query one point short";
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
