// Client commands of the daemon: `cuzk submit | await | status | cancel | preload`. Each talks
// to `cuzk serve` over its unix socket (--socket, default $CUZK_SOCKET or /run/cuzk/cuzk.sock)
// or TCP (--address host:port, default $CUZK_ADDRESS) with an optional bearer token (--token,
// default $CUZK_TOKEN: an environment variable keeps it out of `ps`).
// Exit codes: 0 success; 1 failure (the job failed or was cancelled, the daemon is unreachable
// or refused: UNAVAILABLE, RESOURCE_EXHAUSTED, UNAUTHENTICATED, PERMISSION_DENIED, INTERNAL);
// 2 bad input (INVALID_ARGUMENT, NOT_FOUND, unreadable files); 3 `await`: the job is not final
// yet.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "formats/mapped_file.hpp"
#include "service/client.hpp"
#include "service/convert.hpp"
#include "util/error.hpp"

namespace cuzk::cli {
namespace {

namespace fs = std::filesystem;
constexpr int kExitNotFinal = 3;

std::string env_or(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}

struct Connection {
  std::string socket = env_or("CUZK_SOCKET", "/run/cuzk/cuzk.sock");
  std::string address = env_or("CUZK_ADDRESS", "");
  std::string token = env_or("CUZK_TOKEN", "");
  void add_to(CLI::App& cmd) {
    cmd.add_option("--socket", socket, "the daemon's unix socket")->capture_default_str();
    cmd.add_option("--address", address, "the daemon's TCP host:port (instead of the socket)");
    cmd.add_option("--token", token, "bearer token for TCP ($CUZK_TOKEN)");
  }
  service::Client connect() const {
    return service::Client(service::ClientOptions{socket, address, token});
  }
  std::string where() const { return address.empty() ? "unix:" + socket : address; }
};

// Runs a client command; a gRPC error becomes a message and an exit code.
template <class Body>
void run(int& exit_code, const Connection& connection, Body&& body) {
  try {
    exit_code = body();
  } catch (const service::ClientError& e) {
    std::fprintf(stderr, "cuzk: %s\n", e.what());
    if (e.code() == grpc::StatusCode::UNAVAILABLE) {
      std::fprintf(stderr, "cuzk: is `cuzk serve` running at %s?\n", connection.where().c_str());
    }
    switch (e.code()) {
      case grpc::StatusCode::INVALID_ARGUMENT:
      case grpc::StatusCode::NOT_FOUND:
        exit_code = kExitBadInput;
        break;
      case grpc::StatusCode::DEADLINE_EXCEEDED:
        exit_code = kExitNotFinal;
        break;
      default:
        exit_code = kExitFailure;
    }
  }
}

// A witness file's bytes: a regular file only (a directory, a FIFO or a device is refused
// before anything is read), read at the size it has.
std::string read_file(const std::string& path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec) CUZK_INVALID_INPUT("cannot read '" + path + "': " + ec.message());
  if (fs::is_directory(status))
    CUZK_INVALID_INPUT("'" + path + "' is a directory, not a .wtns file");
  if (!fs::is_regular_file(status)) CUZK_INVALID_INPUT("'" + path + "' is not a regular file");
  const auto size = fs::file_size(path, ec);
  if (ec) CUZK_INVALID_INPUT("cannot read '" + path + "': " + ec.message());
  std::ifstream in(path, std::ios::binary);
  if (!in) CUZK_INVALID_INPUT("cannot read '" + path + "'");
  std::string bytes(size, '\0');  // one read: witnesses are gigabytes
  if (!in.read(bytes.data(), std::streamsize(bytes.size()))) {
    CUZK_INVALID_INPUT("cannot read '" + path + "'");
  }
  return bytes;
}

// What a proof file holds: proof.json text, or a .params key's 192-byte proof, as `cuzk prove`
// writes it and `cuzk verify` reads it. From `proof` (with its `proof_format`); a daemon that
// fills only the deprecated proof_json (a .params key's proof as 384 hex digits) is read as
// before.
std::string proof_file_bytes(const v1::PartitionProof& partition) {
  if (partition.proof_format() != v1::PROOF_FORMAT_UNSPECIFIED) return partition.proof();
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  const std::string& text = partition.proof_json();
#pragma GCC diagnostic pop
  constexpr size_t kBellmanHexDigits = 384;
  const auto nibble = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  };
  if (text.size() != kBellmanHexDigits ||
      !std::all_of(text.begin(), text.end(), [&](char c) { return nibble(c) >= 0; })) {
    return text;
  }
  std::string bytes(kBellmanHexDigits / 2, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = char(nibble(text[2 * i]) << 4 | nibble(text[2 * i + 1]));
  }
  return bytes;
}

