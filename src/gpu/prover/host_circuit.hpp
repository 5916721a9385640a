#pragma once
// The constraint matrices of a circuit in the GPU prover's compact form, built on the host from
// either source the engine knows (DESIGN.md §4), before upload (device_circuit.hpp):
//
//   from a .zkey (snarkjs convention): A and B from the coefficient section, binding rows
//     included as setup wrote them (row nConstraints + j: A = wire j); no C: the prover takes
//     c = a∘b on the domain, as groth16/prover.cpp does.
//   from an .r1cs (bellman convention, and the snarkjs convention when the .r1cs is at hand):
//     A, B and C, plus the binding rows appended to A (row nConstraints + j: A = wire j,
//     coefficient 1, for j = 0..nPublic), as groth16/bellman_prover.cpp evaluates them.
//
// Values are converted to the zkey's c·R² convention (compact_matrix.hpp) where needed: .r1cs
// coefficients are Montgomery c·R, so one product with R² (as a Montgomery factor) gives c·R².
// Rows past the matrices up to the domain size are zero in a, b and c.
//
// Cost: load-time work, a few passes over the terms on every core: the zkey's coefficient
// section lists A and B interleaved, row by row as setups write it, and blocks of it are
// scattered into each matrix in parallel (a section in another order takes a serial counting
// sort by row); the distinct coefficient values are found per block, then merged.

#include <cstdint>
#include <optional>
#include <vector>

#include "formats/r1cs.hpp"
#include "formats/zkey.hpp"
#include "gpu/prover/compact_matrix.hpp"

namespace cuzk::gpu::prover {

template <class Fr>
struct HostCircuit {
  uint32_t domain_size = 0;  // n: the length of a, b, c
  uint32_t n_vars = 0;       // witness length
  uint32_t n_public = 0;     // public signals (outputs and inputs), not the constant wire
  CompactMatrix<Fr> a, b;
  std::optional<CompactMatrix<Fr>> c;  // absent: c = a∘b (zkey source)
  // .r1cs source: the wires whose A (resp. B) polynomial is not zero, ascending
  // (groth16::wire_density): a bellman key holds a/b_g1/b_g2 points for these wires only, so
  // their MSMs take these wires' values. Empty for a zkey source.
  std::vector<uint32_t> a_wires, b_wires;

  size_t bytes() const { return a.bytes() + b.bytes() + (c ? c->bytes() : 0); }
};

// Throws kInvalidInput for a coefficient whose row is ≥ the domain size or wire ≥ nVars (the
// zkey reader checks both already; the check is kept for keys built in memory).
template <class Curve>
HostCircuit<typename Curve::Fr> host_circuit_from_zkey(const formats::Groth16Zkey<Curve>& key,
                                                       const RowSplit& split = {});

// domain_size: the key's domain; 0 picks snarkjs's (and bellman's) size for the circuit,
// 2^max(1, bit_width(nConstraints + nPublic)). Throws kInvalidInput if the constraints and
// binding rows do not fit the domain.
template <class Curve>
HostCircuit<typename Curve::Fr> host_circuit_from_r1cs(const formats::R1cs<Curve>& r1cs,
                                                       uint32_t domain_size = 0,
                                                       const RowSplit& split = {});

}  // namespace cuzk::gpu::prover
