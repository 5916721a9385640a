// The proving path of the cuda backend (cuda_backend.hpp): streams and events, resident keys,
// and the partitions' four calls. Nothing here allocates device memory or synchronizes more
// than the calling worker's own stream (DESIGN.md §2.1).

#include "engine/cuda_backend.hpp"

#include <algorithm>
#include <bit>
#include <chrono>
#include <filesystem>
#include <functional>
#include <span>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "engine/key_source.hpp"
#include "engine/witness_input.hpp"
#include "formats/wtns.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/prover/assignment_prover.hpp"
#include "gpu/prover/resident_circuit.hpp"
#include "gpu/stream.hpp"
#include "groth16/key_file.hpp"
#include "util/error.hpp"

namespace cuzk::engine {
namespace {

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

void use_device(int device) { CUDA_CHECK(cudaSetDevice(device)); }

class CudaEvent : public Event {
 public:
  explicit CudaEvent(const gpu::Stream& stream) : event_(true) { event_.record(stream); }
  bool query() const override { return event_.done(); }
  void synchronize() const override { event_.synchronize(); }
  double elapsed_ms_since(const Event& earlier) const override {
    return gpu::Event::elapsed_ms(dynamic_cast<const CudaEvent&>(earlier).event_, event_);
  }
  void wait_on(const gpu::Stream& stream) const { stream.wait(event_); }

 private:
  gpu::Event event_;
};

class CudaStream : public Stream {
 public:
  explicit CudaStream(int device) : device_(device), stream_(make(device)) {}
  int device() const override { return device_; }
  std::shared_ptr<Event> record() override {
    use_device(device_);
    return std::make_shared<CudaEvent>(stream_);
  }
  void wait(const Event& event) override {
    const auto* cuda = dynamic_cast<const CudaEvent*>(&event);
    if (cuda == nullptr) CUZK_THROW(ErrorKind::kInternal, "cuda stream: a foreign event");
    use_device(device_);
    cuda->wait_on(stream_);
  }
  void synchronize() override { stream_.synchronize(); }
  const gpu::Stream& get() const { return stream_; }

 private:
  static gpu::Stream make(int device) {
    use_device(device);
    return gpu::Stream();
  }
  int device_;
  gpu::Stream stream_;
};

// One partition's host side, reused: the pinned witness, and the buffers' pinned sums and
// events (their device memory is placed in the partition's slot each time).
template <class Curve>
struct Staging {
  // Made on the calling thread's current device (the events belong to it): the caller sets it.
  Staging(size_t witness_capacity, const gpu::prover::PartitionShape& shape)
      : witness(witness_capacity), buffers(gpu::prover::PartitionBuffers<Curve>::unplaced(shape)) {}
  gpu::prover::PinnedWitness<typename Curve::Fr> witness;
  gpu::prover::PartitionBuffers<Curve> buffers;
};

// A key on every device (its points in VRAM on each, or one copy in pinned host memory that
// every device streams from), with its pool of staging per device.
template <class Curve>
class CudaKey : public LoadedKey {
 public:
  using Resident = gpu::prover::ResidentCircuit<Curve>;

  CudaKey(std::vector<std::unique_ptr<Resident>> devices, uint64_t bytes, KeyTier tier,
          groth16::KeyFormat format)
      : devices_(std::move(devices)),
        bytes_(bytes),
        tier_(tier),
        format_(format),
        pools_(devices_.size()) {}
  uint64_t bytes() const override { return bytes_; }
  KeyTier tier() const override { return tier_; }
  const Resident& on(int device) const { return *devices_.at(size_t(device)); }
  groth16::KeyFormat format() const { return format_; }
  // A .zkey opened with an .r1cs: every witness is checked against it in prepare, naming the
  // first unsatisfied constraint (the GPU proof of a bad witness only fails to verify).
  std::optional<formats::R1cs<Curve>> witness_check;

