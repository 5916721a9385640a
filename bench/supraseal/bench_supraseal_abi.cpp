// The supraseal C interface under load: `circuits` circuits per generate_groth16_proofs_c call,
// as bellperson makes it (one assignment per circuit from its synthesis; here the same
// circuit's assignment, bellman_assignment of a .r1cs and .wtns), against the library's
// in-process engine configured by CUZK_CONFIG. Prints one JSON results file (docs/DESIGN.md §6,
// op "supraseal_abi"):
//
//   bench_supraseal_abi --params key.params --r1cs c.r1cs --wtns w.wtns --log-n 24
//       [--circuits 10] [--calls 3] [--device NAME] [--commit HASH] [--command TEXT]
//
// Per call: wall seconds, GPU busy (the engine's timeline over the call, mean of the GPUs),
// host CPU seconds of this process (getrusage), and after all calls the peak RSS. A call of one
// circuit is timed too, so that the batch can be compared with `circuits` × one partition.
// Key bytes copied host→device per call (gpu/msm/staged_bytes.hpp): 0 for a key in VRAM; for
// a streamed key, what its chunks cost in PCIe traffic.

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "cuzk/supraseal.h"
#include "formats/r1cs.hpp"
#include "formats/wtns.hpp"
#include "gpu/msm/staged_bytes.hpp"
#include "groth16/bellman.hpp"
#include "groth16/bellman_assignment.hpp"
#include "supraseal/runtime.hpp"

