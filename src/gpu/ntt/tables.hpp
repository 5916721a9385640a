#pragma once
// The precomputed tables of a GPU NTT domain, built on the host from the CPU reference's
// Domain (its ω, ω⁻¹, n⁻¹ and coset shift g: the GPU never derives roots on its own) and
// uploaded once. All tables live in one array; TableLayout gives each one's offset.
//
// Sizes for 2^28 (lo_bits = 14): column twiddles 2 × 512, root powers 2 × (2^14 + 2^14), three
// coset tables of 2^14 + 2^14, fine twiddles 2 × 2^19: 1,376,256 elements, 42 MiB. The host
// emulation of the passes in the tests reads the same tables.
//
// Fine twiddles: a pass whose sub-blocks hold M ≤ 2^kFineTwiddleLog elements needs the powers of
// ω_M only, which are every (2^fine_log / M)-th power of ω_(2^fine_log): one table of 2^fine_log
// powers serves them all, and its twiddle costs one product instead of two (the two-level root
// table stays for the first pass of domains above 2^19, whose sub-block is the whole vector).
// At 2^27 (passes 9 + 9 + 9) that is the second pass: 13.5 products per element instead of
// 14.5.
//
// Full table (TwiddleTables::kFull, ntt.hpp): ω^j for j < n/2, 2^(log_n − 1) elements (2 GiB at
// 2^27), which serves ω^e and ω^(−e) for every e (pass.hpp, half_table_entry). The first pass of
// a domain above 2^19 then takes its twiddle in one product instead of two: 12.5 products per
// element at 2^27. The device fills it from the two-level root table (kernels.cuh); the tests'
// emulation builds the same values with half_twiddles below.
//
// Thread-safety: values only.

#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "gpu/ntt/pass.hpp"
#include "gpu/ntt/plan.hpp"
#include "ntt/domain.hpp"
#include "ntt/powers.hpp"

namespace cuzk::gpu::ntt {

struct TablePairOffsets {
  size_t lo = 0, hi = 0;
};

inline constexpr unsigned kFineTwiddleLog = 19;

struct TableLayout {
  unsigned log_n = 0;
  unsigned column_table_log = 0;
  unsigned lo_bits = 0;
  unsigned fine_log = 0;                    // min(log_n, kFineTwiddleLog)
  std::array<size_t, 2> column{};           // [forward root, inverse root]
  std::array<TablePairOffsets, 2> root{};   // powers of ω, of ω⁻¹
  std::array<TablePairOffsets, 3> coset{};  // PowerTable::kCosetForward .. kInverseThenCoset
  std::array<size_t, 2> fine{};             // powers of ω^(2^(log_n − fine_log)), of its inverse
  size_t total = 0;

  size_t column_entries() const {
    return column_table_log == 0 ? 1 : size_t(1) << (column_table_log - 1);
  }
  size_t lo_entries() const { return size_t(1) << lo_bits; }
  size_t hi_entries() const { return size_t(1) << (log_n - lo_bits); }
  size_t fine_entries() const { return size_t(1) << fine_log; }
};

template <class Fr>
struct HostTables {
  TableLayout layout;
  std::vector<Fr> values;

