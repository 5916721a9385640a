#include "circuits/synthetic.hpp"

#include <oneapi/tbb/blocked_range.h>
#include <oneapi/tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <string>

#include "formats/wtns.hpp"
#include "util/error.hpp"

namespace cuzk::circuits {

namespace {

constexpr uint32_t kMaxTerms = 64;
// A term refers to one of the last kWindow wires of a kind defined in its block: circuits
// built from gadgets read mostly what the previous few constraints produced.
constexpr size_t kWindow = 64;
// Full-width leading coefficients of C per block in the dense shape, inverted together.
constexpr size_t kDenseLeadingCoefficients = 16;

// Domain separation of the streams drawn from one seed.
enum Stream : uint64_t { kRowTerms = 1, kBlock = 2, kPublicInputs = 3, kChainInput = 4 };

constexpr uint64_t kGolden = 0x9e3779b97f4a7c15;  // 2^64 / golden ratio, odd

// The output function of SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom
// number generators", OOPSLA 2014; constants of Stafford's "Mix13"): a bijection of 64-bit
// words whose outputs for consecutive inputs pass BigCrush. Plenty for synthetic data.
constexpr uint64_t mix64(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9;
  x = (x ^ (x >> 27)) * 0x94d049bb133111eb;
  return x ^ (x >> 31);
}

constexpr uint64_t stream_seed(uint64_t seed, Stream stream, uint64_t index) {
  return mix64(mix64(seed + kGolden * uint64_t(stream)) ^ (index * kGolden + 1));
}

// SplitMix64 as a UniformRandomBitGenerator (Field::random takes one).
class SplitMix64 {
 public:
  using result_type = uint64_t;
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~uint64_t(0); }
  result_type operator()() { return mix64(state_ += kGolden); }
  double uniform() { return double((*this)() >> 11) * 0x1p-53; }  // in [0, 1)
  // In [0, n): the modulo bias is below n / 2^64, far below anything a test can see.
  uint64_t below(uint64_t n) { return (*this)() % n; }

