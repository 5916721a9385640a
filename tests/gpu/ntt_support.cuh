#pragma once
// Shared pieces of the GPU NTT tests: the operations and orders to sweep, the CPU reference of
// each, the schedule the device runs for each, and a host emulation of the device kernels that
// runs the kernels' own per-element functions (src/gpu/ntt/pass.hpp) in the kernels' loop order.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gpu/ntt/ntt.hpp"
#include "gpu/ntt/pass.hpp"
#include "gpu/ntt/plan.hpp"
#include "gpu/ntt/tables.hpp"
#include "ntt/instances.hpp"
#include "tests/support/test_random.hpp"

namespace cuzk::gpu::ntt::test {

using ::cuzk::test::random_elements;

using cuzk::ntt::Convention;
using cuzk::ntt::Domain;

enum class Op { kForward, kInverse, kCosetForward, kCosetInverse };
inline constexpr Op kOps[] = {Op::kForward, Op::kInverse, Op::kCosetForward, Op::kCosetInverse};
inline constexpr Order kOrders[] = {Order::kNatural, Order::kBitReversed};

inline const char* name(Op op) {
  switch (op) {
    case Op::kForward:
      return "forward";
    case Op::kInverse:
      return "inverse";
    case Op::kCosetForward:
      return "coset_forward";
    default:
      return "coset_inverse";
  }
}
inline const char* name(Order o) { return o == Order::kNatural ? "N" : "BR"; }
inline const char* name(Convention c) { return c == Convention::kSnarkjs ? "snarkjs" : "bellman"; }
inline bool is_coset(Op op) { return op == Op::kCosetForward || op == Op::kCosetInverse; }
inline bool is_inverse(Op op) { return op == Op::kInverse || op == Op::kCosetInverse; }

template <class Fr>
void cpu_apply(const Domain<Fr>& d, Op op, std::vector<Fr>& v, Order in, Order out) {
  switch (op) {
    case Op::kForward:
      d.forward(v, in, out);
      break;
    case Op::kInverse:
      d.inverse(v, in, out);
      break;
    case Op::kCosetForward:
      d.coset_forward(v, in, out);
      break;
    case Op::kCosetInverse:
      d.coset_inverse(v, in, out);
      break;
  }
}

// The schedule DeviceDomain runs for `op`.
template <class Fr>
std::vector<Step<Fr>> op_steps(const Domain<Fr>& d, Op op, Order in, Order out,
                               bool inputs_montgomery = true) {
  if (is_inverse(op)) {
    return inverse_steps<Fr>(d.log_size(), in, out, is_coset(op), inputs_montgomery, d.size_inv());
  }
  return forward_steps<Fr>(d.log_size(), in, out, is_coset(op), inputs_montgomery);
}

// One pass on the host exactly as the kernel runs it: per tile, the load phase for every
// butterfly of the first stage (thread by thread, iteration by iteration), each shared-memory
// stage for every butterfly, the store phase for every butterfly of the last stage; single
// elements in passes of fewer than 2 stages.
template <class Fr, bool kDif>
void emulate_pass(const PassArgs<Fr>& args, std::vector<Fr>& tile_memory) {
  const PassShape& shape = args.shape;
  const TileMemory<Fr> shared{tile_memory.data(), uint32_t(tile_memory.size()),
                              SlotSpread::of(shape.log_lanes)};
  const unsigned k = shape.stages;
  const uint32_t threads = std::min(shape.butterflies_per_stage(), Tuning::kThreadsPerBlock);
  // f(lo_slot) for every butterfly of stage i, in the kernel's order.
  const auto for_each_butterfly = [&](unsigned i, const auto& f) {
    const StagePlacement& m = args.placement[i];
    for (uint32_t thread = 0; thread < threads; ++thread) {
      const uint32_t lo =
          lo_slot(m, thread >> kLogWarpThreads, thread & ((1u << kLogWarpThreads) - 1));
      for (uint32_t it = 0; it < m.iterations; ++it) f(m, lo + it * m.iteration_step);
    }
  };
  for (uint32_t tile = 0; tile < shape.tiles(); ++tile) {
    if (k < 2) {
      pass_on_one_thread<Fr, kDif>(args, shared, tile);
      continue;
    }
    for_each_butterfly(0, [&](const StagePlacement& m, uint32_t lo) {
      pass_load_pair<Fr, kDif>(args, shared, m, tile, lo);
    });
    for (unsigned i = 1; i + 1 < k; ++i) {
      for_each_butterfly(i, [&](const StagePlacement& m, uint32_t lo) {
        pass_butterfly<Fr, kDif>(args, shared, m, lo);
      });
    }
    for_each_butterfly(k - 1, [&](const StagePlacement& m, uint32_t lo) {
      pass_store_pair<Fr, kDif>(args, shared, m, tile, lo);
    });
  }
}

// Runs a schedule on the host with the device's tables, step by step as DeviceDomain::run;
// `half`: the full twiddle table (TwiddleTables::kFull), or nullptr.
template <class Fr>
void emulate(const HostTables<Fr>& tables, std::span<const Step<Fr>> steps, std::vector<Fr>& v,
             const Fr* half = nullptr) {
  const Fr* base = tables.values.data();
  for (const Step<Fr>& step : steps) {
    const unsigned log_n = step.shape.log_n;
    if (step.kind == Step<Fr>::kBitReverse) {
      for (uint32_t i = 0; i < (uint32_t(1) << log_n); ++i) {
        const uint32_t j = reverse_low_bits(i, log_n);
        if (i < j) std::swap(v[i], v[j]);
      }
      continue;
    }
    const PassArgs<Fr> args = pass_args(tables, base, step, v.data(), half);
    std::vector<Fr> shared(step.shape.tile_elements());
    if (step.kind == Step<Fr>::kDifPass) {
      emulate_pass<Fr, true>(args, shared);
    } else {
      emulate_pass<Fr, false>(args, shared);
    }
  }
}

// The inputs of every transform check: random, all zero, one-hot at a random position.
template <class Fr>
std::vector<std::pair<std::string, std::vector<Fr>>> input_shapes(size_t n, std::mt19937_64& rng) {
  std::vector<Fr> one_hot(n, Fr::zero());
  one_hot[rng() % n] = Fr::random(rng);
  return {{"random", random_elements<Fr>(n, rng)},
          {"zero", std::vector<Fr>(n, Fr::zero())},
          {"one-hot", one_hot}};
}

// Mismatching elements; the first few are printed with their index and the context.
template <class Fr>
size_t count_mismatches(const std::vector<Fr>& expected, const std::vector<Fr>& actual,
                        const std::string& context) {
  size_t mismatches = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (std::memcmp(&expected[i], &actual[i], sizeof(Fr)) == 0) continue;
    if (++mismatches <= 2) std::printf("  mismatch: %s, element %zu\n", context.c_str(), i);
  }
  return mismatches;
}

inline void report(const std::string& what, size_t cases, size_t mismatches) {
  std::printf("[gpu-diff] %s: %zu cases, %zu mismatches\n", what.c_str(), cases, mismatches);
  std::fflush(stdout);
}

// Sizes of the sweeps: every log size 1..20 (the pass decomposition changes with the size),
// plus 22 and 24 with CUZK_TEST_SCALE ≥ 2.
inline std::vector<unsigned> sweep_log_sizes() {
  std::vector<unsigned> sizes;
  for (unsigned k = 1; k <= 20; ++k) sizes.push_back(k);
  if (cuzk::test::scale() >= 2) {
    sizes.push_back(22);
    sizes.push_back(24);
  }
  return sizes;
}

}  // namespace cuzk::gpu::ntt::test
