// The keys each row of a Hopper forward tile may see under the mask (common/mask.h), in the
// form the consumers apply to masked key blocks: a bound of the tile's first row computed once
// per tile in 64 bits (decode_tile, on the scheduler thread), and each row's bound derived
// from it in 32 bits where a block needs masking. Host-callable: tests/cpp/test_sm90_row_keys.cpp.
#pragma once

#include <cstdint>

#include "common/hd.h"
#include "common/mask.h"

namespace amkl::cuda::sm90 {

/// A tile's rows are its first row m0 plus dr, 0 <= dr < kRowSpan (kBlockM is at most 192).
constexpr int kRowSpan = 256;

/// A row bound of the tile's first row as SeqMask computes it before the clamp to [0, len_k]
/// (the first allowed key, or one past the last), limited to [-kRowSpan, len_k]. Row m0 + dr's
/// bound is the first row's plus dr, clamped to [0, len_k]; from the limited value that clamp
/// gives the same key for every dr in [0, kRowSpan).
AMKL_HD int limit_row0_bound(int64_t raw, int64_t len_k) {
  return int(raw < -kRowSpan ? -kRowSpan : (raw > len_k ? len_k : raw));
}

/// The tile's first-row bounds: [begin0, end0) before each row's clamp.
struct TileKeyBounds {
  int begin0 = 0, end0 = 0;
};

AMKL_HD TileKeyBounds tile_key_bounds(const detail::SeqMask& mask, int64_t m0) {
  const int64_t begin =
      mask.window_left < 0 ? -int64_t(kRowSpan) : m0 + mask.offset - mask.window_left;
  const int64_t end =
      mask.window_right < 0 ? mask.len_k : m0 + mask.offset + mask.window_right + 1;
  TileKeyBounds b;
  b.begin0 = limit_row0_bound(begin, mask.len_k);
  b.end0 = limit_row0_bound(end, mask.len_k);
  return b;
}

/// Row m0 + dr's bound (0 <= dr < kRowSpan) from the first row's limited bound, clamped to
/// [0, len_k]: SeqMask::key_begin / key_end of that row, clamped as clamp_key does. In
/// unsigned arithmetic, shifted by kRowSpan, so that no len_k below 2^31 can overflow it.
AMKL_HD int row_key_bound(int bound0, int dr, int len_k) {
  const uint32_t shifted = uint32_t(bound0) + uint32_t(kRowSpan) + uint32_t(dr);
  const uint32_t cap = uint32_t(len_k) + uint32_t(kRowSpan);
  const uint32_t m = shifted < cap ? shifted : cap;
  return m < uint32_t(kRowSpan) ? 0 : int(m - uint32_t(kRowSpan));
}

}  // namespace amkl::cuda::sm90
