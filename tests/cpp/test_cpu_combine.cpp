// Split-KV combine: forward on pieces of the key sequences (float32/float64 partial out plus
// LSE), combined, equals the forward on the whole sequences; softmax (LSE-weighted, with an
// empty split of LSE = -inf contributing nothing) and pointwise (a plain sum).
#include <gtest/gtest.h>

#include "reference.h"
#include "test_cpu_cases.h"
#include "test_support.h"

namespace amkl::test {
namespace {

// Dense q [B, Lq, H, d], dense K/V [B, Lk, H_kv, .] split along Lk at `cuts` (sub-views: the
// same strides, a shifted data pointer). No mask: a mask's diagonal would move with Lk.
void check_split_combine(Activation act, DType in_dtype, DType partial_dtype, DType out_dtype,
                         double tol, std::mt19937_64& rng) {
  ProblemSpec spec;
  spec.name = "split";
  spec.dtype = in_dtype;
  spec.heads = 3;
  spec.heads_kv = 1;
  spec.d = 8;
  spec.dv = 12;
  spec.q = dense(2, 11);
  spec.kv = dense(2, 150);
  spec.arrangement = Arrangement::Padded;
  const Problem pr = make_problem(spec, rng);
  const bool softmax = act == Activation::Softmax;
  AttentionOptions o;
  o.activation = act;

  const std::vector<int64_t> cuts = {0, 70, 70, 133, 150};  // includes an empty split
  const int64_t splits = int64_t(cuts.size()) - 1;
  const int64_t B = 2, L = 11, H = 3, DV = 12;
  HostTensor out_partial(partial_dtype, {splits, B, L, H, DV});
  // lse_partial [S, B, L, H] as a strided view of per-split forward LSEs [B, H, L].
  HostTensor lse_store(partial_dtype, {splits, B, H, L});
  HostTensor lse_partial_view;
  out_partial.poison();
  lse_store.poison();
  for (int64_t s = 0; s < splits; ++s) {
    const int64_t j0 = cuts[size_t(s)], len = cuts[size_t(s) + 1] - j0;
    AttentionInputs in = pr.inputs();
    auto sub = [&](TensorRef t) {
      t.data = static_cast<char*>(t.data) + j0 * t.strides[1] * dtype_size(t.dtype);
      t.shape[1] = len;
      return t;
    };
    in.k = sub(in.k);
    in.v = sub(in.v);
    HostTensor out(partial_dtype == DType::Float64 && in_dtype == DType::Float64 ? DType::Float64
                                                                                : DType::Float32,
                   {B, L, H, DV});
    HostTensor lse(DType::Float32, {B, H, L});
    AttentionForwardOutputs fo;
    fo.out = out.ref();
    if (softmax) fo.lse = lse.ref();
    attention_forward(in, o, fo);
    for (int64_t i = 0; i < out.numel(); ++i) out_partial.set(s * out.numel() + i, out.get(i));
    for (int64_t i = 0; i < lse.numel(); ++i) lse_store.set(s * lse.numel() + i, lse.get(i));
  }
  const std::vector<int64_t> st = lse_store.strides();  // [S, B, H, L] -> view [S, B, L, H]
  CombineArgs c;
  c.out_partial = out_partial.ref();
  HostTensor out(out_dtype, {B, L, H, DV}), lse(partial_dtype, {B, L, H});
  out.poison();
  lse.poison();
  c.out = out.ref();
  c.softmax = softmax;
  if (softmax) {
    const int64_t shape[4] = {splits, B, L, H};
    const int64_t strides[4] = {st[0], st[1], st[3], st[2]};
    c.lse_partial = TensorRef::make(lse_store.data(), partial_dtype, 4, shape, strides);
    c.lse = lse.ref();
  }
  attention_combine(c);

  const RefForward want = reference_forward(pr.inputs(), o);
  EXPECT_EQ(out.count_nan(), 0);
  EXPECT_TRUE(close(out.values(), want.out, tol, "combined out"));
  if (softmax) {
    // want.lse is [B, H, L]; combined lse is [B, L, H].
    std::vector<double> got_lse(want.lse.size());
    for (int64_t b = 0; b < B; ++b)
      for (int64_t i = 0; i < L; ++i)
        for (int64_t h = 0; h < H; ++h)
          got_lse[size_t((b * H + h) * L + i)] = lse.get((b * L + i) * H + h);
    EXPECT_TRUE(close(got_lse, want.lse, std::max(tol, 1e-6), "combined lse"));
  }
}

TEST(CpuCombine, SplitKvEqualsWhole) {
  AMKL_SEEDED_RNG(rng);
  for (Activation a : {Activation::Softmax, Activation::Gelu, Activation::Raw}) {
    SCOPED_TRACE(activation_name(a));
    // float64 partials from a float64 forward: exact up to the float32 LSE weights.
    check_split_combine(a, DType::Float64, DType::Float64, DType::Float64, 1e-6, rng);
    check_split_combine(a, DType::Float32, DType::Float32, DType::Float32, 2e-5, rng);
    check_split_combine(a, DType::Float32, DType::Float32, DType::BFloat16, 8e-3, rng);
  }
}

TEST(CpuCombine, AllSplitsEmptyGivesZeroAndMinusInf) {
  HostTensor op(DType::Float32, {2, 3, 1, 4}), lp(DType::Float32, {2, 3, 1});
  for (int64_t i = 0; i < op.numel(); ++i) op.set(i, 7.0);  // must be ignored
  for (int64_t i = 0; i < lp.numel(); ++i) lp.set(i, -INFINITY);
  HostTensor out(DType::Float32, {3, 1, 4}), lse(DType::Float32, {3, 1});
  out.poison();
  lse.poison();
  CombineArgs c;
  c.out_partial = op.ref();
  c.lse_partial = lp.ref();
  c.out = out.ref();
  c.lse = lse.ref();
  attention_combine(c);
  for (double x : out.values()) EXPECT_EQ(x, 0.0);
  for (double x : lse.values()) EXPECT_EQ(x, -INFINITY);
}

}  // namespace
}  // namespace amkl::test
