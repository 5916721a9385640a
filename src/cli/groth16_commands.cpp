// `cuzk prove | verify | setup | gen | example`: the Groth16 commands on files, thin wrappers
// over groth16/files.hpp and circuits/synthetic.hpp. prove is a drop-in for rapidsnark and
// `snarkjs groth16 prove` (same arguments, same JSON files); verify for `snarkjs groth16
// verify`. Both also take bellman keys: a .params (found by content) proves with --r1cs into a
// 192-byte proof file, and verify takes its .vk (or the .params) and that proof file; public
// inputs are public.json either way. Exit codes: 0 success (verify: the proof is valid), 1 the
// proof does not verify or an internal error, 2 bad input (main.cpp maps cuzk::Error kinds).
// Output files are written to <name>.partial and renamed, so a failed command leaves an
// existing file untouched. Steps longer than a second print progress lines (progress.hpp).

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
#include "formats/curve.hpp"
#include "groth16/files.hpp"
#include "util/error.hpp"

#if defined(CUZK_WITH_CUDA)
#include "gpu/device_info.hpp"
#include "gpu/prover/file_prover.hpp"
#endif

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

// abc_ms is the synthesis (a, b, c), h_ms the NTTs of H; the private-wire MSM is C in a .zkey,
// L in a .params. total_ms is the prover's; read_ms comes before it.
nlohmann::ordered_json timings_json(const groth16::ProveFilesResult& r) {
  const auto& t = r.timings;
  const bool params = r.format == groth16::KeyFormat::kParams;
  return {{"read_ms", r.read_ms},         {"witness_check_ms", t.witness_check_ms},
          {"abc_ms", t.abc_ms},           {"h_ms", t.h_ms},
          {"msm_a_ms", t.msm_a_ms},       {"msm_b1_ms", t.msm_b1_ms},
          {"msm_b2_ms", t.msm_b2_ms},     {params ? "msm_l_ms" : "msm_c_ms", t.msm_c_ms},
          {"msm_h_ms", t.msm_h_ms},       {"upload_ms", t.upload_ms},
          {"epilogue_ms", t.epilogue_ms}, {"self_verify_ms", t.self_verify_ms},
          {"total_ms", t.total_ms}};
}

// --backend: "cpu", "cuda", or "auto" (cuda when this build has it and a device is present).
// --key-memory (cuda only): "vram", "host" (pinned, streamed into the MSMs) or "auto" (VRAM
// when the key fits).
const groth16::FileProver& choose_prover(const std::string& backend,
                                         const std::string& key_memory = "auto") {
  if (backend != "cpu" && backend != "cuda" && backend != "auto") {
    CUZK_INVALID_INPUT("--backend " + backend + ": expected cpu, cuda or auto");
  }
  if (key_memory != "vram" && key_memory != "host" && key_memory != "auto") {
    CUZK_INVALID_INPUT("--key-memory " + key_memory + ": expected vram, host or auto");
  }
  if (backend == "cpu") return groth16::cpu_file_prover();
#if defined(CUZK_WITH_CUDA)
  const bool gpu = gpu::device_count() > 0;
  if (backend == "cuda" && !gpu) {
    CUZK_THROW(ErrorKind::kNotFound,
               "--backend cuda: no CUDA device is usable here (none present, or no driver)");
  }
  const auto placement = key_memory == "vram"   ? gpu::prover::KeyPlacement::kDevice
                         : key_memory == "host" ? gpu::prover::KeyPlacement::kStreamed
                                                : gpu::prover::KeyPlacement::kAuto;
  return gpu ? gpu::prover::gpu_file_prover(placement) : groth16::cpu_file_prover();
#else
  if (backend == "cuda") {
    CUZK_THROW(ErrorKind::kNotFound,
               "--backend cuda: this cuzk was built without CUDA (nvcc was not found when it "
               "was configured)");
  }
  return groth16::cpu_file_prover();
#endif
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
};

