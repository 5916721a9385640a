#include "service/config.hpp"

#include <cctype>
#include <cmath>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include <toml++/toml.h>

#include "service/log.hpp"
#include "util/error.hpp"

namespace cuzk::service {
namespace {

constexpr double kMaxRetentionS = 365.0 * 24 * 3600;

// One TOML table being read: every lookup records the key, so that what is left over at the
// end is an option this version does not know (a typo) and is reported as such.
class Section {
 public:
  Section(const toml::table* table, std::string name, std::string source)
      : table_(table), name_(std::move(name)), source_(std::move(source)) {}

  const toml::node* get(std::string_view key) {
    known_.insert(std::string(key));
    return table_ ? table_->get(key) : nullptr;
  }
  [[noreturn]] void fail(std::string_view key, const std::string& message) const {
    CUZK_INVALID_INPUT(source_ + ": " + where(key) + ": " + message);
  }
  std::string where(std::string_view key) const {
    return name_.empty() ? std::string(key) : "[" + name_ + "] " + std::string(key);
  }

  void string(std::string_view key, std::string& out) {
    if (const auto* n = get(key)) {
      if (!n->is_string()) fail(key, "expected a string");
      out = *n->value<std::string>();
    }
  }
  void path(std::string_view key, std::filesystem::path& out) {
    std::string s;
    string(key, s);
    if (!s.empty()) out = s;
  }
  void boolean(std::string_view key, bool& out) {
    if (const auto* n = get(key)) {
      if (!n->is_boolean()) fail(key, "expected true or false");
      out = *n->value<bool>();
    }
  }
  template <class Int>
  void integer(std::string_view key, Int& out, int64_t min, int64_t max) {
    if (const auto* n = get(key)) {
      if (!n->is_integer()) fail(key, "expected an integer");
      const int64_t v = *n->value<int64_t>();
      if (v < min || v > max) {
        fail(key,
             std::to_string(v) + " is outside " + std::to_string(min) + ".." + std::to_string(max));
      }
      out = Int(v);
    }
  }
  void number(std::string_view key, double& out, double min) {
    if (const auto* n = get(key)) {
      if (!n->is_number()) fail(key, "expected a number");
      const double v = *n->value<double>();
      if (!std::isfinite(v) || v < min) fail(key, "must be a number ≥ " + std::to_string(min));
      out = v;
    }
  }
  void size(std::string_view key, uint64_t& out) {
    if (const auto* n = get(key)) {
      if (n->is_integer()) {
        const int64_t v = *n->value<int64_t>();
        if (v < 0) fail(key, "a size cannot be negative");
        out = uint64_t(v);
      } else if (n->is_string()) {
        out = parse_size(*n->value<std::string>(), source_ + ": " + where(key));
      } else {
        fail(key, "expected a size: bytes, or a string such as \"64GiB\"");
      }
    }
  }
  void strings(std::string_view key, std::vector<std::string>& out) {
    if (const auto* n = get(key)) {
      const auto* array = n->as_array();
      if (!array) fail(key, "expected an array of strings");
      out.clear();
      for (const auto& item : *array) {
        if (!item.is_string()) fail(key, "expected an array of strings");
        out.push_back(*item.value<std::string>());
      }
    }
  }
  const toml::table* table(std::string_view key) {
    const auto* n = get(key);
    if (!n) return nullptr;
    if (!n->is_table()) fail(key, "expected a table");
    return n->as_table();
  }
  void check_unknown() const {
    if (!table_) return;
    for (const auto& [key, value] : *table_) {
      if (!known_.count(std::string(key.str()))) fail(key.str(), "unknown option");
    }
  }

 private:
  const toml::table* table_;
  std::string name_, source_;
  std::set<std::string> known_;
};

std::string checked_token(std::string token, const std::string& where) {
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) {
    token.pop_back();
  }
  if (token.empty()) CUZK_INVALID_INPUT(where + " holds no token");
  for (const char ch : token) {
    const auto u = static_cast<unsigned char>(ch);
    if (u <= 0x20 || u == 0x7f)
      CUZK_INVALID_INPUT(where + ": a token has a space or control character");
  }
  return token;
}

}  // namespace

