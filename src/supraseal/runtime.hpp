#pragma once
// What the supraseal C interfaces (include/cuzk/supraseal.h, supraseal_curio.h) sit on: the
// process's one proving engine, the keys their SRS handles name, and batches of circuits in
// flight. abi.cpp only converts between these and the C types and errors.
//
// The engine is the one `cuzk serve` runs, made from the daemon's configuration (the TOML file
// named by CUZK_CONFIG, or the defaults): every GPU, or the CPU prover where there is none.
// It is created by the first call that needs it; a failed start is reported to that caller
// and tried again by the next.
//
// Keys: one engine key per canonical .params path ("supraseal:<path>"), registered without a
// .r1cs (the engine proves assignments with it). SrsKey is that key's record; Srs is one C
// handle's reference-counted object, which holds an SrsKey. The cache (create_SRS's `cache`)
// holds a reference to the Srs of the four most recently opened paths. When the last Srs of a
// path goes, the key is unloaded.
//
// Thread-safety: every member may be called from any thread.

#include <atomic>
#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>
#include <string>

#include "cuzk/supraseal_types.h"
#include "engine/engine.hpp"

namespace cuzk::supraseal {

// The counts of a .params key that an assignment must agree with.
struct KeyShape {
  size_t ic = 0;    // public inputs, the constant one included
  size_t h = 0;     // domain size − 1
  size_t l = 0;     // auxiliary variables
  size_t a = 0;     // input variables + auxiliary ones with a non-zero A polynomial
  size_t b_g1 = 0;  // variables with a non-zero B polynomial (b_g2 has as many)
  size_t domain() const { return h + 1; }
};

// Reads the layout of a .params file (counts and verifying key, not its points). kNotFound
// for a missing file, kInvalidInput naming the file for anything else.
KeyShape read_key_shape(const std::filesystem::path& path);

class Runtime;

struct SrsKey {
  Runtime* runtime = nullptr;
  std::string key_id;
  std::filesystem::path path;
  KeyShape shape;
  ~SrsKey();  // unloads the engine's copies
};

struct Srs {
  std::shared_ptr<SrsKey> key;
  std::atomic<size_t> refs{1};
};

// A batch submitted to the engine: one job, one partition per circuit.
struct Batch {
  std::shared_ptr<SrsKey> key;
  engine::JobId job = 0;
  size_t circuits = 0;
};

class Runtime {
 public:
  // The process's runtime, started on first use; throws what starting the engine threw.
  static Runtime& get();

  // A new reference (refs = 1) to the key at `path`; with `cache`, the cache keeps one more.
  Srs* open(const std::string& path, bool cache);
  Srs* clone(Srs* srs);
  void drop(Srs* srs);
  // Removes the path from the cache and unloads the key's copies (the next proof reloads it).
  void evict(Srs* srs);

  // Checks every circuit against the key and the others, then submits them as one job.
  // gpu_index ≥ 0 must name a GPU (0 on the CPU backend). Throws kInvalidInput naming the
  // circuit and the problem.
  Batch submit(const Srs& srs, std::span<const Assignment> circuits, std::span<const cuzk_fr_t> r_s,
               std::span<const cuzk_fr_t> s_s, int gpu_index);
  // Waits for the batch and writes its proofs (untouched on failure, which throws the job's
  // error).
  void finish(const Batch& batch, groth16_proof* proofs);
  // Cancels the batch and waits until none of its partitions runs.
  void abandon(const Batch& batch);

  engine::Engine& engine() { return *engine_; }

 private:
  Runtime();
  struct Cache;
  std::unique_ptr<engine::Engine> engine_;
  std::unique_ptr<Cache> cache_;
};

}  // namespace cuzk::supraseal
