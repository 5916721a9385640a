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

template <class Fr>
HostTables<Fr> build_tables(const cuzk::ntt::Domain<Fr>& domain) {
  HostTables<Fr> t;
  TableLayout& l = t.layout;
  l.log_n = domain.log_size();
  l.column_table_log = column_table_log(l.log_n);
  l.lo_bits = power_table_lo_bits(l.log_n);
  l.fine_log = std::min(l.log_n, kFineTwiddleLog);
  const size_t fine_entries = size_t(1) << l.fine_log;
  const size_t column_entries = l.column_table_log == 0 ? 1 : size_t(1) << (l.column_table_log - 1);
  const size_t lo_entries = size_t(1) << l.lo_bits;
  const size_t hi_entries = size_t(1) << (l.log_n - l.lo_bits);
  size_t offset = 0;
  auto take = [&](size_t count) {
    const size_t at = offset;
    offset += count;
    return at;
  };
  for (auto& c : l.column) c = take(column_entries);
  for (auto& r : l.root) r = {take(lo_entries), take(hi_entries)};
  for (auto& c : l.coset) c = {take(lo_entries), take(hi_entries)};
  for (auto& f : l.fine) f = take(fine_entries);
  l.total = offset;
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

// The arguments of one pass step against a copy of the tables at `base`.
template <class Fr>
PassArgs<Fr> pass_args(const HostTables<Fr>& tables, const Fr* base, const Step<Fr>& step,
                       Fr* data) {
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
  }
  a.pre = resolve_scale(tables, base, step.pre);
  a.post = resolve_scale(tables, base, step.post);
  return a;
}

}  // namespace cuzk::gpu::ntt