uint64_t parse_size(std::string_view text, const std::string& what) {
  const std::string s(text);
  size_t used = 0;
  double value = 0;
  try {
    value = std::stod(s, &used);
  } catch (const std::exception&) {
    CUZK_INVALID_INPUT(what + ": '" + s + "' is not a size (e.g. 4096, \"512MiB\", \"64GiB\")");
  }
  std::string unit = s.substr(used);
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  static const std::pair<const char*, double> units[] = {
      {"", 1},         {"B", 1},      {"KiB", 0x1p10}, {"MiB", 0x1p20}, {"GiB", 0x1p30},
      {"TiB", 0x1p40}, {"KB", 1e3},   {"MB", 1e6},     {"GB", 1e9},     {"TB", 1e12},
      {"K", 0x1p10},   {"M", 0x1p20}, {"G", 0x1p30},   {"T", 0x1p40}};
  for (const auto& [name, factor] : units) {
    if (unit == name) {
      const double bytes = value * factor;
      if (!std::isfinite(bytes) || bytes < 0 || bytes >= 0x1p64) {
        CUZK_INVALID_INPUT(what + ": '" + s + "' is out of range");
      }
      return uint64_t(std::llround(bytes));
    }
  }
  CUZK_INVALID_INPUT(what + ": unknown unit '" + unit + "' in '" + s +
                     "' (B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)");
}

std::string read_token_file(const std::filesystem::path& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  std::string token;
  if (!in || !std::getline(in, token)) {
    CUZK_INVALID_INPUT(what + ": cannot read a token from '" + path.string() + "'");
  }
  return checked_token(std::move(token), what + ": '" + path.string() + "'");
}

std::vector<std::string> read_tokens_file(const std::filesystem::path& path,
                                          const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) CUZK_INVALID_INPUT(what + ": cannot read '" + path.string() + "'");
  std::vector<std::string> tokens;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    tokens.push_back(checked_token(
        line.substr(first), what + ": '" + path.string() + "' line " + std::to_string(number)));
  }
  if (tokens.empty()) CUZK_INVALID_INPUT(what + ": '" + path.string() + "' holds no token");
  return tokens;
}