  // Pointers into `base`, the first element of a copy of `values` (host or device).
  PowerTablePair<Fr> root_pair(const Fr* base, bool inverse) const {
    const TablePairOffsets& o = layout.root[inverse ? 1 : 0];
    return {base + o.lo, base + o.hi, layout.lo_bits};
  }
  PowerTablePair<Fr> coset_pair(const Fr* base, PowerTable table) const {
    if (table == PowerTable::kNone) return {};
    const TablePairOffsets& o = layout.coset[size_t(table) - 1];
    return {base + o.lo, base + o.hi, layout.lo_bits};
  }
};

// Where each table lies for a 2^log_n domain. fine_log_limit: the fine table's reach,
// kFineTwiddleLog on the device; the tests lower it so that small domains have passes beyond it.
inline TableLayout table_layout(unsigned log_n, unsigned fine_log_limit = kFineTwiddleLog) {
  TableLayout l;
  l.log_n = log_n;
  l.column_table_log = column_table_log(l.log_n);
  l.lo_bits = power_table_lo_bits(l.log_n);
  l.fine_log = std::min(l.log_n, fine_log_limit);
  size_t offset = 0;
  auto take = [&](size_t count) {
    const size_t at = offset;
    offset += count;
    return at;
  };
  for (auto& c : l.column) c = take(l.column_entries());
  for (auto& r : l.root) r = {take(l.lo_entries()), take(l.hi_entries())};
  for (auto& c : l.coset) c = {take(l.lo_entries()), take(l.hi_entries())};
  for (auto& f : l.fine) f = take(l.fine_entries());
  l.total = offset;
  return l;
}

template <class Fr>
HostTables<Fr> build_tables(const cuzk::ntt::Domain<Fr>& domain,
                            unsigned fine_log_limit = kFineTwiddleLog) {
  HostTables<Fr> t;
  t.layout = table_layout(domain.log_size(), fine_log_limit);
  const TableLayout& l = t.layout;
  const size_t fine_entries = l.fine_entries(), column_entries = l.column_entries();
  const size_t lo_entries = l.lo_entries(), hi_entries = l.hi_entries();
  t.values.assign(l.total, Fr::one());

  auto span_at = [&](size_t at, size_t count) {
    return std::span<Fr>(t.values).subspan(at, count);
  };
  // c·b^e = lo[e mod 2^lo_bits]·hi[e >> lo_bits].
  auto fill_pair = [&](const TablePairOffsets& o, const Fr& base, const Fr& constant) {
    cuzk::ntt::fill_powers(span_at(o.lo, lo_entries), base, constant);
    cuzk::ntt::fill_powers(span_at(o.hi, hi_entries), base.pow(uint64_t(lo_entries)));
  };
  const Fr roots[2] = {domain.omega(), domain.omega_inv()};
  for (int d = 0; d < 2; ++d) {
    // ψ = root^(2^(log_n − column_table_log)): a primitive 2^column_table_log-th root.
    const Fr psi = roots[d].pow(uint64_t(1) << (l.log_n - l.column_table_log));
    cuzk::ntt::fill_powers(span_at(l.column[d], column_entries), psi);
    fill_pair(l.root[d], roots[d], Fr::one());
    cuzk::ntt::fill_powers(span_at(l.fine[d], fine_entries),
                           roots[d].pow(uint64_t(1) << (l.log_n - l.fine_log)));
  }
  const Fr g = domain.coset_shift();
  const Fr g_inv = g.inverse();
  fill_pair(l.coset[0], g, Fr::one());              // g^i
  fill_pair(l.coset[1], g_inv, domain.size_inv());  // n⁻¹·g^(−i)
  fill_pair(l.coset[2], g, domain.size_inv());      // n⁻¹·g^i
  return t;
}

// Entries of the full table of a 2^log_n domain (none for a domain of one element).
inline size_t half_twiddle_count(unsigned log_n) {
  return log_n == 0 ? 0 : size_t(1) << (log_n - 1);
}

// The full table on the host: ω^j for j < n/2.
template <class Fr>
std::vector<Fr> half_twiddles(const cuzk::ntt::Domain<Fr>& domain) {
  std::vector<Fr> powers(half_twiddle_count(domain.log_size()));
  cuzk::ntt::fill_powers(std::span<Fr>(powers), domain.omega());
  return powers;
}

// Resolves a ScaleSpec against a copy of the tables at `base`.
template <class Fr>
ScaleArgs<Fr> resolve_scale(const HostTables<Fr>& tables, const Fr* base,
                            const ScaleSpec<Fr>& spec) {
  ScaleArgs<Fr> s;
  s.table = tables.coset_pair(base, spec.table);
  s.bit_reversed_index = spec.bit_reversed_index;
  s.has_constant = spec.has_constant;
  s.constant = spec.has_constant ? spec.constant : Fr::one();
  return s;
}

// The arguments of one pass step against a copy of the tables at `base` and, when the domain
// has one, of its full table at `half` (nullptr: none).
template <class Fr>
PassArgs<Fr> pass_args(const HostTables<Fr>& tables, const Fr* base, const Step<Fr>& step, Fr* data,
                       const Fr* half = nullptr) {
  PassArgs<Fr> a;
  a.data = data;
  a.shape = step.shape;
  a.column_twiddles = base + tables.layout.column[step.inverse_root ? 1 : 0];
  a.column_table_log = tables.layout.column_table_log;
  a.twiddles = tables.root_pair(base, step.inverse_root);
  const PassShape& shape = step.shape;
  if (shape.log_columns != 0 && shape.stages + shape.log_columns <= tables.layout.fine_log) {
    a.fine_twiddles = base + tables.layout.fine[step.inverse_root ? 1 : 0];
    a.fine_shift = shape.log_n - tables.layout.fine_log;
  } else if (shape.log_columns != 0) {
    a.half_twiddles = half;
  }
  a.inverse_root = step.inverse_root;
  a.pre = resolve_scale(tables, base, step.pre);
  a.post = resolve_scale(tables, base, step.post);
  for (unsigned i = 0; i < shape.stages; ++i) {
    a.placement[i] = stage_placement(shape, step.kind == Step<Fr>::kDifPass, i, a.column_table_log);
  }
  return a;
}

}  // namespace cuzk::gpu::ntt
