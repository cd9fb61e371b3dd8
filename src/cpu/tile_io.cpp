#include "cpu/tile_io.h"

namespace amkl::cpu {

std::vector<int64_t> rows_outside_sequences(const detail::SeqSide& side) {
  std::vector<int64_t> out;
  if (!side.jagged) {
    for (int64_t b = 0; b < side.batch; ++b) {
      for (int64_t i = side.len(b); i < side.dense_len; ++i) out.push_back(b * side.dense_len + i);
    }
    return out;
  }
  std::vector<char> covered(size_t(side.total_rows), 0);
  for (int64_t b = 0; b < side.batch; ++b) {
    const int64_t s = side.start(b);
    for (int64_t i = 0; i < side.len(b); ++i) covered[size_t(s + i)] = 1;
  }
  for (int64_t r = 0; r < side.total_rows; ++r) {
    if (!covered[size_t(r)]) out.push_back(r);
  }
  return out;
}

void zero_rows(const std::vector<int64_t>& rows, const detail::TensorLayout& layout,
               const detail::SeqSide& side, DType dtype, int64_t heads, int64_t dim) {
  const int64_t esize = storage_size(dtype);
  for (int64_t r : rows) {
    // A dense row index is b * L + i; a jagged one is the row itself (batch_stride is 0).
    const int64_t b = side.jagged ? 0 : r / side.dense_len;
    const int64_t i = side.jagged ? r : r % side.dense_len;
    char* base = static_cast<char*>(layout.data) +
                 (b * layout.batch_stride + i * layout.row_stride) * esize;
    for (int64_t h = 0; h < heads; ++h) store_zeros(dim, base + h * layout.head_stride * esize, dtype);
  }
}

}  // namespace amkl::cpu