 private:
  uint64_t state_;
};

std::string str(std::string_view s) { return std::string(s); }

[[noreturn]] void bad_spec(const std::string& problem) {
  CUZK_INVALID_INPUT("synthetic circuit: " + problem);
}

void check_range(double value, double low, double high, std::string_view name) {
  if (!(value >= low && value <= high)) {  // also refuses NaN
    bad_spec(str(name) + " = " + std::to_string(value) + " is outside [" + std::to_string(low) +
             ", " + std::to_string(high) + "]");
  }
}

void check_spec(const SyntheticSpec& spec) {
  if (spec.constraints == 0) bad_spec("needs at least one constraint");
  if (spec.shape == Shape::kChain) {
    if (spec.public_inputs != 1) {
      bad_spec("the chain shape has one public input and one public output, not " +
               std::to_string(spec.public_inputs) + " public inputs");
    }
    if (uint64_t(spec.constraints) + 2 > UINT32_MAX) bad_spec("too many constraints for u32 wires");
    return;
  }
  if (uint64_t(spec.constraints) + spec.public_inputs + 1 > UINT32_MAX) {
    bad_spec("1 + public inputs + constraints wires exceed the 2^32 − 1 a .r1cs can number");
  }
  check_range(spec.bit_fraction, 0, 1, "bit_fraction");
  check_range(spec.b_aux_density, 0, 1, "b_aux_density");
  check_range(spec.terms_a, 0, kMaxTerms, "terms_a");
  check_range(spec.terms_b, 0, kMaxTerms, "terms_b");
  check_range(spec.terms_c, 2, kMaxTerms, "terms_c");
}

// ⌊mean⌋ or ⌈mean⌉ terms, the latter with probability frac(mean): the mean comes out exact.
uint32_t draw_count(double mean, uint64_t random) {
  uint32_t base = uint32_t(mean);
  return base + (double(random >> 11) * 0x1p-53 < mean - base ? 1 : 0);
}

// Terms of row `row` in A, B and C: a function of (seed, row) only.
std::array<uint32_t, 3> row_terms(const SyntheticSpec& spec, uint64_t row) {
  uint64_t h = stream_seed(spec.seed, kRowTerms, row);
  return {draw_count(spec.terms_a, mix64(h + 1)), draw_count(spec.terms_b, mix64(h + 2)),
          draw_count(spec.terms_c, mix64(h + 3))};
}

uint64_t block_count(uint32_t rows) { return (uint64_t(rows) + kRowsPerBlock - 1) / kRowsPerBlock; }

// Sizes the three CSR matrices and fills their row offsets: per-block term totals in parallel,
// a prefix over blocks, then each block's offsets in parallel.
template <class Curve>
void allocate_rows(const SyntheticSpec& spec, formats::R1cs<Curve>& r1cs) {
  const uint32_t rows = spec.constraints;
  const uint64_t blocks = block_count(rows);
  std::array<formats::SparseMatrix<typename Curve::Fr>*, 3> matrices = {&r1cs.a, &r1cs.b, &r1cs.c};
  std::vector<std::array<uint64_t, 3>> offsets(blocks + 1);
  tbb::parallel_for(tbb::blocked_range<uint64_t>(0, blocks, 1), [&](const auto& range) {
    for (uint64_t block = range.begin(); block < range.end(); ++block) {
      std::array<uint64_t, 3> sum{};
      uint64_t end = std::min<uint64_t>(rows, (block + 1) * kRowsPerBlock);
      for (uint64_t row = block * kRowsPerBlock; row < end; ++row) {
        auto terms = row_terms(spec, row);
        for (int m = 0; m < 3; ++m) sum[m] += terms[m];
      }
      offsets[block + 1] = sum;
    }
  });
  for (uint64_t block = 0; block < blocks; ++block) {
    for (int m = 0; m < 3; ++m) offsets[block + 1][m] += offsets[block][m];
  }
  for (int m = 0; m < 3; ++m) {
    matrices[m]->row_start.resize(uint64_t(rows) + 1);
    matrices[m]->row_start[rows] = offsets[blocks][m];
  }
  tbb::parallel_for(tbb::blocked_range<uint64_t>(0, blocks, 1), [&](const auto& range) {
    for (uint64_t block = range.begin(); block < range.end(); ++block) {
      std::array<uint64_t, 3> at = offsets[block];
      uint64_t end = std::min<uint64_t>(rows, (block + 1) * kRowsPerBlock);
      for (uint64_t row = block * kRowsPerBlock; row < end; ++row) {
        auto terms = row_terms(spec, row);
        for (int m = 0; m < 3; ++m) {
          matrices[m]->row_start[row] = at[m];
          at[m] += terms[m];
        }
      }
    }
  });
  for (int m = 0; m < 3; ++m) {
    matrices[m]->column.resize(offsets[blocks][m]);
    matrices[m]->value.resize(offsets[blocks][m]);
  }
}

// The last kWindow wires pushed, for drawing a recent one.
class RecentWires {
 public:
  void push(uint32_t wire) { wires_[count_++ % kWindow] = wire; }
  bool empty() const { return count_ == 0; }
  uint32_t draw(SplitMix64& rng) const {
    return wires_[rng.below(std::min<uint64_t>(count_, kWindow))];
  }

 private:
  std::array<uint32_t, kWindow> wires_{};
  uint64_t count_ = 0;
};

template <class Fr>
struct Term {
  uint32_t wire;
  Fr coefficient;
};

// One row of one matrix being filled: its slots in the CSR arrays.
template <class Fr>
class RowWriter {
 public:
  RowWriter(formats::SparseMatrix<Fr>& m, uint32_t row)
      : m_(m), begin_(m.row_start[row]), end_(m.row_start[row + 1]), next_(begin_) {}

  uint32_t size() const { return uint32_t(end_ - begin_); }
  uint32_t written() const { return uint32_t(next_ - begin_); }
  bool holds(uint32_t wire) const {
    return std::find(m_.column.begin() + begin_, m_.column.begin() + next_, wire) !=
           m_.column.begin() + next_;
  }
  void put(const Term<Fr>& term) {
    m_.column[next_] = term.wire;
    m_.value[next_] = term.coefficient;
    ++next_;
  }

 private:
  formats::SparseMatrix<Fr>& m_;
  uint64_t begin_, end_, next_;
};

// Generates the rows of one block (porep and dense shapes); see the header for the scheme.
template <class Curve>
class BlockGenerator {
  using Fr = typename Curve::Fr;

 public:
  BlockGenerator(const SyntheticSpec& spec, std::span<const Fr> powers_of_two,
                 SyntheticCircuit<Curve>& circuit, uint64_t block)
      : spec_(spec),
        dense_(spec.shape == Shape::kDense),
        powers_of_two_(powers_of_two),
        r1cs_(circuit.r1cs),
        w_(circuit.witness),
        first_internal_(1 + spec.public_inputs),
        rng_(stream_seed(spec.seed, kBlock, block)) {
    if (dense_) {
      for (Fr& c : leading_) c = random_nonzero();
      leading_inverse_ = leading_;
      Fr::batch_inverse(leading_inverse_);
    }
  }

