#pragma once
// Seeds and sizes for randomized tests. Every test that draws random inputs takes its
// generator from here, so a failure can be replayed: the seed is printed on first use and
// fixed by CUZK_TEST_SEED=<n>. CUZK_TEST_SCALE=<k> (default 1) multiplies case counts and
// sizes: CI keeps 1, a soak run on a big machine raises it.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace cuzk::test {

inline uint64_t seed() {
  static const uint64_t value = []() -> uint64_t {
    if (const char* env = std::getenv("CUZK_TEST_SEED")) return std::strtoull(env, nullptr, 0);
    return uint64_t(std::chrono::steady_clock::now().time_since_epoch().count());
  }();
  static bool logged = false;
  if (!logged) {
    logged = true;
    std::fprintf(stderr, "[cuzk] random seed %llu (replay with CUZK_TEST_SEED=%llu)\n",
                 (unsigned long long)value, (unsigned long long)value);
  }
  return value;
}

inline double scale() {
  if (const char* env = std::getenv("CUZK_TEST_SCALE")) {
    double s = std::strtod(env, nullptr);
    if (s > 0) return s;
  }
  return 1.0;
}

// n scaled by CUZK_TEST_SCALE, at least 1.
inline size_t scaled(size_t n) {
  double v = double(n) * scale();
  return v < 1 ? 1 : size_t(v);
}

// A generator for one test: the global seed mixed with a per-test salt, so tests stay
// independent of the order in which they run.
inline std::mt19937_64 rng(const std::string& salt = "") {
  return std::mt19937_64(seed() ^ std::hash<std::string>{}(salt));
}

// n uniformly random elements of a field (anything with a static F::random(rng)).
template <class F>
std::vector<F> random_elements(size_t n, std::mt19937_64& rng) {
  std::vector<F> v(n);
  for (auto& x : v) x = F::random(rng);
  return v;
}

}  // namespace cuzk::test