  std::unique_ptr<Staging<Curve>> take_staging(int device) const {
    {
      std::lock_guard lock(mutex_);
      auto& pool = pools_.at(size_t(device));
      if (!pool.empty()) {
        auto staging = std::move(pool.back());
        pool.pop_back();
        return staging;
      }
    }
    return make_staging(device);
  }
  // Load time: `count` staging of each device made before the first partition needs them.
  void make_staging_ahead(int count) const {
    for (size_t d = 0; d < devices_.size(); ++d) {
      for (int i = 0; i < count; ++i) give_back(int(d), make_staging(int(d)));
    }
  }
  void give_back(int device, std::unique_ptr<Staging<Curve>> staging) const {
    std::lock_guard lock(mutex_);
    pools_.at(size_t(device)).push_back(std::move(staging));
  }

 private:
  std::unique_ptr<Staging<Curve>> make_staging(int device) const {
    const Resident& r = on(device);
    use_device(device);
    // A key without matrices proves assignments: no pinned witness.
    return std::make_unique<Staging<Curve>>(r.has_matrices() ? r.circuit().n_vars() : 0, r.shape());
  }

  std::vector<std::unique_ptr<Resident>> devices_;
  uint64_t bytes_;
  KeyTier tier_;
  groth16::KeyFormat format_;
  mutable std::mutex mutex_;
  mutable std::vector<std::vector<std::unique_ptr<Staging<Curve>>>> pools_;
};

// The optional .r1cs check of a .zkey's witnesses (CudaKey::witness_check).
template <class Curve>
void check_against_r1cs(const formats::R1cs<Curve>& r1cs, const WitnessView& wtns) {
  formats::WtnsReadOptions read;
  read.expected_count = r1cs.header.n_wires;
  const auto witness = formats::parse_wtns<Curve>(wtns.bytes(), wtns.name(), read);
  if (const auto bad = groth16::first_unsatisfied_constraint<Curve>(
          r1cs, std::span<const typename Curve::Fr>(witness))) {
    CUZK_INVALID_INPUT(wtns.name() + ": the witness does not satisfy constraint " +
                       std::to_string(*bad) + " of the circuit's .r1cs");
  }
}

template <class Curve>
class CudaWork : public PartitionWork {
 public:
  CudaWork(const CudaKey<Curve>& key, int device, std::byte* arena, bool verify)
      : key_(key),
        device_(device),
        arena_(arena),
        verify_(verify),
        staging_(key.take_staging(device)) {}
  ~CudaWork() override {
    // Abandoned after stage or compute (cancelled, or a failure): the stream may still read
    // the pinned witness or write the sums; wait for this worker's own stream only.
    if (stream_ != nullptr && !finished_) {
      try {
        stream_->synchronize();
      } catch (const Error&) {
        return;  // a failed device: the staging is not reused
      }
    }
    key_.give_back(device_, std::move(staging_));
  }

  void load_witness(const PartitionInput& input) {
    blinding_ = input.blinding;
    if (!key_.on(device_).has_matrices()) {
      CUZK_INVALID_INPUT(
          "this .params key was registered without its circuit's .r1cs: it proves bellman "
          "assignments, not .wtns witnesses");
    }
    const WitnessView wtns = WitnessView::of(input);
    if (key_.witness_check) check_against_r1cs(*key_.witness_check, wtns);
    staging_->witness.load_wtns_bytes(wtns.bytes(), wtns.name(),
                                      key_.on(device_).circuit().n_vars());
  }

  // A bellman assignment (BLS12-381 .params keys registered without matrices): read from the
  // caller's memory when staged, which the input's owner keeps alive.
  void load_assignment(const PartitionInput& input) {
    blinding_ = input.blinding;
    if constexpr (!std::is_same_v<Curve, groth16::BellmanCurve>) {
      CUZK_INVALID_INPUT("a bellman assignment is proved with a bellman .params key, not a .zkey");
    } else {
      if (key_.on(device_).has_matrices()) {
        CUZK_INVALID_INPUT(
            "this key was registered with its circuit's matrices; a key that proves bellman "
            "assignments is registered without them (assignments_only)");
      }
      // Refused here, before the partition takes a slot (stage checks again).
      groth16::check_bellman_assignment(gpu::prover::bellman_key_sizes(key_.on(device_).key()),
                                        *input.assignment);
      assignment_ = input.assignment;
      assignment_owner_ = input.assignment_owner;
    }
  }

  uint64_t vram_bytes() const override { return staging_->buffers.bytes(); }

