// The exported C functions of libcuzk_supraseal (include/cuzk/supraseal.h) and, built with
// CUZK_SUPRASEAL_CURIO, of libcuzk_supraseal_curio (include/cuzk/supraseal_curio.h): argument
// checks, then Runtime (runtime.hpp); every exception becomes a RustError, so nothing throws
// across the C boundary.

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <span>
#include <string>

#include "service/log.hpp"
#include "supraseal/runtime.hpp"
#if defined(CUZK_SUPRASEAL_CURIO)
#include "cuzk/supraseal_curio.h"
#else
#include "cuzk/supraseal.h"
#endif

namespace cuzk::supraseal {
namespace {

RustError success() { return {0, nullptr}; }

// The message is malloc'ed: the caller frees it with free().
RustError failure(int code, const std::string& message) {
  char* text = static_cast<char*>(std::malloc(message.size() + 1));
  if (text != nullptr) std::memcpy(text, message.c_str(), message.size() + 1);
  return {code, text};
}

int error_code(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kInvalidInput:
      return EINVAL;
    case ErrorKind::kNotFound:
      return ENOENT;
    case ErrorKind::kResourceExhausted:
      return ENOMEM;
    default:
      return EIO;
  }
}

// Runs `body`, turning what it throws into a RustError (and a log line).
template <class Body>
RustError guarded(const char* function, Body&& body) {
  try {
    body();
    return success();
  } catch (const engine::ShuttingDownError& e) {
    return failure(ECANCELED, std::string(function) + ": " + e.what());
  } catch (const Error& e) {
    service::log_warn("supraseal_error").kv("function", function).kv("message", e.what());
    return failure(error_code(e.kind()), std::string(function) + ": " + e.what());
  } catch (const std::bad_alloc&) {
    return failure(ENOMEM, std::string(function) + ": out of memory");
  } catch (const std::exception& e) {
    return failure(EIO, std::string(function) + ": " + e.what());
  }
}

// For the functions that return nothing: the failure is logged by guarded, then released.
void discard(RustError error) { std::free(error.message); }

Srs* handle(const SRS* srs) {
  if (srs == nullptr || srs->ptr == nullptr) CUZK_INVALID_INPUT("the SRS is null");
  return static_cast<Srs*>(srs->ptr);
}

void check_batch(const Assignment* provers, size_t num_circuits, const cuzk_fr_t* r_s,
                 const cuzk_fr_t* s_s) {
  if (num_circuits == 0) CUZK_INVALID_INPUT("num_circuits is 0");
  if (provers == nullptr) CUZK_INVALID_INPUT("provers is null");
  if (r_s == nullptr || s_s == nullptr) CUZK_INVALID_INPUT("r_s or s_s is null");
}

Batch submit(const Assignment* provers, size_t num_circuits, const cuzk_fr_t* r_s,
             const cuzk_fr_t* s_s, const SRS* srs, int gpu_index) {
  check_batch(provers, num_circuits, r_s, s_s);
  Srs* key = handle(srs);
  return Runtime::get().submit(*key, {provers, num_circuits}, {r_s, num_circuits},
                               {s_s, num_circuits}, gpu_index);
}

// The batch runs to its end, whatever happens to the caller's wait: a partition must not read
// the caller's memory after the call returns.
void prove(const Assignment* provers, size_t num_circuits, const cuzk_fr_t* r_s,
           const cuzk_fr_t* s_s, groth16_proof* proofs, const SRS* srs, int gpu_index) {
  if (proofs == nullptr) CUZK_INVALID_INPUT("proofs is null");
  const Batch batch = submit(provers, num_circuits, r_s, s_s, srs, gpu_index);
  try {
    Runtime::get().finish(batch, proofs);
  } catch (...) {
    Runtime::get().abandon(batch);
    throw;
  }
}

}  // namespace
}  // namespace cuzk::supraseal

using namespace cuzk::supraseal;

extern "C" {

RustError create_SRS(SRS* ret, const char* srs_path, bool cache) {
  return guarded("create_SRS", [&] {
    if (ret == nullptr) CUZK_INVALID_INPUT("ret is null");
    if (srs_path == nullptr) CUZK_INVALID_INPUT("srs_path is null");
    ret->ptr = Runtime::get().open(srs_path, cache);
  });
}

void evict_SRS(const SRS* srs) {
  if (srs == nullptr || srs->ptr == nullptr) return;
  discard(guarded("evict_SRS", [&] { Runtime::get().evict(handle(srs)); }));
}

void drop_SRS(SRS* srs) {
  if (srs == nullptr || srs->ptr == nullptr) return;
  Runtime::get().drop(handle(srs));
}

SRS clone_SRS(const SRS* srs) {
  if (srs == nullptr || srs->ptr == nullptr) return {nullptr};
  return {Runtime::get().clone(handle(srs))};
}

#if !defined(CUZK_SUPRASEAL_CURIO)

RustError generate_groth16_proofs_c(const Assignment provers[], size_t num_circuits,
                                    const cuzk_fr_t r_s[], const cuzk_fr_t s_s[],
                                    groth16_proof proofs[], const SRS* srs) {
  return guarded("generate_groth16_proofs_c",
                 [&] { prove(provers, num_circuits, r_s, s_s, proofs, srs, -1); });
}

#else

RustError generate_groth16_proofs_c(const Assignment provers[], size_t num_circuits,
                                    const cuzk_fr_t r_s[], const cuzk_fr_t s_s[],
                                    groth16_proof proofs[], const SRS* srs, void* /*gpu_mtx*/,
                                    int gpu_index) {
  return guarded("generate_groth16_proofs_c",
                 [&] { prove(provers, num_circuits, r_s, s_s, proofs, srs, gpu_index); });
}

RustError generate_groth16_proofs_start_c(const Assignment provers[], size_t num_circuits,
                                          const cuzk_fr_t r_s[], const cuzk_fr_t s_s[],
                                          const SRS* srs, void* /*gpu_mtx*/, int gpu_index,
                                          void** pending_out) {
  if (pending_out != nullptr) *pending_out = nullptr;
  return guarded("generate_groth16_proofs_start_c", [&] {
    if (pending_out == nullptr) CUZK_INVALID_INPUT("pending_out is null");
    auto batch = std::make_unique<Batch>(submit(provers, num_circuits, r_s, s_s, srs, gpu_index));
    *pending_out = batch.release();
  });
}

RustError finalize_groth16_proof_c(void* handle, groth16_proof proofs[]) {
  std::unique_ptr<Batch> batch(static_cast<Batch*>(handle));
  return guarded("finalize_groth16_proof_c", [&] {
    if (!batch) CUZK_INVALID_INPUT("the pending proof handle is null");
    try {
      if (proofs == nullptr) CUZK_INVALID_INPUT("proofs is null");
      Runtime::get().finish(*batch, proofs);
    } catch (...) {
      Runtime::get().abandon(*batch);
      throw;
    }
  });
}

void destroy_pending_proof(void* handle) {
  std::unique_ptr<Batch> batch(static_cast<Batch*>(handle));
  if (!batch) return;
  discard(guarded("destroy_pending_proof", [&] { Runtime::get().abandon(*batch); }));
}

void* create_gpu_mutex(void) { return new (std::nothrow) std::mutex(); }

void destroy_gpu_mutex(void* mtx) { delete static_cast<std::mutex*>(mtx); }

#endif

}  // extern "C"
