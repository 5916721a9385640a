// Proving keys in VRAM or pinned host memory (device_proving_key.hpp), both curves.

#include "gpu/prover/device_proving_key.hpp"

#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "util/error.hpp"

namespace cuzk::gpu::prover {

namespace {

void check_count(const char* query, size_t actual, size_t expected) {
  if (actual != expected) {
    CUZK_INVALID_INPUT(std::string("DeviceProvingKey: the ") + query + " query has " +
                       std::to_string(actual) + " points, the key's header implies " +
                       std::to_string(expected));
  }
}

}  // namespace

template <class Curve>
KeyFootprint footprint(const formats::Groth16Header<Curve>& header) {
  KeyFootprint f;
  f.a = f.b1 = f.b2 = header.n_vars;
  f.c = header.n_vars >= header.n_public + 1 ? header.n_vars - header.n_public - 1 : 0;
  f.h = header.domain_size;
  f.g1_bytes = sizeof(typename Curve::G1);
  f.g2_bytes = sizeof(typename Curve::G2);
  return f;
}

KeyFootprint footprint(const formats::BellmanParams& params) {
  KeyFootprint f;
  f.a = params.a.size();
  f.b1 = params.b_g1.size();
  f.b2 = params.b_g2.size();
  f.c = params.l.size();
  f.h = params.h.size();
  f.g1_bytes = sizeof(formats::BellmanParams::G1);
  f.g2_bytes = sizeof(formats::BellmanParams::G2);
  return f;
}

template <class Curve>
template <class T>
typename DeviceProvingKey<Curve>::template Query<T> DeviceProvingKey<Curve>::place(
    const std::vector<T>& points, KeyResidency residency) {
  Query<T> q;
  const size_t bytes = points.size() * sizeof(T);
  if (residency == KeyResidency::kDevice) {
    q.device = DeviceBuffer<T>::allocate_blocking(points.size());
    if (bytes != 0) {
      CUDA_CHECK(cudaMemcpy(q.device.data(), points.data(), bytes, cudaMemcpyHostToDevice));
    }
  } else {
    q.pinned = PinnedBuffer<T>(points.size());
    if (bytes != 0) std::memcpy(q.pinned.data(), points.data(), bytes);
  }
  return q;
}

template <class Curve>
DeviceProvingKey<Curve> DeviceProvingKey<Curve>::upload(const formats::Groth16Zkey<Curve>& key,
                                                        KeyResidency residency) {
  DeviceProvingKey k;
  k.convention_ = KeyConvention::kSnarkjs;
  k.residency_ = residency;
  k.footprint_ = prover::footprint(key.header);
  check_count("A", key.a.size(), k.footprint_.a);
  check_count("B1", key.b1.size(), k.footprint_.b1);
  check_count("B2", key.b2.size(), k.footprint_.b2);
  check_count("C", key.c.size(), k.footprint_.c);
  check_count("H", key.h.size(), k.footprint_.h);
  const auto& h = key.header;
  k.constants_ = {h.alpha1, h.beta1,  h.delta1,
                  h.beta2,  h.delta2, groth16::verifying_key_from_zkey(key)};
  k.a_ = place(key.a, residency);
  k.b1_ = place(key.b1, residency);
  k.b2_ = place(key.b2, residency);
  k.c_ = place(key.c, residency);
  k.h_ = place(key.h, residency);
  return k;
}

template <class Curve>
DeviceProvingKey<Curve> DeviceProvingKey<Curve>::upload(const formats::BellmanParams& params,
                                                        KeyResidency residency) {
  if constexpr (!std::is_same_v<Curve, formats::Bls12_381>) {
    CUZK_INVALID_INPUT("DeviceProvingKey: bellman .params keys are BLS12-381 keys");
  } else {
    check_count("b_g2", params.b_g2.size(), params.b_g1.size());
    DeviceProvingKey k;
    k.convention_ = KeyConvention::kBellman;
    k.residency_ = residency;
    k.footprint_ = prover::footprint(params);
    const auto& vk = params.vk;
    k.constants_ = {vk.alpha_g1, vk.beta_g1,
                    vk.delta_g1, vk.beta_g2,
                    vk.delta_g2, {vk.alpha_g1, vk.beta_g2, vk.gamma_g2, vk.delta_g2, vk.ic}};
    k.a_ = place(params.a, residency);
    k.b1_ = place(params.b_g1, residency);
    k.b2_ = place(params.b_g2, residency);
    k.c_ = place(params.l, residency);
    k.h_ = place(params.h, residency);
    return k;
  }
}

template KeyFootprint footprint<formats::Bn254>(const formats::Groth16Header<formats::Bn254>&);
template KeyFootprint footprint<formats::Bls12_381>(
    const formats::Groth16Header<formats::Bls12_381>&);
template class DeviceProvingKey<formats::Bn254>;
template class DeviceProvingKey<formats::Bls12_381>;

}  // namespace cuzk::gpu::prover
