// Rows of the query row space that belong to no query sequence (jagged gaps, rows past
// seqused, dense rows past a sequence's used length) get out = 0 and lse = -inf, as the
// CPU backend writes them.
#pragma once

#include "common/attention_params.h"

namespace amkl::cuda {

/// Launches on p.stream; does nothing when every row belongs to a sequence by construction
/// (dense queries without seqused).
void write_rows_outside_sequences(const detail::AttentionParams& p);

}  // namespace amkl::cuda
