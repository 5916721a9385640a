/* libcuzk_supraseal: supraseal C2's C interface (the one bellperson's `cuda-supraseal` feature
 * links through the supraseal-c2 crate), served by cuzk's proving engine in this process.
 *
 * The engine starts on the first call that needs it (create_SRS or a proof) and lasts until
 * the process exits: every GPU of the machine, or the CPU prover where there is none; its
 * configuration is the daemon's TOML file named by the environment variable CUZK_CONFIG
 * (deploy/cuzk.toml documents it; its [server] and [keys] sections are not used here), or the
 * defaults. Logs are the daemon's logfmt lines on stderr.
 *
 * Thread-safety: every function may be called from any thread at the same time. Proof calls
 * from several threads are not serialized: their circuits share the engine's workers and
 * pipeline through the GPUs.
 *
 * Ownership: the caller's arrays are read during the call only. A RustError's message is the
 * caller's to free(). An SRS reference is released by drop_SRS exactly once.
 *
 * Types and their layout: supraseal_types.h. src/supraseal/README.md is the guide. */
#ifndef CUZK_SUPRASEAL_H
#define CUZK_SUPRASEAL_H

#include <stdbool.h>

#include "cuzk/supraseal_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opens a bellman/Filecoin .params proving key and writes a new reference to *ret. The file's
 * layout is checked now (a file that is not a .params, or a truncated one, is refused with a
 * message naming it); its points are loaded on first use into the engine's best key tier
 * (VRAM, else pinned host memory streamed into the GPU). One path is one key of the engine
 * whatever `cache` says; with cache = true the key also stays referenced by a process-wide
 * cache (the four most recently opened paths), so a later create_SRS of the same path finds it
 * loaded after every handle was dropped. On failure *ret is left untouched. */
RustError create_SRS(SRS* ret, const char* srs_path, bool cache);

/* Unloads the key's copies (VRAM, pinned memory) once no proof uses them, and removes it from
 * the cache. The handle stays usable: the next proof loads the key again. */
void evict_SRS(const SRS* srs);

/* Releases one reference; the last one unloads the key. *srs is not written (the supraseal-c2
 * crate passes a shared reference), so the caller must not use that copy of the handle again.
 * A handle whose ptr is null is ignored. */
void drop_SRS(SRS* srs);

/* Another reference to the same key. */
SRS clone_SRS(const SRS* srs);

/* One proof per circuit into proofs[0 .. num_circuits), all with the key `srs`; r_s[i] and
 * s_s[i] are circuit i's blinding factors (zero: a proof without zero knowledge, as bellperson
 * passes when it asks for none). The circuits run as the partitions of one engine job, so they
 * pipeline through the GPU workers. Blocks until every proof is written. Bad input (null
 * pointers, num_circuits = 0, sizes that disagree with each other or with the key, inputs the
 * prover's checks refuse) returns an error naming the circuit and the problem; proofs is then
 * left untouched. */
RustError generate_groth16_proofs_c(const Assignment provers[], size_t num_circuits,
                                    const cuzk_fr_t r_s[], const cuzk_fr_t s_s[],
                                    groth16_proof proofs[], const SRS* srs);

#ifdef __cplusplus
}
#endif

#endif /* CUZK_SUPRASEAL_H */
