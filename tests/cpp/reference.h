// A brute-force float64 definition of attention, written from the text of
// include/amkl/attention.h and nothing else of the library (the activation formulas aside,
// which are the spec's, from common/activation_math.h): full score matrices, plain loops,
// the inputs read through their TensorRefs. Forward: out and LSE; backward: dQ, dK, dV
// by the chain rule on the full matrices. Results are in the logical row-major order of
// the corresponding tensor's shape. Rows outside every sequence: out/dq/dk/dv 0, LSE -inf.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "amkl/amkl.h"
#include "common/activation_math.h"
#include "test_support.h"

namespace amkl::test {

namespace ref_detail {

inline double read(const TensorRef& t, std::initializer_list<int64_t> idx) {
  int64_t off = 0;
  int d = 0;
  for (int64_t i : idx) off += i * t.strides[d++];
  return bits_to_double(static_cast<const char*>(t.data) + off * dtype_size(t.dtype), t.dtype);
}
inline int64_t read_int(const TensorRef& t, int64_t i) {
  return int64_t(read(t, {i}));
}

/// One side as attention.h describes it.
struct Side {
  const TensorRef* t;
  bool jagged;
  int64_t batch, heads, dim;
  std::vector<int64_t> start, len;
  // Logical flat index of (sequence b, row i, head h, col c) in the tensor's shape.
  int64_t row_of(int64_t b, int64_t i) const { return jagged ? start[size_t(b)] + i : b * t->shape[1] + i; }
  double at(int64_t b, int64_t i, int64_t h, int64_t c) const {
    return jagged ? read(*t, {start[size_t(b)] + i, h, c}) : read(*t, {b, i, h, c});
  }
  int64_t flat(int64_t b, int64_t i, int64_t h, int64_t c, int64_t dim_) const {
    return (row_of(b, i) * heads + h) * dim_ + c;
  }
};

inline Side side_of(const TensorRef& t, const TensorRef& cu, const TensorRef& used) {
  Side s{&t, cu.defined(), 0, 0, 0, {}, {}};
  s.jagged = cu.defined();
  s.batch = s.jagged ? cu.shape[0] - 1 : t.shape[0];
  s.heads = t.shape[t.ndim - 2];
  s.dim = t.shape[t.ndim - 1];
  for (int64_t b = 0; b < s.batch; ++b) {
    s.start.push_back(s.jagged ? read_int(cu, b) : 0);
    int64_t l = s.jagged ? read_int(cu, b + 1) - read_int(cu, b) : t.shape[1];
    if (used.defined()) l = read_int(used, b);
    s.len.push_back(l);
  }
  return s;
}

inline bool allowed(const AttentionOptions& o, int64_t lq, int64_t lk, int64_t i, int64_t j) {
  const int64_t off = o.mask_align == MaskAlign::BottomRight ? lk - lq : 0;
  const int64_t wr = o.causal ? 0 : o.window_right;
  if (j < 0 || j >= lk) return false;
  if (o.window_left >= 0 && j < i + off - o.window_left) return false;
  if (wr >= 0 && j > i + off + wr) return false;
  return true;
}

// The scale is a float option; its default, 1/sqrt(d), is a float too (AttentionParams).
inline double resolved_scale(const AttentionOptions& o, int64_t d) {
  if (!std::isnan(o.scale)) return o.scale;
  return o.activation == Activation::Softmax ? double(float(1.0 / std::sqrt(double(d)))) : 1.0;
}

/// The P matrix (and, for the backward, the pieces of its derivative) of one (b, h) pair.
struct Block {
  int64_t lq = 0, lk = 0, bk = 0, hk = 0;
  std::vector<double> s;      ///< scale * q.k  [lq x lk]
  std::vector<double> p;      ///< P
  std::vector<double> dlogit; ///< softmax: d logit / d s (softcap); pointwise: f'(s)
  std::vector<char> mask;
  std::vector<double> lse;    ///< softmax, per row
};

inline Block block(const AttentionInputs& in, const AttentionOptions& o, const Side& q,
                   const Side& k, int64_t b, int64_t h) {
  Block B;
  B.bk = in.q_to_kv.defined() ? read_int(in.q_to_kv, b) : b;
  B.hk = h / (q.heads / k.heads);
  B.lq = q.len[size_t(b)];
  B.lk = k.len[size_t(B.bk)];
  const double scale = resolved_scale(o, q.dim);
  const size_t n = size_t(B.lq * B.lk);
  B.s.assign(n, 0.0);
  B.p.assign(n, 0.0);
  B.dlogit.assign(n, 0.0);
  B.mask.assign(n, 0);
  B.lse.assign(size_t(B.lq), -INFINITY);
  const bool softmax = o.activation == Activation::Softmax;
  for (int64_t i = 0; i < B.lq; ++i) {
    for (int64_t j = 0; j < B.lk; ++j) {
      const size_t ij = size_t(i * B.lk + j);
      double dot = 0.0;
      for (int64_t c = 0; c < q.dim; ++c) dot += q.at(b, i, h, c) * k.at(B.bk, j, B.hk, c);
      B.s[ij] = scale * dot;
      B.mask[ij] = allowed(o, B.lq, B.lk, i, j);
    }
    if (softmax) {
      std::vector<double> logit(size_t(B.lk), -INFINITY);
      double m = -INFINITY;
      for (int64_t j = 0; j < B.lk; ++j) {
        const size_t ij = size_t(i * B.lk + j);
        if (!B.mask[ij]) continue;
        double x = B.s[ij];
        B.dlogit[ij] = 1.0;
        if (o.softcap > 0) {
          const double t = std::tanh(x / o.softcap);
          x = o.softcap * t;
          B.dlogit[ij] = 1.0 - t * t;
        }
        logit[size_t(j)] = x;
        m = std::max(m, x);
      }
      if (m == -INFINITY) continue;  // no allowed key: P row 0, LSE -inf
      double sum = 0.0;
      for (int64_t j = 0; j < B.lk; ++j) sum += std::exp(logit[size_t(j)] - m);
      B.lse[size_t(i)] = m + std::log(sum);
      for (int64_t j = 0; j < B.lk; ++j) {
        B.p[size_t(i * B.lk + j)] = std::exp(logit[size_t(j)] - B.lse[size_t(i)]);
      }
    } else {
      for (int64_t j = 0; j < B.lk; ++j) {
        const size_t ij = size_t(i * B.lk + j);
        if (!B.mask[ij]) continue;
        B.p[ij] = o.out_scale * detail::activation_forward<double>(o.activation, B.s[ij]);
        B.dlogit[ij] = detail::activation_derivative<double>(o.activation, B.s[ij]);
      }
    }
  }
  return B;
}

inline int64_t numel_of(const TensorRef& t) {
  int64_t n = 1;
  for (int i = 0; i < t.ndim; ++i) n *= t.shape[i];
  return n;
}

}  // namespace ref_detail

struct RefForward {
  std::vector<double> out;  ///< q's layout with d_v
  std::vector<double> lse;  ///< softmax: [B, H, Lq] or [H, Tq]
};

inline RefForward reference_forward(const AttentionInputs& in, const AttentionOptions& o) {
  using namespace ref_detail;
  const Side q = side_of(in.q, in.cu_seqlens_q, in.seqused_q);
  const Side k = side_of(in.k, in.cu_seqlens_k, in.seqused_k);
  const Side v = side_of(in.v, in.cu_seqlens_k, in.seqused_k);
  const int64_t rows = q.jagged ? in.q.shape[0] : q.batch * in.q.shape[1];
  RefForward r;
  r.out.assign(size_t(rows * q.heads * v.dim), 0.0);
  r.lse.assign(size_t(rows * q.heads), -INFINITY);
  for (int64_t b = 0; b < q.batch; ++b) {
    for (int64_t h = 0; h < q.heads; ++h) {
      const Block B = block(in, o, q, k, b, h);
      for (int64_t i = 0; i < B.lq; ++i) {
        for (int64_t c = 0; c < v.dim; ++c) {
          double acc = 0.0;
          for (int64_t j = 0; j < B.lk; ++j) acc += B.p[size_t(i * B.lk + j)] * v.at(B.bk, j, B.hk, c);
          r.out[size_t(q.flat(b, i, h, c, v.dim))] = acc;
        }
        // LSE layout: [B, H, Lq] dense, [H, T] jagged.
        const int64_t li = q.jagged ? h * rows + q.row_of(b, i) : (b * q.heads + h) * in.q.shape[1] + i;
        r.lse[size_t(li)] = B.lse[size_t(i)];
      }
    }
  }
  return r;
}

struct RefGrads {
  std::vector<double> dq, dk, dv;
};

/// Gradients of sum(O * dout) with dout read through its TensorRef (q's layout with d_v).
inline RefGrads reference_backward(const AttentionInputs& in, const AttentionOptions& o,
                                   const TensorRef& dout) {
  using namespace ref_detail;
  const Side q = side_of(in.q, in.cu_seqlens_q, in.seqused_q);
  const Side k = side_of(in.k, in.cu_seqlens_k, in.seqused_k);
  const Side v = side_of(in.v, in.cu_seqlens_k, in.seqused_k);
  const Side go = side_of(dout, in.cu_seqlens_q, in.seqused_q);
  const double scale = resolved_scale(o, q.dim);
  const bool softmax = o.activation == Activation::Softmax;
  RefGrads g;
  g.dq.assign(size_t(numel_of(in.q)), 0.0);
  g.dk.assign(size_t(numel_of(in.k)), 0.0);
  g.dv.assign(size_t(numel_of(in.v)), 0.0);
  for (int64_t b = 0; b < q.batch; ++b) {
    for (int64_t h = 0; h < q.heads; ++h) {
      const Block B = block(in, o, q, k, b, h);
      for (int64_t i = 0; i < B.lq; ++i) {
        // dP_ij = dO_i . V_j
        std::vector<double> dp(size_t(B.lk), 0.0), ds(size_t(B.lk), 0.0);
        for (int64_t j = 0; j < B.lk; ++j) {
          for (int64_t c = 0; c < v.dim; ++c) dp[size_t(j)] += go.at(b, i, h, c) * v.at(B.bk, j, B.hk, c);
        }
        double pdp = 0.0;  // sum_j P_ij dP_ij (= rowsum(dO * O))
        for (int64_t j = 0; j < B.lk; ++j) pdp += B.p[size_t(i * B.lk + j)] * dp[size_t(j)];
        for (int64_t j = 0; j < B.lk; ++j) {
          const size_t ij = size_t(i * B.lk + j);
          if (!B.mask[ij]) continue;
          ds[size_t(j)] = softmax ? B.p[ij] * (dp[size_t(j)] - pdp) * B.dlogit[ij]
                                  : o.out_scale * B.dlogit[ij] * dp[size_t(j)];
        }
        for (int64_t j = 0; j < B.lk; ++j) {
          const double pij = B.p[size_t(i * B.lk + j)];
          for (int64_t c = 0; c < v.dim; ++c) {
            g.dv[size_t(v.flat(B.bk, j, B.hk, c, v.dim))] += pij * go.at(b, i, h, c);
          }
          for (int64_t c = 0; c < q.dim; ++c) {
            g.dq[size_t(q.flat(b, i, h, c, q.dim))] += scale * ds[size_t(j)] * k.at(B.bk, j, B.hk, c);
            g.dk[size_t(k.flat(B.bk, j, B.hk, c, k.dim))] += scale * ds[size_t(j)] * q.at(b, i, h, c);
          }
        }
      }
    }
  }
  return g;
}

}  // namespace amkl::test
