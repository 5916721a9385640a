#pragma once
// Synthetic satisfiable circuits for benchmarks and tests (`cuzk gen`): an R1CS and a witness
// that satisfies it, of any size, deterministic from a seed, for both curves.
//
// Shapes:
//   porep  the shape of a Filecoin PoRep partition (DESIGN.md §1): per constraint on average
//          2.37 terms in A, 1.0 in B, 2.17 in C; 25% of the private wires appear in B; 90% of
//          the private wires hold 0 or 1, the rest full-width values. Coefficients are small
//          (1, −1, 2, 2^k) as gadgets write them, except where a term balances a constraint.
//   dense  the same term counts with full-width random values and coefficients everywhere.
//   chain  x_{i+1} = x_i² + 7 as the circom fixtures (tests/formats/fixtures_test.cpp): one
//          public input x_0, one public output x_N, constraint i is (−x_i)·(x_i) = 7 − x_{i+1},
//          exactly the constraints circom 2.2.3 writes for that circuit.
//
// Construction (porep and dense). Every constraint i defines one new internal wire z_i and
// reads only wires defined before it in its block of kRowsPerBlock constraints, the constant
// wire and the public inputs; blocks are independent, so they are generated in parallel and
// the result does not depend on the number of threads. Row i has A·w = a and B·w = b computed
// from earlier wires, and C = c_z·z_i + other terms:
//   - a full-width z_i (probability 1 − bit_fraction): C's other terms are drawn freely, one of
//     them full-width, and z_i = (a·b − Σ others)/c_z with c_z invertible and known;
//   - a bit z_i: z_i is drawn in {0, 1}, C's other terms but the last are drawn freely, and
//     the last one, on a wire holding 1, takes the coefficient a·b − c_z·z_i − Σ others; if
//     that is 0 (no term could carry it), z_i is flipped, which changes it by c_z ≠ 0.
// The number of terms of each row is a function of (seed, row) alone, so the CSR offsets are
// known before the rows are filled and every array is allocated once at its final size:
// memory is O(nnz + wires). B draws its wires from a queue of wires marked at creation with
// probability b_aux_density, and reuses wires already in B when the queue is empty, so that
// the private wires that appear in B are those marked (minus the few left at a block's end).
//
// Threads: oneTBB; callers bound them with a tbb::task_arena. The chain's witness is a
// recurrence and is computed on one thread (one squaring per constraint).

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "formats/curve_id.hpp"
#include "formats/r1cs.hpp"

namespace cuzk::circuits {

enum class Shape { kPorep, kDense, kChain };

std::string_view shape_name(Shape shape);  // "porep", "dense", "chain"
// Throws kInvalidInput naming the known shapes.
Shape parse_shape(std::string_view name);

// Constraints per independent block of the porep and dense shapes; part of the output's
// definition (a different value gives different circuits for the same seed).
inline constexpr uint32_t kRowsPerBlock = 4096;

struct SyntheticSpec {
  Shape shape = Shape::kPorep;
  uint32_t constraints = 1024;
  // Public input wires (1..public_inputs), full-width values. The chain has exactly one.
  uint32_t public_inputs = 1;
  uint64_t seed = 0;
  // porep: the fraction of the internal wires that hold 0 or 1 (dense: 0).
  double bit_fraction = 0.9;
  // porep and dense: mean terms per constraint; rows get ⌊mean⌋ or ⌈mean⌉ terms. A and B may
  // be 0, C at least 2 (the new wire and a term that balances the row); at most 64 each.
  double terms_a = 2.37;
  double terms_b = 1.0;
  double terms_c = 2.17;
  // porep and dense: the fraction of the private wires that appear in B.
  double b_aux_density = 0.25;
  // chain: x_0; drawn from the seed when absent.
  std::optional<uint64_t> chain_input = std::nullopt;
};

// Counts of a circuit, for reports and for checking a generator against its spec.
struct CircuitStats {
  uint32_t constraints = 0;
  uint32_t wires = 0;         // including the constant wire 0
  uint32_t public_wires = 0;  // outputs and public inputs
  uint64_t nnz_a = 0, nnz_b = 0, nnz_c = 0;
  uint64_t private_wires = 0;  // wires after the public ones
  uint64_t private_bits = 0;   // private wires holding 0 or 1
  uint64_t private_in_b = 0;   // private wires with a term in B

  double private_bit_fraction() const;
  double b_aux_density() const;
};

template <class Curve>
struct SyntheticCircuit {
  formats::R1cs<Curve> r1cs;
  std::vector<typename Curve::Fr> witness;  // wire order: 1, outputs, public inputs, private
};

// Throws kInvalidInput for a spec out of range (0 constraints, wires beyond 2^32 − 1, a
// fraction outside [0, 1], term counts outside the limits, a chain with other than one public
// input). The templates are instantiated for formats::Bn254 and formats::Bls12_381.
template <class Curve>
SyntheticCircuit<Curve> generate_circuit(const SyntheticSpec& spec);

template <class Curve>
CircuitStats measure_circuit(const formats::R1cs<Curve>& r1cs,
                             std::span<const typename Curve::Fr> witness);

// Generates the circuit for `curve` and writes it as .r1cs and .wtns; returns its counts.
CircuitStats write_synthetic_circuit(formats::CurveId curve, const SyntheticSpec& spec,
                                     const std::filesystem::path& r1cs_path,
                                     const std::filesystem::path& wtns_path);

}  // namespace cuzk::circuits
