// `cuzk prove | verify | setup | gen | example`: the Groth16 commands on files. prove runs one
// job through an engine made in this process, the same engine `cuzk serve` runs (the backend
// from engine::make_backend); verify and setup are thin wrappers over
// groth16/key_file_commands.hpp, gen over circuits/synthetic.hpp. prove is a drop-in for
// rapidsnark and `snarkjs groth16 prove` (same arguments, same JSON files); verify for
// `snarkjs groth16 verify`. Both also take bellman keys: a .params (found by content) proves with --r1cs into a
// 192-byte proof file, and verify takes its .vk (or the .params) and that proof file; public
// inputs are public.json either way. Exit codes: 0 success (verify: the proof is valid), 1 the
// proof does not verify or an internal error, 2 bad input (main.cpp maps cuzk::Error kinds).
// Output files are written to <name>.partial and renamed, so a failed command leaves an
// existing file untouched. Steps longer than a second print progress lines (progress.hpp).

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "circuits/synthetic.hpp"
#include "cli/commands.hpp"
#include "cli/progress.hpp"
#include "engine/backend_factory.hpp"
#include "engine/engine.hpp"
#include "formats/curve_id.hpp"
#include "formats/input_file.hpp"
#include "groth16/blinding_bytes.hpp"
#include "groth16/key_file.hpp"
#include "groth16/key_file_commands.hpp"
#include "util/error.hpp"

