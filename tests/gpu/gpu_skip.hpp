#pragma once
// GPU tests on machines without a GPU (host code: usable from .cpp and .cu test files).

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "gpu/device_info.hpp"

// Skips the calling test (and passes) on machines without a GPU or driver, as in CI. With
// CUZK_REQUIRE_GPU=1 in the environment (scripts/gpu-check.sh sets it) a missing device fails
// the test instead, so that a GPU run cannot pass by skipping everything.
#define CUZK_SKIP_WITHOUT_GPU()                                                            \
  do {                                                                                     \
    if (::cuzk::gpu::device_count() == 0) {                                                \
      if (::cuzk::gpu::test::gpu_required()) {                                             \
        GTEST_FAIL() << "CUZK_REQUIRE_GPU is set but no CUDA device or driver is visible"; \
      }                                                                                    \
      GTEST_SKIP() << "no CUDA device or driver on this machine: GPU check skipped";       \
    }                                                                                      \
  } while (0)

namespace cuzk::gpu::test {

inline bool gpu_required() {
  const char* env = std::getenv("CUZK_REQUIRE_GPU");
  return env != nullptr && std::string(env) != "0" && std::string(env) != "";
}

}  // namespace cuzk::gpu::test
