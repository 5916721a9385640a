#include "supraseal/assignment_check.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <memory>
#include <span>
#include <string>
#include <type_traits>

#include "groth16/bellman_assignment.hpp"

namespace cuzk::supraseal {
namespace {

using Fr = bls12_381::Fr;
static_assert(sizeof(cuzk_fr_t) == sizeof(Fr) && alignof(cuzk_fr_t) == alignof(Fr));
static_assert(std::is_trivially_copyable_v<Fr> && std::is_standard_layout_v<Fr>);

[[noreturn]] void refuse(size_t index, const std::string& problem) {
  CUZK_INVALID_INPUT("circuit " + std::to_string(index) + ": " + problem);
}

// The caller's scalars as the engine's: the same 32 bytes (Montgomery form, 4 limbs).
std::span<const Fr> scalars(const cuzk_fr_t* data, size_t count) {
  return {reinterpret_cast<const Fr*>(data), count};
}

// Ones among the first `bits` bits.
size_t popcount(const uint64_t* words, size_t bits) {
  size_t ones = 0;
  for (size_t w = 0; w < bits / 64; ++w) ones += std::popcount(words[w]);
  if (bits % 64 != 0) ones += std::popcount(words[bits / 64] & ((uint64_t(1) << (bits % 64)) - 1));
  return ones;
}

// A bitmap: present when it has bits, its popcount as the caller says.
void check_density(size_t index, const char* name, const uint64_t* words, size_t bits,
                   size_t claimed) {
  if (bits == 0) {
    if (claimed != 0)
      refuse(index,
             std::string(name) + ": popcount " + std::to_string(claimed) + " of an empty bitmap");
    return;
  }
  if (words == nullptr) refuse(index, std::string(name) + " is null");
  const size_t ones = popcount(words, bits);
  if (ones != claimed) {
    refuse(index, std::string(name) + ": popcount " + std::to_string(claimed) +
                      " but the bitmap has " + std::to_string(ones) + " ones in its " +
                      std::to_string(bits) + " bits");
  }
}

void check_count(size_t index, const std::string& what, size_t given, size_t key) {
  if (given != key) {
    refuse(index,
           what + " is " + std::to_string(given) + " but the key needs " + std::to_string(key));
  }
}

void check_size(size_t index, const char* what, size_t given, const char* other, size_t expected) {
  if (given != expected) {
    refuse(index, std::string(what) + " " + std::to_string(given) + " differs from " + other + " " +
                      std::to_string(expected));
  }
}

bool is_reduced(const cuzk_fr_t& value) {
  for (int i = 3; i >= 0; --i) {
    if (value.limbs[i] != Fr::kModulus.limb[i]) return value.limbs[i] < Fr::kModulus.limb[i];
  }
  return false;
}

// A reduced Montgomery-form scalar as the little-endian bytes of its integer (BlindingBytes).
std::array<uint8_t, 32> canonical_bytes(const cuzk_fr_t& value) {
  Fr::Int limbs;
  std::copy(std::begin(value.limbs), std::end(value.limbs), limbs.limb);
  const auto v = Fr::from_montgomery(limbs).to_int();
  std::array<uint8_t, 32> out;
  for (size_t i = 0; i < 32; ++i) out[i] = uint8_t(v.limb[i / 8] >> (8 * (i % 8)));
  return out;
}

std::span<const uint64_t> words(const uint64_t* data, size_t bits) {
  return {data, (bits + 63) / 64};
}

}  // namespace

engine::PartitionInput assignment_input(const Assignment& c, size_t index, const KeyShape& key,
                                        const cuzk_fr_t& r, const cuzk_fr_t& s) {
  const size_t n_inp = c.inp_assignment_size, n_aux = c.aux_assignment_size;
  if (n_inp == 0) refuse(index, "inp_assignment_size is 0 (the constant one comes first)");
  if (c.inp_assignment_data == nullptr) refuse(index, "inp_assignment_data is null");
  if (n_aux != 0 && c.aux_assignment_data == nullptr) refuse(index, "aux_assignment_data is null");
  if (c.abc_size == 0) refuse(index, "abc_size is 0");
  if (c.a == nullptr || c.b == nullptr || c.c == nullptr) refuse(index, "a, b or c is null");
  check_size(index, "a_aux_bit_len", c.a_aux_bit_len, "aux_assignment_size", n_aux);
  check_size(index, "b_aux_bit_len", c.b_aux_bit_len, "aux_assignment_size", n_aux);
  check_size(index, "b_inp_bit_len", c.b_inp_bit_len, "inp_assignment_size", n_inp);
  check_density(index, "a_aux_density", c.a_aux_density, c.a_aux_bit_len, c.a_aux_popcount);
  check_density(index, "b_inp_density", c.b_inp_density, c.b_inp_bit_len, c.b_inp_popcount);
  check_density(index, "b_aux_density", c.b_aux_density, c.b_aux_bit_len, c.b_aux_popcount);

  check_count(index, "inp_assignment_size (the key's verifying key has one IC point per input)",
              n_inp, key.ic);
  check_count(index, "aux_assignment_size (one L point per auxiliary variable)", n_aux, key.l);
  check_count(index, "inp_assignment_size + a_aux_popcount (the A query)", n_inp + c.a_aux_popcount,
              key.a);
  check_count(index, "b_inp_popcount + b_aux_popcount (the B queries)",
              c.b_inp_popcount + c.b_aux_popcount, key.b_g1);
  // bellman's domain is the smallest power of two ≥ abc_size; the key's H query has N − 1
  // points for its domain N.
  const size_t domain = key.domain();
  if (c.abc_size > domain || (domain > 2 && c.abc_size <= domain / 2)) {
    refuse(index, "abc_size " + std::to_string(c.abc_size) + " does not fit the key's domain of " +
                      std::to_string(domain) + " (it needs " + std::to_string(domain / 2 + 1) +
                      ".." + std::to_string(domain) + " evaluations)");
  }
  if (!is_reduced(r) || !is_reduced(s)) refuse(index, "r or s is not a reduced Fr element");

  auto view = std::make_shared<groth16::BellmanAssignmentView>();
  view->a_aux_density = words(c.a_aux_density, c.a_aux_bit_len);
  view->a_aux_bit_len = c.a_aux_bit_len;
  view->a_aux_popcount = c.a_aux_popcount;
  view->b_inp_density = words(c.b_inp_density, c.b_inp_bit_len);
  view->b_inp_bit_len = c.b_inp_bit_len;
  view->b_inp_popcount = c.b_inp_popcount;
  view->b_aux_density = words(c.b_aux_density, c.b_aux_bit_len);
  view->b_aux_bit_len = c.b_aux_bit_len;
  view->b_aux_popcount = c.b_aux_popcount;
  view->a = scalars(c.a, c.abc_size);
  view->b = scalars(c.b, c.abc_size);
  view->c = scalars(c.c, c.abc_size);
  view->inputs = scalars(c.inp_assignment_data, n_inp);
  view->aux = scalars(c.aux_assignment_data, n_aux);

  engine::PartitionInput input;
  input.assignment = std::move(view);
  input.blinding = groth16::BlindingBytes{canonical_bytes(r), canonical_bytes(s)};
  return input;
}

}  // namespace cuzk::supraseal
