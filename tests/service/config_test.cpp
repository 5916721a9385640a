// The TOML configuration: every option of deploy/cuzk.toml parses (the sample cannot rot),
// sizes with units, and clear errors for typos, wrong types and contradictions.

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "service/config.hpp"
#include "util/error.hpp"

namespace cuzk::service {
namespace {

std::string error_of(const std::string& toml) {
  try {
    validate(parse_config(toml, "test.toml"));
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidInput) << e.what();
    return e.what();
  }
  return "";
}

TEST(ServiceConfig, TheSampleConfigParses) {
  const auto c = load_config(std::string(CUZK_SOURCE_DIR) + "/deploy/cuzk.toml");
  validate(c);
  EXPECT_EQ(c.socket, "/run/cuzk/cuzk.sock");
  EXPECT_EQ(c.socket_mode, 0660u);
  EXPECT_EQ(c.backend, "auto");
  EXPECT_EQ(c.engine.workers_per_gpu, 2);
  EXPECT_EQ(c.engine.group_partitions, 16);
  EXPECT_TRUE(c.verify_proofs);
  EXPECT_FALSE(c.h_tables);
}

TEST(ServiceConfig, WhatTheTextLeavesOutKeepsTheCallersDefaults) {
  DaemonConfig library;
  library.check_key_subgroups = false;  // the supraseal libraries' default
  EXPECT_FALSE(parse_config("[engine]\nbackend = \"cpu\"\n", "t.toml", library).check_key_subgroups);
  EXPECT_TRUE(parse_config("[keys]\ncheck_subgroups = true\n", "t.toml", library).check_key_subgroups);
  EXPECT_TRUE(parse_config("", "t.toml").check_key_subgroups) << "the daemon checks by default";
}

TEST(ServiceConfig, EveryOptionIsRead) {
  const auto c = parse_config(R"(
[server]
socket = "/tmp/x.sock"
socket_mode = 0o600
tcp_address = "127.0.0.1:50051"
token = "abc"
http_address = "0.0.0.0:9000"
log_level = "debug"
timeline_file = "/tmp/t.jsonl"
timeline_flush_s = 2.5
drain_timeout_s = 30
[engine]
backend = "sim"
workers_per_gpu = 3
group_partitions = 8
cpu_workers = 5
queue_capacity = 100
result_retention_s = 1.5
host_bytes = "2GiB"
host_margin_bytes = 1024
vram_arena_bytes = "10 MB"
vram_margin_bytes = "1.5KiB"
verify_proofs = false
[keys]
preload = ["a"]
check_subgroups = false
h_tables = true
[keys.budgets]
vram = "40GiB"
pinned = 1000
[sim]
gpus = 2
vram_bytes = "80GiB"
kernel_ns_per_constraint = 0.5
copy_bytes_per_us = 1000
prepare_us = 1
epilogue_us = 2
key_load_bytes_per_us = 3
[sim.keys]
a = 5000
)",
                              "all.toml");
  validate(c);
  EXPECT_EQ(c.socket_mode, 0600u);
  EXPECT_EQ(c.tcp_address, "127.0.0.1:50051");
  EXPECT_EQ(c.token, "abc");
  EXPECT_EQ(c.timeline_flush_s, 2.5);
  EXPECT_EQ(c.engine.workers_per_gpu, 3);
  EXPECT_EQ(c.engine.group_partitions, 8);
  EXPECT_EQ(c.engine.cpu_workers, 5);
  EXPECT_EQ(c.engine.queue_capacity, 100u);
  EXPECT_EQ(c.engine.result_retention, std::chrono::milliseconds(1500));
  EXPECT_EQ(c.engine.host_bytes, uint64_t(2) << 30);
  EXPECT_EQ(c.engine.vram_arena_bytes, 10'000'000u);
  EXPECT_EQ(c.engine.vram_margin_bytes, 1536u);
  EXPECT_FALSE(c.verify_proofs);
  EXPECT_EQ(c.engine.keys.budgets.at(engine::KeyTier::kVram), uint64_t(40) << 30);
  EXPECT_EQ(c.engine.keys.budgets.at(engine::KeyTier::kPinned), 1000u);
  EXPECT_EQ(c.engine.keys.budgets.count(engine::KeyTier::kMmap), 0u);
  EXPECT_FALSE(c.check_key_subgroups);
  EXPECT_TRUE(c.h_tables);
  EXPECT_EQ(c.sim.gpus, 2);
  EXPECT_EQ(c.sim.vram_bytes, uint64_t(80) << 30);
  EXPECT_EQ(c.sim.kernel_ns_per_constraint, 0.5);
  EXPECT_EQ(c.sim_keys.at("a"), 5000u);
}