void write_file(const fs::path& path, const std::string& text) {
  fs::path partial = path;
  partial += ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    if (!out) CUZK_INVALID_INPUT("cannot create " + partial.string());
    out << text;
    if (!out) CUZK_THROW(ErrorKind::kInternal, "cannot write " + partial.string());
  }
  fs::rename(partial, path);
}

// proof.json for partition 2 of 3 → proof.2.json; a single partition keeps the name.
fs::path partition_path(const fs::path& path, int partition, int partitions) {
  if (partitions == 1) return path;
  fs::path p = path;
  p.replace_filename(path.stem().string() + "." + std::to_string(partition) +
                     path.extension().string());
  return p;
}

std::string bytes_text(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = double(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) v /= 1024, ++u;
  char text[32];
  std::snprintf(text, sizeof text, u ? "%.1f %s" : "%.0f %s", v, units[u]);
  return text;
}

void print_status(const v1::EngineStatus& s) {
  std::printf("backend %s, %s, up %.0f s\n", s.backend().c_str(),
              s.accepting() ? "accepting jobs" : "draining", s.uptime_s());
  const auto& by = s.queue().by_priority();
  const auto count = [&](const char* p) { return by.count(p) ? by.at(p) : 0; };
  std::printf("queue: %llu of %llu partitions (critical %llu, high %llu, normal %llu, low %llu)\n",
              (unsigned long long)s.queue().queued(), (unsigned long long)s.queue().capacity(),
              (unsigned long long)count("critical"), (unsigned long long)count("high"),
              (unsigned long long)count("normal"), (unsigned long long)count("low"));
  std::printf("jobs: %llu active, %llu results retained\n", (unsigned long long)s.jobs_active(),
              (unsigned long long)s.jobs_retained());
  std::printf("partitions: %llu succeeded, %llu failed, %llu cancelled\n",
              (unsigned long long)s.partitions_succeeded(),
              (unsigned long long)s.partitions_failed(),
              (unsigned long long)s.partitions_cancelled());
  std::printf("host memory for partitions: %s in use of %s (peak %s)\n",
              bytes_text(s.host_in_use()).c_str(), bytes_text(s.host_budget()).c_str(),
              bytes_text(s.host_peak()).c_str());
  if (s.cpu_workers() > 0) std::printf("cpu workers: %d\n", s.cpu_workers());
  for (const auto& g : s.gpus()) {
    std::printf("GPU %d %s: %d workers, busy %.0f%%, arena %s in use of %s (peak %s)\n", g.device(),
                g.name().c_str(), g.workers(), 100 * g.busy_fraction(),
                bytes_text(g.arena_in_use()).c_str(), bytes_text(g.arena_bytes()).c_str(),
                bytes_text(g.arena_peak()).c_str());
  }
  for (const auto& t : s.key_tiers()) {
    std::printf("key tier %s: %s of %s\n", t.tier().c_str(), bytes_text(t.used()).c_str(),
                bytes_text(t.budget()).c_str());
  }
  for (const auto& k : s.keys()) {
    std::string charges;
    if (k.charges_size() > 1) {  // a key spread over tiers: what each budget gives it
      std::map<std::string, uint64_t> sorted(k.charges().begin(), k.charges().end());
      for (const auto& [tier, bytes] : sorted) {
        charges += (charges.empty() ? " (" : ", ") + tier + " " + bytes_text(bytes);
      }
      charges += ")";
    }
    std::printf("key %s: %s%s, %s%s, %d in use, %llu loads\n", k.id().c_str(), k.tier().c_str(),
                k.loading() ? " (loading)" : "", bytes_text(k.bytes()).c_str(), charges.c_str(),
                k.in_use(), (unsigned long long)k.loads());
  }
}

}  // namespace

