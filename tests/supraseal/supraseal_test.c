/* Drives libcuzk_supraseal (or, built with CUZK_TEST_CURIO, libcuzk_supraseal_curio) as
 * bellperson and Curio call it, from a fixture of supraseal_fixture (fixture.cpp):
 *
 *   supraseal_test <key.params> <circuit.fixture> <out_dir>
 *
 * Every proof must equal, byte for byte, cuzk's CPU prover's with the same blinding; batches
 * of 1, 3 and 10 circuits; four threads at once; the fork's start/finalize with several
 * batches pending and gpu_index; every bad input (the engine keeps serving after each).
 * Writes out_dir/proof_<i>.raw (the 10-circuit batch) for `cuzk verify` (run.sh). */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(CUZK_TEST_CURIO)
#include "cuzk/supraseal_curio.h"
#else
#include "cuzk/supraseal.h"
#endif

#define MAX_BLINDINGS 10

static int failures = 0;
#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (!(cond)) {                                         \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                        \
      fprintf(stderr, "\n");                               \
      ++failures;                                          \
    }                                                      \
  } while (0)

typedef struct {
  uint64_t *a_aux, *b_inp, *b_aux;
  cuzk_fr_t *a, *b, *c, *inp, *aux;
  Assignment assignment;
  size_t blindings;
  cuzk_fr_t r[MAX_BLINDINGS], s[MAX_BLINDINGS];
  groth16_proof expected[MAX_BLINDINGS];
} Fixture;

static Fixture fx;
static SRS srs;

static void* read_n(FILE* f, size_t size, size_t count) {
  void* p = calloc(count ? count : 1, size);
  if (p == NULL || fread(p, size, count, f) != count) {
    fprintf(stderr, "fixture: truncated\n");
    exit(2);
  }
  return p;
}

static void load_fixture(const char* path) {
  FILE* f = fopen(path, "rb");
  char magic[8];
  uint64_t h[10];
  if (f == NULL || fread(magic, 1, 8, f) != 8 || memcmp(magic, "CUZKFIX1", 8) != 0 ||
      fread(h, 8, 10, f) != 10 || h[9] > MAX_BLINDINGS) {
    fprintf(stderr, "%s: not a fixture\n", path);
    exit(2);
  }
  Assignment* a = &fx.assignment;
  a->a_aux_bit_len = h[0], a->a_aux_popcount = h[1];
  a->b_inp_bit_len = h[2], a->b_inp_popcount = h[3];
  a->b_aux_bit_len = h[4], a->b_aux_popcount = h[5];
  a->abc_size = h[6], a->inp_assignment_size = h[7], a->aux_assignment_size = h[8];
  fx.blindings = h[9];
  a->a_aux_density = fx.a_aux = read_n(f, 8, (h[0] + 63) / 64);
  a->b_inp_density = fx.b_inp = read_n(f, 8, (h[2] + 63) / 64);
  a->b_aux_density = fx.b_aux = read_n(f, 8, (h[4] + 63) / 64);
  a->a = fx.a = read_n(f, sizeof(cuzk_fr_t), h[6]);
  a->b = fx.b = read_n(f, sizeof(cuzk_fr_t), h[6]);
  a->c = fx.c = read_n(f, sizeof(cuzk_fr_t), h[6]);
  a->inp_assignment_data = fx.inp = read_n(f, sizeof(cuzk_fr_t), h[7]);
  a->aux_assignment_data = fx.aux = read_n(f, sizeof(cuzk_fr_t), h[8]);
  for (size_t i = 0; i < fx.blindings; ++i) {
    if (fread(&fx.r[i], sizeof(cuzk_fr_t), 1, f) != 1 ||
        fread(&fx.s[i], sizeof(cuzk_fr_t), 1, f) != 1 ||
        fread(&fx.expected[i], sizeof(groth16_proof), 1, f) != 1) {
      fprintf(stderr, "%s: truncated\n", path);
      exit(2);
    }
  }
  fclose(f);
}

