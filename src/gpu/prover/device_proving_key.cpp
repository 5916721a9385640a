// Proving keys resident in VRAM (device_proving_key.hpp), both curves.

#include "gpu/prover/device_proving_key.hpp"

#include <span>
#include <string>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "util/error.hpp"

namespace cuzk::gpu::prover {

namespace {

template <class T>
DeviceBuffer<T> upload_blocking(const std::vector<T>& host) {
  DeviceBuffer<T> d = DeviceBuffer<T>::allocate_blocking(host.size());
  if (!host.empty()) {
    CUDA_CHECK(cudaMemcpy(d.data(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  return d;
}

void check_residency(KeyResidency residency) {
  if (residency != KeyResidency::kDevice) {
    CUZK_INVALID_INPUT(
        "DeviceProvingKey: streamed residency (key in pinned host memory) is not implemented "
        "yet; the key must fit in VRAM");
  }
}

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
DeviceProvingKey<Curve> DeviceProvingKey<Curve>::upload(const formats::Groth16Zkey<Curve>& key,
                                                        KeyResidency residency) {
  check_residency(residency);
  DeviceProvingKey k;
  k.convention_ = KeyConvention::kSnarkjs;
  k.footprint_ = prover::footprint(key.header);
  check_count("A", key.a.size(), k.footprint_.a);
  check_count("B1", key.b1.size(), k.footprint_.b1);
  check_count("B2", key.b2.size(), k.footprint_.b2);
  check_count("C", key.c.size(), k.footprint_.c);
  check_count("H", key.h.size(), k.footprint_.h);
  const auto& h = key.header;
  k.constants_ = {h.alpha1, h.beta1,  h.delta1,
                  h.beta2,  h.delta2, groth16::verifying_key_from_zkey(key)};
  k.a_ = upload_blocking(key.a);
  k.b1_ = upload_blocking(key.b1);
  k.b2_ = upload_blocking(key.b2);
  k.c_ = upload_blocking(key.c);
  k.h_ = upload_blocking(key.h);
  return k;
}

template <class Curve>
DeviceProvingKey<Curve> DeviceProvingKey<Curve>::upload(const formats::BellmanParams& params,
                                                        KeyResidency residency) {
  if constexpr (!std::is_same_v<Curve, formats::Bls12_381>) {
    CUZK_INVALID_INPUT("DeviceProvingKey: bellman .params keys are BLS12-381 keys");
  } else {
    check_residency(residency);
    check_count("b_g2", params.b_g2.size(), params.b_g1.size());
    DeviceProvingKey k;
    k.convention_ = KeyConvention::kBellman;
    k.footprint_ = prover::footprint(params);
    const auto& vk = params.vk;
    k.constants_ = {vk.alpha_g1, vk.beta_g1,
                    vk.delta_g1, vk.beta_g2,
                    vk.delta_g2, {vk.alpha_g1, vk.beta_g2, vk.gamma_g2, vk.delta_g2, vk.ic}};
    k.a_ = upload_blocking(params.a);
    k.b1_ = upload_blocking(params.b_g1);
    k.b2_ = upload_blocking(params.b_g2);
    k.c_ = upload_blocking(params.l);
    k.h_ = upload_blocking(params.h);
    return k;
  }
}

template KeyFootprint footprint<formats::Bn254>(const formats::Groth16Header<formats::Bn254>&);
template KeyFootprint footprint<formats::Bls12_381>(
    const formats::Groth16Header<formats::Bls12_381>&);
template class DeviceProvingKey<formats::Bn254>;
template class DeviceProvingKey<formats::Bls12_381>;

}  // namespace cuzk::gpu::prover
