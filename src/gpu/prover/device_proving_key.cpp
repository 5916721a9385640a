// Proving keys in VRAM or pinned host memory (device_proving_key.hpp), both curves.

#include "gpu/prover/device_proving_key.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/msm/tuning.hpp"
#include "gpu/stream.hpp"
#include "groth16/types.hpp"
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

// A density list pays when it leaves out at least a sixteenth of its query (see ZkeyDensity).
bool list_pays(size_t kept, size_t all) {
  const size_t dropped = all - kept;
  return dropped > 0 && dropped >= all / 16;
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

template <class Curve>
ZkeyDensity zkey_density(const formats::Groth16Zkey<Curve>& key) {
  const size_t n = key.a.size();
  std::vector<uint32_t> a, b;
  for (size_t i = 0; i < n; ++i) {
    if (!key.a[i].is_infinity()) a.push_back(uint32_t(i));
    const bool b_kept = (i < key.b1.size() && !key.b1[i].is_infinity()) ||
                        (i < key.b2.size() && !key.b2[i].is_infinity());
    if (b_kept) b.push_back(uint32_t(i));
  }
  ZkeyDensity d;
  if (list_pays(a.size(), n)) d.a_wires = std::move(a);
  if (key.b1.size() == n && key.b2.size() == n && list_pays(b.size(), n)) d.b_wires = std::move(b);
  return d;
}

namespace {

// The footprint with the a (b1 and b2) queries cut to a_kept (b_kept) points and their lists.
KeyFootprint filtered(KeyFootprint f, std::optional<size_t> a_kept, std::optional<size_t> b_kept) {
  if (a_kept) {
    f.a = *a_kept;
    f.wire_list_bytes += f.a * sizeof(uint32_t);
  }
  if (b_kept) {
    f.b1 = f.b2 = *b_kept;
    f.wire_list_bytes += f.b1 * sizeof(uint32_t);
  }
  return f;
}

KeyFootprint filtered(KeyFootprint f, const ZkeyDensity& d) {
  return filtered(f, d.a_wires ? std::optional(d.a_wires->size()) : std::nullopt,
                  d.b_wires ? std::optional(d.b_wires->size()) : std::nullopt);
}

DeviceBuffer<uint32_t> upload_list(const std::vector<uint32_t>& wires) {
  auto buffer = DeviceBuffer<uint32_t>::allocate_blocking(wires.size());
  if (!wires.empty()) {
    CUDA_CHECK(cudaMemcpy(buffer.data(), wires.data(), wires.size() * sizeof(uint32_t),
                          cudaMemcpyHostToDevice));
  }
  return buffer;
}

}  // namespace

template <class Curve>
KeyFootprint footprint(const formats::Groth16Zkey<Curve>& key) {
  return filtered(footprint(key.header), zkey_density(key));
}

template <class Curve>
KeyFootprint coefficient_footprint(
    const formats::Groth16Header<Curve>& header,
    std::span<const formats::ZkeyCoefficient<typename Curve::Fr>> coefficients) {
  const size_t n = header.n_vars;
  std::vector<uint8_t> in_a(n, 0), in_b(n, 0);
  for (const auto& t : coefficients) {
    if (t.wire >= n) {
      CUZK_INVALID_INPUT("coefficient_footprint: a coefficient names wire " +
                         std::to_string(t.wire) + " of a key with " + std::to_string(n) + " wires");
    }
    (t.matrix == 0 ? in_a : in_b)[t.wire] = 1;
  }
  const auto count = [](const std::vector<uint8_t>& in) {
    return size_t(std::count(in.begin(), in.end(), uint8_t(1)));
  };
  const size_t a_kept = count(in_a), b_kept = count(in_b);
  return filtered(footprint(header), list_pays(a_kept, n) ? std::optional(a_kept) : std::nullopt,
                  list_pays(b_kept, n) ? std::optional(b_kept) : std::nullopt);
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
    const std::vector<T>& points, KeyResidency residency, const std::vector<uint32_t>* wires) {
  Query<T> q;
  const size_t count = wires != nullptr ? wires->size() : points.size();
  if (residency == KeyResidency::kDevice) {
    q.device = DeviceBuffer<T>::allocate_blocking(count);
    if (wires == nullptr) {
      if (count != 0) {
        CUDA_CHECK(
            cudaMemcpy(q.device.data(), points.data(), count * sizeof(T), cudaMemcpyHostToDevice));
      }
      return q;
    }
    // The kept points gathered a chunk at a time: no host copy of the whole query.
    constexpr size_t kChunk = size_t(1) << 20;
    std::vector<T> chunk(std::min(count, kChunk));
    for (size_t first = 0; first < count; first += kChunk) {
      const size_t size = std::min(kChunk, count - first);
      for (size_t k = 0; k < size; ++k) chunk[k] = points[(*wires)[first + k]];
      CUDA_CHECK(cudaMemcpy(q.device.data() + first, chunk.data(), size * sizeof(T),
                            cudaMemcpyHostToDevice));
    }
  } else {
    q.pinned = PinnedBuffer<T>(count);
    if (wires == nullptr) {
      if (count != 0) std::memcpy(q.pinned.data(), points.data(), count * sizeof(T));
    } else {
      for (size_t k = 0; k < count; ++k) q.pinned.data()[k] = points[(*wires)[k]];
    }
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
  const ZkeyDensity density = zkey_density(key);
  k.footprint_ = filtered(k.footprint_, density);
  const std::vector<uint32_t>* a_wires = density.a_wires ? &*density.a_wires : nullptr;
  const std::vector<uint32_t>* b_wires = density.b_wires ? &*density.b_wires : nullptr;
  k.a_filtered_ = a_wires != nullptr;
  k.b_filtered_ = b_wires != nullptr;
  if (a_wires != nullptr) k.a_wires_ = upload_list(*a_wires);
  if (b_wires != nullptr) k.b_wires_ = upload_list(*b_wires);
  k.a_ = place(key.a, residency, a_wires);
  k.b1_ = place(key.b1, residency, b_wires);
  k.b2_ = place(key.b2, residency, b_wires);
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

template <class Curve>
HTableShape h_table_shape(size_t h_points, unsigned max_rows) {
  using G1C = groth16::G1CurveOf<Curve>;
  const unsigned c = msm::shifted_window_bits_for(h_points, unsigned(Curve::Fr::kBits), max_rows);
  return {c, msm::table_rows<G1C>(c, max_rows)};
}

template <class Curve>
std::vector<HTableShape> h_table_shapes(size_t h_points) {
  using G1C = groth16::G1CurveOf<Curve>;
  const unsigned bits = unsigned(Curve::Fr::kBits);
  // One row is the plain MSM: a table is worth its VRAM only if the model has it faster.
  const double plain =
      msm::shifted_cost(h_points, bits, msm::shifted_window_bits_for(h_points, bits, 1), 1);
  struct Candidate {
    double cost;
    HTableShape shape;
  };
  std::vector<Candidate> candidates;
  for (unsigned c = msm::kMinWindowBits; c <= msm::kMaxShiftedWindowBits; ++c) {
    const unsigned windows = msm::shifted_windows<G1C>(c);
    // The cost depends on the rows through the bucket sets alone, so for each number of sets
    // only its fewest rows, ⌈W/sets⌉, are a candidate: more would take VRAM for nothing.
    unsigned previous_rows = 0;
    for (unsigned sets = 1; sets <= windows; ++sets) {
      const unsigned rows = (windows + sets - 1) / sets;
      if (rows < 2) break;
      if (rows == previous_rows) continue;
      previous_rows = rows;
      const double cost = msm::shifted_cost(h_points, bits, c, rows);
      if (cost < plain) candidates.push_back({cost, {c, rows}});
    }
  }
  // Fastest first; of equal cost the narrower window, as shifted_window_bits_for picks (one
  // window has one row count per cost).
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& x, const Candidate& y) {
    return x.cost != y.cost ? x.cost < y.cost : x.shape.c < y.shape.c;
  });
  std::vector<HTableShape> shapes;
  shapes.reserve(candidates.size());
  for (const Candidate& candidate : candidates) shapes.push_back(candidate.shape);
  return shapes;
}

template <class Curve>
size_t h_table_bytes(size_t h_points, HTableShape shape) {
  return shape.rows < 2 ? 0 : size_t(shape.rows - 1) * h_points * sizeof(typename Curve::G1);
}

template <class Curve>
void DeviceProvingKey<Curve>::add_h_table(HTableShape shape) {
  using G1C = groth16::G1CurveOf<Curve>;
  if (residency_ != KeyResidency::kDevice) {
    CUZK_INVALID_INPUT(
        "DeviceProvingKey: an H table goes next to a key resident in VRAM; this key is streamed "
        "from host memory");
  }
  if (h_table_) CUZK_INVALID_INPUT("DeviceProvingKey: the key has an H table already");
  if (shape.rows < 2 || shape.c < msm::kMinWindowBits || shape.c > msm::kMaxShiftedWindowBits ||
      shape.rows > msm::shifted_windows<G1C>(shape.c)) {
    CUZK_INVALID_INPUT("DeviceProvingKey: an H table of " + std::to_string(shape.rows) +
                       " rows at a window of " + std::to_string(shape.c) +
                       " bits; 2 rows at least, at most one per window, windows of " +
                       std::to_string(msm::kMinWindowBits) + ".." +
                       std::to_string(msm::kMaxShiftedWindowBits) + " bits");
  }
  const size_t n = footprint_.h;
  auto table = DeviceBuffer<G1>::allocate_blocking(size_t(shape.rows) * n);
  auto workspace =
      DeviceBuffer<std::byte>::allocate_blocking(msm::shift_bases_workspace_bytes<G1C>(n));
  const Stream stream;
  CUDA_CHECK(cudaMemcpyAsync(table.data(), h(), n * sizeof(G1), cudaMemcpyDeviceToDevice, stream));
  msm::shift_bases<G1C>({table.data(), n}, shape.c, {table.data(), table.size()},
                        {workspace.data(), workspace.size()}, stream, shape.rows);
  stream.synchronize();
  h_.device = std::move(table);
  h_table_ = shape;
}

template KeyFootprint footprint<formats::Bn254>(const formats::Groth16Header<formats::Bn254>&);
template KeyFootprint footprint<formats::Bls12_381>(
    const formats::Groth16Header<formats::Bls12_381>&);
template KeyFootprint footprint<formats::Bn254>(const formats::Groth16Zkey<formats::Bn254>&);
template KeyFootprint footprint<formats::Bls12_381>(
    const formats::Groth16Zkey<formats::Bls12_381>&);
template KeyFootprint coefficient_footprint<formats::Bn254>(
    const formats::Groth16Header<formats::Bn254>&,
    std::span<const formats::ZkeyCoefficient<formats::Bn254::Fr>>);
template KeyFootprint coefficient_footprint<formats::Bls12_381>(
    const formats::Groth16Header<formats::Bls12_381>&,
    std::span<const formats::ZkeyCoefficient<formats::Bls12_381::Fr>>);
template ZkeyDensity zkey_density<formats::Bn254>(const formats::Groth16Zkey<formats::Bn254>&);
template ZkeyDensity zkey_density<formats::Bls12_381>(
    const formats::Groth16Zkey<formats::Bls12_381>&);
template HTableShape h_table_shape<formats::Bn254>(size_t, unsigned);
template HTableShape h_table_shape<formats::Bls12_381>(size_t, unsigned);
template std::vector<HTableShape> h_table_shapes<formats::Bn254>(size_t);
template std::vector<HTableShape> h_table_shapes<formats::Bls12_381>(size_t);
template size_t h_table_bytes<formats::Bn254>(size_t, HTableShape);
template size_t h_table_bytes<formats::Bls12_381>(size_t, HTableShape);
template class DeviceProvingKey<formats::Bn254>;
template class DeviceProvingKey<formats::Bls12_381>;

}  // namespace cuzk::gpu::prover