  void generate_row(uint32_t row) {
    const uint32_t z = first_internal_ + row;
    const bool bit = !dense_ && rng_.uniform() < spec_.bit_fraction;
    RowWriter<Fr> a(r1cs_.a, row), b(r1cs_.b, row), c(r1cs_.c, row);

    Fr a_value = Fr::zero();
    while (a.written() < a.size()) {
      Term<Fr> t = a_term(bit, a);
      a_value += t.coefficient * w_[t.wire];
      a.put(t);
    }
    Fr b_value = Fr::zero();
    while (b.written() < b.size()) {
      Term<Fr> t{next_b_wire(b), dense_ ? random_nonzero() : Fr::one()};
      b_value += t.coefficient * w_[t.wire];
      b.put(t);
    }
    const Fr product = a_value * b_value;

    Fr z_value;
    Fr others = Fr::zero();  // Σ of C's terms other than z's
    if (bit) {
      const Fr leading = rng_() & 1 ? Fr::one() : -Fr::one();
      c.put({z, leading});
      while (c.written() + 1 < c.size()) {
        Term<Fr> t{draw(recent_bits_, c), small_coefficient()};
        others += t.coefficient * w_[t.wire];
        c.put(t);
      }
      const uint32_t unit = draw(recent_ones_, c);  // holds 1: its coefficient is its value
      z_value = rng_() & 1 ? Fr::one() : Fr::zero();
      Fr balance = product - leading * z_value - others;
      if (balance.is_zero()) {
        z_value = z_value.is_zero() ? Fr::one() : Fr::zero();
        balance = product - leading * z_value - others;
      }
      c.put({unit, balance});
    } else {
      const size_t k = dense_ ? rng_.below(kDenseLeadingCoefficients) : 0;
      const bool negative = !dense_ && (rng_() & 1);
      const Fr leading = dense_ ? leading_[k] : negative ? -Fr::one() : Fr::one();
      const Fr leading_inverse = dense_ ? leading_inverse_[k] : leading;  // (±1)⁻¹ = ±1
      c.put({z, leading});
      while (c.written() < c.size()) {
        Term<Fr> t =
            c.written() == 1 ? full_width_term(c) : Term<Fr>{draw(recent_, c), coefficient()};
        others += t.coefficient * w_[t.wire];
        c.put(t);
      }
      z_value = (product - others) * leading_inverse;
    }

    w_[z] = z_value;
    recent_.push(z);
    if (bit) {
      recent_bits_.push(z);
      if (!z_value.is_zero()) recent_ones_.push(z);
    } else {
      recent_full_.push(z);
    }
    if (rng_.uniform() < spec_.b_aux_density) b_queue_.push_back(z);
  }

 private:
  // A bit row reads recent bits with gadget coefficients; a full-width row leads with a
  // full-width term, so that its a·b is full-width like its z.
  Term<Fr> a_term(bool bit, const RowWriter<Fr>& a) {
    if (bit) return {draw(recent_bits_, a), small_coefficient()};
    if (a.written() == 0) return full_width_term(a);
    return {draw(recent_, a), coefficient()};
  }

  // A recent wire not yet in the row when one is found in a few draws; the constant wire when
  // the block has none of that kind yet (it holds 1, which is also a bit).
  uint32_t draw(const RecentWires& recent, const RowWriter<Fr>& row) {
    if (recent.empty()) return 0;
    uint32_t wire = recent.draw(rng_);
    for (int retry = 0; retry < 3 && row.holds(wire); ++retry) wire = recent.draw(rng_);
    return wire;
  }

  // A term whose value is full-width: a recent full-width wire, else a public input, else the
  // constant wire with a random coefficient.
  Term<Fr> full_width_term(const RowWriter<Fr>& row) {
    if (!recent_full_.empty()) return {draw(recent_full_, row), coefficient()};
    if (spec_.public_inputs > 0) {
      return {1 + uint32_t(rng_.below(spec_.public_inputs)), coefficient()};
    }
    return {0, random_nonzero()};
  }

  // B takes the wires marked for it in order of creation; with none pending, one already in B.
  uint32_t next_b_wire(const RowWriter<Fr>& row) {
    if (b_queue_head_ < b_queue_.size()) {
      uint32_t wire = b_queue_[b_queue_head_++];
      recent_in_b_.push(wire);
      return wire;
    }
    return draw(recent_in_b_, row);
  }

  Fr coefficient() { return dense_ ? random_nonzero() : small_coefficient(); }

