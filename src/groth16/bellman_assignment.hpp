#pragma once
// The bellman prover's input as bellperson hands it over (its ProvingAssignment, the
// `Assignment` of supraseal C2's C interface): no constraint matrices, only what synthesis
// produced for one circuit.
//
//   a, b, c    A·z, B·z, C·z per constraint (z = inputs ‖ aux), then one row per input with
//              a = that input, b = c = 0 (bellman's input constraints, appended after the
//              circuit's own, the constant one first); abc_size = constraints + inputs. The
//              prover pads them with zeros to the key's domain N (h has N − 1 points).
//   inputs     the constant one, then the public inputs
//   aux        the private variables
//   densities  bit j of a_aux_density: aux variable j has a non-zero A polynomial (so a point
//              in the key's A query); b_inp_density / b_aux_density likewise for B. Every input
//              is in A (its input constraint), so A has no input bitmap. Bitmaps are 64-bit
//              words, bit j at word j / 64, bit j % 64 (least significant first); popcount is
//              the number of set bits among the first bit_len.
//
// The key's queries (formats/params.hpp) hold a point for exactly the variables these bitmaps
// select, in variable order: A = inputs ‖ selected aux, B = selected inputs ‖ selected aux.
// H is bellman's: iNTT of a, b, c on the domain, NTT on the coset g = 7, a·b − c divided by
// Z(g·x) = g^N − 1, coset iNTT; the first N − 1 coefficients are the H MSM's scalars.
//
// Scalars are BLS12-381 Fr in Montgomery form, four little-endian 64-bit limbs: blst's fr_t
// layout, so a caller's fr_t arrays can be viewed as bls12_381::Fr without a copy (checked
// below).
//
// Thread-safety: pure functions of their arguments; the view does not own its memory.

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "formats/params.hpp"
#include "formats/r1cs.hpp"
#include "groth16/bellman.hpp"
#include "groth16/prover.hpp"

namespace cuzk::groth16 {

static_assert(sizeof(bls12_381::Fr) == 32 && alignof(bls12_381::Fr) == 8 &&
                  std::is_standard_layout_v<bls12_381::Fr> &&
                  std::is_trivially_copyable_v<bls12_381::Fr>,
              "bls12_381::Fr must have blst's fr_t layout (4 little-endian u64 limbs)");

// Non-owning, in bellperson's layout.
struct BellmanAssignmentView {
  std::span<const uint64_t> a_aux_density;
  size_t a_aux_bit_len = 0, a_aux_popcount = 0;
  std::span<const uint64_t> b_inp_density;
  size_t b_inp_bit_len = 0, b_inp_popcount = 0;
  std::span<const uint64_t> b_aux_density;
  size_t b_aux_bit_len = 0, b_aux_popcount = 0;
  std::span<const bls12_381::Fr> a, b, c;  // abc_size each, Montgomery form
  std::span<const bls12_381::Fr> inputs;   // the constant one first
  std::span<const bls12_381::Fr> aux;
};

// The same, owning its vectors.
struct BellmanAssignment {
  std::vector<uint64_t> a_aux_density, b_inp_density, b_aux_density;
  size_t a_aux_bit_len = 0, a_aux_popcount = 0;
  size_t b_inp_bit_len = 0, b_inp_popcount = 0;
  size_t b_aux_bit_len = 0, b_aux_popcount = 0;
  std::vector<bls12_381::Fr> a, b, c, inputs, aux;

  BellmanAssignmentView view() const;
};

// What bellperson would hand over for this .r1cs and witness, in the constraint convention of
// cuzk's bellman setup and prover (the .r1cs rows, then the input rows; densities as
// qap.hpp's wire_density), so that a proof with fixed r, s equals prove_bellman's. Throws
// kInvalidInput for a witness of the wrong length or a .r1cs with fewer wires than its public
// signals and the constant; the constraints are not checked (prove_bellman does that).
BellmanAssignment bellman_assignment(const formats::R1cs<BellmanCurve>& r1cs,
                                     std::span<const bls12_381::Fr> witness);

// Throws kInvalidInput naming the first problem: an empty span (a, b, c, inputs, aux, or a
// bitmap shorter than its bit length), a, b and c of different lengths, abc_size that does not
// need the key's domain (the smallest power of two ≥ abc_size, at least 2, must be h + 1),
// inputs other than the key's IC count or a first input other than 1, aux other than the key's
// L count, bit lengths other than the assignment sizes, a popcount that disagrees with its
// bitmap, or query sizes other than the popcounts imply (A = inputs + a_aux_popcount, B-G1 and
// B-G2 = b_inp_popcount + b_aux_popcount). Reads every bitmap word (16 MiB at 2^27 variables).
void check_bellman_assignment(const formats::BellmanParams& params,
                              const BellmanAssignmentView& assignment);
// The point counts of a key's vectors, all the check reads (for keys that are not a
// formats::BellmanParams on the host, such as one uploaded to a device).
struct BellmanKeySizes {
  size_t ic = 0, l = 0, a = 0, b_g1 = 0, b_g2 = 0, h = 0;
};
BellmanKeySizes bellman_key_sizes(const formats::BellmanParams& params);
void check_bellman_assignment(const BellmanKeySizes& key, const BellmanAssignmentView& assignment);

// The proof: check_bellman_assignment, H from a, b, c, the five MSMs (A and B over the
// variables the bitmaps select), the epilogue, and the proof verified against the key's
// verifying key (kInvalidInput "... does not verify ..." for an assignment that does not
// satisfy the circuit). public_inputs are inputs[1..]. options.r1cs is ignored.
ProveResult<BellmanCurve> prove_bellman_assignment(const formats::BellmanParams& params,
                                                   const BellmanAssignmentView& assignment,
                                                   const ProveOptions<BellmanCurve>& options = {});

namespace detail {
// prove_bellman_assignment with the message of a proof that does not verify (prove_bellman's
// names the key, its witness having passed the .r1cs).
ProveResult<BellmanCurve> prove_bellman_assignment(const formats::BellmanParams& params,
                                                   const BellmanAssignmentView& assignment,
                                                   const ProveOptions<BellmanCurve>& options,
                                                   const char* unverified_message);
}  // namespace detail

// The N − 1 scalars of the H MSM for a domain of N (a power of two ≥ abc_size): for
// differential tests of the GPU H stage. Throws kInvalidInput when abc_size does not fit.
std::vector<bls12_381::Fr> bellman_assignment_h_scalars(const BellmanAssignmentView& assignment,
                                                        size_t domain_size);

// Whether variable j is selected by a bitmap (j < bit_len).
inline bool density_bit(std::span<const uint64_t> bitmap, size_t j) {
  return (bitmap[j / 64] >> (j % 64)) & 1;
}

// The variables (indices into inputs ‖ aux) whose points the key's A and B queries hold, in
// query order: A = every input, then n_inputs + j for each aux j set in a_aux_density;
// B = each input set in b_inp_density, then n_inputs + j for each aux set in b_aux_density.
// The assignment must have passed check_bellman_assignment.
struct AssignmentQueryVariables {
  std::vector<uint32_t> a, b;
};
AssignmentQueryVariables assignment_query_variables(const BellmanAssignmentView& assignment);

}  // namespace cuzk::groth16