/* One call with n circuits (all the fixture's assignment, blindings first..first+n). */
static RustError prove(const Assignment* provers, size_t n, size_t first, groth16_proof* out) {
#if defined(CUZK_TEST_CURIO)
  return generate_groth16_proofs_c(provers, n, fx.r + first, fx.s + first, out, &srs, NULL, -1);
#else
  return generate_groth16_proofs_c(provers, n, fx.r + first, fx.s + first, out, &srs);
#endif
}

static int check_ok(RustError e, const char* what) {
  CHECK(e.code == 0, "%s: code %d: %s", what, e.code, e.message ? e.message : "(null)");
  free(e.message);
  return e.code == 0;
}

/* A refused call: a non-zero code and a message that contains `needle`. */
static void check_refused(RustError e, const char* needle, const char* what) {
  CHECK(e.code != 0, "%s: accepted", what);
  CHECK(e.message != NULL && strstr(e.message, needle) != NULL, "%s: message \"%s\" lacks \"%s\"",
        what, e.message ? e.message : "(null)", needle);
  free(e.message);
}

static void check_batch(size_t n) {
  Assignment provers[MAX_BLINDINGS];
  groth16_proof out[MAX_BLINDINGS];
  for (size_t i = 0; i < n; ++i) provers[i] = fx.assignment;
  if (!check_ok(prove(provers, n, 0, out), "batch")) return;
  for (size_t i = 0; i < n; ++i) {
    CHECK(memcmp(&out[i], &fx.expected[i], sizeof out[i]) == 0,
          "batch of %zu: proof %zu differs from the CPU prover's", n, i);
  }
}

static void* thread_body(void* arg) {
  const size_t first = (size_t)(uintptr_t)arg;
  Assignment provers[3] = {fx.assignment, fx.assignment, fx.assignment};
  groth16_proof out[3];
  for (int round = 0; round < 2; ++round) {
    if (!check_ok(prove(provers, 3, first, out), "thread")) continue;
    for (size_t i = 0; i < 3; ++i) {
      CHECK(memcmp(&out[i], &fx.expected[first + i], sizeof out[i]) == 0,
            "thread %zu: proof %zu differs", first, i);
    }
  }
  return NULL;
}

static void check_threads(void) {
  pthread_t threads[4];
  for (size_t t = 0; t < 4; ++t) {
    pthread_create(&threads[t], NULL, thread_body, (void*)(uintptr_t)(t * 2));
  }
  for (size_t t = 0; t < 4; ++t) pthread_join(threads[t], NULL);
}

