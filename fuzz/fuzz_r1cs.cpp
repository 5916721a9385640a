// .r1cs for both curves. An accepted file must survive a round trip through the writer.

#include <cstddef>
#include <cstdint>
#include <span>

#include "formats/r1cs.hpp"
#include "fuzz/fuzz_support.hpp"

using namespace cuzk::formats;

template <class Curve>
void round_trip(std::span<const uint8_t> bytes) {
  R1cs<Curve> r1cs;
  R1csReadOptions options{.read_labels = true, .threads = 1};
  if (!cuzk::fuzz::accepts([&] { r1cs = parse_r1cs<Curve>(bytes, "fuzz.r1cs", options); })) {
    return;
  }
  std::vector<uint8_t> written = r1cs_to_bytes(r1cs);
  if (!(parse_r1cs<Curve>(written, "rewritten.r1cs", options) == r1cs)) {
    cuzk::fuzz::broken("r1cs round trip");
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  cuzk::fuzz::accepts([&] { parse_r1cs_header(bytes, "fuzz.r1cs"); });
  round_trip<Bn254>(bytes);
  round_trip<Bls12_381>(bytes);
  return 0;
}
