#include "cuda/common/outside_rows.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>

#include "cuda/common/cuda_check.h"
#include "cuda/common/device_info.h"

namespace amkl::cuda {
namespace {

/// True when row r (dense: b*L + i; jagged: the absolute row) is inside a used sequence.
__device__ bool row_inside(const detail::SeqSide& s, int64_t r) {
  if (!s.jagged) {
    const int64_t b = r / s.dense_len;
    return r % s.dense_len < s.len(b);
  }
  const int32_t* cu = s.cu_seqlens;
  if (s.batch == 0 || r < cu[0] || r >= cu[s.batch]) return false;
  if (!s.seqused) return true;  // the sequences tile [cu[0], cu[batch]) without gaps
  int64_t lo = 0, hi = s.batch;  // largest b with cu[b] <= r, in [0, batch)
  while (hi - lo > 1) {
    const int64_t mid = (lo + hi) / 2;
    if (cu[mid] <= r) lo = mid; else hi = mid;
  }
  return r - cu[lo] < s.len(lo);
}

/// Each thread tests one row (a grid-stride loop over the rows); each warp then writes the
/// outside rows its lanes found, one row at a time with the lanes along the columns. Rows
/// inside sequences cost a test only: for full batches the whole kernel is a few microseconds
/// (it was a block per 8 rows with a binary search per row: 0.12 ms at 0.3 M rows, 1 ms at
/// 2.4 M, a quarter of the GDPA rows' time; bench/NOTES.md step 9).
__global__ void outside_rows_kernel(detail::SeqSide s, int64_t rows, void* out, int out_kind,
                                    int64_t o_batch, int64_t o_row, int64_t o_head, int heads,
                                    int dim, float* lse, int64_t l_batch, int64_t l_head,
                                    int64_t l_row) {
  const int lane = int(threadIdx.x % 32);
  const int64_t stride = int64_t(gridDim.x) * blockDim.x;
  // `first` is the same for the whole block, so every lane of a warp runs the same iterations.
  for (int64_t first = int64_t(blockIdx.x) * blockDim.x; first < rows; first += stride) {
    const int64_t mine = first + threadIdx.x;
    unsigned outside = __ballot_sync(0xffffffffu, mine < rows && !row_inside(s, mine));
    while (outside != 0) {
      const int src = __ffs(outside) - 1;
      outside &= outside - 1;
      const int64_t r = __shfl_sync(0xffffffffu, mine, src);
      const int64_t bb = s.jagged ? 0 : r / s.dense_len;
      const int64_t i = s.jagged ? r : r % s.dense_len;
      for (int h = 0; h < heads; ++h) {
        const int64_t base = bb * o_batch + i * o_row + h * o_head;
        for (int c = lane; c < dim; c += 32) {
          if (out_kind == 0) static_cast<float*>(out)[base + c] = 0.f;
          else if (out_kind == 1) static_cast<__nv_bfloat16*>(out)[base + c] = __float2bfloat16(0.f);
          else static_cast<__half*>(out)[base + c] = __float2half(0.f);
        }
        if (lse && lane == 0) lse[bb * l_batch + h * l_head + i * l_row] = -INFINITY;
      }
    }
  }
}

}  // namespace

void write_rows_outside_sequences(const detail::AttentionParams& p) {
  const detail::SeqSide& s = p.q_side;
  if (!s.jagged && !s.seqused) return;
  const int64_t rows = s.jagged ? s.total_rows : s.batch * s.dense_len;
  if (rows == 0 || p.heads_q == 0) return;
  const int out_kind = p.out_dtype == DType::Float32 ? 0 : (p.out_dtype == DType::BFloat16 ? 1 : 2);
  const int sms = current_device_sms();
  const int threads = 256;
  const int64_t blocks = std::min<int64_t>((rows + threads - 1) / threads, int64_t(8) * sms);
  outside_rows_kernel<<<unsigned(blocks), threads, 0, static_cast<cudaStream_t>(p.stream)>>>(
      s, rows, p.out.data, out_kind, s.jagged ? 0 : p.out.batch_stride, p.out.row_stride,
      p.out.head_stride, int(p.heads_q), int(p.head_dim_v), p.lse,
      s.jagged ? 0 : p.lse_batch_stride, p.lse_head_stride, p.lse_row_stride);
  AMKL_CUDA_CHECK(cudaGetLastError());
}

}  // namespace amkl::cuda
