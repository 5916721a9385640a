/* The data types of cuzk's supraseal C2 interfaces (supraseal.h, supraseal_curio.h): the same
 * memory layout as supraseal C2 and as bellperson's `cuda-supraseal` path passes them, so a
 * caller built against supraseal C2 links against cuzk unchanged.
 *
 * Scalars and coordinates are in Montgomery form, as blst keeps them: an element x is stored
 * as x·R mod p in little-endian 64-bit limbs (R = 2^256 for Fr, 2^384 for Fp), fully reduced.
 * The point at infinity is the affine point whose two coordinates are zero (all bytes of the
 * point zero), as blst and blstrs represent it in affine form; a proof point that is the
 * identity is written so.
 *
 * C99 and C++; no cuzk header beyond this one is needed. */
#ifndef CUZK_SUPRASEAL_TYPES_H
#define CUZK_SUPRASEAL_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* BLS12-381 scalar field element (Fr), 32 bytes. */
typedef struct cuzk_fr_t {
  uint64_t limbs[4];
} cuzk_fr_t;

/* BLS12-381 base field element (Fp), 48 bytes. */
typedef struct cuzk_fp_t {
  uint64_t limbs[6];
} cuzk_fp_t;

/* G1 affine point (96 bytes) and G2 affine point (192 bytes; each coordinate c0 then c1). */
typedef struct cuzk_g1_affine_t {
  cuzk_fp_t x, y;
} cuzk_g1_affine_t;
typedef struct cuzk_g2_affine_t {
  cuzk_fp_t x[2], y[2];
} cuzk_g2_affine_t;

/* One Groth16 proof: A, B, C in affine form (384 bytes). The layout of bellperson's
 * Proof<Bls12> (blstrs G1Affine, G2Affine, G1Affine). */
typedef struct groth16_proof {
  cuzk_g1_affine_t a;
  cuzk_g2_affine_t b;
  cuzk_g1_affine_t c;
} groth16_proof;

/* The result of a call: code 0 and a null message on success. On failure, message names the
 * problem; it was allocated with malloc and belongs to the caller, who releases it with free()
 * (the supraseal-c2 crate's Error does so when it is dropped). Codes: 22 (EINVAL) bad input,
 * 2 (ENOENT) a missing file, 12 (ENOMEM) resources exhausted, 125 (ECANCELED) the engine shut
 * down, 5 (EIO) anything else. */
typedef struct RustError {
  int code;
  char* message;
} RustError;

/* A proving key handle: one reference to a key that create_SRS opened. Copying the struct does
 * not add a reference (clone_SRS does); each reference is released once by drop_SRS. */
typedef struct SRS {
  void* ptr;
} SRS;

/* One circuit's prover input, as bellperson's ProvingAssignment holds it after synthesis.
 * Bitmaps are 64-bit words, bit i of word i/64 for variable i (least significant bit first);
 * *_bit_len is the number of meaningful bits and *_popcount the number of ones among them.
 *   a_aux_density  auxiliary variables whose A polynomial is not zero (the key's A query holds
 *                  a point for every input variable and for each of these)
 *   b_inp_density, b_aux_density  input and auxiliary variables whose B polynomial is not
 *                  zero (the key's B queries hold a point for each)
 *   a, b, c        the evaluations of A·z, B·z and C·z per constraint, abc_size of each
 *                  (bellman adds one constraint per input variable, the constant one included)
 *   inp_assignment_data  the input variables, the constant one first
 *   aux_assignment_data  the auxiliary variables
 * The key must agree: its L query has aux_assignment_size points, A inp_assignment_size +
 * a_aux_popcount, B (G1 and G2) b_inp_popcount + b_aux_popcount; a_aux_bit_len ==
 * b_aux_bit_len == aux_assignment_size, b_inp_bit_len == inp_assignment_size; abc_size fits its
 * domain (at most 2^k where the H query holds 2^k − 1 points). */
typedef struct Assignment {
  const uint64_t* a_aux_density;
  size_t a_aux_bit_len;
  size_t a_aux_popcount;

  const uint64_t* b_inp_density;
  size_t b_inp_bit_len;
  size_t b_inp_popcount;

  const uint64_t* b_aux_density;
  size_t b_aux_bit_len;
  size_t b_aux_popcount;

  const cuzk_fr_t* a;
  const cuzk_fr_t* b;
  const cuzk_fr_t* c;
  size_t abc_size;

  const cuzk_fr_t* inp_assignment_data;
  size_t inp_assignment_size;

  const cuzk_fr_t* aux_assignment_data;
  size_t aux_assignment_size;
} Assignment;

#ifdef __cplusplus
}
#endif

#endif /* CUZK_SUPRASEAL_TYPES_H */