  // What gadgets write: mostly ±1, some 2 and bit-packing powers 2^k.
  Fr small_coefficient() {
    switch (rng_() % 8) {
      case 0:
      case 1:
      case 2:
      case 3:
        return Fr::one();
      case 4:
      case 5:
        return -Fr::one();
      case 6:
        return powers_of_two_[1];
      default:
        return powers_of_two_[1 + rng_.below(powers_of_two_.size() - 1)];
    }
  }

  Fr random_nonzero() {
    for (;;) {
      Fr v = Fr::random(rng_);
      if (!v.is_zero()) return v;
    }
  }

  const SyntheticSpec& spec_;
  const bool dense_;
  std::span<const Fr> powers_of_two_;
  formats::R1cs<Curve>& r1cs_;
  std::vector<Fr>& w_;
  const uint32_t first_internal_;
  SplitMix64 rng_;
  RecentWires recent_, recent_bits_, recent_ones_, recent_full_, recent_in_b_;
  std::vector<uint32_t> b_queue_;
  size_t b_queue_head_ = 0;
  std::array<Fr, kDenseLeadingCoefficients> leading_, leading_inverse_;
};

template <class Curve>
void generate_gadget_shape(const SyntheticSpec& spec, SyntheticCircuit<Curve>& out) {
  using Fr = typename Curve::Fr;
  const uint32_t rows = spec.constraints, publics = spec.public_inputs;
  const uint32_t wires = 1 + publics + rows;
  out.r1cs.header = {Curve::kId, wires, 0, publics, 0, wires, rows};
  allocate_rows(spec, out.r1cs);

  out.witness.resize(wires);
  out.witness[0] = Fr::one();
  SplitMix64 public_rng(stream_seed(spec.seed, kPublicInputs, 0));
  for (uint32_t i = 1; i <= publics; ++i) out.witness[i] = Fr::random(public_rng);

  // 2^0 .. 2^(kBits − 2): below r for both curves, so bit-packing coefficients stay < 2^254.
  std::vector<Fr> powers_of_two(Fr::kBits - 1);
  powers_of_two[0] = Fr::one();
  for (size_t k = 1; k < powers_of_two.size(); ++k) powers_of_two[k] = powers_of_two[k - 1].dbl();

  tbb::parallel_for(tbb::blocked_range<uint64_t>(0, block_count(rows), 1), [&](const auto& range) {
    for (uint64_t block = range.begin(); block < range.end(); ++block) {
      BlockGenerator<Curve> generator(spec, powers_of_two, out, block);
      uint64_t end = std::min<uint64_t>(rows, (block + 1) * kRowsPerBlock);
      for (uint64_t row = block * kRowsPerBlock; row < end; ++row) {
        generator.generate_row(uint32_t(row));
      }
    }
  });
}

// Wires as circom numbers them for the chain: 0 the constant, 1 the output x_N, 2 the input
// x_0, then x_1 .. x_{N−1}.
uint32_t chain_wire(uint32_t k, uint32_t n) { return k == 0 ? 2 : k == n ? 1 : 2 + k; }

template <class Curve>
void generate_chain(const SyntheticSpec& spec, SyntheticCircuit<Curve>& out) {
  using Fr = typename Curve::Fr;
  const uint32_t n = spec.constraints, wires = n + 2;
  out.r1cs.header = {Curve::kId, wires, 1, 1, 0, wires, n};
  formats::R1cs<Curve>& r = out.r1cs;
  for (auto* m : {&r.a, &r.b}) {
    m->row_start.resize(uint64_t(n) + 1);
    m->column.resize(n);
    m->value.resize(n);
  }
  r.c.row_start.resize(uint64_t(n) + 1);
  r.c.column.resize(2 * uint64_t(n));
  r.c.value.resize(2 * uint64_t(n));
  // (−x_i)·(x_i) = 7 − x_{i+1}, the sign convention of circom's output.
  const Fr seven = Fr::from_u64(7);
  tbb::parallel_for(tbb::blocked_range<uint32_t>(0, n, 1 << 14), [&](const auto& range) {
    for (uint32_t i = range.begin(); i < range.end(); ++i) {
      const uint32_t in = chain_wire(i, n), out_wire = chain_wire(i + 1, n);
      r.a.row_start[i] = r.b.row_start[i] = i;
      r.c.row_start[i] = 2 * uint64_t(i);
      r.a.column[i] = r.b.column[i] = in;
      r.a.value[i] = -Fr::one();
      r.b.value[i] = Fr::one();
      r.c.column[2 * uint64_t(i)] = 0;
      r.c.value[2 * uint64_t(i)] = seven;
      r.c.column[2 * uint64_t(i) + 1] = out_wire;
      r.c.value[2 * uint64_t(i) + 1] = -Fr::one();
    }
  });
  r.a.row_start[n] = r.b.row_start[n] = n;
  r.c.row_start[n] = 2 * uint64_t(n);

  out.witness.resize(wires);
  out.witness[0] = Fr::one();
  Fr x = spec.chain_input ? Fr::from_u64(*spec.chain_input) : [&] {
    SplitMix64 rng(stream_seed(spec.seed, kChainInput, 0));
    return Fr::random(rng);
  }();
  out.witness[chain_wire(0, n)] = x;
  for (uint32_t k = 1; k <= n; ++k) {
    x = x.sqr() + seven;
    out.witness[chain_wire(k, n)] = x;
  }
}

}  // namespace

