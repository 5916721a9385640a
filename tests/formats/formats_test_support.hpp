#pragma once
// Shared by the format tests: random file contents for both curves, a container builder for
// hand-made (and deliberately broken) files.

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "formats/binary_container.hpp"
#include "formats/curve_id.hpp"
#include "formats/r1cs.hpp"
#include "formats/zkey.hpp"
#include "io/integer_text.hpp"
#include "tests/support/error_messages.hpp"
#include "util/error.hpp"

namespace cuzk::formats::test {

using Curves = ::testing::Types<Bn254, Bls12_381>;

using ::cuzk::test::invalid_input_message;

struct Section {
  uint32_t id;
  std::vector<uint8_t> body;
};

// A container of these sections, in this order, with the sizes they really have.
inline std::vector<uint8_t> build_container(std::string_view magic, uint32_t version,
                                            const std::vector<Section>& sections) {
  std::vector<uint8_t> out(magic.begin(), magic.end());
  auto put = [&](uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out.push_back(uint8_t(v >> (8 * i)));
  };
  put(version, 4);
  put(sections.size(), 4);
  for (const Section& s : sections) {
    put(s.id, 4);
    put(s.body.size(), 8);
    out.insert(out.end(), s.body.begin(), s.body.end());
  }
  return out;
}

// The sections of a valid container, in file order, as editable bodies.
inline std::vector<Section> split_container(std::span<const uint8_t> file, ContainerSpec spec) {
  BinaryContainer c = BinaryContainer::parse(file, "split", spec);
  std::vector<Section> out;
  for (const SectionEntry& e : c.sections()) {
    auto body = file.subspan(e.offset, e.size);
    out.push_back({e.id, std::vector<uint8_t>(body.begin(), body.end())});
  }
  return out;
}

inline Section& find_section(std::vector<Section>& sections, uint32_t id) {
  for (Section& s : sections) {
    if (s.id == id) return s;
  }
  ADD_FAILURE() << "no section " << id;
  return sections.front();
}

inline void put_u32(std::vector<uint8_t>& bytes, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) bytes.at(at + i) = uint8_t(v >> (8 * i));
}

template <class F>
std::vector<uint8_t> le_bytes(const typename F::Int& v) {
  std::vector<uint8_t> out(8 * F::kLimbs);
  for (size_t i = 0; i < out.size(); ++i) out[i] = uint8_t(v.limb[i / 8] >> (8 * (i % 8)));
  return out;
}

// A random constraint system: rows of min_terms..max_terms terms per matrix, some
// coefficients 0, 1 and −1 (as circom writes them), wires drawn over the whole range (repeats
// allowed). n_wires ≥ 5 (the header declares 1 output, 2 public and 1 private input).
template <class Curve>
R1cs<Curve> random_r1cs(std::mt19937_64& rng, uint32_t n_constraints, uint32_t n_wires,
                        uint32_t max_terms, uint32_t min_terms = 0) {
  using Fr = typename Curve::Fr;
  R1cs<Curve> r{};
  r.header = {Curve::kId, n_wires, 1, 2, 1, uint64_t(n_wires) + 5, n_constraints};
  for (SparseMatrix<Fr>* m : {&r.a, &r.b, &r.c}) {
    m->row_start.push_back(0);
    for (uint32_t row = 0; row < n_constraints; ++row) {
      uint32_t terms = min_terms + uint32_t(rng() % (max_terms - min_terms + 1));
      for (uint32_t t = 0; t < terms; ++t) {
        m->column.push_back(uint32_t(rng() % n_wires));
        switch (rng() % 4) {
          case 0:
            m->value.push_back(Fr::one());
            break;
          case 1:
            m->value.push_back(-Fr::one());
            break;
          case 2:
            m->value.push_back(Fr::zero());
            break;
          default:
            m->value.push_back(Fr::random(rng));
        }
      }
      m->row_start.push_back(m->column.size());
    }
  }
  return r;
}

// n points of the prime-order group: consecutive multiples of a random multiple of the
// generator (one addition each instead of a scalar multiplication), with every
// `infinity_every`-th replaced by the point at infinity (0 = none).
template <class Point>
std::vector<Point> random_points(std::mt19937_64& rng, size_t n, size_t infinity_every = 0) {
  using Curve = typename io::CurveOf<Point>::type;
  using Fr = typename Curve::Scalar;
  ec::Jacobian<Curve> step = ec::scalar_mul(Point::generator(), Fr::random(rng).to_int());
  ec::Jacobian<Curve> acc = step;
  std::vector<ec::Jacobian<Curve>> jac(n);
  for (size_t i = 0; i < n; ++i) {
    jac[i] = (infinity_every != 0 && i % infinity_every == infinity_every - 1)
                 ? ec::Jacobian<Curve>::infinity()
                 : acc;
    acc += step;
  }
  std::vector<Point> out(n);
  ec::batch_to_affine(std::span<const ec::Jacobian<Curve>>(jac), std::span<Point>(out));
  return out;
}

// A key of the right shape with random points and coefficients (not a key for any circuit:
// the format does not care).
template <class Curve>
Groth16Zkey<Curve> random_zkey(std::mt19937_64& rng, uint32_t n_vars, uint32_t n_public,
                               uint32_t domain_size, size_t n_coefficients) {
  using Fr = typename Curve::Fr;
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;
  Groth16Zkey<Curve> key{};
  auto g1 = random_points<G1>(rng, 3);
  auto g2 = random_points<G2>(rng, 3);
  key.header = {n_vars, n_public, domain_size, g1[0], g1[1], g2[0], G2::generator(), g1[2], g2[2]};
  key.ic = random_points<G1>(rng, n_public + 1);
  key.a = random_points<G1>(rng, n_vars, 5);
  key.b1 = random_points<G1>(rng, n_vars, 3);
  key.b2 = random_points<G2>(rng, n_vars, 3);
  key.c = random_points<G1>(rng, n_vars - n_public - 1, 7);
  key.h = random_points<G1>(rng, domain_size);
  for (size_t i = 0; i < n_coefficients; ++i) {
    key.coefficients.push_back({uint32_t(rng() % 2), uint32_t(rng() % domain_size),
                                uint32_t(rng() % n_vars), Fr::random(rng)});
  }
  std::array<uint8_t, 64> hash;
  for (uint8_t& b : hash) b = uint8_t(rng());
  key.mpc_params = fresh_mpc_params(hash);
  return key;
}

}  // namespace cuzk::formats::test
