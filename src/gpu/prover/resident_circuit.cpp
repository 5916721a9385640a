// ResidentCircuit (resident_circuit.hpp): the uploads of one circuit's matrices, key and domain.

#include "gpu/prover/resident_circuit.hpp"

#include <bit>
#include <memory>
#include <optional>
#include <string>

#include "gpu/device_info.hpp"
#include "gpu/prover/assignment_prover.hpp"
#include "gpu/prover/host_circuit.hpp"
#include "util/error.hpp"

namespace cuzk::gpu::prover {

namespace {

unsigned log2_of_domain(size_t n) {
  if (n == 0 || !std::has_single_bit(n)) {
    CUZK_INVALID_INPUT("the domain size " + std::to_string(n) + " is not a power of two");
  }
  return unsigned(std::countr_zero(n));
}

template <class Curve>
KeyFootprint footprint_of(const formats::Groth16Zkey<Curve>& zkey) {
  return footprint(zkey);
}
KeyFootprint footprint_of(const formats::BellmanParams& params) { return footprint(params); }

// A partition's shape as a function of the key's placement, for a circuit's matrices or for
// assignments of a .params key.
template <class Fr>
auto circuit_shape(const HostCircuit<Fr>& host) {
  return [&host](KeyResidency residency, HTableShape table) {
    return partition_shape(host, residency, table);
  };
}
auto assignment_shape(const formats::BellmanParams& params) {
  return [&params](KeyResidency residency, HTableShape table) {
    return assignment_partition_shape(footprint(params), params.vk.ic.size(), residency, table);
  };
}

// `prebuilt` when given (checked against the key's sizes), else the matrices built here into
// `built`.
template <class Curve>
const HostCircuit<typename Curve::Fr>& zkey_host(
    const formats::Groth16Zkey<Curve>& zkey, const HostCircuit<typename Curve::Fr>* prebuilt,
    std::optional<HostCircuit<typename Curve::Fr>>& built) {
  const auto& h = zkey.header;
  if (prebuilt == nullptr) return built.emplace(host_circuit_from_zkey(zkey));
  if (prebuilt->domain_size != h.domain_size || prebuilt->n_vars != h.n_vars ||
      prebuilt->n_public != h.n_public) {
    CUZK_INVALID_INPUT("the prebuilt matrices (domain " + std::to_string(prebuilt->domain_size) +
                       ", " + std::to_string(prebuilt->n_vars) + " wires, " +
                       std::to_string(prebuilt->n_public) + " public) are not this key's");
  }
  return *prebuilt;
}

// A .params key has one IC point per public input and the constant one.
template <class Fr>
void check_inputs_fit(const formats::BellmanParams& params, const HostCircuit<Fr>& host) {
  if (params.vk.ic.size() != size_t(host.n_public) + 1) {
    CUZK_INVALID_INPUT("the circuit has " + std::to_string(host.n_public) +
                       " public inputs; the key's verifying key has " +
                       std::to_string(params.vk.ic.size()) + " IC points (one more expected)");
  }
}

}  // namespace

template <class Curve>
template <class Key, class ShapeOf>
ResidentCircuit<Curve> ResidentCircuit<Curve>::upload(
    const HostCircuit<Fr>* host, size_t domain_size, const Key& key, ntt::Convention convention,
    KeyPlacement placement, HTableShape h_table,
    std::shared_ptr<const DeviceProvingKey<Curve>> streamed, ShapeOf&& shape_of) {
  if (streamed != nullptr) {
    if (streamed->residency() != KeyResidency::kStreamed) {
      CUZK_INVALID_INPUT(
          "a proving key resident in VRAM belongs to its device: only a key in "
          "pinned host memory can be shared");
    }
    if (streamed->bytes() != footprint_of(key).bytes()) {
      CUZK_INVALID_INPUT("the shared proving key has " + std::to_string(streamed->bytes()) +
                         " bytes of points; this key file has " +
                         std::to_string(footprint_of(key).bytes()));
    }
  }
  ResidentCircuit r;
  if (host != nullptr) r.circuit_ = DeviceCircuit<Fr>::upload(*host);
  r.has_matrices_ = host != nullptr;
  r.domain_ = std::make_unique<ntt::DeviceDomain<Fr>>(log2_of_domain(domain_size), convention);
  if (streamed != nullptr) {
    r.key_ = std::move(streamed);
  } else {
    // The matrices and domain first: what is left decides where an automatic key goes.
    // The H table only beside a key in VRAM; kAuto makes the largest that fits with one
    // partition, so that it never moves the key out of VRAM.
    const KeyFootprint f = footprint_of(key);
    const bool automatic = placement == KeyPlacement::kAuto;
    const size_t free_bytes = automatic ? free_device_memory() : 0;
    const KeyResidency residency = resolve_key_placement(
        placement, f.bytes(),
        PartitionBuffers<Curve>::bytes_for(shape_of(KeyResidency::kDevice, HTableShape{})),
        free_bytes);
    HTableShape table = residency == KeyResidency::kDevice ? h_table : HTableShape{};
    if (table && automatic) {
      table = fastest_fitting_h_table<Curve>(f.h, table.rows, [&](HTableShape shape) {
        const size_t partition =
            PartitionBuffers<Curve>::bytes_for(shape_of(KeyResidency::kDevice, shape));
        return h_table_fits(f.bytes() + h_table_bytes<Curve>(f.h, shape), partition, 1, free_bytes);
      });
    }
    auto device_key = DeviceProvingKey<Curve>::upload(key, residency);
    if (table) device_key.add_h_table(table);
    r.key_ = std::make_shared<const DeviceProvingKey<Curve>>(std::move(device_key));
  }
  r.shape_ = shape_of(r.key_->residency(), r.key_->h_table_shape());
  return r;
}

template <class Curve>
ResidentCircuit<Curve> ResidentCircuit<Curve>::from_zkey(const formats::Groth16Zkey<Curve>& zkey,
                                                         KeyPlacement placement,
                                                         HTableShape h_table,
                                                         const HostCircuit<Fr>* prebuilt) {
  std::optional<HostCircuit<Fr>> built;
  const HostCircuit<Fr>& host = zkey_host(zkey, prebuilt, built);
  return upload(&host, host.domain_size, zkey, ntt::Convention::kSnarkjs, placement, h_table,
                nullptr, circuit_shape(host));
}

template <class Curve>
ResidentCircuit<Curve> ResidentCircuit<Curve>::from_zkey(
    const formats::Groth16Zkey<Curve>& zkey,
    std::shared_ptr<const DeviceProvingKey<Curve>> streamed, const HostCircuit<Fr>* prebuilt) {
  if (streamed == nullptr) CUZK_INVALID_INPUT("no shared proving key given");
  std::optional<HostCircuit<Fr>> built;
  const HostCircuit<Fr>& host = zkey_host(zkey, prebuilt, built);
  return upload(&host, host.domain_size, zkey, ntt::Convention::kSnarkjs, KeyPlacement::kStreamed,
                {}, std::move(streamed), circuit_shape(host));
}

template <class Curve>
ResidentCircuit<Curve> ResidentCircuit<Curve>::from_params(const formats::BellmanParams& params,
                                                           const formats::R1cs<Curve>& r1cs,
                                                           KeyPlacement placement,
                                                           HTableShape h_table) {
  if constexpr (!std::is_same_v<Curve, formats::Bls12_381>) {
    CUZK_INVALID_INPUT("bellman .params keys are BLS12-381 keys");
  } else {
    return from_params(params, host_circuit_from_r1cs(r1cs), placement, h_table);
  }
}

template <class Curve>
ResidentCircuit<Curve> ResidentCircuit<Curve>::from_params(
    const formats::BellmanParams& params, const formats::R1cs<Curve>& r1cs,
    std::shared_ptr<const DeviceProvingKey<Curve>> streamed) {
  if constexpr (!std::is_same_v<Curve, formats::Bls12_381>) {
    CUZK_INVALID_INPUT("bellman .params keys are BLS12-381 keys");
  } else {
    return from_params(params, host_circuit_from_r1cs(r1cs), std::move(streamed));
  }
}

template <class Curve>
ResidentCircuit<Curve> ResidentCircuit<Curve>::from_params(const formats::BellmanParams& params,
                                                           const HostCircuit<Fr>& host,
                                                           KeyPlacement placement,
                                                           HTableShape h_table) {
  if constexpr (!std::is_same_v<Curve, formats::Bls12_381>) {
    CUZK_INVALID_INPUT("bellman .params keys are BLS12-381 keys");
  } else {
    check_inputs_fit(params, host);
    return upload(&host, host.domain_size, params, ntt::Convention::kBellman, placement, h_table,
                  nullptr, circuit_shape(host));
  }
}

template <class Curve>
ResidentCircuit<Curve> ResidentCircuit<Curve>::from_params(
    const formats::BellmanParams& params, const HostCircuit<Fr>& host,
    std::shared_ptr<const DeviceProvingKey<Curve>> streamed) {
  if constexpr (!std::is_same_v<Curve, formats::Bls12_381>) {
    CUZK_INVALID_INPUT("bellman .params keys are BLS12-381 keys");
  } else {
    if (streamed == nullptr) CUZK_INVALID_INPUT("no shared proving key given");
    check_inputs_fit(params, host);
    return upload(&host, host.domain_size, params, ntt::Convention::kBellman,
                  KeyPlacement::kStreamed, {}, std::move(streamed), circuit_shape(host));
  }
}

template <class Curve>
ResidentCircuit<Curve> ResidentCircuit<Curve>::from_params(const formats::BellmanParams& params,
                                                           KeyPlacement placement,
                                                           HTableShape h_table) {
  if constexpr (!std::is_same_v<Curve, formats::Bls12_381>) {
    CUZK_INVALID_INPUT("bellman .params keys are BLS12-381 keys");
  } else {
    return upload(nullptr, params.h.size() + 1, params, ntt::Convention::kBellman, placement,
                  h_table, nullptr, assignment_shape(params));
  }
}

template <class Curve>
ResidentCircuit<Curve> ResidentCircuit<Curve>::from_params(
    const formats::BellmanParams& params, std::shared_ptr<const DeviceProvingKey<Curve>> streamed) {
  if constexpr (!std::is_same_v<Curve, formats::Bls12_381>) {
    CUZK_INVALID_INPUT("bellman .params keys are BLS12-381 keys");
  } else {
    if (streamed == nullptr) CUZK_INVALID_INPUT("no shared proving key given");
    return upload(nullptr, params.h.size() + 1, params, ntt::Convention::kBellman,
                  KeyPlacement::kStreamed, {}, std::move(streamed), assignment_shape(params));
  }
}

template class ResidentCircuit<formats::Bn254>;
template class ResidentCircuit<formats::Bls12_381>;

}  // namespace cuzk::gpu::prover
