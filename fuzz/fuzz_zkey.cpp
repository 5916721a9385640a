// .zkey (Groth16) for both curves, with full point validation. An accepted key must survive a
// round trip through the writer.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "formats/zkey.hpp"
#include "fuzz/fuzz_support.hpp"

using namespace cuzk::formats;

template <class Curve>
void round_trip(std::span<const uint8_t> bytes) {
  Groth16Zkey<Curve> key;
  ZkeyReadOptions options{.subgroup_check = cuzk::io::SubgroupCheck::kOn, .threads = 1};
  if (!cuzk::fuzz::accepts([&] { key = parse_zkey<Curve>(bytes, "fuzz.zkey", options); })) {
    return;
  }
  std::vector<uint8_t> written = zkey_to_bytes(key);
  // A key without section 10 is written with a fresh one (zero hash, no contributions).
  if (key.mpc_params.empty()) key.mpc_params = fresh_mpc_params(std::array<uint8_t, 64>{});
  if (!(parse_zkey<Curve>(written, "rewritten.zkey", options) == key)) {
    cuzk::fuzz::broken("zkey round trip");
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  round_trip<Bn254>(bytes);
  round_trip<Bls12_381>(bytes);
  return 0;
}
