#pragma once
// A random satisfiable constraint system with its witness, built in memory for the Groth16
// tests of both curves. Wires: 0 the constant, 1 the public output y, 2 and 3 the public inputs
// x1, x2, 4 the private input p, then internal wires. Constraints:
//   chain       t_(i+1) = t_i² + 7 with t_0 = x1                (the shape of the fixtures)
//   bits        b·(b − 1) = 0 for random bits b                  (0/1 witness values, empty C)
//   mixing      (c1·x2 + c2·b + c3·p + c4·x2)·(t_j + c5) = z     (several terms, a wire twice)
//   linear      (p + x2)·1 = s
//   output      t_L·x2 = y
// plus one private wire that no constraint uses (its key points are the point at infinity).
// The counts are chosen so that constraints + public signals + 1 is far from a power of two.

#include <cstdint>
#include <random>
#include <vector>

#include "formats/r1cs.hpp"

namespace cuzk::groth16::test {

template <class Curve>
struct TestCircuit {
  formats::R1cs<Curve> r1cs;
  std::vector<typename Curve::Fr> witness;
  uint32_t first_chain_wire;  // t_1; chain constraint i defines t_(i+1) = wire first_chain_wire + i
};

// chain_length ≥ 2 chain constraints, then 8 bits, 6 mixing constraints, the linear and the
// output constraint.
template <class Curve>
TestCircuit<Curve> make_test_circuit(std::mt19937_64& rng, uint32_t chain_length);

}  // namespace cuzk::groth16::test
