#pragma once
// The GPU NTT differential checks, instantiated per curve by ntt_<curve>_test.cu: every
// operation, order pair and input shape against the CPU reference on every log size of the
// sweep, device round trips, the standard-form input path, and both H evaluations. Each check
// prints one "[gpu-diff] <what>: <n> cases, <m> mismatches" line; mismatches print their
// context (order pair, input shape, first elements).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu/device_memory.hpp"
#include "gpu/stream.hpp"
#include "tests/gpu/gpu_test_support.cuh"
#include "tests/gpu/ntt_support.cuh"

namespace cuzk::gpu::ntt::test {

// Uploads, runs `work` on the device copy, downloads, waits.
template <class Fr, class Work>
std::vector<Fr> on_device(const std::vector<Fr>& input, const Stream& stream, Work work) {
  auto buffer = DeviceBuffer<Fr>::allocate_blocking(input.size());
  buffer.upload(input, stream);
  work(std::span<Fr>(buffer.data(), buffer.size()));
  std::vector<Fr> out(input.size());
  buffer.download(out, stream);
  stream.synchronize();
  return out;
}

template <class Fr>
void device_apply(const DeviceDomain<Fr>& domain, Op op, std::span<Fr> values, Order in, Order out,
                  const Stream& stream, bool inputs_montgomery = true) {
  NttConfig config;
  config.stream = stream;
  config.input_order = in;
  config.output_order = out;
  config.coset = is_coset(op);
  config.inputs_montgomery = inputs_montgomery;
  if (is_inverse(op)) {
    domain.inverse(values, config);
  } else {
    domain.forward(values, config);
  }
}

// Every operation and order pair on each named input against the CPU reference, one report
// line per operation.
template <class Fr>
void check_operations(const DeviceDomain<Fr>& domain,
                      const std::vector<std::pair<std::string, std::vector<Fr>>>& shapes,
                      const std::string& prefix, const Stream& stream) {
  const auto& cpu = domain.host_domain();
  for (Op op : kOps) {
    size_t cases = 0, mismatches = 0;
    for (Order in : kOrders) {
      for (Order out : kOrders) {
        for (const auto& [shape, input] : shapes) {
          auto expected = input;
          cpu_apply(cpu, op, expected, in, out);
          const auto actual = on_device(input, stream, [&](std::span<Fr> v) {
            device_apply(domain, op, v, in, out, stream);
          });
          cases += expected.size();
          mismatches += count_mismatches(
              expected, actual,
              prefix + " " + name(op) + " " + name(in) + "->" + name(out) + " " + shape);
        }
      }
    }
    report(prefix + " " + name(op), cases, mismatches);
    EXPECT_EQ(mismatches, 0u) << prefix << " " << name(op);
  }
}

// The domain's H evaluation (by its convention) against the CPU function, on random a, b with
// c = a∘b (a satisfying witness's shape) or random c.
template <class Fr>
void check_h_polynomial(const DeviceDomain<Fr>& domain, bool satisfying, std::mt19937_64& rng,
                        const std::string& what, const Stream& stream) {
  const size_t n = domain.size();
  auto a = random_elements<Fr>(n, rng), b = random_elements<Fr>(n, rng);
  auto c = random_elements<Fr>(n, rng);
  if (satisfying) {
    for (size_t i = 0; i < n; ++i) c[i] = a[i] * b[i];
  }
  auto da = DeviceBuffer<Fr>::allocate_blocking(n), db = DeviceBuffer<Fr>::allocate_blocking(n),
       dc = DeviceBuffer<Fr>::allocate_blocking(n);
  da.upload(a, stream);
  db.upload(b, stream);
  dc.upload(c, stream);
  const std::span<Fr> sa(da.data(), n), sb(db.data(), n), sc(dc.data(), n);
  if (domain.convention() == Convention::kSnarkjs) {
    snarkjs_h_scalars<Fr>(domain, sa, sb, sc, stream);
    cuzk::ntt::snarkjs_h_scalars<Fr>(domain.host_domain(), a, b, c);
  } else {
    bellman_h_coefficients<Fr>(domain, sa, sb, sc, stream);
    cuzk::ntt::bellman_h_coefficients<Fr>(domain.host_domain(), a, b, c);
  }
  std::vector<Fr> actual(n);
  da.download(actual, stream);
  stream.synchronize();
  const size_t m = count_mismatches(a, actual, what);
  report(what, n, m);
  EXPECT_EQ(m, 0u) << what;
}

template <class Fr>
void check_transforms(const std::string& curve) {
  auto rng = cuzk::test::rng("gpu-ntt-transforms-" + curve);
  Stream stream;
  for (Convention convention : {Convention::kSnarkjs, Convention::kBellman}) {
    for (unsigned log_n : sweep_log_sizes()) {
      const DeviceDomain<Fr> domain(log_n, convention);
      const auto& cpu = domain.host_domain();
      const auto shapes = input_shapes<Fr>(domain.size(), rng);
      const std::string prefix = curve + " " + name(convention) + " 2^" + std::to_string(log_n);
      check_operations(domain, shapes, prefix, stream);

      // Device round trips (forward then inverse, plain and coset, through both middle orders)
      // and the standard-form input path.
      const auto& input = shapes[0].second;
      size_t cases = 0, mismatches = 0;
      for (bool coset : {false, true}) {
        for (Order middle : kOrders) {
          const Order other = middle == Order::kNatural ? Order::kBitReversed : Order::kNatural;
          const auto back = on_device(input, stream, [&](std::span<Fr> v) {
            device_apply(domain, coset ? Op::kCosetForward : Op::kForward, v, other, middle,
                         stream);
            device_apply(domain, coset ? Op::kCosetInverse : Op::kInverse, v, middle, other,
                         stream);
          });
          cases += input.size();
          mismatches += count_mismatches(input, back, prefix + " round trip");
        }
      }
      report(prefix + " round trips", cases, mismatches);
      EXPECT_EQ(mismatches, 0u) << prefix << " round trips";

      std::vector<Fr> standard(input.size());
      for (size_t i = 0; i < input.size(); ++i)
        standard[i] = Fr::from_montgomery(input[i].to_int());
      auto expected = input;
      cpu.forward(expected, Order::kNatural, Order::kNatural);
      const auto actual = on_device(standard, stream, [&](std::span<Fr> v) {
        device_apply(domain, Op::kForward, v, Order::kNatural, Order::kNatural, stream, false);
      });
      const size_t m = count_mismatches(expected, actual, prefix + " standard-form input");
      report(prefix + " standard-form input", expected.size(), m);
      EXPECT_EQ(m, 0u) << prefix << " standard-form input";
    }
  }
}

// Both H evaluations against the CPU functions, on random a, b with c = a∘b (a satisfying
// witness's shape) and on random a, b, c.
template <class Fr>
void check_h_polynomials(const std::string& curve) {
  auto rng = cuzk::test::rng("gpu-ntt-h-" + curve);
  Stream stream;
  for (Convention convention : {Convention::kSnarkjs, Convention::kBellman}) {
    for (unsigned log_n : sweep_log_sizes()) {
      const DeviceDomain<Fr> domain(log_n, convention);
      for (bool satisfying : {true, false}) {
        check_h_polynomial(domain, satisfying, rng,
                           curve + " H " + name(convention) + " 2^" + std::to_string(log_n) +
                               (satisfying ? " c=a*b" : " random c"),
                           stream);
      }
    }
  }
}

// Domains with the full twiddle table (TwiddleTables::kFull) above 2^19, where their first pass
// reads it: every operation, order pair and input shape against the CPU reference, the H
// evaluations against the CPU functions, and the VRAM the domain reports.
template <class Fr>
void check_full_twiddles(const std::string& curve) {
  auto rng = cuzk::test::rng("gpu-ntt-full-twiddles-" + curve);
  Stream stream;
  for (unsigned log_n : {20u, 21u}) {
    const DeviceDomain<Fr> domain(log_n, Convention::kSnarkjs, TwiddleTables::kFull);
    ASSERT_EQ(domain.twiddles(), TwiddleTables::kFull);
    EXPECT_EQ(domain.device_bytes(), DeviceDomain<Fr>::device_bytes(log_n, TwiddleTables::kFull));
    EXPECT_EQ(
        domain.device_bytes() - DeviceDomain<Fr>::device_bytes(log_n, TwiddleTables::kCompact),
        (domain.size() / 2) * sizeof(Fr));
    check_operations(domain, {{"random", random_elements<Fr>(domain.size(), rng)}},
                     curve + " full twiddles 2^" + std::to_string(log_n), stream);
  }
  for (Convention convention : {Convention::kSnarkjs, Convention::kBellman}) {
    const DeviceDomain<Fr> domain(20, convention, TwiddleTables::kFull);
    check_h_polynomial(domain, true, rng, curve + " full twiddles H " + name(convention) + " 2^20",
                       stream);
  }
}

// Bad input gets a clear error: wrong size, wrong convention for the H evaluation.
template <class Fr>
void check_errors() {
  const DeviceDomain<Fr> domain(4, Convention::kSnarkjs);
  auto buffer = DeviceBuffer<Fr>::allocate_blocking(32);
  const std::span<Fr> wrong(buffer.data(), 32), right(buffer.data(), 16);
  EXPECT_THROW(domain.forward(wrong, NttConfig{}), Error);
  EXPECT_THROW(bellman_h_coefficients<Fr>(domain, right, right, right, nullptr), Error);
  EXPECT_THROW(DeviceDomain<Fr>(Tuning::kMaxLogSize + 1, Convention::kSnarkjs), Error);
}

}  // namespace cuzk::gpu::ntt::test
