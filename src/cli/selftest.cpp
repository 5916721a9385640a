// `cuzk selftest`: the arithmetic self-check of both curves, the main job until the provers
// exist. It checks what every proof relies on (generators in their groups, r·G = O, scalar
// multiplication linear, the pairing bilinear and non-degenerate, encodings round-tripping)
// on fresh random inputs, times the core operations, and runs the device arithmetic check when
// a GPU is present. Exit code 1 when any check fails.

#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "engine/backend_factory.hpp"
#include "io/field_codec.hpp"
#include "io/zcash_codec.hpp"
#include "pairing/bls12_381_pairing.hpp"
#include "pairing/bn254_pairing.hpp"

namespace cuzk::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct Report {
  nlohmann::json checks = nlohmann::json::array();
  nlohmann::json timings = nlohmann::json::array();
  bool ok = true;

  void check(const std::string& curve, const std::string& name, bool passed) {
    checks.push_back({{"curve", curve}, {"check", name}, {"passed", passed}});
    ok = ok && passed;
  }
  // Times `op` over `iterations` runs and records nanoseconds per run.
  void time(const std::string& curve, const std::string& name, size_t iterations,
            const std::function<void()>& op) {
    auto start = Clock::now();
    for (size_t i = 0; i < iterations; ++i) op();
    double ns = std::chrono::duration<double, std::nano>(Clock::now() - start).count();
    timings.push_back({{"curve", curve}, {"op", name}, {"ns_per_op", ns / double(iterations)}});
  }
};

// The checks every curve gets; `C` is one of the curve records below.
template <class C>
void check_curve(Report& report, std::mt19937_64& rng, size_t iterations) {
  using Fp = typename C::Fp;
  using Fr = typename C::Fr;
  using G1 = typename C::G1Affine;
  using G2 = typename C::G2Affine;
  const std::string curve = C::kName;

  const G1 g1 = G1::generator();
  const G2 g2 = G2::generator();
  report.check(curve, "G1 generator on the curve and in the subgroup",
               g1.is_on_curve() && C::is_in_subgroup(g1));
  report.check(curve, "G2 generator on the curve and in the subgroup",
               g2.is_on_curve() && C::is_in_subgroup(g2));

  // r·G = O, computed as (r − 1)·G + G so that the scalar fits the field's integer type.
  typename Fr::Int r_minus_1 = (-Fr::one()).to_int();
  report.check(curve, "r·G1 = O", (ec::scalar_mul(g1, r_minus_1) + g1).is_infinity());
  report.check(curve, "r·G2 = O", (ec::scalar_mul(g2, r_minus_1) + g2).is_infinity());

  const Fr a = Fr::random(rng), b = Fr::random(rng);
  const G1 pa = ec::scalar_mul(g1, a).to_affine();
  const G2 qb = ec::scalar_mul(g2, b).to_affine();
  report.check(curve, "(a+b)·G1 = a·G1 + b·G1",
               ec::scalar_mul(g1, a + b) == ec::scalar_mul(g1, a) + ec::scalar_mul(g1, b));
  report.check(curve, "random multiples stay in their subgroups",
               C::is_in_subgroup(pa) && C::is_in_subgroup(qb));

  const auto e = C::pairing(g1, g2);
  report.check(curve, "e(G1, G2) is not 1", e != decltype(e)::one());
  report.check(curve, "e(a·G1, b·G2) = e(G1, G2)^(ab)",
               C::pairing(pa, qb) == e.pow((a * b).to_int()));

  const Fr x = Fr::random(rng);
  report.check(curve, "scalar decimal encoding round-trips",
               io::from_decimal<Fr>(io::to_decimal(x)) == x);
  if constexpr (C::kHasZcashEncoding) {
    report.check(curve, "zcash G1/G2 compressed encodings round-trip",
                 io::g1_from_zcash_compressed(io::to_zcash_compressed(pa)) == pa &&
                     io::g2_from_zcash_compressed(io::to_zcash_compressed(qb)) == qb);
  }

  Fp u = Fp::random(rng), v = Fp::random(rng);
  report.time(curve, "fp_mul", iterations * 1000, [&] { u = u * v; });
  Fp w = u;
  report.time(curve, "fp_inverse", iterations * 10, [&] { w = (w + v).inverse(); });
  G1 acc_point = pa;
  report.time(curve, "g1_scalar_mul", iterations,
              [&] { acc_point = ec::scalar_mul(acc_point, Fr::random(rng)).to_affine(); });
  report.time(curve, "pairing", std::max<size_t>(1, iterations / 10),
              [&] { (void)C::pairing(pa, qb); });
  // The timed results feed a volatile store so the loops above cannot be optimized away.
  volatile bool sink = acc_point.is_infinity() || u.is_zero() || w.is_zero();
  (void)sink;
}

