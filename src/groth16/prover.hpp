#pragma once
// The Groth16 prover of snarkjs and rapidsnark, on the CPU: the reference that every GPU proof
// is compared with, and the fallback without a GPU. /work/shared/FORMATS.md ("The prover snarkjs
// (and rapidsnark) implement") is the algorithm; snarkjs 0.7.6 groth16_prove.js the authority.
//
//   1. a, b on the domain from the key's coefficient section (A and B, with the public-input
//      binding rows), c = a∘b (valid for satisfying witnesses only, hence step 6).
//   2. H scalars: a, b, c moved to the odd coset of the 2N-domain, a'·b' − c' (ntt layer).
//   3. MSMs: Σ w·A_i, Σ w·B1_i, Σ w·B2_i (G2), Σ w_priv·C_i, Σ h·H_i, each split by scalar
//      class (0 skipped, 1 added, the rest Pippenger): witnesses are mostly 0/1.
//   4. π_A = α1 + Σ w·A + r·δ1
//      π_B = β2 + Σ w·B2 + s·δ2          (B1 = β1 + Σ w·B1 + s·δ1, the G1 copy of π_B)
//      π_C = Σ w_priv·C + Σ h·H + s·π_A + r·B1 − r·s·δ1
//   5. The public signals: witness[1..nPublic] (outputs, then public inputs).
//   6. A .zkey alone cannot tell a satisfying witness from another (step 1 assumes it), so the
//      proof is checked against the key's own verifying key before it is returned; an .r1cs,
//      when given, is checked first, constraint by constraint, to name the one that fails.
//
// Thread-safety: prove() may run concurrently on distinct inputs; each call uses the calling
// thread and oneTBB workers.

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "formats/r1cs.hpp"
#include "formats/zkey.hpp"
#include "groth16/types.hpp"

namespace cuzk::groth16 {

template <class Curve>
struct ProveOptions {
  // r and s; nullopt draws them from the system CSPRNG (randomness.hpp).
  std::optional<Blinding<Curve>> blinding;
  // The constraint system of the key, to name the first unsatisfied constraint of a bad
  // witness. Not owned; must outlive the call.
  const formats::R1cs<Curve>* r1cs = nullptr;
  // Called at the start of each stage with its name ("H", "MSM B2", ...), on the calling
  // thread: for progress reports of long proofs. May be empty.
  std::function<void(const char* stage)> on_stage;
};

// Wall-clock milliseconds per stage.
struct ProveTimings {
  double witness_check_ms = 0;  // length, constant wire, and the .r1cs check when given
  double abc_ms = 0;            // a, b from the coefficients, c = a∘b
  double h_ms = 0;              // odd-coset NTTs and the H scalars
  // msm_c_ms is the query of the private wires: C in a .zkey, L in a bellman .params.
  double msm_a_ms = 0, msm_b1_ms = 0, msm_b2_ms = 0, msm_c_ms = 0, msm_h_ms = 0;
  double upload_ms = 0;       // GPU: the circuit, key and witness into VRAM (0 on the CPU)
  double epilogue_ms = 0;     // blinding, affine conversion
  double self_verify_ms = 0;  // the proof against the key's verifying key
  double total_ms = 0;
};

template <class Curve>
struct ProveResult {
  Proof<Curve> proof;
  std::vector<typename Curve::Fr> public_inputs;  // witness[1..nPublic]
  ProveTimings timings;
};

// Throws cuzk::Error (kInvalidInput) when the witness has the wrong length, its constant wire
// is not 1, the .r1cs does not match the key or is not satisfied (the message names the
// constraint), or the finished proof does not verify ("the witness does not satisfy the
// circuit: the proof does not verify against the key").
template <class Curve>
ProveResult<Curve> prove(const formats::Groth16Zkey<Curve>& key,
                         std::span<const typename Curve::Fr> witness,
                         const ProveOptions<Curve>& options = {});

// The checks prove() makes before any arithmetic (witness length and constant wire; with
// options.r1cs, that the .r1cs belongs to the key and the witness satisfies it), for other
// provers of the same inputs (the GPU prover). Throws as prove() does.
template <class Curve>
void check_prove_inputs(const formats::Groth16Zkey<Curve>& key,
                        std::span<const typename Curve::Fr> witness,
                        const ProveOptions<Curve>& options);

// The first constraint i (in file order) with (A_i·w)·(B_i·w) ≠ C_i·w, or nullopt when the
// witness satisfies them all. The witness must have r1cs.header.n_wires values
// (kInvalidInput otherwise).
template <class Curve>
std::optional<uint32_t> first_unsatisfied_constraint(const formats::R1cs<Curve>& r1cs,
                                                     std::span<const typename Curve::Fr> witness);

// The snarkjs H scalars of a witness: a'·b' − c' at the odd points of the 2N-domain, with
// c = a∘b on the domain. Exposed for the GPU prover's differential tests.
template <class Curve>
std::vector<typename Curve::Fr> snarkjs_h_scalars(const formats::Groth16Zkey<Curve>& key,
                                                  std::span<const typename Curve::Fr> witness);

}  // namespace cuzk::groth16
