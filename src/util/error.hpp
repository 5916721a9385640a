#pragma once
// The typed error of the core. Code below the C ABI and the gRPC boundary throws cuzk::Error;
// those boundaries convert the kind into a status code and the message into text for users.
// Bad input (a truncated file, a point off the curve, an encoding ≥ p) is kInvalidInput and
// names what was wrong; kInternal means a bug or an environment failure.

#include <stdexcept>
#include <string>

namespace cuzk {

enum class ErrorKind {
  kInvalidInput,  // the caller's data is malformed or inconsistent
  kNotFound,      // a named key, job or file does not exist
  kResourceExhausted,
  kCuda,          // a CUDA call failed
  kInternal,
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message, const char* file = nullptr, int line = 0)
      : std::runtime_error(file ? message + " [" + file + ":" + std::to_string(line) + "]"
                                : message),
        kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

}  // namespace cuzk

#define CUZK_THROW(kind, message) throw ::cuzk::Error((kind), (message), __FILE__, __LINE__)
#define CUZK_INVALID_INPUT(message) CUZK_THROW(::cuzk::ErrorKind::kInvalidInput, (message))
