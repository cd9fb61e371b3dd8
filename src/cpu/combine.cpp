// CPU split-KV combine. Per (row, head): softmax merges the splits by their LSEs (a split
// with LSE = -inf, i.e. no keys, has weight 0; all -inf gives out = 0, LSE = -inf);
// pointwise activations have no normalization, so the partial outputs simply add up.
// Computed in double: the op is memory-bound, and this keeps it exact enough for f64.
#include <cmath>
#include <limits>
#include <vector>

#include "cpu/convert.h"
#include "cpu/cpu_backend.h"
#include "cpu/parallel.h"

namespace amkl::cpu {
namespace {

double load_scalar(const void* base, DType dt, int64_t offset) {
  double x = 0.0;
  load_row(static_cast<const char*>(base) + offset * storage_size(dt), dt, 1, &x);
  return x;
}

}  // namespace

void attention_combine(const detail::CombineParams& p) {
  const int64_t dv = p.head_dim_v;
  parallel_workers(p.rows * p.heads, [&](WorkQueue& queue) {
    std::vector<double> acc(dv), part(dv), weight(p.splits);
    for (int64_t item = queue.next(); item >= 0; item = queue.next()) {
      const int64_t r = item / p.heads, h = item % p.heads;
      const int64_t op_base = p.row_offset(r, p.op_row_strides) + h * p.op_head_stride;
      double lse = 0.0;
      if (p.softmax) {
        const int64_t lp_base = p.row_offset(r, p.lp_row_strides) + h * p.lp_head_stride;
        double max_lse = -std::numeric_limits<double>::infinity();
        for (int64_t s = 0; s < p.splits; ++s) {
          weight[size_t(s)] = load_scalar(p.lse_partial, p.partial_dtype, lp_base + s * p.lp_split_stride);
          max_lse = std::max(max_lse, weight[size_t(s)]);
        }
        double sum = 0.0;
        for (int64_t s = 0; s < p.splits; ++s) {
          weight[size_t(s)] = max_lse == -std::numeric_limits<double>::infinity()
                                  ? 0.0
                                  : std::exp(weight[size_t(s)] - max_lse);
          sum += weight[size_t(s)];
        }
        lse = sum > 0.0 ? max_lse + std::log(sum) : -std::numeric_limits<double>::infinity();
        for (int64_t s = 0; s < p.splits; ++s) weight[size_t(s)] = sum > 0.0 ? weight[size_t(s)] / sum : 0.0;
      } else {
        std::fill(weight.begin(), weight.end(), 1.0);
      }
      std::fill(acc.begin(), acc.end(), 0.0);
      for (int64_t s = 0; s < p.splits; ++s) {
        // Skip weight-0 splits: their partial out may be anything (a split without keys).
        if (weight[size_t(s)] == 0.0) continue;
        const char* src = static_cast<const char*>(p.out_partial) +
                          (op_base + s * p.op_split_stride) * storage_size(p.partial_dtype);
        load_row(src, p.partial_dtype, dv, part.data());
        for (int64_t c = 0; c < dv; ++c) acc[size_t(c)] += weight[size_t(s)] * part[size_t(c)];
      }
      char* dst = static_cast<char*>(p.out) +
                  (p.row_offset(r, p.o_row_strides) + h * p.o_head_stride) * storage_size(p.out_dtype);
      store_row(acc.data(), dv, dst, p.out_dtype);
      if (p.softmax && p.lse) {
        // The API gives lse the dtype of lse_partial.
        char* l = static_cast<char*>(p.lse) +
                  (p.row_offset(r, p.l_row_strides) + h * p.l_head_stride) * storage_size(p.partial_dtype);
        store_row(&lse, 1, l, p.partial_dtype);
      }
    }
  });
}

}  // namespace amkl::cpu