  // The pinned witness is the whole witness in standard form (load_wtns_bytes checked it); a
  // rebuild writes it out as a .wtns — one copy of the witness, made only for a hand-back. An
  // assignment stays with the input.
  bool keeps_witness() const override { return assignment_ == nullptr; }
  std::shared_ptr<const std::vector<uint8_t>> rebuild_witness() const override {
    const auto& pinned = staging_->witness;
    return std::make_shared<const std::vector<uint8_t>>(formats::wtns_to_bytes_from_standard<Curve>(
        std::span<const typename Curve::Fr>(pinned.data(), pinned.size())));
  }

  void stage(Stream& stream, const VramSlot& slot) override {
    auto& cuda = dynamic_cast<CudaStream&>(stream);
    use_device(device_);
    const auto& r = key_.on(device_);
    staging_->buffers.place({arena_ + slot.offset, size_t(slot.bytes)});
    if constexpr (std::is_same_v<Curve, groth16::BellmanCurve>) {
      if (assignment_ != nullptr) {
        gpu::prover::check_assignment_partition(r.key(), r.domain(), *assignment_,
                                                staging_->buffers);
        stream_ = &cuda;
        gpu::prover::enqueue_assignment_stage(*assignment_, staging_->buffers, cuda.get());
        return;
      }
    }
    gpu::prover::check_partition(r.circuit(), r.key(), r.domain(), staging_->witness,
                                 staging_->buffers);
    stream_ = &cuda;
    gpu::prover::enqueue_stage(staging_->witness, staging_->buffers, cuda.get());
  }

  void compute(Stream& stream) override {
    auto& cuda = dynamic_cast<CudaStream&>(stream);
    use_device(device_);
    const auto& r = key_.on(device_);
    if constexpr (std::is_same_v<Curve, groth16::BellmanCurve>) {
      if (assignment_ != nullptr) {
        gpu::prover::enqueue_assignment_compute(r.key(), r.domain(), staging_->buffers, cuda.get());
        return;
      }
    }
    gpu::prover::enqueue_compute(r.circuit(), r.key(), r.domain(), staging_->buffers, cuda.get());
  }

  // A streamed key's partitions on this device compute together (enqueue_*_compute over the
  // group): each chunk of the key then crosses PCIe once per group.
  const void* group_key() const override {
    return key_.tier() == KeyTier::kPinned ? static_cast<const void*>(&key_) : nullptr;
  }
  void compute_group(std::span<PartitionWork* const> others, Stream& stream) override {
    auto& cuda = dynamic_cast<CudaStream&>(stream);
    use_device(device_);
    const auto& r = key_.on(device_);
    std::vector<gpu::prover::PartitionBuffers<Curve>*> group = {&staging_->buffers};
    for (PartitionWork* other : others) {
      auto& work = dynamic_cast<CudaWork&>(*other);
      if (&work.key_ != &key_ || work.device_ != device_ || work.stream_ != &cuda ||
          (work.assignment_ == nullptr) != (assignment_ == nullptr)) {
        CUZK_THROW(ErrorKind::kInternal,
                   "cuda backend: a group of partitions of different keys, devices or streams");
      }
      group.push_back(&work.staging_->buffers);
    }
    if constexpr (std::is_same_v<Curve, groth16::BellmanCurve>) {
      if (assignment_ != nullptr) {
        gpu::prover::enqueue_assignment_compute(r.key(), r.domain(), group, cuda.get());
        return;
      }
    }
    gpu::prover::enqueue_compute<Curve>(r.circuit(), r.key(), r.domain(), group, cuda.get());
  }

  PartitionOutput finish() override {
    finished_ = true;
    gpu::prover::GpuProveOptions<Curve> options;
    options.self_verify = verify_;
    if (blinding_) options.blinding = groth16::blinding_from_bytes<Curve>(*blinding_);
    const auto result = [&] {
      if constexpr (std::is_same_v<Curve, groth16::BellmanCurve>) {
        if (assignment_ != nullptr) {
          return gpu::prover::finish_assignment_partition(key_.on(device_).key(), *assignment_,
                                                          staging_->buffers, options);
        }
      }
      return gpu::prover::finish_partition(key_.on(device_).key(), staging_->witness,
                                           staging_->buffers, options);
    }();
    groth16::EncodedProof encoded = groth16::encode_proof<Curve>(
        key_.format(), result.proof, std::span<const typename Curve::Fr>(result.public_inputs));
    return {ProofFormat(encoded.format), std::move(encoded.bytes), std::move(encoded.public_json)};
  }

