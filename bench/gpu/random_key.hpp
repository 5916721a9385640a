#pragma once
// Proving keys of random points for synthetic circuits, for the GPU benchmarks.
//
// A RANDOM KEY IS NOT A REAL KEY: a development setup at 2^24 takes minutes on the CPU, so
// the queries are random multiples of the generators (fixed-base on the CPU), a pool of at
// most 2^18 distinct points per query tiled to the full length. MSM cost does not depend on
// which points are used, but the proofs do not verify: benchmarks using one turn
// self-verification off and say so in their JSON; correctness is covered by the tests.

#include <algorithm>
#include <array>
#include <random>
#include <vector>

#include "ec/scalar_mul.hpp"
#include "formats/params.hpp"
#include "formats/r1cs.hpp"
#include "formats/zkey.hpp"
#include "groth16/fixed_base.hpp"
#include "groth16/setup.hpp"
#include "groth16/types.hpp"

namespace cuzk::bench {

// `count` points: random multiples of the generator, at most 2^18 distinct, tiled.
template <class PointCurve>
std::vector<ec::Affine<PointCurve>> random_points(size_t count, std::mt19937_64& rng) {
  using Fr = typename PointCurve::Scalar;
  constexpr size_t kPool = size_t(1) << 18;
  const size_t pool = std::min(count, kPool);
  std::vector<Fr> scalars(pool);
  for (auto& s : scalars) s = Fr::random(rng);
  std::vector<ec::Affine<PointCurve>> points(count);
  const groth16::FixedBaseTable<PointCurve> table(ec::Affine<PointCurve>::generator(),
                                                  groth16::fixed_base_window_bits<Fr::kBits>(pool));
  groth16::fixed_base_mul(table, std::span<const Fr>(scalars),
                          std::span<ec::Affine<PointCurve>>(points.data(), pool));
  for (size_t i = pool; i < count; ++i) points[i] = points[i % pool];
  return points;
}

// A .zkey for a circuit of this header (snarkjs's domain) whose points are random (see above):
// what a real key of that circuit costs to prove with. With the circuit's A and B densities
// (ascending wire lists, HostCircuit::a_wires and b_wires), the wires outside them get the
// point at infinity, as a real key's zero polynomials do. It has no coefficient section: a
// caller writing it to a file adds groth16::zkey_coefficients(r1cs) (the header alone is enough
// for one that takes the matrices from the .r1cs, and needs far less host memory).
template <class Curve>
formats::Groth16Zkey<Curve> random_zkey(const formats::R1csHeader& r1cs, std::mt19937_64& rng,
                                        const std::vector<uint32_t>* a_wires = nullptr,
                                        const std::vector<uint32_t>* b_wires = nullptr) {
  using G1C = groth16::G1CurveOf<Curve>;
  using G2C = groth16::G2CurveOf<Curve>;
  formats::Groth16Zkey<Curve> key;
  const uint32_t n_vars = r1cs.n_wires;
  key.header.n_vars = n_vars;
  key.header.n_public = r1cs.n_public();
  key.header.domain_size = uint32_t(1)
                           << groth16::snarkjs_domain_log_size(r1cs.n_constraints, r1cs.n_public());
  const auto g1 = random_points<G1C>(3, rng);
  const auto g2 = random_points<G2C>(3, rng);
  key.header.alpha1 = g1[0];
  key.header.beta1 = g1[1];
  key.header.delta1 = g1[2];
  key.header.beta2 = g2[0];
  key.header.gamma2 = g2[1];
  key.header.delta2 = g2[2];
  key.ic = random_points<G1C>(key.header.n_public + 1, rng);
  key.a = random_points<G1C>(n_vars, rng);
  key.b1 = random_points<G1C>(n_vars, rng);
  key.b2 = random_points<G2C>(n_vars, rng);
  key.c = random_points<G1C>(n_vars - key.header.n_public - 1, rng);
  key.h = random_points<G1C>(key.header.domain_size, rng);
  // Infinity for the wires a density leaves out (both lists ascending).
  const auto clear_outside = [](auto& points, const std::vector<uint32_t>* wires) {
    if (wires == nullptr) return;
    size_t k = 0;
    for (size_t w = 0; w < points.size(); ++w) {
      if (k < wires->size() && (*wires)[k] == w) {
        ++k;
      } else {
        points[w] = std::decay_t<decltype(points[w])>::infinity();
      }
    }
  };
  clear_outside(key.a, a_wires);
  clear_outside(key.b1, b_wires);
  clear_outside(key.b2, b_wires);
  key.mpc_params = formats::fresh_mpc_params(std::array<uint8_t, 64>{});
  return key;
}

// A bellman .params of random points (as random_zkey) with the lengths of a real key of a
// circuit: A and B points for the wires of its A and B densities (HostCircuit::a_wires and
// b_wires, from the .r1cs), L for the private wires, H of domain_size − 1 points.
inline formats::BellmanParams random_params(uint32_t n_vars, uint32_t n_public,
                                            uint32_t domain_size, size_t a_wires, size_t b_wires,
                                            std::mt19937_64& rng) {
  using G1C = bls12_381::G1Curve;
  using G2C = bls12_381::G2Curve;
  formats::BellmanParams params;
  const auto g1 = random_points<G1C>(3, rng);
  const auto g2 = random_points<G2C>(3, rng);
  params.vk.alpha_g1 = g1[0];
  params.vk.beta_g1 = g1[1];
  params.vk.delta_g1 = g1[2];
  params.vk.beta_g2 = g2[0];
  params.vk.gamma_g2 = g2[1];
  params.vk.delta_g2 = g2[2];
  params.vk.ic = random_points<G1C>(n_public + 1, rng);
  params.h = random_points<G1C>(domain_size - 1, rng);
  params.l = random_points<G1C>(n_vars - n_public - 1, rng);
  params.a = random_points<G1C>(a_wires, rng);
  params.b_g1 = random_points<G1C>(b_wires, rng);
  params.b_g2 = random_points<G2C>(b_wires, rng);
  return params;
}

}  // namespace cuzk::bench