DaemonConfig parse_config(std::string_view toml_text, const std::string& source_name,
                          const DaemonConfig& defaults) {
  toml::table root;
  try {
    root = toml::parse(toml_text, source_name);
  } catch (const toml::parse_error& e) {
    std::ostringstream where;
    where << e.source().begin;
    CUZK_INVALID_INPUT(source_name + ": " + std::string(e.description()) + " at " + where.str());
  }
  DaemonConfig c = defaults;
  Section top(&root, "", source_name);

  Section server(top.table("server"), "server", source_name);
  server.string("socket", c.socket);
  if (const auto* n = server.get("socket_mode")) {
    // TOML writes octal as 0o660; a string "0660" is accepted too.
    if (n->is_integer()) {
      c.socket_mode = uint32_t(*n->value<int64_t>());
    } else if (n->is_string()) {
      try {
        c.socket_mode = uint32_t(std::stoul(*n->value<std::string>(), nullptr, 8));
      } catch (const std::exception&) {
        server.fail("socket_mode", "expected octal digits such as \"0660\"");
      }
    } else {
      server.fail("socket_mode", "expected 0o660 or \"0660\"");
    }
    if (c.socket_mode > 0777) server.fail("socket_mode", "must be a permission mode ≤ 0777");
  }
  server.string("tcp_address", c.tcp_address);
  for (auto [value_key, file_key, out] :
       {std::tuple{"token", "token_file", &c.token},
        std::tuple{"admin_token", "admin_token_file", &c.admin_token}}) {
    server.string(value_key, *out);
    std::filesystem::path file;
    server.path(file_key, file);
    if (!file.empty()) {
      if (!out->empty())
        server.fail(file_key, std::string("give either ") + value_key + " or " + file_key);
      *out = read_token_file(file, source_name + ": " + server.where(file_key));
    }
  }
  std::filesystem::path tokens_file;
  server.path("tokens_file", tokens_file);
  if (!tokens_file.empty()) {
    c.tokens = read_tokens_file(tokens_file, source_name + ": " + server.where("tokens_file"));
  }
  server.boolean("insecure_no_token", c.insecure_no_token);
  std::vector<std::string> allowed;
  server.strings("allow_paths_over_tcp", allowed);
  for (const auto& dir : allowed) c.allow_paths_over_tcp.emplace_back(dir);
  server.boolean("paths_no_follow", c.paths_no_follow);
  server.integer("max_partitions_per_request", c.max_partitions_per_request, 1, 1 << 20);
  server.size("grpc_memory_bytes", c.grpc_memory_bytes);
  server.integer("grpc_max_threads", c.grpc_max_threads, 4, 4096);
  server.number("http_timeout_s", c.http_timeout_s, 0.1);
  server.string("http_address", c.http_address);
  server.string("log_level", c.log_level);
  server.string("timeline_file", c.timeline_file);
  server.number("timeline_flush_s", c.timeline_flush_s, 0.1);
  server.number("drain_timeout_s", c.drain_timeout_s, 0);
  server.check_unknown();

  Section eng(top.table("engine"), "engine", source_name);
  eng.string("backend", c.backend);
  eng.integer("workers_per_gpu", c.engine.workers_per_gpu, 1, 4);
  eng.boolean("prepare_ahead", c.engine.prepare_ahead);
  eng.integer("group_partitions", c.engine.group_partitions, 1, 64);
  eng.integer("cpu_workers", c.engine.cpu_workers, 1, 1024);
  eng.integer("queue_capacity", c.engine.queue_capacity, 1, int64_t(1) << 32);
  double retention_s = std::chrono::duration<double>(c.engine.result_retention).count();
  eng.number("result_retention_s", retention_s, 0);
  if (retention_s > kMaxRetentionS) {
    eng.fail("result_retention_s", "at most " + std::to_string(int64_t(kMaxRetentionS)) + " s");
  }
  c.engine.result_retention = std::chrono::milliseconds(std::llround(retention_s * 1000));
  eng.size("host_bytes", c.engine.host_bytes);
  eng.size("host_margin_bytes", c.engine.host_margin_bytes);
  eng.size("vram_arena_bytes", c.engine.vram_arena_bytes);
  eng.size("vram_margin_bytes", c.engine.vram_margin_bytes);
  eng.boolean("verify_proofs", c.verify_proofs);
  eng.check_unknown();

  Section journal(top.table("journal"), "journal", source_name);
  journal.path("path", c.engine.journal_path);
  journal.size("spool_bytes", c.engine.journal_spool_bytes);
  journal.check_unknown();

  Section keys(top.table("keys"), "keys", source_name);
  keys.path("directory", c.key_directory);
  keys.strings("preload", c.preload);
  keys.boolean("check_subgroups", c.check_key_subgroups);
  keys.boolean("h_tables", c.h_tables);
  Section budgets(keys.table("budgets"), "keys.budgets", source_name);
  for (const auto& [name, tier] :
       {std::pair{"vram", engine::KeyTier::kVram}, std::pair{"pinned", engine::KeyTier::kPinned},
        std::pair{"mmap", engine::KeyTier::kMmap}}) {
    uint64_t bytes = 0;
    if (budgets.get(name)) {
      budgets.size(name, bytes);
      c.engine.keys.budgets[tier] = bytes;
    }
  }
  budgets.check_unknown();
  if (const auto* files = keys.table("files")) {
    for (const auto& [id, path] : *files) {
      if (!path.is_string()) keys.fail("files", std::string(id.str()) + ": expected a path");
      c.key_files[std::string(id.str())] = *path.value<std::string>();
    }
  }
  keys.check_unknown();

  Section sim(top.table("sim"), "sim", source_name);
  sim.integer("gpus", c.sim.gpus, 1, 64);
  sim.size("vram_bytes", c.sim.vram_bytes);
  sim.number("kernel_ns_per_constraint", c.sim.kernel_ns_per_constraint, 0);
  sim.number("copy_bytes_per_us", c.sim.copy_bytes_per_us, 1);
  sim.number("prepare_us", c.sim.prepare_us, 0);
  sim.number("epilogue_us", c.sim.epilogue_us, 0);
  sim.number("key_load_bytes_per_us", c.sim.key_load_bytes_per_us, 1);
  if (const auto* sim_keys = sim.table("keys")) {
    for (const auto& [id, constraints] : *sim_keys) {
      if (!constraints.is_integer() || *constraints.value<int64_t>() <= 0) {
        sim.fail("keys", std::string(id.str()) + ": expected a positive constraint count");
      }
      c.sim_keys[std::string(id.str())] = uint64_t(*constraints.value<int64_t>());
    }
  }
  sim.check_unknown();
  top.check_unknown();
  return c;
}

DaemonConfig load_config(const std::filesystem::path& path, const DaemonConfig& defaults) {
  std::ifstream in(path, std::ios::binary);
  if (!in) CUZK_THROW(ErrorKind::kNotFound, "cannot read the config file '" + path.string() + "'");
  std::stringstream text;
  text << in.rdbuf();
  return parse_config(text.str(), path.string(), defaults);
}