 private:
  const CudaKey<Curve>& key_;
  int device_;
  std::byte* arena_;
  bool verify_;
  std::unique_ptr<Staging<Curve>> staging_;
  CudaStream* stream_ = nullptr;  // set by stage
  bool finished_ = false;
  std::optional<groth16::BlindingBytes> blinding_;
  std::shared_ptr<const groth16::BellmanAssignmentView> assignment_;  // else the witness
  std::shared_ptr<const void> assignment_owner_;
};

template <class Curve>
std::unique_ptr<PartitionWork> prepare_with(const CudaKey<Curve>& key, const PartitionInput& input,
                                            int device, std::byte* arena, bool verify) {
  const auto start = Clock::now();
  auto work = std::make_unique<CudaWork<Curve>>(key, device, arena, verify);
  if (input.assignment) {
    work->load_assignment(input);
  } else {
    work->load_witness(input);
  }
  work->synthesis_ms = ms_since(start);
  return work;
}

// What a key adds to its points: bytes that stay in VRAM in every tier (a .zkey's density
// lists), and its H query's length.
struct KeyExtras {
  uint64_t list_bytes = 0;
  size_t h_points = 0;
};

// The partition shapes of a key as a function of its placement, the VRAM its circuit keeps in
// every tier and the pinned host memory per partition: a circuit of `host`'s matrices, or the
// assignments of a .params key without matrices.
struct PartitionShapes {
  std::function<gpu::prover::PartitionShape(gpu::prover::KeyResidency, gpu::prover::HTableShape)>
      of;
  uint64_t circuit_bytes = 0;
  uint64_t host_bytes = 0;
};
template <class Curve>
PartitionShapes circuit_shapes(const gpu::prover::HostCircuit<typename Curve::Fr>& host) {
  return {[&host](gpu::prover::KeyResidency residency, gpu::prover::HTableShape table) {
            return gpu::prover::partition_shape(host, residency, table);
          },
          host.bytes(), uint64_t(host.n_vars) * sizeof(typename Curve::Fr)};
}
// An assignment partition holds the A and B variable lists on the host while it is staged.
inline PartitionShapes assignment_shapes(const gpu::prover::KeyFootprint& f, size_t n_inputs) {
  return {[f, n_inputs](gpu::prover::KeyResidency residency, gpu::prover::HTableShape table) {
            return gpu::prover::assignment_partition_shape(f, n_inputs, residency, table);
          },
          0, 2 * sizeof(uint32_t) * uint64_t(n_inputs + f.c)};
}

// KeyShape's sizes for partitions of `shapes` whose key has `points` bytes, with an H table of
// that shape when in VRAM (rows 0: none).
template <class Curve>
CudaBackend::KeyShape shape_of(const PartitionShapes& shapes, uint64_t points, KeyExtras extras,
                               gpu::prover::HTableShape h_table) {
  using Buffers = gpu::prover::PartitionBuffers<Curve>;
  using gpu::prover::KeyResidency;
  CudaBackend::KeyShape shape;
  shape.circuit_bytes = shapes.circuit_bytes + gpu::prover::kDomainBytesBound + extras.list_bytes;
  shape.points_bytes = points;
  shape.h_table = h_table;
  shape.h_table_bytes = gpu::prover::h_table_bytes<Curve>(extras.h_points, h_table);
  // A streamed key's MSMs stage their bases through the slot, a key with an H table runs the
  // H MSM in msm_shifted's workspace: the largest of the layouts the key can have.
  shape.partition_bytes = std::max({Buffers::bytes_for(shapes.of(KeyResidency::kDevice, {})),
                                    Buffers::bytes_for(shapes.of(KeyResidency::kDevice, h_table)),
                                    Buffers::bytes_for(shapes.of(KeyResidency::kStreamed, {}))});
  shape.witness_bytes = shapes.host_bytes;
  return shape;
}

// shape_of with the largest H table that fits every device (h_table_fits) when asked for,
// else without.
template <class Curve>
CudaBackend::KeyShape shape_with_table_if_it_fits(const PartitionShapes& shapes, uint64_t points,
                                                  KeyExtras extras, const CudaOptions& options,
                                                  uint64_t smallest_vram_bytes) {
  gpu::prover::HTableShape table;
  if (options.h_tables) {
    table = gpu::prover::fastest_fitting_h_table<Curve>(
        extras.h_points, 0, [&](gpu::prover::HTableShape shape) {
          return h_table_fits(shape_of<Curve>(shapes, points, extras, shape),
                              options.partitions_per_device, smallest_vram_bytes);
        });
  }
  return shape_of<Curve>(shapes, points, extras, table);
}

// Which files a key source names, as they are now: a key rewritten since it was measured is
// not the key whose matrices were built.
std::string key_identity(const KeySource& source) {
  std::string id = source.path.string() + '\n' + source.r1cs.string() +
                   (source.assignments_only ? "\nassignments" : "");
  for (const std::filesystem::path& p : {source.path, source.r1cs}) {
    if (p.empty()) continue;
    std::error_code error;
    const auto size = std::filesystem::file_size(p, error);
    const auto written = std::filesystem::last_write_time(p, error).time_since_epoch().count();
    id += '\n' + std::to_string(size) + '@' + std::to_string(written);
  }
  return id;
}

}  // namespace

struct CudaBackend::BuiltCircuit {
  std::string identity;  // key_identity of the source it was built from
  std::variant<std::monostate, gpu::prover::HostCircuit<formats::Bn254::Fr>,
               gpu::prover::HostCircuit<formats::Bls12_381::Fr>>
      host;
};

std::shared_ptr<CudaBackend::BuiltCircuit> CudaBackend::take_built(const KeySource& source) const {
  const std::string identity = key_identity(source);
  std::lock_guard lock(mutex_);
  if (last_built_ == nullptr || last_built_->identity != identity) return nullptr;
  return std::exchange(last_built_, nullptr);
}

std::unique_ptr<Stream> CudaBackend::create_stream(int device) {
  return std::make_unique<CudaStream>(device);
}

CudaBackend::KeyShape CudaBackend::shape(const KeySource& source) const {
  {
    std::lock_guard lock(mutex_);
    if (auto it = shapes_.find(source.path.string()); it != shapes_.end()) return it->second;
  }
  KeyShape shape;
  auto built = std::make_shared<BuiltCircuit>();
  built->identity = key_identity(source);
  groth16::KeyFile::visit_layout(key_file_source(source), [&](const auto& layout) {
    using Layout = std::decay_t<decltype(layout)>;
    if constexpr (std::is_same_v<Layout, groth16::ParamsLayout>) {
      using Curve = groth16::BellmanCurve;
      const auto& l = layout.layout;
      const uint64_t points = l.h.size() + l.l.size() + l.a.size() + l.b_g1.size() +
                              l.b_g2.size();  // as stored: 96 / 192 bytes
      static_assert(sizeof(formats::BellmanParams::G1) == 96 &&
                    sizeof(formats::BellmanParams::G2) == 192);
      const KeyExtras extras{0, l.h.size() / sizeof(formats::BellmanParams::G1)};
      if (!layout.r1cs) {
        // Registered without matrices (KeySource::assignments_only): assignments only.
        gpu::prover::KeyFootprint f;
        f.g1_bytes = sizeof(formats::BellmanParams::G1);
        f.g2_bytes = sizeof(formats::BellmanParams::G2);
        f.a = l.a.size() / f.g1_bytes;
        f.b1 = l.b_g1.size() / f.g1_bytes;
        f.b2 = l.b_g2.size() / f.g2_bytes;
        f.c = l.l.size() / f.g1_bytes;
        f.h = l.h.size() / f.g1_bytes;
        shape = shape_with_table_if_it_fits<Curve>(assignment_shapes(f, l.vk.ic.size()), points,
                                                   extras, options_, smallest_vram_bytes());
      } else {
        auto host = gpu::prover::host_circuit_from_r1cs(*layout.r1cs);
        shape = shape_with_table_if_it_fits<Curve>(circuit_shapes<Curve>(host), points, extras,
                                                   options_, smallest_vram_bytes());
        built->host = std::move(host);
      }
    } else {
      using Curve = typename Layout::Curve;
      // The matrices' compact size depends on the coefficients (not the points).
      formats::Groth16Zkey<Curve> matrices;
      matrices.header = layout.sections.header;
      matrices.coefficients = layout.coefficients;
      // The points the upload keeps, from the coefficients (load_key checks the key agrees);
      // the wire lists stay in VRAM in every tier.
      const gpu::prover::KeyFootprint f =
          gpu::prover::coefficient_footprint<Curve>(matrices.header, matrices.coefficients);
      const KeyExtras extras{f.wire_list_bytes, matrices.header.domain_size};
      auto host = gpu::prover::host_circuit_from_zkey(matrices);
      shape = shape_with_table_if_it_fits<Curve>(circuit_shapes<Curve>(host), f.points_bytes(),
                                                 extras, options_, smallest_vram_bytes());
      built->host = std::move(host);
    }
  });
  std::lock_guard lock(mutex_);
  shapes_[source.path.string()] = shape;
  if (!std::holds_alternative<std::monostate>(built->host)) last_built_ = std::move(built);
  return shape;
}

TierBytes CudaBackend::key_charges(const KeySource& source, KeyTier tier) const {
  const KeyShape s = shape(source);
  switch (tier) {
    case KeyTier::kVram:
      return {{KeyTier::kVram, s.circuit_bytes + s.points_bytes + s.h_table_bytes}};
    case KeyTier::kPinned:
      return {{KeyTier::kPinned, s.points_bytes}, {KeyTier::kVram, s.circuit_bytes}};
    default:
      return {};
  }
}

uint64_t CudaBackend::smallest_vram_bytes() const {
  uint64_t smallest = 0;
  for (const Device& d : devices_) {
    if (smallest == 0 || d.description.vram_bytes < smallest) smallest = d.description.vram_bytes;
  }
  return smallest;
}

uint64_t CudaBackend::partition_vram_bytes(const KeySource& source) const {
  return shape(source).partition_bytes;
}

uint64_t CudaBackend::partition_host_bytes(const KeySource& source) const {
  // The pinned witness it occupies and the checks' working memory; the job's own .wtns bytes
  // are the client's.
  return shape(source).witness_bytes + (uint64_t(1) << 20);
}

std::shared_ptr<const LoadedKey> CudaBackend::load_key(const KeySource& source, KeyTier tier) {
  if (tier != KeyTier::kVram && tier != KeyTier::kPinned) {
    CUZK_THROW(ErrorKind::kInternal, "cuda backend: keys live in VRAM or pinned host memory");
  }
  const io::SubgroupCheck subgroups =
      options_.check_key_subgroups ? io::SubgroupCheck::kOn : io::SubgroupCheck::kOff;
  const KeyShape charged = shape(source);
  // The matrices shape() built, when it measured this key last: not built a second time.
  const std::shared_ptr<const BuiltCircuit> built = take_built(source);
  const auto prebuilt = [&]<class Fr>() -> const gpu::prover::HostCircuit<Fr>* {
    return built != nullptr ? std::get_if<gpu::prover::HostCircuit<Fr>>(&built->host) : nullptr;
  };
  // The H table as its charges counted it (shape: the largest that fits, or none).
  const gpu::prover::HTableShape h_table = charged.h_table;
  // The circuit on every device; pinned: the points once in pinned host memory (portable),
  // shared by every device.
  const auto load = [&]<class Curve>(const auto& key_file, groth16::KeyFormat format,
                                     auto&& make_resident,
                                     std::optional<formats::R1cs<Curve>> witness_check = {}) {
    using Resident = gpu::prover::ResidentCircuit<Curve>;
    std::shared_ptr<const gpu::prover::DeviceProvingKey<Curve>> streamed;
    if (tier == KeyTier::kPinned) {
      streamed = std::make_shared<const gpu::prover::DeviceProvingKey<Curve>>(
          gpu::prover::DeviceProvingKey<Curve>::upload(key_file,
                                                       gpu::prover::KeyResidency::kStreamed));
    }
    std::vector<std::unique_ptr<Resident>> resident;
    for (int d = 0; d < device_count(); ++d) {
      use_device(d);
      resident.push_back(std::make_unique<Resident>(make_resident(streamed)));
    }
    // The charges counted the points from the .zkey's coefficients (shape): a key with finite
    // points where its coefficients imply infinity would take more than it was charged.
    const gpu::prover::KeyFootprint& uploaded =
        streamed != nullptr ? streamed->footprint() : resident.front()->key().footprint();
    if (uploaded.points_bytes() > charged.points_bytes) {
      CUZK_INVALID_INPUT(source.path.string() + ": the key's points take " +
                         std::to_string(uploaded.points_bytes()) + " bytes, its coefficients " +
                         "imply " + std::to_string(charged.points_bytes) +
                         ": it has finite points for wires without coefficients, which no "
                         "setup of this circuit makes");
    }
    const uint64_t bytes =
        streamed != nullptr ? streamed->bytes() : resident.front()->device_bytes();
    auto key = std::make_shared<CudaKey<Curve>>(std::move(resident), bytes, tier, format);
    key->witness_check = std::move(witness_check);
    key->make_staging_ahead(options_.staging_per_device);
    return std::shared_ptr<const LoadedKey>(std::move(key));
  };
  groth16::KeyFileOpenOptions open;
  open.subgroup_check = subgroups;
  open.read_matrices = built == nullptr;  // built: the coefficients or .r1cs are not read again
  const groth16::KeyFile file = groth16::KeyFile::open(key_file_source(source), open);
  return file.visit([&](const auto& key) {
    using Key = std::decay_t<decltype(key)>;
    if constexpr (std::is_same_v<Key, groth16::ParamsKey>) {
      using Curve = groth16::BellmanCurve;
      using Resident = gpu::prover::ResidentCircuit<Curve>;
      const auto* host = prebuilt.template operator()<typename Curve::Fr>();
      return load.template operator()<Curve>(key.params, file.format(), [&](const auto& streamed) {
        if (host != nullptr) {  // the matrices shape() built from the .r1cs
          return streamed != nullptr
                     ? Resident::from_params(key.params, *host, streamed)
                     : Resident::from_params(key.params, *host, gpu::prover::KeyPlacement::kDevice,
                                             h_table);
        }
        if (!key.r1cs) {  // assignments only: the key without matrices
          return streamed != nullptr ? Resident::from_params(key.params, streamed)
                                     : Resident::from_params(
                                           key.params, gpu::prover::KeyPlacement::kDevice, h_table);
        }
        return streamed != nullptr
                   ? Resident::from_params(key.params, *key.r1cs, streamed)
                   : Resident::from_params(key.params, *key.r1cs,
                                           gpu::prover::KeyPlacement::kDevice, h_table);
      });
    } else {
      using Curve = typename Key::Curve;
      using Resident = gpu::prover::ResidentCircuit<Curve>;
      return load.template operator()<Curve>(
          key.zkey, file.format(),
          [&](const auto& streamed) {
            const auto* host = prebuilt.template operator()<typename Curve::Fr>();
            return streamed != nullptr
                       ? Resident::from_zkey(key.zkey, streamed, host)
                       : Resident::from_zkey(key.zkey, gpu::prover::KeyPlacement::kDevice, h_table,
                                             host);
          },
          key.r1cs);
    }
  });
}

std::unique_ptr<PartitionWork> CudaBackend::prepare(const LoadedKey& key,
                                                    const PartitionInput& input, int device) {
  std::byte* arena = arena_base(device);
  if (const auto* k = dynamic_cast<const CudaKey<formats::Bn254>*>(&key)) {
    return prepare_with(*k, input, device, arena, options_.verify_proofs);
  }
  return prepare_with(dynamic_cast<const CudaKey<formats::Bls12_381>&>(key), input, device, arena,
                      options_.verify_proofs);
}

PartitionOutput CudaBackend::prove_on_host(const LoadedKey&, const PartitionInput&,
                                           const std::atomic<bool>&, StageTimes&) {
  CUZK_THROW(ErrorKind::kInternal, "cuda backend: partitions run on the GPUs, not on the host");
}

}  // namespace cuzk::engine
