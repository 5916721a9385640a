#pragma once
// The GPU H evaluations (ntt.hpp): the schedules of src/ntt/h_polynomial.hpp on the device.
//
// Both start with values_to_coset_steps (plan.hpp) on each of a, b, c.

#include <span>
#include <string>
#include <vector>

#include "gpu/ntt/device_domain.cuh"
#include "util/error.hpp"

namespace cuzk::gpu::ntt {

namespace detail {

template <class Fr>
void check_h_inputs(const DeviceDomain<Fr>& domain, Convention expected, std::span<Fr> a,
                    std::span<Fr> b, std::span<Fr> c, const char* operation) {
  if (domain.convention() != expected) {
    CUZK_INVALID_INPUT(std::string("gpu::ntt::") + operation +
                       ": the domain's roots follow the other prover's convention");
  }
  domain.check_buffer(a, operation);
  domain.check_buffer(b, operation);
  domain.check_buffer(c, operation);
}

}  // namespace detail

template <class Fr>
void snarkjs_h_scalars(const DeviceDomain<Fr>& domain, std::span<Fr> a, std::span<Fr> b,
                       std::span<Fr> c, cudaStream_t stream) {
  detail::check_h_inputs(domain, Convention::kSnarkjs, a, b, c, "snarkjs_h_scalars");
  const auto coset_steps = values_to_coset_steps<Fr>(domain.log_size());
  for (std::span<Fr> values : {a, b, c}) domain.run(coset_steps, values.data(), stream);
  domain.combine(a.data(), b.data(), c.data(), Fr::one(), stream);
}

template <class Fr>
void bellman_h_coefficients(const DeviceDomain<Fr>& domain, std::span<Fr> a, std::span<Fr> b,
                            std::span<Fr> c, cudaStream_t stream) {
  detail::check_h_inputs(domain, Convention::kBellman, a, b, c, "bellman_h_coefficients");
  const auto coset_steps = values_to_coset_steps<Fr>(domain.log_size());
  for (std::span<Fr> values : {a, b, c}) domain.run(coset_steps, values.data(), stream);
  // Z(g·ω^i) = g^n − 1 for every i (as the CPU reference computes it).
  const auto& host = domain.host_domain();
  const Fr z_on_coset = host.coset_shift().pow(uint64_t(host.size())) - Fr::one();
  domain.combine(a.data(), b.data(), c.data(), z_on_coset.inverse(), stream);
  NttConfig config;
  config.stream = stream;
  config.coset = true;
  domain.inverse(a, config);
}

}  // namespace cuzk::gpu::ntt