namespace cuzk::cli {
namespace {

namespace fs = std::filesystem;

void write_text(const fs::path& path, std::string_view text) {
  fs::path partial = path;
  partial += ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    if (!out) CUZK_INVALID_INPUT("cannot create " + partial.string());
    out.write(text.data(), std::streamsize(text.size()));
    out.close();
    if (!out) CUZK_THROW(ErrorKind::kInternal, "cannot write " + partial.string());
  }
  std::error_code error;
  fs::rename(partial, path, error);
  if (error) CUZK_THROW(ErrorKind::kInternal, "cannot replace " + path.string());
}

formats::CurveId parse_curve(const std::string& name) {
  if (name == "bn254" || name == "bn128") return formats::CurveId::kBn254;
  if (name == "bls12_381" || name == "bls12381" || name == "bls12-381") {
    return formats::CurveId::kBls12_381;
  }
  CUZK_INVALID_INPUT("unknown curve '" + name + "' (expected bn254 or bls12_381)");
}

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

void print_timings(const nlohmann::ordered_json& t) {
  for (const auto& [stage, ms] : t.items()) {
    std::fprintf(stderr, "  %-18s %10.2f ms\n", stage.c_str(), ms.get<double>());
  }
}

void print_insecure_warning() {
  std::fprintf(stderr,
               "WARNING: development setup with toxic waste from this machine's random source. "
               "The key is INSECURE: whoever ran it can forge proofs. Never use it in "
               "production.\n");
}

struct ProveArgs {
  // proof: "" is proof.json for a .zkey, proof.bin (192 bytes) for a .params.
  std::string key, wtns, proof, pub = "public.json", r1cs;
  bool json = false, check_key_subgroups = false;
  std::string backend = "auto", key_memory = "auto";
  std::string blinding;  // "R,S": fixed blinding scalars; "": fresh random ones
};

// A decimal or 0x-hex integer below 2^256 as 32 little-endian bytes (whether it is below the
// key's scalar modulus is checked once the key is known: groth16::blinding_from_bytes).
std::array<uint8_t, 32> integer_bytes(std::string_view text, const std::string& what) {
  std::array<uint8_t, 32> out{};
  const std::string shown(text);
  unsigned base = 10;
  if (text.starts_with("0x") || text.starts_with("0X")) {
    base = 16;
    text.remove_prefix(2);
  }
  if (text.empty()) CUZK_INVALID_INPUT(what + ": '" + shown + "' is not an integer");
  for (const char ch : text) {
    unsigned digit = 0;
    if (ch >= '0' && ch <= '9') {
      digit = unsigned(ch - '0');
    } else if (base == 16 && ch >= 'a' && ch <= 'f') {
      digit = unsigned(ch - 'a') + 10;
    } else if (base == 16 && ch >= 'A' && ch <= 'F') {
      digit = unsigned(ch - 'A') + 10;
    } else {
      CUZK_INVALID_INPUT(what + ": '" + shown + "' is not a decimal or 0x-hex integer");
    }
    unsigned carry = digit;
    for (uint8_t& byte : out) {
      const unsigned v = unsigned(byte) * base + carry;
      byte = uint8_t(v);
      carry = v >> 8;
    }
    if (carry != 0) CUZK_INVALID_INPUT(what + ": " + shown + " does not fit 256 bits");
  }
  return out;
}

// --blinding "R,S".
groth16::BlindingBytes parse_blinding(const std::string& text) {
  const size_t comma = text.find(',');
  if (comma == std::string::npos) {
    CUZK_INVALID_INPUT("--blinding " + text + ": expected R,S (two integers)");
  }
  return {integer_bytes(std::string_view(text).substr(0, comma), "--blinding r"),
          integer_bytes(std::string_view(text).substr(comma + 1), "--blinding s")};
}

// The engine's stage times of the job (engine/job.hpp, StageTimes): key_load includes reading
// the key; synthesis the witness's parsing and checks (and a, b, c on the CPU); gpu the
// NTTs and MSMs (on the CPU backend too); total the wall time from submission to the proof.
nlohmann::ordered_json timings_json(const engine::StageTimes& t) {
  return {{"queue_ms", t.queue_ms},         {"key_load_ms", t.key_load_ms},
          {"synthesis_ms", t.synthesis_ms}, {"stage_ms", t.stage_ms},
          {"gpu_ms", t.gpu_ms},             {"epilogue_ms", t.epilogue_ms},
          {"total_ms", t.total_ms}};
}

// Where a prove command's wall time goes around its job: the backend's start (the CUDA
// context), measuring the key for its budgets, the engine's start, the job (submission to
// result: timings_json's total), and the engine's stop (freeing the key and the staging).
struct CommandTimes {
  double backend_ms = 0, measure_key_ms = 0, engine_start_ms = 0, job_ms = 0, engine_stop_ms = 0;
};

nlohmann::ordered_json command_json(const CommandTimes& t) {
  return {{"backend_ms", t.backend_ms},   {"measure_key_ms", t.measure_key_ms},
          {"engine_start_ms", t.engine_start_ms}, {"job_ms", t.job_ms},
          {"engine_stop_ms", t.engine_stop_ms}};
}

// One job of one partition, through an engine made here for it: one worker, one GPU (or the
// CPU), the key's tier from --key-memory.
engine::JobResult prove_one(const ProveArgs& a, std::string& backend_name, CommandTimes& times) {
  if (a.backend != "cpu" && a.backend != "cuda" && a.backend != "auto") {
    CUZK_INVALID_INPUT("--backend " + a.backend + ": expected cpu, cuda or auto");
  }
  if (a.key_memory != "vram" && a.key_memory != "host" && a.key_memory != "auto") {
    CUZK_INVALID_INPUT("--key-memory " + a.key_memory + ": expected vram, host or auto");
  }
  engine::BackendChoice choice;
  choice.name = a.backend;
  choice.cpu.check_key_subgroups = a.check_key_subgroups;
  choice.cuda.check_key_subgroups = a.check_key_subgroups;
  choice.cuda.partitions_per_device = 1;
  choice.cuda.staging_per_device = 1;
  choice.cuda.max_devices = 1;
  auto start = std::chrono::steady_clock::now();
  const auto lap = [&start]() {
    const double ms = milliseconds_since(start);
    start = std::chrono::steady_clock::now();
    return ms;
  };
  std::unique_ptr<engine::Backend> backend = engine::make_backend(choice);
  backend_name = backend->name();
  times.backend_ms = lap();

  const engine::KeySource source{a.key, 0, a.r1cs};
  engine::EngineOptions options;
  options.workers_per_gpu = 1;
  options.prepare_ahead = false;
  options.cpu_workers = 1;
  options.keys.budgets = engine::default_key_budgets(*backend, std::span(&source, 1), 1,
                                                     options.vram_margin_bytes);
  if (backend_name == "cuda" && a.key_memory == "vram") {
    options.keys.budgets.erase(engine::KeyTier::kPinned);
  } else if (backend_name == "cuda" && a.key_memory == "host") {
    // The points in pinned memory: VRAM only for what a pinned key keeps there.
    const engine::TierBytes pinned = backend->key_charges(source, engine::KeyTier::kPinned);
    const auto vram = pinned.find(engine::KeyTier::kVram);
    options.keys.budgets[engine::KeyTier::kVram] = vram != pinned.end() ? vram->second : 0;
  }
  times.measure_key_ms = lap();
  auto engine = engine::Engine::create(options, std::move(backend));
  engine->register_key("key", source);
  times.engine_start_ms = lap();
  engine::JobSpec job;
  job.key_id = "key";
  // Opened now: a regular file only ("not a regular file" for /dev/zero, a FIFO, a folder).
  job.partitions.push_back({nullptr, formats::InputFile::open(a.wtns, {})});
  if (!a.blinding.empty()) job.partitions.back().blinding = parse_blinding(a.blinding);
  const engine::JobId id = engine->submit(std::move(job));
  engine::JobResult result = engine->await(id, std::chrono::hours(24 * 365));
  times.job_ms = lap();
  engine->shutdown(engine::ShutdownMode::kCancel);
  engine.reset();  // the key, the staging and the arena freed here, not after the timing
  times.engine_stop_ms = lap();
  if (result.state == engine::JobState::kFailed) {
    throw Error(result.error_kind.value_or(ErrorKind::kInternal), result.error_message);
  }
  if (result.state != engine::JobState::kSucceeded || result.partitions.size() != 1) {
    CUZK_THROW(ErrorKind::kInternal, "the proof did not finish");
  }
  return result;
}

int run_prove(const ProveArgs& a) {
  const groth16::KeyFileShape key = groth16::KeyFile::inspect({a.key, a.r1cs});
  ProgressPrinter progress("prove");
  progress.stage("loading the key and proving");
  std::string backend;
  CommandTimes command;
  const engine::JobResult result = prove_one(a, backend, command);
  progress.finish();
  const engine::PartitionOutput& out = result.partitions.front();
  const auto format = groth16::ProofFormat(out.format);
  const std::string proof_path =
      !a.proof.empty() ? a.proof : groth16::default_proof_file_name(format);
  write_text(proof_path, std::string_view(reinterpret_cast<const char*>(out.proof.data()),
                                          out.proof.size()));
  write_text(a.pub, out.public_inputs);
  const nlohmann::ordered_json t = timings_json(result.timings.sum);
  if (a.json) {
    std::puts(nlohmann::ordered_json({{"curve", formats::snarkjs_curve_name(key.curve)},
                                      {"format", groth16::key_format_name(key.format)},
                                      {"backend", backend},
                                      {"proof", proof_path},
                                      {"public", a.pub},
                                      {"timings", t},
                                      {"command_timings", command_json(command)}})
                  .dump(2)
                  .c_str());
  } else {
    std::fprintf(stderr, "proof written to %s, public inputs to %s (%s, %s key, %s)\n",
                 proof_path.c_str(), a.pub.c_str(),
                 std::string(formats::curve_display_name(key.curve)).c_str(),
                 groth16::key_format_name(key.format), backend.c_str());
    print_timings(t);
  }
  return kExitOk;
}

int run_verify(const std::string& vk, const std::string& pub, const std::string& proof, bool json) {
  const auto start = std::chrono::steady_clock::now();
  const groth16::VerifyFilesResult r = groth16::verify_files_timed(vk, pub, proof);
  const double total_ms = milliseconds_since(start);
  if (json) {
    std::puts(nlohmann::ordered_json(
                  {{"valid", r.valid},
                   {"curve", formats::snarkjs_curve_name(r.curve)},
                   {"format", groth16::key_format_name(r.format)},
                   {"timings",
                    {{"read_ms", r.read_ms}, {"verify_ms", r.verify_ms}, {"total_ms", total_ms}}}})
                  .dump(2)
                  .c_str());
  } else {
    std::puts(r.valid ? "OK: the proof is valid" : "INVALID: the proof does not verify");
  }
  return r.valid ? kExitOk : kExitFailure;
}

struct SetupArgs {
  // vk: "" is verification_key.json for a .zkey, the key's name with .vk for a .params.
  std::string r1cs, key, vk, format;
  bool json = false;
};

int run_setup(const SetupArgs& a) {
  print_insecure_warning();
  const groth16::KeyFormat format = groth16::key_format_for_setup(a.format, a.key);
  std::string vk = a.vk;
  if (vk.empty()) vk = groth16::default_verification_key_path(format, a.key).string();
  const auto start = std::chrono::steady_clock::now();
  ProgressPrinter progress("setup");
  const groth16::SetupFilesResult r =
      groth16::setup_key_files(a.r1cs, format, a.key, vk, progress.callback());
  progress.finish();
  const double total_ms = milliseconds_since(start);
  nlohmann::ordered_json t = {{"read_ms", r.read_ms}, {"setup_ms", r.setup_ms}};
  if (r.bellman.qap_ms > 0) {  // a bellman setup's own stages
    t["qap_ms"] = r.bellman.qap_ms;
    t["g1_points_ms"] = r.bellman.g1_points_ms;
    t["g2_points_ms"] = r.bellman.g2_points_ms;
  }
  t["write_ms"] = r.write_ms;
  t["total_ms"] = total_ms;
  if (a.json) {
    std::puts(nlohmann::ordered_json({{"curve", formats::snarkjs_curve_name(r.curve)},
                                      {"format", groth16::key_format_name(r.format)},
                                      {"constraints", r.constraints},
                                      {"wires", r.wires},
                                      {"public", r.public_signals},
                                      {"domain_size", r.domain_size},
                                      {"key", a.key},
                                      {"verification_key", vk},
                                      {"timings", t}})
                  .dump(2)
                  .c_str());
  } else {
    std::fprintf(stderr, "key written to %s, verification key to %s\n", a.key.c_str(), vk.c_str());
  }
  return kExitOk;
}

struct GenArgs {
  std::string curve = "bls12_381", shape = "porep", r1cs = "circuit.r1cs", wtns = "witness.wtns";
  uint32_t constraints = 1024, public_inputs = 1;
  uint64_t seed = 0;
  double bit_fraction = 0.9;
  bool json = false;
};

int run_gen(const GenArgs& a) {
  circuits::SyntheticSpec spec;
  spec.shape = circuits::parse_shape(a.shape);
  spec.constraints = a.constraints;
  spec.public_inputs = a.public_inputs;
  spec.seed = a.seed;
  spec.bit_fraction = a.bit_fraction;
  auto stats = circuits::write_synthetic_circuit(parse_curve(a.curve), spec, a.r1cs, a.wtns);
  nlohmann::json out = {{"constraints", stats.constraints},
                        {"wires", stats.wires},
                        {"public_wires", stats.public_wires},
                        {"nnz_a", stats.nnz_a},
                        {"nnz_b", stats.nnz_b},
                        {"nnz_c", stats.nnz_c},
                        {"private_bit_fraction", stats.private_bit_fraction()},
                        {"b_aux_density", stats.b_aux_density()}};
  if (a.json) {
    std::puts(out.dump(2).c_str());
  } else {
    std::fprintf(stderr, "wrote %s and %s: %s\n", a.r1cs.c_str(), a.wtns.c_str(),
                 out.dump().c_str());
  }
  return kExitOk;
}

// The built-in example: a synthetic circuit, a development key, a proof, and its verification,
// in a scratch folder. What a newcomer runs first to see the whole pipeline work.
int run_example(const std::string& curve, uint32_t constraints, const std::string& dir,
                const std::string& backend) {
  using Clock = std::chrono::steady_clock;
  fs::create_directories(dir);
  const fs::path d(dir);
  std::fprintf(stderr, "example: %u-constraint porep-like circuit on %s in %s\n", constraints,
               curve.c_str(), dir.c_str());
  GenArgs gen;
  gen.curve = curve;
  gen.constraints = constraints;
  gen.public_inputs = 2;
  gen.seed = 1;
  gen.r1cs = (d / "circuit.r1cs").string();
  gen.wtns = (d / "witness.wtns").string();
  run_gen(gen);
  auto start = Clock::now();
  SetupArgs setup;
  setup.r1cs = gen.r1cs;
  setup.key = (d / "circuit.zkey").string();
  setup.vk = (d / "verification_key.json").string();
  run_setup(setup);
  std::fprintf(stderr, "setup: %.2f s\n",
               std::chrono::duration<double>(Clock::now() - start).count());
  ProveArgs prove{(d / "circuit.zkey").string(), gen.wtns, (d / "proof.json").string(),
                  (d / "public.json").string(), gen.r1cs};
  prove.backend = backend;
  run_prove(prove);
  int rc = run_verify((d / "verification_key.json").string(), prove.pub, prove.proof, false);
  std::fprintf(stderr,
               "The files in %s are snarkjs-compatible: `snarkjs groth16 verify %s/"
               "verification_key.json %s/public.json %s/proof.json` accepts them.\n",
               dir.c_str(), dir.c_str(), dir.c_str(), dir.c_str());
  return rc;
}

}  // namespace

