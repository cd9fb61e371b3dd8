// Moving rows between the user's strided tensors (any storage dtype) and the packed
// compute-type tiles the tile products work on, plus the zero-fill of rows outside every
// sequence. Addressing is that of detail::TensorLayout.
#pragma once

#include <cstdint>
#include <vector>

#include "common/attention_params.h"
#include "cpu/convert.h"

namespace amkl::cpu {

/// The storage of one strided [.., rows, heads, dim] tensor with its side and dtype.
struct RowSource {
  const detail::TensorLayout* layout;
  const detail::SeqSide* side;
  DType dtype;

  /// Element offset of (sequence b, in-sequence row i, head h, column 0).
  int64_t offset(int64_t b, int64_t i, int64_t h) const {
    return b * layout->batch_stride + (side->start(b) + i) * layout->row_stride +
           h * layout->head_stride;
  }
  const void* row(int64_t b, int64_t i, int64_t h) const {
    return static_cast<const char*>(layout->data) + offset(b, i, h) * storage_size(dtype);
  }
  void* mutable_row(int64_t b, int64_t i, int64_t h) const {
    return static_cast<char*>(layout->data) + offset(b, i, h) * storage_size(dtype);
  }
};

/// Round n up to a multiple of m.
inline int64_t round_up(int64_t n, int64_t m) { return (n + m - 1) / m * m; }

/// dst[r * ld + c] = src(b, i0 + r, h, c) for r < rows, c < dim, rounded per `rounding`;
/// columns [dim, ld) are zeroed.
template <typename T>
void pack_rows(const RowSource& src, int64_t b, int64_t h, int64_t i0, int64_t rows,
               int64_t dim, Rounding rounding, T* dst, int64_t ld) {
  for (int64_t r = 0; r < rows; ++r) {
    T* d = dst + r * ld;
    load_row(src.row(b, i0 + r, h), src.dtype, dim, d);
    round_inplace(rounding, d, dim);
    for (int64_t c = dim; c < ld; ++c) d[c] = T(0);
  }
}

/// The transpose: dst[c * ld + r] = src(b, i0 + r, h, c) for c < dim, r < rows; columns
/// [rows, ld) of each of the dim rows are zeroed. `row_buf` is scratch of >= dim elements.
template <typename T>
void pack_rows_transposed(const RowSource& src, int64_t b, int64_t h, int64_t i0, int64_t rows,
                          int64_t dim, Rounding rounding, T* dst, int64_t ld, T* row_buf) {
  for (int64_t r = 0; r < rows; ++r) {
    load_row(src.row(b, i0 + r, h), src.dtype, dim, row_buf);
    round_inplace(rounding, row_buf, dim);
    for (int64_t c = 0; c < dim; ++c) dst[c * ld + r] = row_buf[c];
  }
  for (int64_t c = 0; c < dim; ++c) {
    for (int64_t r = rows; r < ld; ++r) dst[c * ld + r] = T(0);
  }
}

/// Fetches the rows of the next key tile into the cache while the current one is computed.
/// Rows of one head are strided (by H * d) and this machine class streams strided rows from
/// beyond L2 at only a few GB/s, so the loads must overlap the math: the lines are requested
/// a few at a time (step) from the score loop, not in one burst that the miss buffers drop.
class RowPrefetcher {
 public:
  /// Queues rows [i0, i0 + rows) of (b, h) of `src`.
  void add(const RowSource& src, int64_t b, int64_t h, int64_t i0, int64_t rows, int64_t dim) {
    const int64_t bytes = dim * storage_size(src.dtype);
    for (int64_t r = 0; r < rows; ++r) {
      const char* p = static_cast<const char*>(src.row(b, i0 + r, h));
      for (int64_t off = 0; off < bytes; off += 64) lines_.push_back(p + off);
    }
  }
  /// Requests up to n more of the queued lines.
  void step(int64_t n) {
    for (; n > 0 && next_ < lines_.size(); --n) __builtin_prefetch(lines_[next_++]);
  }
  void clear() {
    lines_.clear();
    next_ = 0;
  }
  size_t pending() const { return lines_.size() - next_; }

 private:
  std::vector<const char*> lines_;
  size_t next_ = 0;
};

/// Stores rows: dst(b, i0 + r, h, c) = src[r * ld + c] * row_scale[r] (row_scale null: 1).
/// `row_buf` is scratch of >= dim elements.
template <typename T>
void store_rows(const T* src, int64_t ld, int64_t rows, int64_t dim, const RowSource& dst,
                int64_t b, int64_t h, int64_t i0, T* row_buf, const T* row_scale = nullptr) {
  for (int64_t r = 0; r < rows; ++r) {
    const T* s = src + r * ld;
    if (row_scale) {
      for (int64_t c = 0; c < dim; ++c) row_buf[c] = s[c] * row_scale[r];
      s = row_buf;
    }
    store_row(s, dim, dst.mutable_row(b, i0 + r, h), dst.dtype);
  }
}

/// The LSE entry of (query sequence b, head h, in-sequence row i).
inline float* lse_entry(const detail::AttentionParams& p, int64_t b, int64_t h, int64_t i) {
  return p.lse + b * p.lse_batch_stride + h * p.lse_head_stride +
         (p.q_side.start(b) + i) * p.lse_row_stride;
}

/// Which rows of a side's tensor lie in no sequence: index b * L + i for dense sides
/// (i >= the sequence's length), the row index itself for jagged ones.
std::vector<int64_t> rows_outside_sequences(const detail::SeqSide& side);

/// Writes zeros to every head of each listed row of a [.., rows, heads, dim] output.
void zero_rows(const std::vector<int64_t>& rows, const detail::TensorLayout& layout,
               const detail::SeqSide& side, DType dtype, int64_t heads, int64_t dim);

}  // namespace amkl::cpu
