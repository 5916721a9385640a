#pragma once
// What every target shares: parse, accept only cuzk::Error of kind kInvalidInput as a
// refusal, and trap on any broken property, so that libFuzzer records the input.

#include <cstdio>
#include <cstdlib>

#include "util/error.hpp"

namespace cuzk::fuzz {

// Runs fn; a cuzk::Error of kind kInvalidInput is the expected way to refuse bad bytes, and
// every other escape (another error kind, another exception) is a finding. Returns whether
// fn completed.
template <class Fn>
bool accepts(Fn&& fn) {
  try {
    fn();
    return true;
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kInvalidInput) return false;
    std::fprintf(stderr, "unexpected error kind: %s\n", e.what());
    std::abort();
  }
}

// A property of accepted input that failed (a round trip that changed the content).
[[noreturn]] inline void broken(const char* what) {
  std::fprintf(stderr, "property broken: %s\n", what);
  std::abort();
}

}  // namespace cuzk::fuzz
