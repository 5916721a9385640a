#pragma once
// Everything the partitions of one circuit read, resident on one device: the constraint
// matrices (device_circuit.hpp), the proving key's queries (device_proving_key.hpp; in VRAM, or
// in pinned host memory for a key that does not fit: KeyPlacement) and the NTT domain of its
// size and convention. Built from either source the engine knows (DESIGN.md §4):
// a .zkey (its coefficient section gives A and B), or a bellman .params with the circuit's
// .r1cs (A, B and C, and the density lists of the key's A and B queries), or a .params alone
// (no matrices: it proves bellman assignments, whose bitmaps give the density lists).
//
// Ownership: the constructors upload with blocking allocations and copies onto the calling
// thread's current device (start-up work: loading a key, never per partition). Read-only
// afterwards: any number of streams of that device may prove from it at once. Move-only.

#include <cstddef>
#include <memory>

#include "formats/params.hpp"
#include "formats/r1cs.hpp"
#include "formats/zkey.hpp"
#include "gpu/ntt/ntt.hpp"
#include "gpu/prover/device_circuit.hpp"
#include "gpu/prover/device_proving_key.hpp"
#include "gpu/prover/host_circuit.hpp"
#include "gpu/prover/partition.hpp"

namespace cuzk::gpu::prover {

// Device bytes the NTT domain's tables are counted at, for budgets made before the upload
// (the tables take a few MiB at 2^27).
inline constexpr size_t kDomainBytesBound = size_t(64) << 20;

// Where the key's points go (device_proving_key.hpp): VRAM, pinned host memory (streamed into
// every MSM), or kAuto: VRAM when the key, one partition's buffers and kPlacementMarginBytes fit
// in the device memory still free once the matrices and the domain are uploaded, else pinned.
enum class KeyPlacement { kAuto, kDevice, kStreamed };
inline constexpr size_t kPlacementMarginBytes = size_t(1) << 30;

// kAuto's rule, for a key of key_bytes and partition buffers of partition_bytes with
// free_bytes of VRAM left.
inline KeyResidency resolve_key_placement(KeyPlacement placement, size_t key_bytes,
                                          size_t partition_bytes, size_t free_bytes) {
  switch (placement) {
    case KeyPlacement::kDevice:
      return KeyResidency::kDevice;
    case KeyPlacement::kStreamed:
      return KeyResidency::kStreamed;
    case KeyPlacement::kAuto:
      break;
  }
  return key_bytes + partition_bytes + kPlacementMarginBytes <= free_bytes
             ? KeyResidency::kDevice
             : KeyResidency::kStreamed;
}

// Whether a key's H table goes with it (DeviceProvingKey::add_h_table): the key with its table,
// `partitions` partition buffers of partition_bytes each and kPlacementMarginBytes fit in
// vram_bytes. ResidentCircuit's kAuto and the engine's cuda backend both decide by it.
inline bool h_table_fits(size_t key_and_table_bytes, size_t partition_bytes, int partitions,
                         size_t vram_bytes) {
  return key_and_table_bytes + size_t(partitions < 1 ? 1 : partitions) * partition_bytes +
             kPlacementMarginBytes <=
         vram_bytes;
}

// The fastest H table of at most max_rows rows (0: no limit) for which fits(shape) holds
// (h_table_shapes, in the tuning model's order); none (rows 0) when no table worth making fits.
template <class Curve, class Fits>
HTableShape fastest_fitting_h_table(size_t h_points, unsigned max_rows, Fits&& fits) {
  for (const HTableShape& shape : h_table_shapes<Curve>(h_points)) {
    if ((max_rows == 0 || shape.rows <= max_rows) && fits(shape)) return shape;
  }
  return {};
}

template <class Curve>
class ResidentCircuit {
 public:
  using Fr = typename Curve::Fr;