void add_groth16_commands(CLI::App& app, int& exit_code) {
  static ProveArgs prove;
  auto* p = app.add_subcommand(
      "prove",
      "Prove: circuit.zkey witness.wtns [proof.json] [public.json] (like rapidsnark), or "
      "key.params witness.wtns [proof.bin] [public.json] [--r1cs circuit.r1cs] (bellman)");
  p->add_option("key", prove.key, "Groth16 proving key: .zkey (snarkjs) or .params (bellman)")
      ->required()
      ->check(CLI::ExistingFile);
  p->add_option("witness", prove.wtns, "Witness (.wtns)")->required()->check(CLI::ExistingFile);
  p->add_option("proof", prove.proof,
                "Output proof: proof.json (.zkey) or the 192-byte proof.bin (.params)");
  p->add_option("public", prove.pub, "Output public.json");
  p->add_option("--r1cs", prove.r1cs,
                "The circuit's .r1cs: a .params key's matrices (default: the .r1cs beside the "
                "key); for a .zkey, checks the witness constraint by constraint first")
      ->check(CLI::ExistingFile);
  p->add_flag("--check-key-subgroups", prove.check_key_subgroups,
              "Check that every point of the key is in its prime-order subgroup, naming the "
              "first one that is not (slow; by default only the finished proof is checked)");
  p->add_option("--backend", prove.backend,
                "cuda (the GPU), cpu, or auto: the GPU when one is present (default)");
  p->add_option("--key-memory", prove.key_memory,
                "on the GPU: where the key's points stay: vram, host (pinned host memory, "
                "streamed into each MSM: for keys larger than the GPU's memory), or auto: vram "
                "when the key fits (default)");
  p->add_flag("--json", prove.json, "Print the stage timings as JSON");
  p->add_option("--blinding", prove.blinding,
                "R,S: fixed blinding scalars (decimal or 0x hex, below the curve's scalar "
                "modulus) instead of fresh random ones, for proofs to compare byte for byte "
                "with another prover's. Tests only: whoever knows them can learn about the "
                "witness from the proof");
  p->callback([&exit_code] { exit_code = run_prove(prove); });

  static std::string vk, pub, proof;
  static bool verify_json = false;
  auto* v =
      app.add_subcommand("verify",
                         "Verify: verification_key.json public.json proof.json (like snarkjs), or "
                         "key.vk|key.params public.json proof.bin (bellman)");
  v->add_option("verification_key", vk, "verification_key.json, or a bellman .vk or .params")
      ->required()
      ->check(CLI::ExistingFile);
  v->add_option("public", pub, "public.json")->required()->check(CLI::ExistingFile);
  v->add_option("proof", proof, "proof.json, or the 192-byte proof of a bellman key")
      ->required()
      ->check(CLI::ExistingFile);
  v->add_flag("--json", verify_json, "Print the result and the timings as JSON");
  v->callback([&exit_code] { exit_code = run_verify(vk, pub, proof, verify_json); });

  static SetupArgs setup;
  auto* s = app.add_subcommand(
      "setup",
      "INSECURE development setup: circuit.r1cs circuit.zkey [verification_key.json], or "
      "circuit.r1cs circuit.params [circuit.vk] (bellman, BLS12-381)");
  s->add_option("r1cs", setup.r1cs)->required()->check(CLI::ExistingFile);
  s->add_option("key", setup.key, "Output key: .zkey, or .params for bellman")->required();
  s->add_option("verification_key", setup.vk,
                "Output verification key (default verification_key.json, or <key>.vk)");
  s->add_option("--format", setup.format, "zkey or params (default: from the key's extension)");
  s->add_flag("--json", setup.json, "Print the counts and stage timings as JSON");
  s->callback([&exit_code] { exit_code = run_setup(setup); });

  static GenArgs gen;
  auto* g = app.add_subcommand("gen", "Write a synthetic satisfiable circuit (.r1cs + .wtns)");
  g->add_option("--curve", gen.curve, "bn254 or bls12_381");
  g->add_option("--shape", gen.shape, "porep, dense or chain");
  g->add_option("--constraints", gen.constraints, "Number of constraints (any, ≥ 1)");
  g->add_option("--public", gen.public_inputs, "Public inputs");
  g->add_option("--seed", gen.seed, "Seed (same seed, same files)");
  g->add_option("--bit-fraction", gen.bit_fraction, "porep: share of witness values in {0,1}");
  g->add_option("--r1cs", gen.r1cs, "Output .r1cs");
  g->add_option("--wtns", gen.wtns, "Output .wtns");
  g->add_flag("--json", gen.json, "Print the counts as JSON");
  g->callback([&exit_code] { exit_code = run_gen(gen); });

  static std::string example_curve = "bn254", example_dir = "cuzk-example",
                     example_backend = "auto";
  static uint32_t example_constraints = 1u << 12;
  auto* e = app.add_subcommand(
      "example", "Built-in example: generate a circuit, set up a key, prove and verify");
  e->add_option("--curve", example_curve, "bn254 or bls12_381");
  e->add_option("--constraints", example_constraints, "Circuit size");
  e->add_option("--dir", example_dir, "Folder for the files");
  e->add_option("--backend", example_backend, "cuda, cpu, or auto: the GPU when one is present");
  e->callback([&exit_code] {
    exit_code = run_example(example_curve, example_constraints, example_dir, example_backend);
  });
}

}  // namespace cuzk::cli
