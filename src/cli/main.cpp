// cuzk: the command-line entry point. Subcommands are defined in their own files
// (commands.hpp); errors of the core (cuzk::Error) become a message and an exit code here.

#include <cstdio>
#include <exception>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "util/error.hpp"

namespace {

// glibc serves blocks from 128 KiB up (its starting threshold) with fresh mappings and gives
// them back to the kernel when freed, so each MSM's buckets, digits and batches were
// faulted in page by page again (in a VM every fault is a hypervisor exit): 15% of the CPU
// time of a 2^16 BN254 `cuzk prove`, measured with perf. Blocks up to 32 MiB (glibc's largest
// threshold) now come from the heap, which keeps what is freed for the next stage. The raised
// trim threshold keeps glibc from handing the heap's top back between stages; the daemon's
// engine, whose memory must come back after a burst of jobs, calls malloc_trim itself once it
// has released enough witness bytes (engine.cpp, trim_if_due).
void keep_freed_memory_for_reuse() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  keep_freed_memory_for_reuse();
  CLI::App app{"cuzk: GPU-resident Groth16 proving engine (BLS12-381, BN254)"};
  app.require_subcommand(1);
  int exit_code = cuzk::cli::kExitOk;
  cuzk::cli::add_groth16_commands(app, exit_code);
  cuzk::cli::add_selftest_command(app, exit_code);
#if defined(CUZK_WITH_SERVICE)
  cuzk::cli::add_serve_command(app, exit_code);
  cuzk::cli::add_engine_client_commands(app, exit_code);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : cuzk::cli::kExitBadInput;
  } catch (const cuzk::Error& e) {
    std::fprintf(stderr, "cuzk: %s\n", e.what());
    return e.kind() == cuzk::ErrorKind::kInvalidInput || e.kind() == cuzk::ErrorKind::kNotFound
               ? cuzk::cli::kExitBadInput
               : cuzk::cli::kExitFailure;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk: internal error: %s\n", e.what());
    return cuzk::cli::kExitFailure;
  }
  return exit_code;
}
