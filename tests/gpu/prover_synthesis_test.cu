// GPU synthesis and witness staging against the host: a, b, c computed on the device from the
// resident compact matrices equal the plain CSR arithmetic bit for bit, for every synthetic
// shape, both curves, both sources (.zkey with c = a∘b; .r1cs with C and binding rows), with
// the default row split and with one that sends most rows through the segment kernels.

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "formats/wtns.hpp"
#include "gpu/device_memory.hpp"
#include "gpu/prover/device_circuit.hpp"
#include "gpu/prover/witness_staging.hpp"
#include "gpu/stream.hpp"
#include "gpu_test_support.cuh"
#include "groth16/setup.hpp"
#include "prover_test_support.hpp"

namespace cuzk::gpu::prover {
namespace {

template <class Curve>
class GpuSynthesisTest : public ::testing::Test {};
using Curves = ::testing::Types<formats::Bn254, formats::Bls12_381>;
TYPED_TEST_SUITE(GpuSynthesisTest, Curves);

template <class Fr>
test::Abc<Fr> synthesize_on_device(const HostCircuit<Fr>& host, const PinnedWitness<Fr>& witness,
                                   const std::string& what) {
  const DeviceCircuit<Fr> circuit = DeviceCircuit<Fr>::upload(host);
  std::printf("[gpu-prover] %s: %zu bytes in VRAM, workspace %zu\n%s", what.c_str(),
              circuit.bytes(), circuit.synthesis_workspace_bytes(), circuit.describe().c_str());
  Stream stream;
  const size_t n = circuit.domain_size();
  DeviceBuffer<Fr> w(witness.size(), stream), a(n, stream), b(n, stream), c(n, stream);
  DeviceBuffer<uint8_t> workspace(circuit.synthesis_workspace_bytes(), stream);
  stage_witness(witness, {w.data(), nullptr, w.size()}, stream);
  SynthesisArgs<Fr> args;
  args.stream = stream;
  args.witness_standard = w.data();
  args.witness_size = w.size();
  args.a = a.data();
  args.b = b.data();
  args.c = c.data();
  args.n = n;
  args.workspace = workspace.data();
  args.workspace_bytes = workspace.size();
  synthesize(circuit, args);
  test::Abc<Fr> out{std::vector<Fr>(n), std::vector<Fr>(n), std::vector<Fr>(n)};
  a.download(out.a, stream);
  b.download(out.b, stream);
  c.download(out.c, stream);
  stream.synchronize();
  return out;
}

template <class Fr>
void expect_same_abc(const std::string& what, const test::Abc<Fr>& expected,
                     const test::Abc<Fr>& actual) {
  EXPECT_EQ(gpu::test::compare_and_report(what, "a", expected.a, actual.a), 0u) << what << ": a";
  EXPECT_EQ(gpu::test::compare_and_report(what, "b", expected.b, actual.b), 0u) << what << ": b";
  EXPECT_EQ(gpu::test::compare_and_report(what, "c", expected.c, actual.c), 0u) << what << ": c";
}

TYPED_TEST(GpuSynthesisTest, R1csSourceMatchesHost) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  using Fr = typename Curve::Fr;
  const uint64_t seed = cuzk::test::seed();
  for (const test::CircuitCase& c : test::circuit_cases(/*large=*/true)) {
    const auto circuit = test::make_circuit<Curve>(c, seed);
    PinnedWitness<Fr> witness(circuit.witness.size());
    witness.assign_montgomery(circuit.witness);
    for (const RowSplit split : {RowSplit{}, RowSplit{2, 3}}) {
      const auto host = host_circuit_from_r1cs(circuit.r1cs, 0, split);
      const auto expected =
          test::reference_from_r1cs(circuit.r1cs, circuit.witness, host.domain_size);
      const std::string what = c.name() + " r1cs/" + std::to_string(split.heavy_row_terms);
      expect_same_abc(what, expected, synthesize_on_device(host, witness, what));
    }
  }
}

TYPED_TEST(GpuSynthesisTest, ZkeySourceMatchesHost) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  using Fr = typename Curve::Fr;
  const uint64_t seed = cuzk::test::seed();
  const auto dir = std::filesystem::temp_directory_path() / "cuzk_gpu_prover_test";
  std::filesystem::create_directories(dir);
  for (const test::CircuitCase& c : test::circuit_cases(/*large=*/false)) {
    const auto circuit = test::make_circuit<Curve>(c, seed);
    const auto key = groth16::setup(circuit.r1cs);
    const auto expected = test::reference_from_zkey(key, circuit.witness);
    // This time the witness comes from a .wtns file (standard form, no conversion).
    const auto path = dir / (std::string(circuits::shape_name(c.shape)) + ".wtns");
    formats::write_wtns<Curve>(path, circuit.witness);
    PinnedWitness<Fr> witness(circuit.witness.size() + 7);
    witness.load_wtns(path, circuit.witness.size());
    for (const RowSplit split : {RowSplit{}, RowSplit{1, 2}}) {
      const auto host = host_circuit_from_zkey(key, split);
      const std::string what = c.name() + " zkey/" + std::to_string(split.heavy_row_terms);
      expect_same_abc(what, expected, synthesize_on_device(host, witness, what));
    }
  }
  std::filesystem::remove_all(dir);
}

