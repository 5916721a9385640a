// The binary container: header, section table, lookups and bounds-checked reads, under each
// format's magic, plus the curve sniffer that reads the first section of any of them.

#include <cstddef>
#include <cstdint>
#include <span>

#include "formats/binary_container.hpp"
#include "formats/curve_id.hpp"
#include "fuzz/fuzz_support.hpp"

using namespace cuzk::formats;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  for (ContainerSpec spec :
       {ContainerSpec{"r1cs", 1}, ContainerSpec{"wtns", 2}, ContainerSpec{"zkey", 1}}) {
    cuzk::fuzz::accepts([&] {
      BinaryContainer c = BinaryContainer::parse(bytes, "fuzz", spec);
      for (const SectionEntry& e : c.sections()) {
        if (e.offset + e.size > size) cuzk::fuzz::broken("section outside the file");
        cuzk::fuzz::accepts([&] {
          SectionReader reader(c.section(e.id, "fuzzed"), c.where(e.id, "fuzzed"));
          while (reader.remaining() >= 8) reader.u64("a word");
          reader.u32("a half word");
        });
      }
    });
  }
  cuzk::fuzz::accepts([&] { sniff_curve(bytes, "fuzz"); });
  return 0;
}
