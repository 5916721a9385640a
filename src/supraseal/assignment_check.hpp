#pragma once
// One circuit of a supraseal batch as an engine partition: the checks that need no key points
// (pointers, sizes, bitmaps against their popcounts, counts against the key's vectors, the
// evaluations against the key's domain, the blinding scalars) and the zero-copy view the
// engine proves from. The checks the prover makes itself (every scalar reduced, a·b = c on the
// domain) happen when the partition runs and fail its job with their own message.
//
// The view points into the caller's memory, which must outlive the partition (the C
// interface's contract). Plain functions.

#include <cstddef>

#include "cuzk/supraseal_types.h"
#include "engine/job.hpp"
#include "supraseal/runtime.hpp"

namespace cuzk::supraseal {

// Throws kInvalidInput "circuit <index>: <problem>".
engine::PartitionInput assignment_input(const Assignment& circuit, size_t index,
                                        const KeyShape& key, const cuzk_fr_t& r,
                                        const cuzk_fr_t& s);

}  // namespace cuzk::supraseal