void add_engine_client_commands(CLI::App& app, int& exit_code) {
  {
    struct Flags {
      Connection connection;
      std::string key, priority = "normal", request_id;
      std::vector<std::string> witnesses;
      bool by_path = false;
    };
    auto f = std::make_shared<Flags>();
    auto* cmd = app.add_subcommand("submit", "queue a proof job on the daemon; prints its job id");
    cmd->add_option("--key", f->key, "key id")->required();
    cmd->add_option("--wtns", f->witnesses, "witness .wtns, one per partition (repeatable)")
        ->required();
    cmd->add_option("--priority", f->priority, "low, normal, high or critical")
        ->capture_default_str();
    cmd->add_option("--request-id", f->request_id,
                    "idempotency key: a resubmission returns the "
                    "first job");
    cmd->add_flag("--by-path", f->by_path,
                  "send the witness paths (the daemon reads them) instead of their bytes");
    f->connection.add_to(*cmd);
    cmd->callback([f, &exit_code] {
      run(exit_code, f->connection, [&] {
        v1::SubmitProofRequest request;
        request.set_key_id(f->key);
        request.set_priority(service::priority_from_name(f->priority));
        request.set_request_id(f->request_id);
        for (const auto& w : f->witnesses) {
          if (f->by_path) {
            request.add_partitions()->set_path(fs::absolute(w).string());
          } else {
            request.add_partitions()->set_wtns(read_file(w));
          }
        }
        std::printf("%llu\n", (unsigned long long)f->connection.connect().submit(request));
        return kExitOk;
      });
    });
  }
  {
    struct Flags {
      Connection connection;
      uint64_t job = 0;
      double timeout_s = 0;
      std::string proof, public_json;
    };
    auto f = std::make_shared<Flags>();
    auto* cmd = app.add_subcommand(
        "await", "wait for a job; prints its state and timings as JSON, writes its proofs");
    cmd->add_option("job", f->job, "job id")->required();
    cmd->add_option("--timeout", f->timeout_s, "seconds to wait (0: until the job is final)");
    cmd->add_option("--proof", f->proof,
                    "write proof.json (a .params key's: the 192-byte proof) here (several "
                    "partitions: name.N.json)");
    cmd->add_option("--public", f->public_json, "write public.json here (likewise)");
    f->connection.add_to(*cmd);
    cmd->callback([f, &exit_code] {
      run(exit_code, f->connection, [&] {
        const auto timeout = f->timeout_s > 0
                                 ? std::chrono::milliseconds(int64_t(f->timeout_s * 1000))
                                 : std::chrono::milliseconds(std::chrono::hours(24 * 30));
        const auto result = f->connection.connect().await(f->job, timeout);
        const int n = result.partitions_size();
        for (int p = 0; p < n; ++p) {
          if (!f->proof.empty()) {
            write_file(partition_path(f->proof, p, n), proof_file_bytes(result.partitions(p)));
          }
          if (!f->public_json.empty()) {
            write_file(partition_path(f->public_json, p, n), result.partitions(p).public_json());
          }
        }
        v1::ProofResult summary = result;
        summary.clear_partitions();  // the proofs go to files; stdout gets state and timings
        std::printf("%s\n", service::to_json(summary, true).c_str());
        return kExitOk;
      });
    });
  }
  {
    auto connection = std::make_shared<Connection>();
    auto json = std::make_shared<bool>(false);
    auto* cmd = app.add_subcommand("status", "the daemon's GPUs, workers, queue, keys, budgets");
    cmd->add_flag("--json", *json, "print the status as JSON");
    connection->add_to(*cmd);
    cmd->callback([connection, json, &exit_code] {
      run(exit_code, *connection, [&] {
        const auto status = connection->connect().status();
        if (*json) {
          std::printf("%s\n", service::to_json(status, true).c_str());
        } else {
          print_status(status);
        }
        return kExitOk;
      });
    });
  }
  {
    auto connection = std::make_shared<Connection>();
    auto job = std::make_shared<uint64_t>(0);
    auto* cmd = app.add_subcommand("cancel", "cancel a queued or running job");
    cmd->add_option("job", *job, "job id")->required();
    connection->add_to(*cmd);
    cmd->callback([connection, job, &exit_code] {
      run(exit_code, *connection, [&] {
        const bool cancelled = connection->connect().cancel(*job);
        std::printf("job %llu: %s\n", (unsigned long long)*job,
                    cancelled ? "cancelled" : "already final, nothing to cancel");
        return kExitOk;
      });
    });
  }
  {
    struct Flags {
      Connection connection;
      std::string key, path;
    };
    auto f = std::make_shared<Flags>();
    auto* cmd = app.add_subcommand("preload", "load a key on the daemon into its best tier");
    cmd->add_option("key", f->key, "key id")->required();
    cmd->add_option("--path", f->path, "register the key from this .zkey first (daemon's path)");
    f->connection.add_to(*cmd);
    cmd->callback([f, &exit_code] {
      run(exit_code, f->connection, [&] {
        const std::string path = f->path.empty() ? "" : fs::absolute(f->path).string();
        const auto key = f->connection.connect().preload(f->key, path);
        std::printf("key %s: %s, %s\n", key.id().c_str(), key.tier().c_str(),
                    bytes_text(key.bytes()).c_str());
        return kExitOk;
      });
    });
  }
}

}  // namespace cuzk::cli