// One row of 100,000 terms (a huge linear combination) among ordinary rows: the segment path
// with its default sizes.
TYPED_TEST(GpuSynthesisTest, HugeRowIsSplit) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  using Fr = typename Curve::Fr;
  auto rng = cuzk::test::rng("huge row");
  const auto circuit = test::make_circuit<Curve>({circuits::Shape::kDense, 3000, 1}, rng());
  formats::R1cs<Curve> r1cs = circuit.r1cs;
  // Row 17 of A gets 100,000 extra terms on random wires.
  formats::SparseMatrix<Fr> a;
  a.row_start.push_back(0);
  for (size_t row = 0; row < r1cs.a.rows(); ++row) {
    for (uint64_t t = r1cs.a.row_start[row]; t < r1cs.a.row_start[row + 1]; ++t) {
      a.column.push_back(r1cs.a.column[t]);
      a.value.push_back(r1cs.a.value[t]);
    }
    if (row == 17) {
      for (int k = 0; k < 100000; ++k) {
        a.column.push_back(uint32_t(rng() % r1cs.header.n_wires));
        a.value.push_back(Fr::random(rng));
      }
    }
    a.row_start.push_back(a.column.size());
  }
  r1cs.a = std::move(a);
  const auto host = host_circuit_from_r1cs(r1cs);
  ASSERT_EQ(host.a.heavy_rows.size(), 1u);
  PinnedWitness<Fr> witness(circuit.witness.size());
  witness.assign_montgomery(circuit.witness);
  const auto expected = test::reference_from_r1cs(r1cs, circuit.witness, host.domain_size);
  expect_same_abc("huge row", expected, synthesize_on_device(host, witness, "huge row"));
}

// Both device forms of the witness, from both host forms.
TYPED_TEST(GpuSynthesisTest, WitnessStagingForms) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  using Fr = typename Curve::Fr;
  auto rng = cuzk::test::rng("staging");
  std::vector<Fr> mont(cuzk::test::scaled(100003));
  for (auto& v : mont) v = Fr::random(rng);
  mont[0] = Fr::one();
  const std::vector<Fr> standard = test::standard_form(mont);
  const auto dir = std::filesystem::temp_directory_path() / "cuzk_gpu_prover_staging";
  std::filesystem::create_directories(dir);
  formats::write_wtns<Curve>(dir / "w.wtns", mont);

  for (const bool from_file : {false, true}) {
    PinnedWitness<Fr> pinned(mont.size());
    if (from_file) {
      pinned.load_wtns(dir / "w.wtns");
    } else {
      pinned.assign_montgomery(mont);
    }
    Stream stream;
    DeviceBuffer<Fr> d_std(mont.size(), stream), d_mont(mont.size(), stream);
    stage_witness(pinned, {d_std.data(), d_mont.data(), mont.size()}, stream);
    std::vector<Fr> got_std(mont.size()), got_mont(mont.size());
    d_std.download(got_std, stream);
    d_mont.download(got_mont, stream);
    stream.synchronize();
    const std::string what = from_file ? "from .wtns" : "from Montgomery";
    EXPECT_EQ(gpu::test::compare_and_report(what, "standard", standard, got_std), 0u) << what;
    EXPECT_EQ(gpu::test::compare_and_report(what, "montgomery", mont, got_mont), 0u) << what;
  }
  std::filesystem::remove_all(dir);
}

// Bad arguments are refused before anything is enqueued.
TYPED_TEST(GpuSynthesisTest, BadArgumentsAreRefused) {
  CUZK_SKIP_WITHOUT_GPU();
  using Curve = TypeParam;
  using Fr = typename Curve::Fr;
  const auto circuit = test::make_circuit<Curve>({circuits::Shape::kPorep, 500, 1}, 1);
  const auto host = host_circuit_from_r1cs(circuit.r1cs, 0, RowSplit{2, 3});
  const DeviceCircuit<Fr> device = DeviceCircuit<Fr>::upload(host);
  ASSERT_GT(device.synthesis_workspace_bytes(), 0u);
  Stream stream;
  const size_t n = device.domain_size();
  DeviceBuffer<Fr> w(device.n_vars(), stream), abc(3 * n, stream);
  DeviceBuffer<uint8_t> workspace(device.synthesis_workspace_bytes(), stream);
  SynthesisArgs<Fr> good;
  good.stream = stream;
  good.witness_standard = w.data();
  good.witness_size = w.size();
  good.a = abc.data();
  good.b = abc.data() + n;
  good.c = abc.data() + 2 * n;
  good.n = n;
  good.workspace = workspace.data();
  good.workspace_bytes = workspace.size();
  auto bad = good;
  bad.witness_size -= 1;
  EXPECT_THROW(synthesize(device, bad), Error) << "short witness";
  bad = good;
  bad.n = n / 2;
  EXPECT_THROW(synthesize(device, bad), Error) << "short buffers";
  bad = good;
  bad.workspace_bytes -= 1;
  EXPECT_THROW(synthesize(device, bad), Error) << "small workspace";
  stream.synchronize();
}

}  // namespace
}  // namespace cuzk::gpu::prover
