// The one matrix product of the CPU backend: C = A B or C += A B on small packed tiles
// (every product of attention forward and backward is one of these: Q K^T, P V, dO V^T,
// P^T dO, dS^T Q, dS K). A is read through two strides, so a transposed operand (P^T,
// dS^T) costs nothing; B and C are row-major with their column count padded.
#pragma once

#include <cstdint>

namespace amkl::cpu {

/// Columns of C computed per micro-kernel step: B and C must have `n` padded to a multiple
/// of this (their padding columns must be readable; C's padding columns get garbage).
template <typename T>
constexpr int64_t gemm_col_block() {
  return 64 / int64_t(sizeof(T));  // two 32-byte vectors: 16 floats, 8 doubles
}

template <typename T>
struct GemmArgs {
  int64_t m = 0, n = 0, k = 0;  ///< C is m x n (n a multiple of gemm_col_block<T>()), k inner
  const T* a = nullptr;         ///< A(i, l) = a[i * a_row_stride + l * a_k_stride]
  int64_t a_row_stride = 0, a_k_stride = 0;
  const T* b = nullptr;  ///< B(l, j) = b[l * ldb + j]
  int64_t ldb = 0;
  T* c = nullptr;  ///< C(i, j) = c[i * ldc + j]
  int64_t ldc = 0;
  bool accumulate = false;  ///< C += A B instead of C = A B
};

/// Runs the product with the best micro-kernel this CPU supports (AVX2+FMA when present;
/// chosen once, at the first call).
template <typename T>
void gemm_tile(const GemmArgs<T>& g);

}  // namespace amkl::cpu
