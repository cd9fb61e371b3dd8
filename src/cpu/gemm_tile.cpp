// Register-blocked tile product. The micro-kernel keeps a kRows x (2 vectors) block of C in
// registers (6 x 16 floats: 12 of the 16 AVX2 registers) and streams A (broadcast) and B
// (two vector loads) along k: 12 FMAs per 8 loads, so it runs at the FMA throughput.
#include "cpu/gemm_tile.h"

#include "cpu/simd.h"

namespace amkl::cpu {
namespace {

constexpr int kRows = 6;

template <typename T, int MR>
__attribute__((always_inline)) inline void micro_kernel(const GemmArgs<T>& g, int64_t i0,
                                                        int64_t j0) {
  using V = simd::Vec<T>;
  constexpr int W = simd::kLanes<T>;
  V acc[MR][2];
  for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = V{};
  const T* a = g.a + i0 * g.a_row_stride;
  const T* b = g.b + j0;
  for (int64_t l = 0; l < g.k; ++l) {
    const V b0 = simd::load(b);
    const V b1 = simd::load(b + W);
    for (int i = 0; i < MR; ++i) {
      const T ai = a[i * g.a_row_stride];  // scalar * vector: a broadcast FMA
      acc[i][0] += ai * b0;
      acc[i][1] += ai * b1;
    }
    a += g.a_k_stride;
    b += g.ldb;
  }
  T* c = g.c + i0 * g.ldc + j0;
  for (int i = 0; i < MR; ++i, c += g.ldc) {
    if (g.accumulate) {
      acc[i][0] += simd::load(c);
      acc[i][1] += simd::load(c + W);
    }
    simd::store(c, acc[i][0]);
    simd::store(c + W, acc[i][1]);
  }
}

template <typename T>
__attribute__((always_inline)) inline void gemm_body(const GemmArgs<T>& g) {
  constexpr int64_t NB = gemm_col_block<T>();
  for (int64_t j0 = 0; j0 < g.n; j0 += NB) {  // B's column panel stays in L1 across rows
    int64_t i0 = 0;
    for (; i0 + kRows <= g.m; i0 += kRows) micro_kernel<T, kRows>(g, i0, j0);
    switch (g.m - i0) {
      case 1: micro_kernel<T, 1>(g, i0, j0); break;
      case 2: micro_kernel<T, 2>(g, i0, j0); break;
      case 3: micro_kernel<T, 3>(g, i0, j0); break;
      case 4: micro_kernel<T, 4>(g, i0, j0); break;
      case 5: micro_kernel<T, 5>(g, i0, j0); break;
      default: break;
    }
  }
}
static_assert(kRows == 6, "gemm_body's remainder switch assumes kRows == 6");

template <typename T>
void gemm_baseline(const GemmArgs<T>& g) {
  gemm_body(g);
}

template <typename T>
AMKL_CPU_AVX2 void gemm_avx2(const GemmArgs<T>& g) {
  gemm_body(g);
}

template <typename T>
using GemmFn = void (*)(const GemmArgs<T>&);

template <typename T>
GemmFn<T> select_gemm() {
  return simd::cpu_has_avx2_fma() ? &gemm_avx2<T> : &gemm_baseline<T>;
}

}  // namespace

template <typename T>
void gemm_tile(const GemmArgs<T>& g) {
  static const GemmFn<T> fn = select_gemm<T>();
  if (g.m > 0 && g.n > 0) fn(g);
}

template void gemm_tile<float>(const GemmArgs<float>&);
template void gemm_tile<double>(const GemmArgs<double>&);

}  // namespace amkl::cpu
