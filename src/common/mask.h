// The attention mask of DESIGN.md section 2, shared by every backend.
#pragma once

#include <cstdint>

#include "common/hd.h"

namespace amkl::detail {

/// The mask of one (query sequence, key sequence) pair. Query row i may see key j iff
/// 0 <= j < len_k and lo(i) <= j <= hi(i), with lo/hi from the window around the diagonal
/// j = i + offset (offset = len_k - len_q for bottom-right alignment, 0 for top-left).
struct SeqMask {
  int64_t len_q = 0, len_k = 0;
  int64_t offset = 0;
  int64_t window_left = -1, window_right = -1;  ///< -1: unbounded

  SeqMask() = default;
  AMKL_HD SeqMask(int64_t lq, int64_t lk, bool bottom_right, int64_t wl, int64_t wr)
      : len_q(lq), len_k(lk), offset(bottom_right ? lk - lq : 0), window_left(wl),
        window_right(wr) {}

  /// First allowed key of row i (may be >= len_k: row empty).
  AMKL_HD int64_t key_begin(int64_t i) const {
    if (window_left < 0) return 0;
    const int64_t lo = i + offset - window_left;
    return lo < 0 ? 0 : lo;
  }
  /// One past the last allowed key of row i (may be <= key_begin: row empty).
  AMKL_HD int64_t key_end(int64_t i) const {
    if (window_right < 0) return len_k;
    const int64_t hi = i + offset + window_right + 1;
    return hi < 0 ? 0 : (hi > len_k ? len_k : hi);
  }
  AMKL_HD bool allowed(int64_t i, int64_t j) const {
    return j >= key_begin(i) && j < key_end(i);
  }
};

}  // namespace amkl::detail