int run_prove(const ProveArgs& a) {
  const groth16::FileProver& prover = choose_prover(a.backend, a.key_memory);
  ProgressPrinter progress("prove");
  groth16::ProveFilesOptions options;
  options.prover = &prover;
  if (!a.r1cs.empty()) options.r1cs = a.r1cs;
  if (a.check_key_subgroups) options.key_subgroup_check = io::SubgroupCheck::kOn;
  options.on_stage = progress.callback();
  auto result = groth16::prove_files(a.key, a.wtns, options);
  progress.finish();
  const bool params = result.format == groth16::KeyFormat::kParams;
  const std::string proof_path = !a.proof.empty() ? a.proof : params ? "proof.bin" : "proof.json";
  if (params) {
    write_text(proof_path,
               std::string_view(reinterpret_cast<const char*>(result.proof_bytes.data()),
                                result.proof_bytes.size()));
  } else {
    write_text(proof_path, result.proof_json);
  }
  write_text(a.pub, result.public_json);
  const nlohmann::ordered_json t = timings_json(result);
  if (a.json) {
    std::puts(nlohmann::ordered_json({{"curve", formats::snarkjs_curve_name(result.curve)},
                                      {"format", groth16::key_format_name(result.format)},
                                      {"backend", prover.name()},
                                      {"proof", proof_path},
                                      {"public", a.pub},
                                      {"timings", t}})
                  .dump(2)
                  .c_str());
  } else {
    std::fprintf(stderr, "proof written to %s, public inputs to %s (%s, %s key, %s)\n",
                 proof_path.c_str(), a.pub.c_str(),
                 std::string(formats::curve_display_name(result.curve)).c_str(),
                 groth16::key_format_name(result.format), prover.name());
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

// --format when given, else the key's extension: .params is bellman, anything else a .zkey.
groth16::KeyFormat setup_format(const SetupArgs& a) {
  if (a.format == "zkey") return groth16::KeyFormat::kZkey;
  if (a.format == "params") return groth16::KeyFormat::kParams;
  if (!a.format.empty()) {
    CUZK_INVALID_INPUT("unknown key format '" + a.format + "' (expected zkey or params)");
  }
  return fs::path(a.key).extension() == ".params" ? groth16::KeyFormat::kParams
                                                  : groth16::KeyFormat::kZkey;
}

int run_setup(const SetupArgs& a) {
  print_insecure_warning();
  const groth16::KeyFormat format = setup_format(a);
  const bool params = format == groth16::KeyFormat::kParams;
  std::string vk = a.vk;
  if (vk.empty())
    vk = params ? fs::path(a.key).replace_extension(".vk").string() : "verification_key.json";
  const auto start = std::chrono::steady_clock::now();
  ProgressPrinter progress("setup");
  const groth16::SetupFilesResult r =
      groth16::setup_key_files(a.r1cs, format, a.key, vk, progress.callback());
  progress.finish();
  const double total_ms = milliseconds_since(start);
  nlohmann::ordered_json t = {{"read_ms", r.read_ms}, {"setup_ms", r.setup_ms}};
  if (params) {
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
      "key.params witness.wtns [proof.bin] [public.json] --r1cs circuit.r1cs (bellman)");
  p->add_option("key", prove.key, "Groth16 proving key: .zkey (snarkjs) or .params (bellman)")
      ->required()
      ->check(CLI::ExistingFile);
  p->add_option("witness", prove.wtns, "Witness (.wtns)")->required()->check(CLI::ExistingFile);
  p->add_option("proof", prove.proof,
                "Output proof: proof.json (.zkey) or the 192-byte proof.bin (.params)");
  p->add_option("public", prove.pub, "Output public.json");
  p->add_option("--r1cs", prove.r1cs,
                "The circuit's .r1cs: required for a .params key; for a .zkey, checks the "
                "witness constraint by constraint first")
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
