/* libcuzk_supraseal_curio: the C interface of Curio's fork of supraseal C2 (Curio's
 * extern/supraseal-c2, which Curio's proving daemon links), served by cuzk's proving engine in
 * this process. The fork's symbols share names with upstream's (supraseal.h) but some take
 * more arguments, so this is a separate library built from the same code; link one or the
 * other, never both.
 *
 * Engine, configuration (CUZK_CONFIG), logs, thread-safety and ownership: as supraseal.h. The
 * SRS functions are the same as there. Types: supraseal_types.h.
 *
 * gpu_mtx: the fork serializes each GPU's kernels with a mutex the caller passes. Under cuzk
 * the engine's own locks interlock the workers of each GPU, so the mutex is accepted and not
 * used (it may be null); create_gpu_mutex and destroy_gpu_mutex exist so callers that make one
 * keep working.
 * gpu_index: ≥ 0 runs every circuit of the batch on that GPU (an error when there is no such
 * GPU; the CPU prover, with no GPU, accepts 0 only); −1 lets the engine spread the circuits
 * over all GPUs. */
#ifndef CUZK_SUPRASEAL_CURIO_H
#define CUZK_SUPRASEAL_CURIO_H

#include <stdbool.h>

#include "cuzk/supraseal_types.h"

#ifdef __cplusplus
extern "C" {
#endif

RustError create_SRS(SRS* ret, const char* srs_path, bool cache);
void evict_SRS(const SRS* srs);
void drop_SRS(SRS* srs);
SRS clone_SRS(const SRS* srs);

/* generate_groth16_proofs_start_c then finalize_groth16_proof_c: blocks until the proofs are
 * written. */
RustError generate_groth16_proofs_c(const Assignment provers[], size_t num_circuits,
                                    const cuzk_fr_t r_s[], const cuzk_fr_t s_s[],
                                    groth16_proof proofs[], const SRS* srs, void* gpu_mtx,
                                    int gpu_index);

/* Checks the batch, queues it and returns at once with a handle in *pending_out (null on
 * failure). Any number of batches may be pending at once; they run as the engine schedules
 * them. The caller's assignments, densities and scalars must stay valid and unchanged until
 * finalize_groth16_proof_c or destroy_pending_proof returns for the handle (the fork reads
 * them after start returns as well); r_s and s_s are copied. */
RustError generate_groth16_proofs_start_c(const Assignment provers[], size_t num_circuits,
                                          const cuzk_fr_t r_s[], const cuzk_fr_t s_s[],
                                          const SRS* srs, void* gpu_mtx, int gpu_index,
                                          void** pending_out);

/* Waits for the batch and writes its num_circuits proofs; consumes the handle whatever the
 * result (on failure proofs is left untouched). */
RustError finalize_groth16_proof_c(void* handle, groth16_proof proofs[]);

/* Abandons a pending batch: its queued circuits are cancelled, running ones stop at their
 * next stage boundary; returns once none of them reads the caller's memory any more, and
 * consumes the handle. Null is ignored. */
void destroy_pending_proof(void* handle);

/* A mutex for gpu_mtx (unused by cuzk, see above); destroy_gpu_mutex(null) is ignored. */
void* create_gpu_mutex(void);
void destroy_gpu_mutex(void* mtx);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_SUPRASEAL_CURIO_H */
