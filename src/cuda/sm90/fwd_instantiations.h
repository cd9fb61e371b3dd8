// The one table of Hopper forward kernel instantiations: (dtype tag, C++ element type, d, d_v).
// Each row is compiled by its own .cu file (fwd_<dtype>_d<d>[_<dv>].cu) so builds parallelize;
// cuda_backend.cu dispatches on the same table.
// d = 256 (kBlockN 64, one Q stage): with a kernel per activation it spills 40-48 B at 232
// consumer registers, as d = 128 does (it spilled 120-312 B with all activations in one kernel).
#pragma once

#include "common/attention_params.h"

#if defined(AMKL_SM90_MEASURE_BF16_D128_ONLY)
// Measurement builds only (cmake -DAMKL_SM90_MEASURE_BF16_D128_ONLY=ON): one kernel file.
#define AMKL_SM90_FWD_INSTANTIATIONS(X) X(BFloat16, cutlass::bfloat16_t, 128, 128)
#else
#define AMKL_SM90_FWD_INSTANTIATIONS(X)   \
  X(BFloat16, cutlass::bfloat16_t, 64, 64)   \
  X(BFloat16, cutlass::bfloat16_t, 128, 128) \
  X(Float16, cutlass::half_t, 64, 64)        \
  X(Float16, cutlass::half_t, 128, 128)        \
  X(BFloat16, cutlass::bfloat16_t, 192, 128) \
  X(Float16, cutlass::half_t, 192, 128)        \
  X(BFloat16, cutlass::bfloat16_t, 256, 256) \
  X(Float16, cutlass::half_t, 256, 256)
#endif

namespace amkl::cuda::sm90 {

/// Launches the forward for one instantiation; max_len_q bounds the query lengths.
template <DType kDType, int kD, int kDv>
void run_fwd(const detail::AttentionParams& p, int max_len_q);

}  // namespace amkl::cuda::sm90

/// Defines run_fwd for one row of the table (used by the per-instantiation .cu files).
#define AMKL_SM90_FWD_DEFINE(DT, ELEM, D, DV)                                               \
  namespace amkl::cuda::sm90 {                                                              \
  template <>                                                                               \
  void run_fwd<DType::DT, D, DV>(const detail::AttentionParams& p, int max_len_q) {          \
    launch_fwd_for_shape<ELEM, D, DV>(p, max_len_q);                                        \
  }                                                                                         \
  }