std::string_view shape_name(Shape shape) {
  switch (shape) {
    case Shape::kPorep:
      return "porep";
    case Shape::kDense:
      return "dense";
    case Shape::kChain:
      return "chain";
  }
  return "unknown";
}

Shape parse_shape(std::string_view name) {
  for (Shape s : {Shape::kPorep, Shape::kDense, Shape::kChain}) {
    if (name == shape_name(s)) return s;
  }
  CUZK_INVALID_INPUT("unknown circuit shape \"" + str(name) + "\" (known: porep, dense, chain)");
}

double CircuitStats::private_bit_fraction() const {
  return private_wires == 0 ? 0 : double(private_bits) / double(private_wires);
}
double CircuitStats::b_aux_density() const {
  return private_wires == 0 ? 0 : double(private_in_b) / double(private_wires);
}

template <class Curve>
SyntheticCircuit<Curve> generate_circuit(const SyntheticSpec& spec) {
  check_spec(spec);
  SyntheticCircuit<Curve> out;
  if (spec.shape == Shape::kChain) {
    generate_chain(spec, out);
  } else {
    generate_gadget_shape(spec, out);
  }
  return out;
}

template <class Curve>
CircuitStats measure_circuit(const formats::R1cs<Curve>& r1cs,
                             std::span<const typename Curve::Fr> witness) {
  using Fr = typename Curve::Fr;
  const formats::R1csHeader& h = r1cs.header;
  if (witness.size() != h.n_wires) {
    CUZK_INVALID_INPUT("circuit statistics: the witness has " + std::to_string(witness.size()) +
                       " values for " + std::to_string(h.n_wires) + " wires");
  }
  CircuitStats s;
  s.constraints = h.n_constraints;
  s.wires = h.n_wires;
  s.public_wires = h.n_public();
  s.nnz_a = r1cs.a.nnz();
  s.nnz_b = r1cs.b.nnz();
  s.nnz_c = r1cs.c.nnz();
  const uint32_t first_private = 1 + h.n_public();
  s.private_wires = h.n_wires > first_private ? h.n_wires - first_private : 0;
  for (uint64_t i = first_private; i < h.n_wires; ++i) {
    if (witness[i].is_zero() || witness[i] == Fr::one()) ++s.private_bits;
  }
  std::vector<bool> in_b(h.n_wires);
  for (uint32_t wire : r1cs.b.column) {
    if (wire >= first_private && wire < h.n_wires && !in_b[wire]) {
      in_b[wire] = true;
      ++s.private_in_b;
    }
  }
  return s;
}

CircuitStats write_synthetic_circuit(formats::CurveId curve, const SyntheticSpec& spec,
                                     const std::filesystem::path& r1cs_path,
                                     const std::filesystem::path& wtns_path) {
  return formats::with_curve(curve, [&](auto curve_record) {
    using Curve = decltype(curve_record);
    SyntheticCircuit<Curve> circuit = generate_circuit<Curve>(spec);
    formats::write_r1cs(r1cs_path, circuit.r1cs);
    formats::write_wtns<Curve>(wtns_path, circuit.witness);
    return measure_circuit<Curve>(circuit.r1cs, circuit.witness);
  });
}

#define CUZK_CIRCUITS_INSTANTIATE(Curve)                                          \
  template SyntheticCircuit<Curve> generate_circuit<Curve>(const SyntheticSpec&); \
  template CircuitStats measure_circuit<Curve>(const formats::R1cs<Curve>&,       \
                                               std::span<const Curve::Fr>);
CUZK_CIRCUITS_INSTANTIATE(formats::Bn254)
CUZK_CIRCUITS_INSTANTIATE(formats::Bls12_381)

}  // namespace cuzk::circuits