/* A proof call with one changed field, refused with `needle` in its message. */
#define BAD_FIELD(field, value, needle)                     \
  do {                                                      \
    Assignment bad = fx.assignment;                         \
    groth16_proof out;                                      \
    bad.field = (value);                                    \
    check_refused(prove(&bad, 1, 0, &out), needle, #field); \
  } while (0)

static void check_bad_inputs(const char* params_path, const char* out_dir) {
  groth16_proof out[2];
  const Assignment* ok = &fx.assignment;
  check_refused(prove(ok, 0, 0, out), "num_circuits is 0", "num_circuits 0");
  check_refused(prove(NULL, 1, 0, out), "provers is null", "null provers");
#if defined(CUZK_TEST_CURIO)
  check_refused(generate_groth16_proofs_c(ok, 1, NULL, fx.s, out, &srs, NULL, -1), "null",
                "null r_s");
  check_refused(generate_groth16_proofs_c(ok, 1, fx.r, fx.s, NULL, &srs, NULL, -1),
                "proofs is null", "null proofs");
  check_refused(generate_groth16_proofs_c(ok, 1, fx.r, fx.s, out, NULL, NULL, -1), "SRS is null",
                "null srs");
  check_refused(generate_groth16_proofs_c(ok, 1, fx.r, fx.s, out, &srs, NULL, 99), "gpu_index 99",
                "gpu_index 99");
#else
  check_refused(generate_groth16_proofs_c(ok, 1, NULL, fx.s, out, &srs), "null", "null r_s");
  check_refused(generate_groth16_proofs_c(ok, 1, fx.r, fx.s, NULL, &srs), "proofs is null",
                "null proofs");
  check_refused(generate_groth16_proofs_c(ok, 1, fx.r, fx.s, out, NULL), "SRS is null", "null srs");
#endif
  BAD_FIELD(a, NULL, "null");
  BAD_FIELD(aux_assignment_data, NULL, "aux_assignment_data is null");
  BAD_FIELD(abc_size, fx.assignment.abc_size * 4, "does not fit the key's domain");
  BAD_FIELD(a_aux_popcount, fx.assignment.a_aux_popcount + 1, "a_aux_density: popcount");
  BAD_FIELD(b_aux_popcount, fx.assignment.b_aux_popcount - 1, "b_aux_density: popcount");
  BAD_FIELD(aux_assignment_size, fx.assignment.aux_assignment_size - 1, "differs from");
  BAD_FIELD(inp_assignment_size, fx.assignment.inp_assignment_size + 1, "differs from");
  {
    /* A bitmap whose ones disagree with the key's point counts though its popcount is right. */
    Assignment bad = fx.assignment;
    uint64_t* words = malloc(((bad.a_aux_bit_len + 63) / 64) * 8);
    memcpy(words, fx.a_aux, ((bad.a_aux_bit_len + 63) / 64) * 8);
    words[0] ^= 1;
    bad.a_aux_density = words;
    bad.a_aux_popcount += (words[0] & 1) ? 1 : (size_t)-1;
    check_refused(prove(&bad, 1, 0, out), "the key needs", "a_aux density vs key");
    free(words);
  }
  if (fx.assignment.aux_assignment_size > 0) {
    /* An assignment that does not satisfy its circuit: one auxiliary value changed. */
    Assignment bad = fx.assignment;
    cuzk_fr_t* aux = malloc(bad.aux_assignment_size * sizeof(cuzk_fr_t));
    memcpy(aux, fx.aux, bad.aux_assignment_size * sizeof(cuzk_fr_t));
    aux[0] = fx.inp[0]; /* the constant one, in Montgomery form */
    if (memcmp(&aux[0], &fx.aux[0], sizeof aux[0]) == 0) aux[0].limbs[0] = 0;
    bad.aux_assignment_data = aux;
    check_refused(prove(&bad, 1, 0, out), "verif", "unsatisfied assignment");
    free(aux);
  }
  {
    /* The second circuit of a batch is bad: its index is named, no proof is written. */
    Assignment two[2] = {fx.assignment, fx.assignment};
    two[1].b_inp_bit_len = 0;
    memset(out, 0xab, sizeof out);
    check_refused(prove(two, 2, 0, out), "circuit 1", "second circuit");
    CHECK(((unsigned char*)out)[0] == 0xab, "a refused batch wrote proofs");
  }
  {
    SRS bad = {(void*)0x1};
    char path[4096];
    check_refused(create_SRS(NULL, params_path, false), "ret is null", "create_SRS null ret");
    check_refused(create_SRS(&bad, NULL, false), "srs_path is null", "create_SRS null path");
    check_refused(create_SRS(&bad, "/nonexistent/key.params", false), "nonexistent",
                  "missing .params");
    snprintf(path, sizeof path, "%s/not_a_key.txt", out_dir);
    FILE* f = fopen(path, "wb");
    fputs("hello", f);
    fclose(f);
    check_refused(create_SRS(&bad, path, false), "not a bellman .params", "not a .params");
    /* A truncated .params: the first 2000 bytes of the key. */
    snprintf(path, sizeof path, "%s/truncated.params", out_dir);
    FILE* in = fopen(params_path, "rb");
    FILE* out_f = fopen(path, "wb");
    char buf[2000];
    size_t got = fread(buf, 1, sizeof buf, in);
    fwrite(buf, 1, got, out_f);
    fclose(in);
    fclose(out_f);
    check_refused(create_SRS(&bad, path, true), "truncated.params", "truncated .params");
    CHECK(bad.ptr == (void*)0x1, "a failed create_SRS wrote its handle");
  }
}

#if defined(CUZK_TEST_CURIO)
/* Three batches pending at once (gpu_index -1, 0, -1), finalized in reverse order; one more
 * abandoned. */
static void check_pending(void) {
  Assignment provers[3] = {fx.assignment, fx.assignment, fx.assignment};
  void* pending[3] = {NULL, NULL, NULL};
  void* mtx = create_gpu_mutex();
  const int gpu[3] = {-1, 0, -1};
  for (size_t b = 0; b < 3; ++b) {
    check_ok(generate_groth16_proofs_start_c(provers, 3, fx.r + b * 3, fx.s + b * 3, &srs, mtx,
                                             gpu[b], &pending[b]),
             "start");
    CHECK(pending[b] != NULL, "start returned no handle");
  }
  void* dropped = NULL;
  check_ok(generate_groth16_proofs_start_c(provers, 2, fx.r, fx.s, &srs, NULL, -1, &dropped),
           "start (to abandon)");
  destroy_pending_proof(dropped);
  for (size_t b = 3; b-- > 0;) {
    groth16_proof out[3];
    if (!check_ok(finalize_groth16_proof_c(pending[b], out), "finalize")) continue;
    for (size_t i = 0; i < 3; ++i) {
      CHECK(memcmp(&out[i], &fx.expected[b * 3 + i], sizeof out[i]) == 0,
            "pending batch %zu: proof %zu differs", b, i);
    }
  }
  void* none = (void*)0x1;
  check_refused(generate_groth16_proofs_start_c(provers, 0, fx.r, fx.s, &srs, NULL, -1, &none),
                "num_circuits is 0", "start with 0 circuits");
  CHECK(none == NULL, "a refused start left a handle");
  destroy_gpu_mutex(mtx);
  destroy_pending_proof(NULL);
}
#endif

int main(int argc, char** argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s <key.params> <circuit.fixture> <out_dir>\n", argv[0]);
    return 2;
  }
  load_fixture(argv[2]);
  if (!check_ok(create_SRS(&srs, argv[1], true), "create_SRS")) return 1;

  check_batch(1);
  check_batch(3);
  {
    /* The 10-circuit batch, kept for `cuzk verify`. */
    Assignment provers[MAX_BLINDINGS];
    groth16_proof out[MAX_BLINDINGS];
    for (size_t i = 0; i < fx.blindings; ++i) provers[i] = fx.assignment;
    if (check_ok(prove(provers, fx.blindings, 0, out), "batch of 10")) {
      for (size_t i = 0; i < fx.blindings; ++i) {
        char path[4096];
        CHECK(memcmp(&out[i], &fx.expected[i], sizeof out[i]) == 0, "batch of 10: proof %zu", i);
        snprintf(path, sizeof path, "%s/proof_%zu.raw", argv[3], i);
        FILE* f = fopen(path, "wb");
        fwrite(&out[i], sizeof out[i], 1, f);
        fclose(f);
      }
    }
  }
  check_threads();
#if defined(CUZK_TEST_CURIO)
  check_pending();
#endif
  check_bad_inputs(argv[1], argv[3]);
  check_batch(1); /* still serving */

  /* References: a clone outlives the original; eviction keeps the handle usable. */
  SRS second = clone_SRS(&srs);
  CHECK(second.ptr != NULL, "clone_SRS returned a null handle");
  drop_SRS(&srs);
  srs = second;
  evict_SRS(&srs);
  check_batch(1);
  SRS again;
  if (check_ok(create_SRS(&again, argv[1], false), "create_SRS again")) drop_SRS(&again);
  drop_SRS(&srs);
  {
    SRS null_handle = {NULL};
    drop_SRS(&null_handle); /* ignored */
    evict_SRS(&null_handle);
    CHECK(clone_SRS(&null_handle).ptr == NULL, "a clone of a null handle");
  }

  if (failures != 0) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("supraseal test: all checks passed\n");
  return 0;
}