  // Throws kInvalidInput for a key whose sections disagree, kCuda when VRAM (or, for a
  // streamed key, pinnable host memory) is short. With an h_table shape (h_table_shape), a key
  // placed in VRAM gets that H table (DeviceProvingKey::add_h_table): as asked with kDevice
  // (kCuda when VRAM is short); with kAuto the fastest table of at most its rows for which the
  // key, the table and one partition's buffers fit the VRAM left by the matrices and domain
  // with kPlacementMarginBytes to spare, or none, so that the table never changes where the
  // key goes (key().h_table_shape() says what was made).
  //
  // `prebuilt`, where given, is host_circuit_from_zkey(zkey) made beforehand, e.g. to size the
  // key's budgets: the upload uses it instead of building the matrices again, and `zkey` may
  // then lack its coefficients (ZkeyReadOptions::coefficients). Throws kInvalidInput when its
  // domain, wire count or public count are not the key's.
  static ResidentCircuit from_zkey(const formats::Groth16Zkey<Curve>& zkey,
                                   KeyPlacement placement = KeyPlacement::kDevice,
                                   HTableShape h_table = {},
                                   const HostCircuit<Fr>* prebuilt = nullptr);
  // The matrices and domain of `zkey` on the current device, proving with `streamed`, a key of
  // the same .zkey made beforehand in pinned host memory (KeyResidency::kStreamed): pinned
  // memory serves every device, so one copy of the points does for all of them where a
  // circuit per device with its own streamed key would pin a copy each (77 GB at 2^27).
  // Throws kInvalidInput for a key resident in VRAM (it belongs to one device) or of another
  // size than the .zkey's.
  static ResidentCircuit from_zkey(const formats::Groth16Zkey<Curve>& zkey,
                                   std::shared_ptr<const DeviceProvingKey<Curve>> streamed,
                                   const HostCircuit<Fr>* prebuilt = nullptr);
  // BLS12-381 only. Throws kInvalidInput when the .r1cs does not fit the key.
  static ResidentCircuit from_params(const formats::BellmanParams& params,
                                     const formats::R1cs<Curve>& r1cs,
                                     KeyPlacement placement = KeyPlacement::kDevice,
                                     HTableShape h_table = {});
  // As from_zkey with a shared streamed key (made from these params).
  static ResidentCircuit from_params(const formats::BellmanParams& params,
                                     const formats::R1cs<Curve>& r1cs,
                                     std::shared_ptr<const DeviceProvingKey<Curve>> streamed);
  // The same from host_circuit_from_r1cs(r1cs) made beforehand (the .r1cs itself not needed).
  static ResidentCircuit from_params(const formats::BellmanParams& params,
                                     const HostCircuit<Fr>& host,
                                     KeyPlacement placement = KeyPlacement::kDevice,
                                     HTableShape h_table = {});
  static ResidentCircuit from_params(const formats::BellmanParams& params,
                                     const HostCircuit<Fr>& host,
                                     std::shared_ptr<const DeviceProvingKey<Curve>> streamed);
  // A .params key alone, without matrices: it proves bellman assignments only
  // (assignment_prover.hpp), and shape() is an assignment partition's. BLS12-381 only.
  static ResidentCircuit from_params(const formats::BellmanParams& params,
                                     KeyPlacement placement = KeyPlacement::kDevice,
                                     HTableShape h_table = {});
  static ResidentCircuit from_params(const formats::BellmanParams& params,
                                     std::shared_ptr<const DeviceProvingKey<Curve>> streamed);

  // Whether the circuit's matrices are resident (false: a key that proves assignments only).
  bool has_matrices() const { return has_matrices_; }

  const DeviceCircuit<Fr>& circuit() const { return circuit_; }
  const DeviceProvingKey<Curve>& key() const { return *key_; }
  const ntt::DeviceDomain<Fr>& domain() const { return *domain_; }
  const PartitionShape& shape() const { return shape_; }
  // VRAM held: matrices, key queries (when resident), domain tables.
  size_t device_bytes() const {
    return circuit_.bytes() + key_->device_bytes() + domain_->device_bytes();
  }

 private:
  // The uploads shared by every source: `host` the matrices (null: none, assignments only),
  // `key` the .zkey or the .params; `streamed`, when given, is its points already in pinned
  // memory. shape_of(residency, h_table) is a partition's shape.
  template <class Key, class ShapeOf>
  static ResidentCircuit upload(const HostCircuit<Fr>* host, size_t domain_size, const Key& key,
                                ntt::Convention convention, KeyPlacement placement,
                                HTableShape h_table,
                                std::shared_ptr<const DeviceProvingKey<Curve>> streamed,
                                ShapeOf&& shape_of);

  DeviceCircuit<Fr> circuit_;
  std::shared_ptr<const DeviceProvingKey<Curve>> key_;
  std::unique_ptr<ntt::DeviceDomain<Fr>> domain_;
  PartitionShape shape_;
  bool has_matrices_ = true;
};

}  // namespace cuzk::gpu::prover