TEST(ServiceConfig, ErrorsNameTheOption) {
  EXPECT_NE(error_of("[server]\nsokcet = \"/x\"\n").find("[server] sokcet: unknown option"),
            std::string::npos);
  EXPECT_NE(error_of("[bogus]\n").find("bogus: unknown option"), std::string::npos);
  EXPECT_NE(error_of("[engine]\nworkers_per_gpu = 5\n").find("workers_per_gpu"), std::string::npos);
  EXPECT_NE(error_of("[engine]\ngroup_partitions = 0\n").find("group_partitions"),
            std::string::npos);
  EXPECT_NE(error_of("[engine]\ngroup_partitions = 65\n").find("group_partitions"),
            std::string::npos);
  EXPECT_NE(error_of("[engine]\nqueue_capacity = \"x\"\n").find("expected an integer"),
            std::string::npos);
  EXPECT_NE(error_of("[engine]\nhost_bytes = \"12 parsecs\"\n").find("unknown unit"),
            std::string::npos);
  EXPECT_NE(error_of("[engine]\nbackend = \"opencl\"\n").find("backend 'opencl'"),
            std::string::npos);
  EXPECT_NE(error_of("[server]\nlog_level = \"loud\"\n").find("log level"), std::string::npos);
  EXPECT_NE(error_of("[server]\ntoken = \"t\"\n").find("no tcp_address"), std::string::npos);
  EXPECT_NE(error_of("[server]\nsocket = \"\"\n").find("neither a unix socket"), std::string::npos);
  EXPECT_NE(error_of("[keys]\npreload = [\"ghost\"]\n").find("no key 'ghost'"), std::string::npos);
  EXPECT_NE(error_of("[server\n").find("test.toml"), std::string::npos) << "a syntax error";
  EXPECT_NE(error_of("[engine]\nverify_proofs = 0\n").find("expected true or false"),
            std::string::npos);
  EXPECT_EQ(error_of(""), "") << "every option has a default";
}

TEST(ServiceConfig, TcpNeedsATokenAndLimitsAreBounded) {
  EXPECT_NE(error_of("[server]\ntcp_address = \"127.0.0.1:1\"\n").find("insecure_no_token"),
            std::string::npos);
  EXPECT_EQ(error_of("[server]\ntcp_address = \"127.0.0.1:1\"\ninsecure_no_token = true\n"), "");
  EXPECT_NE(error_of("[server]\ntcp_address = \"127.0.0.1:1\"\ntoken = \"a\"\n"
                     "admin_token = \"a\"\n")
                .find("admin_token must differ"),
            std::string::npos);
  EXPECT_NE(error_of("[server]\nallow_paths_over_tcp = [\"relative\"]\n").find("absolute"),
            std::string::npos);
  EXPECT_NE(error_of("[engine]\nresult_retention_s = -1\n").find("result_retention_s"),
            std::string::npos);
  EXPECT_NE(error_of("[engine]\nresult_retention_s = 1e300\n").find("at most"), std::string::npos);
  EXPECT_NE(error_of("[server]\ndrain_timeout_s = 1e9\n").find("drain_timeout_s"),
            std::string::npos);
  EXPECT_NE(error_of("[server]\nmax_partitions_per_request = 0\n").find("outside"),
            std::string::npos);
  EXPECT_NE(error_of("[server]\ngrpc_memory_bytes = \"1MiB\"\n").find("16 MiB"), std::string::npos);
}

TEST(ServiceConfig, TokenFilesLoseTheirLineEnds) {
  const auto dir = std::filesystem::temp_directory_path() / "cuzk_config_test_tokens";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "token", std::ios::binary) << "s3cret\r\n";
  EXPECT_EQ(read_token_file(dir / "token", "token_file"), "s3cret");
  std::ofstream(dir / "tokens", std::ios::binary) << "# clients\r\none\r\n\n  two \n";
  EXPECT_EQ(read_tokens_file(dir / "tokens", "tokens_file"),
            (std::vector<std::string>{"one", "two"}));
  std::ofstream(dir / "empty", std::ios::binary) << "\r\n";
  EXPECT_THROW(read_token_file(dir / "empty", "token_file"), Error);
  std::ofstream(dir / "spaced", std::ios::binary) << "two words\n";
  EXPECT_THROW(read_token_file(dir / "spaced", "token_file"), Error);
  const auto c = parse_config("[server]\ntcp_address = \"127.0.0.1:1\"\ntokens_file = \"" +
                                  (dir / "tokens").string() + "\"\nadmin_token_file = \"" +
                                  (dir / "token").string() + "\"\n",
                              "test.toml");
  validate(c);
  EXPECT_EQ(c.tokens.size(), 2u);
  EXPECT_EQ(c.admin_token, "s3cret");
}

TEST(ServiceConfig, Sizes) {
  EXPECT_EQ(parse_size("4096", "x"), 4096u);
  EXPECT_EQ(parse_size("512MiB", "x"), uint64_t(512) << 20);
  EXPECT_EQ(parse_size("1.5 GiB", "x"), uint64_t(3) << 29);
  EXPECT_EQ(parse_size("2TB", "x"), 2'000'000'000'000u);
  EXPECT_THROW(parse_size("GiB", "x"), Error);
  EXPECT_THROW(parse_size("-1GiB", "x"), Error);
}

}  // namespace
}  // namespace cuzk::service
