// The test circuit of test_circuit.hpp, compiled once for both curves.

#include "tests/groth16/test_circuit.hpp"

#include <utility>

namespace cuzk::groth16::test {

namespace {

template <class Fr>
using LinearCombination = std::vector<std::pair<uint32_t, Fr>>;

template <class Fr>
void append_row(formats::SparseMatrix<Fr>& m, const LinearCombination<Fr>& terms) {
  if (m.row_start.empty()) m.row_start.push_back(0);
  for (const auto& [wire, coefficient] : terms) {
    m.column.push_back(wire);
    m.value.push_back(coefficient);
  }
  m.row_start.push_back(m.column.size());
}

}  // namespace

template <class Curve>
TestCircuit<Curve> make_test_circuit(std::mt19937_64& rng, uint32_t chain_length) {
  using Fr = typename Curve::Fr;
  using Lc = LinearCombination<Fr>;
  constexpr uint32_t kBits = 8, kMixing = 6;
  const Fr one = Fr::one();

  TestCircuit<Curve> circuit;
  std::vector<Fr>& w = circuit.witness;
  formats::R1cs<Curve>& r1cs = circuit.r1cs;
  const auto new_wire = [&w](const Fr& value) {
    w.push_back(value);
    return uint32_t(w.size() - 1);
  };
  const auto constrain = [&r1cs](const Lc& a, const Lc& b, const Lc& c) {
    append_row(r1cs.a, a);
    append_row(r1cs.b, b);
    append_row(r1cs.c, c);
  };
  const auto dot = [&w](const Lc& terms) {
    Fr sum = Fr::zero();
    for (const auto& [wire, coefficient] : terms) sum += coefficient * w[wire];
    return sum;
  };

  const uint32_t kOne = new_wire(one);
  const uint32_t y = new_wire(Fr::zero());  // set by the output constraint
  const uint32_t x1 = new_wire(Fr::from_u64(3));
  const uint32_t x2 = new_wire(Fr::random(rng));
  const uint32_t p = new_wire(Fr::random(rng));

  std::vector<uint32_t> chain = {x1};
  circuit.first_chain_wire = uint32_t(w.size());
  for (uint32_t i = 0; i < chain_length; ++i) {
    const uint32_t t = chain.back();
    const uint32_t next = new_wire(w[t].sqr() + Fr::from_u64(7));
    constrain({{t, one}}, {{t, one}}, {{next, one}, {kOne, -Fr::from_u64(7)}});
    chain.push_back(next);
  }
  std::vector<uint32_t> bits;
  for (uint32_t i = 0; i < kBits; ++i) {
    const uint32_t b = new_wire(rng() & 1 ? one : Fr::zero());
    constrain({{b, one}}, {{b, one}, {kOne, -one}}, {});
    bits.push_back(b);
  }
  for (uint32_t i = 0; i < kMixing; ++i) {
    const uint32_t b = bits[rng() % bits.size()];
    const uint32_t t = chain[rng() % chain.size()];
    const Lc a = {
        {x2, Fr::random(rng)}, {b, Fr::random(rng)}, {p, Fr::random(rng)}, {x2, Fr::random(rng)}};
    const Lc bterms = {{t, one}, {kOne, Fr::random(rng)}};
    const uint32_t z = new_wire(dot(a) * dot(bterms));
    constrain(a, bterms, {{z, one}});
  }
  const uint32_t s = new_wire(w[p] + w[x2]);
  constrain({{p, one}, {x2, one}}, {{kOne, one}}, {{s, one}});
  w[y] = w[chain.back()] * w[x2];
  constrain({{chain.back(), one}}, {{x2, one}}, {{y, one}});
  new_wire(Fr::random(rng));  // unused by every constraint

  formats::R1csHeader& h = r1cs.header;
  h.curve = Curve::kId;
  h.n_wires = uint32_t(w.size());
  h.n_pub_out = 1;
  h.n_pub_in = 2;
  h.n_prv_in = 1;
  h.n_labels = h.n_wires;
  h.n_constraints = uint32_t(r1cs.a.rows());
  return circuit;
}

template TestCircuit<formats::Bn254> make_test_circuit<formats::Bn254>(std::mt19937_64&, uint32_t);
template TestCircuit<formats::Bls12_381> make_test_circuit<formats::Bls12_381>(std::mt19937_64&,
                                                                               uint32_t);

}  // namespace cuzk::groth16::test
