// .wtns for both curves. An accepted file must survive a round trip through the writer.

#include <cstddef>
#include <cstdint>
#include <span>

#include "formats/wtns.hpp"
#include "fuzz/fuzz_support.hpp"

using namespace cuzk::formats;

template <class Curve>
void round_trip(std::span<const uint8_t> bytes) {
  std::vector<typename Curve::Fr> witness;
  WtnsReadOptions options{.expected_count = std::nullopt, .threads = 1};
  if (!cuzk::fuzz::accepts([&] { witness = parse_wtns<Curve>(bytes, "fuzz.wtns", options); })) {
    return;
  }
  std::vector<uint8_t> written = wtns_to_bytes<Curve>(witness);
  if (parse_wtns<Curve>(written, "rewritten.wtns", options) != witness) {
    cuzk::fuzz::broken("wtns round trip");
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  round_trip<Bn254>(bytes);
  round_trip<Bls12_381>(bytes);
  return 0;
}