struct Bls12_381 {
  static constexpr const char* kName = "bls12_381";
  static constexpr bool kHasZcashEncoding = true;
  using Fp = bls12_381::Fp;
  using Fr = bls12_381::Fr;
  using G1Affine = bls12_381::G1Affine;
  using G2Affine = bls12_381::G2Affine;
  template <class P>
  static bool is_in_subgroup(const P& p) {
    return bls12_381::is_in_subgroup(p);
  }
  static bls12_381::Fp12 pairing(const G1Affine& p, const G2Affine& q) {
    return bls12_381::pairing(p, q);
  }
};

struct Bn254 {
  static constexpr const char* kName = "bn254";
  static constexpr bool kHasZcashEncoding = false;
  using Fp = bn254::Fp;
  using Fr = bn254::Fr;
  using G1Affine = bn254::G1Affine;
  using G2Affine = bn254::G2Affine;
  template <class P>
  static bool is_in_subgroup(const P& p) {
    return bn254::is_in_subgroup(p);
  }
  static bn254::Fp12 pairing(const G1Affine& p, const G2Affine& q) { return bn254::pairing(p, q); }
};

int run_selftest(bool json, size_t iterations) {
  Report report;
  std::random_device entropy;
  std::mt19937_64 rng((uint64_t(entropy()) << 32) | entropy());
  // A check that throws (an encoding rejecting a point it should accept, say) is a failed
  // check, reported with its message; the remaining curves are still checked.
  auto guarded = [&](const char* curve, auto&& run) {
    try {
      run();
    } catch (const std::exception& e) {
      report.check(curve, std::string("threw: ") + e.what(), false);
    }
  };
  guarded(Bls12_381::kName, [&] { check_curve<Bls12_381>(report, rng, iterations); });
  guarded(Bn254::kName, [&] { check_curve<Bn254>(report, rng, iterations); });

  nlohmann::json gpu = {{"present", false}};
  if (engine::built_with_cuda()) {
    const gpu::ArithSelfcheck device = engine::device_arith_selfcheck(size_t(1) << 20, rng());
    gpu = {
        {"present", device.device_present}, {"device", device.device}, {"passed", device.passed()}};
    gpu["checks"] = nlohmann::json::array();
    for (const auto& c : device.checks) {
      gpu["checks"].push_back(
          {{"check", c.what}, {"cases", c.cases}, {"mismatches", c.mismatches}});
    }
    if (device.device_present) report.ok = report.ok && device.passed();
  } else {
    gpu["reason"] = "built without CUDA";
  }

  if (json) {
    nlohmann::json out = {{"passed", report.ok},
                          {"checks", report.checks},
                          {"timings", report.timings},
                          {"gpu", gpu}};
    std::puts(out.dump(2).c_str());
  } else {
    for (const auto& c : report.checks) {
      std::printf("%-4s %-10s %s\n", c["passed"].get<bool>() ? "ok" : "FAIL",
                  c["curve"].get<std::string>().c_str(), c["check"].get<std::string>().c_str());
    }
    std::printf("\n%-10s %-16s %14s\n", "curve", "operation", "time");
    for (const auto& t : report.timings) {
      double ns = t["ns_per_op"].get<double>();
      std::printf("%-10s %-16s %11.3f %s\n", t["curve"].get<std::string>().c_str(),
                  t["op"].get<std::string>().c_str(),
                  ns >= 1e6   ? ns / 1e6
                  : ns >= 1e3 ? ns / 1e3
                              : ns,
                  ns >= 1e6   ? "ms"
                  : ns >= 1e3 ? "us"
                              : "ns");
    }
    if (gpu.value("present", false)) {
      std::printf("\nGPU %s: %s\n", gpu.value("device", std::string("?")).c_str(),
                  gpu.value("passed", false) ? "device arithmetic equals the host's" : "MISMATCH");
      for (const auto& c : gpu["checks"]) {
        std::printf("  %-4s %-22s %8zu cases, %zu mismatches\n",
                    c["mismatches"].get<size_t>() == 0 ? "ok" : "FAIL",
                    c["check"].get<std::string>().c_str(), c["cases"].get<size_t>(),
                    c["mismatches"].get<size_t>());
      }
    } else {
      std::printf("\nGPU: none (%s); host checks only\n",
                  gpu.value("reason", gpu.value("device", std::string("?"))).c_str());
    }
    std::printf("\nselftest: %s\n", report.ok ? "all checks passed" : "FAILED");
  }
  return report.ok ? kExitOk : kExitFailure;
}

}  // namespace

void add_selftest_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "selftest", "Check the arithmetic of both curves (and the GPU's, if present) and time it");
  static bool json = false;
  static size_t iterations = 100;
  cmd->add_flag("--json", json, "Print the results as JSON");
  cmd->add_option("--iterations", iterations, "Scale of the timing loops")
      ->check(CLI::PositiveNumber);
  cmd->callback([&exit_code] { exit_code = run_selftest(json, iterations); });
}

}  // namespace cuzk::cli
