#pragma once
// Shared machinery of the GPU differential tests: run one functor on every element of some
// input arrays, once by a kernel and once on the host, and compare the results bit for bit.
//
// The functors (Mul, Add, ... below and in the test files) are CUZK_HD, so the very same
// source line runs on both sides: the device takes field.hpp's PTX branches, the host the
// portable 64-bit code. Each check prints one line ("[gpu-diff] <what> <op>: <n> cases,
// <m> mismatches") so that a log of the whole suite reads as a table.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/device_info.hpp"
#include "gpu/device_memory.hpp"
#include "gpu/elementwise.cuh"
#include "gpu/stream.hpp"
#include "gpu_skip.hpp"
#include "util/error.hpp"
#include "util/host_device.hpp"

namespace cuzk::gpu::test {

// Raw 64-bit words of a value made of field elements (fields, Fp2, points), most significant
// word first, for mismatch reports.
template <class T>
std::string hex_words(const T& value) {
  static_assert(sizeof(T) % 8 == 0);
  uint64_t words[sizeof(T) / 8];
  std::memcpy(words, &value, sizeof(T));
  std::string s;
  char buf[24];
  for (size_t i = sizeof(T) / 8; i-- > 0;) {
    std::snprintf(buf, sizeof buf, "%016llx", (unsigned long long)words[i]);
    s += buf;
    if (i % 6 == 0 && i != 0) s += ' ';
  }
  return s;
}

// Compares byte for byte (the layouts are identical by design), prints the summary line and
// the first few mismatches with their inputs' index, and returns the number of mismatches.
template <class T>
size_t compare_and_report(const std::string& what, const std::string& op,
                          const std::vector<T>& expected, const std::vector<T>& actual) {
  size_t mismatches = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    if (std::memcmp(&expected[i], &actual[i], sizeof(T)) == 0) continue;
    if (++mismatches <= 3) {
      std::printf("  mismatch at %zu\n    host:   %s\n    device: %s\n", i,
                  hex_words(expected[i]).c_str(), hex_words(actual[i]).c_str());
    }
  }
  std::printf("[gpu-diff] %-14s %-12s %8zu cases, %zu mismatches\n", what.c_str(), op.c_str(),
              expected.size(), mismatches);
  std::fflush(stdout);
  return mismatches;
}

// Runs `op` on both sides over the same inputs and expects identical results.
template <class Op, class... In>
void expect_same_on_device(const std::string& what, const std::string& op_name, Op op,
                           const std::vector<In>&... in) {
  auto expected = map_on_host(op, in...);
  auto actual = map_on_device(op, in...);
  EXPECT_EQ(compare_and_report(what, op_name, expected, actual), 0u)
      << what << " " << op_name << ": device results differ from the host's";
}

}  // namespace cuzk::gpu::test
