#pragma once
// The GPU H evaluations (ntt.hpp): the schedules of src/ntt/h_polynomial.hpp on the device.
//
// Values on H → values on the coset, for each of a, b, c: an inverse transform natural →
// bit-reversed (DIF) and a coset forward transform bit-reversed → natural (DIT), no permutation
// in between. The inverse's n⁻¹ and the coset's g^i multiply the same element between the two,
// so they are one table, n⁻¹·g^i, applied as the DIT's first pass loads: 2M per element
// instead of 3M.

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

template <class Fr>
void values_to_coset(const DeviceDomain<Fr>& domain, std::span<Fr> values, cudaStream_t stream) {
  const unsigned log_n = domain.log_size();
  const auto inverse =
      transform_steps<Fr>(log_n, true, Order::kNatural, Order::kBitReversed, {}, {});
  ScaleSpec<Fr> shift;
  shift.table = PowerTable::kInverseThenCoset;
  const auto coset_forward =
      transform_steps<Fr>(log_n, false, Order::kBitReversed, Order::kNatural, shift, {});
  domain.run(inverse, values.data(), stream);
  domain.run(coset_forward, values.data(), stream);
}

}  // namespace detail

template <class Fr>
void snarkjs_h_scalars(const DeviceDomain<Fr>& domain, std::span<Fr> a, std::span<Fr> b,
                       std::span<Fr> c, cudaStream_t stream) {
  detail::check_h_inputs(domain, Convention::kSnarkjs, a, b, c, "snarkjs_h_scalars");
  for (std::span<Fr> values : {a, b, c}) detail::values_to_coset(domain, values, stream);
  domain.combine(a.data(), b.data(), c.data(), Fr::one(), stream);
}

template <class Fr>
void bellman_h_coefficients(const DeviceDomain<Fr>& domain, std::span<Fr> a, std::span<Fr> b,
                            std::span<Fr> c, cudaStream_t stream) {
  detail::check_h_inputs(domain, Convention::kBellman, a, b, c, "bellman_h_coefficients");
  for (std::span<Fr> values : {a, b, c}) detail::values_to_coset(domain, values, stream);
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