void validate(const DaemonConfig& c) {
  if (c.backend != "cpu" && c.backend != "sim" && c.backend != "cuda" && c.backend != "auto") {
    CUZK_INVALID_INPUT("backend '" + c.backend + "': use cuda, cpu, auto or sim");
  }
  if (c.socket.empty() && c.tcp_address.empty()) {
    CUZK_INVALID_INPUT("neither a unix socket nor a TCP address to listen on");
  }
  if (c.engine.workers_per_gpu < 1 || c.engine.workers_per_gpu > 4) {
    CUZK_INVALID_INPUT("workers_per_gpu must be 1..4");
  }
  if (c.engine.group_partitions < 1 || c.engine.group_partitions > 64) {
    CUZK_INVALID_INPUT("group_partitions must be 1..64");
  }
  if (c.engine.cpu_workers < 1) CUZK_INVALID_INPUT("cpu_workers must be ≥ 1");
  if (c.engine.queue_capacity < 1) CUZK_INVALID_INPUT("queue_capacity must be ≥ 1");
  if (!(c.drain_timeout_s >= 0 && c.drain_timeout_s <= 86400)) {
    CUZK_INVALID_INPUT("drain_timeout_s must be 0..86400 seconds");
  }
  const auto retention_ms = c.engine.result_retention.count();
  if (retention_ms < 0 || retention_ms > int64_t(kMaxRetentionS * 1000)) {
    CUZK_INVALID_INPUT("result retention must be 0.." + std::to_string(int64_t(kMaxRetentionS)) +
                       " seconds");
  }
  if (!(c.timeline_flush_s >= 0.1)) CUZK_INVALID_INPUT("timeline_flush_s must be ≥ 0.1");
  if (!(c.http_timeout_s >= 0.1 && c.http_timeout_s <= 3600)) {
    CUZK_INVALID_INPUT("http_timeout_s must be 0.1..3600");
  }
  if (c.max_partitions_per_request < 1)
    CUZK_INVALID_INPUT("max_partitions_per_request must be ≥ 1");
  if (c.grpc_memory_bytes < (uint64_t(16) << 20)) {
    CUZK_INVALID_INPUT("grpc_memory_bytes must be at least 16 MiB");
  }
  if (c.grpc_max_threads < 4) CUZK_INVALID_INPUT("grpc_max_threads must be ≥ 4");
  if (c.sim.gpus < 1 || !(c.sim.kernel_ns_per_constraint >= 0)) {
    CUZK_INVALID_INPUT("sim: gpus must be ≥ 1 and kernel_ns_per_constraint ≥ 0");
  }
  if (!c.tcp_address.empty() && c.token.empty() && c.tokens.empty() && !c.insecure_no_token) {
    CUZK_INVALID_INPUT(
        "a TCP listener needs a token (token or token_file); to accept any TCP client without "
        "one, set insecure_no_token (--insecure-no-token)");
  }
  if (!c.admin_token.empty() && c.admin_token == c.token) {
    CUZK_INVALID_INPUT("admin_token must differ from token");
  }
  for (const auto& dir : c.allow_paths_over_tcp) {
    if (!dir.is_absolute()) {
      CUZK_INVALID_INPUT("allow_paths_over_tcp: '" + dir.string() + "' is not an absolute path");
    }
  }
  for (const auto& t : c.tokens) {
    if (t == c.admin_token) CUZK_INVALID_INPUT("admin_token must differ from every client token");
  }
  if ((!c.token.empty() || !c.tokens.empty()) && c.tcp_address.empty()) {
    CUZK_INVALID_INPUT(
        "a token is set but there is no tcp_address (the unix socket is "
        "protected by its file mode)");
  }
  parse_log_level(c.log_level);
  for (const auto& id : c.preload) {
    const bool known =
        c.key_files.count(id) || c.sim_keys.count(id) ||
        (!c.key_directory.empty() && std::filesystem::exists(c.key_directory / (id + ".zkey")));
    if (!known) CUZK_INVALID_INPUT("preload: no key '" + id + "' in the configuration");
  }
  if (c.backend == "sim" && !c.key_files.empty()) {
    CUZK_INVALID_INPUT("the sim backend models keys: list them in [sim.keys], not [keys.files]");
  }
}

engine::BackendChoice backend_choice(const DaemonConfig& config) {
  engine::BackendChoice choice;
  choice.name = config.backend;
  choice.sim = config.sim;
  choice.cpu.check_key_subgroups = config.check_key_subgroups;
  choice.cuda.check_key_subgroups = config.check_key_subgroups;
  choice.cuda.verify_proofs = config.verify_proofs;
  choice.cuda.h_tables = config.h_tables;
  choice.cuda.partitions_per_device = config.engine.workers_per_gpu;
  choice.cuda.staging_per_device = config.engine.partitions_held_per_gpu();
  return choice;
}

}  // namespace cuzk::service