namespace {

using namespace cuzk;
using Clock = std::chrono::steady_clock;

struct Args {
  std::string params, r1cs, wtns, device = "unknown", commit = "unknown", command;
  int log_n = 0, circuits = 10, calls = 3;
};

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

struct Call {
  double wall_s = 0, cpu_s = 0, gpu_busy = 0;
  uint64_t staged_bytes = 0;
};

Call timed_call(const std::vector<Assignment>& provers, const std::vector<cuzk_fr_t>& r,
                const std::vector<cuzk_fr_t>& s, SRS& srs) {
  std::vector<groth16_proof> proofs(provers.size());
  auto& engine = supraseal::Runtime::get().engine();
  const double cpu0 = cpu_seconds();
  const uint64_t staged0 = gpu::msm::staged_base_bytes().load();
  const auto t0 = Clock::now();
  RustError e = generate_groth16_proofs_c(provers.data(), provers.size(), r.data(), s.data(),
                                          proofs.data(), &srs);
  const auto t1 = Clock::now();
  Call c;
  c.staged_bytes = gpu::msm::staged_base_bytes().load() - staged0;
  c.cpu_s = cpu_seconds() - cpu0;
  c.wall_s = std::chrono::duration<double>(t1 - t0).count();
  if (e.code != 0) {
    std::cerr << "generate_groth16_proofs_c: " << (e.message ? e.message : "?") << "\n";
    std::free(e.message);
    std::exit(1);
  }
  const int gpus = engine.backend().device_count();
  for (int d = 0; d < gpus; ++d) c.gpu_busy += engine.timeline().gpu_busy_fraction(d, t0, t1);
  if (gpus > 0) c.gpu_busy /= gpus;
  return c;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--params")
      a.params = v;
    else if (k == "--r1cs")
      a.r1cs = v;
    else if (k == "--wtns")
      a.wtns = v;
    else if (k == "--log-n")
      a.log_n = std::stoi(v);
    else if (k == "--circuits")
      a.circuits = std::stoi(v);
    else if (k == "--calls")
      a.calls = std::stoi(v);
    else if (k == "--device")
      a.device = v;
    else if (k == "--commit")
      a.commit = v;
    else if (k == "--command")
      a.command = v;
    else {
      std::cerr << "unknown option " << k << "\n";
      return 2;
    }
  }
  if (a.params.empty() || a.r1cs.empty() || a.wtns.empty() || a.circuits < 1 || a.calls < 1) {
    std::cerr << "usage: bench_supraseal_abi --params P --r1cs R --wtns W --log-n N "
                 "[--circuits 10] [--calls 3]\n";
    return 2;
  }
  try {
    const auto r1cs = formats::read_r1cs<groth16::BellmanCurve>(a.r1cs);
    const auto witness = formats::read_wtns<groth16::BellmanCurve>(a.wtns);
    const auto owned = groth16::bellman_assignment(r1cs, witness);
    const auto& v = owned.view();
    Assignment one{};
    one.a_aux_density = v.a_aux_density.data();
    one.a_aux_bit_len = v.a_aux_bit_len;
    one.a_aux_popcount = v.a_aux_popcount;
    one.b_inp_density = v.b_inp_density.data();
    one.b_inp_bit_len = v.b_inp_bit_len;
    one.b_inp_popcount = v.b_inp_popcount;
    one.b_aux_density = v.b_aux_density.data();
    one.b_aux_bit_len = v.b_aux_bit_len;
    one.b_aux_popcount = v.b_aux_popcount;
    const auto fr = [](const bls12_381::Fr* p) { return reinterpret_cast<const cuzk_fr_t*>(p); };
    one.a = fr(v.a.data());
    one.b = fr(v.b.data());
    one.c = fr(v.c.data());
    one.abc_size = v.a.size();
    one.inp_assignment_data = fr(v.inputs.data());
    one.inp_assignment_size = v.inputs.size();
    one.aux_assignment_data = fr(v.aux.data());
    one.aux_assignment_size = v.aux.size();

    std::vector<cuzk_fr_t> r(size_t(a.circuits)), s(size_t(a.circuits));
    for (int i = 0; i < a.circuits; ++i) {
      const auto ri = bls12_381::Fr::from_u64(7 + uint64_t(i)),
                 si = bls12_381::Fr::from_u64(11 + uint64_t(i));
      std::copy(std::begin(ri.mont), std::end(ri.mont), r[size_t(i)].limbs);
      std::copy(std::begin(si.mont), std::end(si.mont), s[size_t(i)].limbs);
    }
    SRS srs{};
    RustError e = create_SRS(&srs, a.params.c_str(), true);
    if (e.code != 0) {
      std::cerr << "create_SRS: " << e.message << "\n";
      return 1;
    }
    const std::vector<Assignment> single{one};
    const std::vector<Assignment> batch(size_t(a.circuits), one);
    const Call first = timed_call(single, r, s, srs);  // loads the key
    std::vector<double> one_wall, wall, cpu, busy, staged;
    for (int c = 0; c < a.calls; ++c) one_wall.push_back(timed_call(single, r, s, srs).wall_s);
    for (int c = 0; c < a.calls; ++c) {
      const Call call = timed_call(batch, r, s, srs);
      wall.push_back(call.wall_s);
      cpu.push_back(call.cpu_s);
      busy.push_back(call.gpu_busy);
      staged.push_back(double(call.staged_bytes));
    }
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    auto& engine = supraseal::Runtime::get().engine();
    const auto status = engine.status();
    std::string residency = "unknown";
    uint64_t key_bytes = 0;
    for (const auto& k : status.keys) {
      if (k.id.find(a.params.substr(a.params.find_last_of('/') + 1)) != std::string::npos) {
        residency = std::string(engine::key_tier_name(k.tier));
        key_bytes = k.bytes;
      }
    }
    const double w = median(wall), one_w = median(one_wall);
    std::printf(
        "{\"device\": \"%s\", \"commit\": \"%s\", \"command\": \"%s\",\n \"results\": [\n"
        "  {\"op\": \"supraseal_abi\", \"curve\": \"bls12_381\", \"shape\": \"porep\", "
        "\"log_n\": %d, \"circuits\": %d, \"backend\": \"%s\", \"key_residency\": \"%s\",\n"
        "   \"median_ms\": %.1f, \"min_ms\": %.1f, \"max_ms\": %.1f, \"runs\": %d,\n"
        "   \"wall_s_per_call\": %.3f, \"one_circuit_wall_s\": %.3f, "
        "\"batch_vs_circuits_x_one\": %.3f, \"first_call_s\": %.3f,\n"
        "   \"gpu_busy\": %.3f, \"host_cpu_s_per_call\": %.3f, \"host_cpu_s_per_circuit\": %.3f, "
        "\"peak_rss_bytes\": %ld, \"h2d_key_bytes_per_call\": %.0f, \"key_bytes\": %llu}\n ]}\n",
        a.device.c_str(), a.commit.c_str(), a.command.c_str(), a.log_n, a.circuits,
        status.backend.c_str(), residency.c_str(), w * 1e3,
        *std::min_element(wall.begin(), wall.end()) * 1e3,
        *std::max_element(wall.begin(), wall.end()) * 1e3, a.calls, w, one_w,
        w / (a.circuits * one_w), first.wall_s, median(busy), median(cpu), median(cpu) / a.circuits,
        long(u.ru_maxrss) * 1024, median(staged), static_cast<unsigned long long>(key_bytes));
    drop_SRS(&srs);
    return 0;
  } catch (const std::exception& ex) {
    std::cerr << "bench_supraseal_abi: " << ex.what() << "\n";
    return 1;
  }
}
