#pragma once
// Subcommands of the cuzk CLI. Each add_* registers one subcommand on the app; the callback
// stores the exit code in `exit_code`: 0 success, 1 a failed check or internal error,
// 2 bad input (unreadable or malformed files, wrong arguments).

#include <CLI/CLI.hpp>

namespace cuzk::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;

void add_selftest_command(CLI::App& app, int& exit_code);
void add_groth16_commands(CLI::App& app, int& exit_code);
// The daemon (serve_command.cpp) and its clients: submit, await, status, cancel, preload
// (engine_commands.cpp).
void add_serve_command(CLI::App& app, int& exit_code);
void add_engine_client_commands(CLI::App& app, int& exit_code);

}  // namespace cuzk::cli
