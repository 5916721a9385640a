#pragma once
// Checks of the errors that bad input must raise: a cuzk::Error of kind kInvalidInput whose
// message names the problem. On a failure the whole message is printed.

#include <gtest/gtest.h>

#include <exception>
#include <functional>
#include <string>

#include "util/error.hpp"

namespace cuzk::test {

// The message of the cuzk::Error of kind kInvalidInput that fn throws; a test failure (and
// "") if it throws nothing or something else.
inline std::string invalid_input_message(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidInput) << e.what();
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "expected cuzk::Error, got std::exception: " << e.what();
    return "";
  }
  ADD_FAILURE() << "expected a cuzk::Error, nothing was thrown";
  return "";
}

}  // namespace cuzk::test

#define EXPECT_CONTAINS(message, part)                                      \
  do {                                                                      \
    const std::string text_ = (message);                                    \
    EXPECT_NE(text_.find(part), std::string::npos) << "message: " << text_; \
  } while (0)

// statement throws a cuzk::Error of kind kInvalidInput whose message contains fragment.
#define EXPECT_INVALID_INPUT(statement, fragment) \
  EXPECT_CONTAINS(::cuzk::test::invalid_input_message([&] { statement; }), fragment)
