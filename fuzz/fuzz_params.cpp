// bellman's BLS12-381 files: .params and .vk keys and batches of 192-byte proofs, with full
// point validation. The zcash encodings are canonical (one byte string per value), so whatever
// is accepted must be written back byte for byte.

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "formats/params.hpp"
#include "fuzz/fuzz_support.hpp"

using namespace cuzk::formats;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  const std::vector<uint8_t> input(bytes.begin(), bytes.end());

  BellmanParams params;
  ParamsReadOptions options{.subgroup_check = cuzk::io::SubgroupCheck::kOn, .threads = 1};
  if (cuzk::fuzz::accepts([&] { params = parse_bellman_params(bytes, "fuzz.params", options); }) &&
      bellman_params_to_bytes(params) != input) {
    cuzk::fuzz::broken("params round trip");
  }
  BellmanVerifyingKey vk;
  if (cuzk::fuzz::accepts([&] { vk = parse_bellman_verifying_key(bytes, "fuzz.vk"); }) &&
      bellman_verifying_key_to_bytes(vk) != input) {
    cuzk::fuzz::broken("vk round trip");
  }
  std::vector<BellmanProof> proofs;
  if (cuzk::fuzz::accepts([&] { proofs = decode_bellman_proofs(bytes, "fuzz.proofs"); }) &&
      encode_bellman_proofs(proofs) != input) {
    cuzk::fuzz::broken("proofs round trip");
  }
  return 0;
}
