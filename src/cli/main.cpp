// cuzk: the command-line entry point. Subcommands are defined in their own files
// (commands.hpp); errors of the core (cuzk::Error) become a message and an exit code here.

#include <cstdio>
#include <exception>

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "util/error.hpp"

int main(int argc, char** argv) {
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
