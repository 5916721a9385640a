#pragma once
// The daemon's configuration: a TOML file (deploy/cuzk.toml documents every option) read with
// toml++, then `cuzk serve`'s flags on top. Sizes are integers (bytes) or strings with a unit
// ("512MiB", "64GiB", "1.5TiB"; KB/MB/GB are powers of 1000); durations are seconds.
//
// Errors: kInvalidInput naming the file, the option and what was wrong (an unknown option is
// an error too, so a typo does not silently fall back to a default); kNotFound for a missing
// file. Plain values; no thread-safety concerns.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "engine/backend_factory.hpp"
#include "engine/engine.hpp"

namespace cuzk::service {

struct DaemonConfig {
  // [server]
  std::string socket = "/run/cuzk/cuzk.sock";  // the unix socket; "" listens on none
  uint32_t socket_mode = 0660;
  std::string tcp_address;  // "host:port" ("0.0.0.0:50051"); "" listens on none
  std::string token;        // required from TCP clients when set (`authorization: Bearer ...`)
  // More client tokens, one per client identity (tokens_file: one per line; blank lines and
  // lines starting with # skipped). A job belongs to the token that submitted it.
  std::vector<std::string> tokens;
  // May await, cancel and see every client's jobs and manage keys from TCP; "" none.
  std::string admin_token;
  // A TCP listener without a token is refused unless this is set.
  bool insecure_no_token = false;
  // Witness and key paths are honoured from unix-socket clients only; a TCP client's path is
  // accepted when it lies (canonicalized) in one of these directories.
  std::vector<std::filesystem::path> allow_paths_over_tcp;
  bool paths_no_follow = false;  // open witness paths with O_NOFOLLOW (a symlink is refused)
  uint32_t max_partitions_per_request = 1024;
  // The gRPC server's memory quota (buffers of calls in flight) and threads at most.
  uint64_t grpc_memory_bytes = uint64_t(2) << 30;
  int grpc_max_threads = 64;
  double http_timeout_s = 5;                    // read/write timeout of one HTTP connection
  std::string http_address = "127.0.0.1:9464";  // /metrics and /status; "" serves none
  std::string log_level = "info";
  std::string timeline_file;     // JSON lines of every partition's stages; "" writes none
  double timeline_flush_s = 10;  // how often the timeline file is rewritten
  double drain_timeout_s = 60;   // SIGTERM: finish accepted jobs this long, then cancel

  // [engine]
  // cuda | cpu | auto (cuda where this build has it and a GPU is present, else cpu) | sim
  std::string backend = "auto";
  engine::EngineOptions engine;
  bool verify_proofs = true;  // cuda: check every proof against its key before returning it

  // [keys]
  // Every *.zkey and *.params (with its .r1cs beside it) in it; id = the file name's stem.
  std::filesystem::path key_directory;
  std::map<std::string, std::filesystem::path> key_files;  // [keys.files] id = "path"
  std::vector<std::string> preload;
  bool check_key_subgroups = true;  // cpu, cuda: subgroup checks of every key point when loading
  bool h_tables = false;            // cuda: keys in VRAM get an H table (engine/cuda_backend.hpp)

  // [sim]: the GPU test double (src/engine/sim_backend.hpp) and its keys' sizes
  engine::SimOptions sim;
  std::map<std::string, uint64_t> sim_keys;  // [sim.keys] id = constraints per partition
};

// `defaults`: the values of what the text leaves out (the daemon's by default; the supraseal
// libraries start from their own).
DaemonConfig parse_config(std::string_view toml_text, const std::string& source_name,
                          const DaemonConfig& defaults = {});
DaemonConfig load_config(const std::filesystem::path& path, const DaemonConfig& defaults = {});

// Throws kInvalidInput when options contradict each other or are out of range.
void validate(const DaemonConfig& config);

// The backend a configuration names, as engine::make_backend takes it: what `cuzk serve` and
// the supraseal libraries make from the same file.
engine::BackendChoice backend_choice(const DaemonConfig& config);

// A token from a file: its first line without trailing whitespace (CR LF included). Throws
// kInvalidInput (naming `what`) for an unreadable or empty file, or a token with control
// characters or spaces (it could never match an HTTP header).
std::string read_token_file(const std::filesystem::path& path, const std::string& what);
// Every token of a tokens file (one per line; blank lines and # comments skipped), each
// checked as read_token_file checks one.
std::vector<std::string> read_tokens_file(const std::filesystem::path& path,
                                          const std::string& what);

// "64GiB" → 68719476736; plain digits are bytes. kInvalidInput names `what` on failure.
uint64_t parse_size(std::string_view text, const std::string& what);

}  // namespace cuzk::service
