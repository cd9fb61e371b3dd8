// Split-KV combine: checks, resolution into detail::CombineParams, dispatch.
#include <string>
#include <vector>

#include "amkl/attention.h"
#include "api/checks.h"
#include "common/attention_params.h"
#include "cpu/cpu_backend.h"
#include "cuda/cuda_backend.h"

namespace amkl {

using api::fail;

void attention_combine(const CombineArgs& a) {
  api::require_defined(a.out_partial, "out_partial");
  api::require_defined(a.out, "out");
  const Device dev = a.out_partial.device;
  const bool cpu = dev.type == DeviceType::CPU;
  if (cpu) {
    api::require_dtype(a.out_partial, "out_partial", {DType::Float32, DType::Float64});
  } else {
    api::require_dtype(a.out_partial, "out_partial", {DType::Float32});
  }
  const int nd = a.out_partial.ndim;
  if (nd < 3 || nd > 7) {
    fail("out_partial: expected [splits, rows..., H, d_v] with 0 to 4 row dims, got shape " +
         a.out_partial.shape_str());
  }
  if (a.out_partial.shape[0] < 1) {
    fail("out_partial: needs at least one split, got shape " + a.out_partial.shape_str());
  }
  api::require_last_contiguous(a.out_partial, "out_partial");
  const std::vector<int64_t> pshape = api::shape_vec(a.out_partial);
  const std::vector<int64_t> oshape(pshape.begin() + 1, pshape.end());
  std::vector<int64_t> lshape(pshape.begin(), pshape.end() - 1);  // [S, rows..., H]
  const std::vector<int64_t> lse_out_shape(lshape.begin() + 1, lshape.end());

  api::require_device(a.out, "out", dev, "out_partial");
  api::require_shape(a.out, "out", oshape);
  api::require_dtype(a.out, "out",
                     {DType::Float32, DType::Float64, DType::Float16, DType::BFloat16});
  api::require_last_contiguous(a.out, "out");
  api::require_writable_strides(a.out, "out");

  if (a.softmax) {
    api::require_defined(a.lse_partial, "lse_partial");
    api::require_device(a.lse_partial, "lse_partial", dev, "out_partial");
    if (a.lse_partial.dtype != a.out_partial.dtype) {
      fail(std::string("lse_partial: expected dtype ") + dtype_name(a.out_partial.dtype) +
           " (the dtype of out_partial), got " + dtype_name(a.lse_partial.dtype));
    }
    api::require_shape(a.lse_partial, "lse_partial", lshape);
    if (a.lse.defined()) {
      api::require_device(a.lse, "lse", dev, "out_partial");
      api::require_dtype(a.lse, "lse", {a.out_partial.dtype});
      api::require_shape(a.lse, "lse", lse_out_shape);
      api::require_writable_strides(a.lse, "lse");
    }
  } else {
    if (a.lse_partial.defined()) {
      fail("lse_partial: the pointwise combine is a plain sum; do not pass lse_partial");
    }
    if (a.lse.defined()) fail("lse: the pointwise combine has no lse; do not pass it");
  }

  detail::CombineParams p;
  p.device = dev;
  p.partial_dtype = a.out_partial.dtype;
  p.out_dtype = a.out.dtype;
  p.splits = pshape[0];
  p.heads = pshape[nd - 2];
  p.head_dim_v = pshape[nd - 1];
  p.softmax = a.softmax;
  p.row_ndim = nd - 3;
  p.rows = 1;
  for (int d = 0; d < p.row_ndim; ++d) {
    p.row_shape[d] = pshape[1 + d];
    p.rows *= pshape[1 + d];
    p.op_row_strides[d] = a.out_partial.strides[1 + d];
    p.o_row_strides[d] = a.out.strides[d];
    if (a.softmax) p.lp_row_strides[d] = a.lse_partial.strides[1 + d];
    if (a.lse.defined()) p.l_row_strides[d] = a.lse.strides[d];
  }
  p.out_partial = a.out_partial.data;
  p.op_split_stride = a.out_partial.strides[0];
  p.op_head_stride = a.out_partial.strides[nd - 2];
  if (a.softmax) {
    p.lse_partial = a.lse_partial.data;
    p.lp_split_stride = a.lse_partial.strides[0];
    p.lp_head_stride = a.lse_partial.strides[nd - 2];
  }
  p.out = a.out.data;
  p.o_head_stride = a.out.strides[nd - 3];
  if (a.lse.defined()) {
    p.lse = a.lse.data;
    p.l_head_stride = a.lse.strides[nd - 3];
  }
  p.stream = a.stream;
  if (cpu) {
    cpu::attention_combine(p);
  } else {
    cuda::attention_combine(p);
  }
}

}  // namespace amkl
