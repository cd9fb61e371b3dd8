// Helpers of the CPU attention tests: host tensors of any dtype and strides, seeded random
// numbers (fresh each run, the seed printed on failure), and the construction of attention
// problems (dense or jagged sides, GQA, q_to_kv, seqused, strided or broadcast inputs).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "amkl/amkl.h"

namespace amkl::test {

// ------------------------------------------------------------------ random numbers

/// A fresh seed per test ($AMKL_TEST_SEED reproduces a run).
inline uint64_t fresh_seed() {
  if (const char* env = std::getenv("AMKL_TEST_SEED")) return std::strtoull(env, nullptr, 10);
  std::random_device rd;
  return (uint64_t(rd()) << 32) ^ rd();
}

/// Declares `rng` seeded freshly; every failure in the scope prints the seed.
#define AMKL_SEEDED_RNG(rng)                                                         \
  const uint64_t rng##_seed = ::amkl::test::fresh_seed();                            \
  SCOPED_TRACE("seed " + std::to_string(rng##_seed) + " (rerun: AMKL_TEST_SEED=" +   \
               std::to_string(rng##_seed) + ")");                                    \
  std::mt19937_64 rng(rng##_seed)

// ------------------------------------------------------------------ dtype conversions

inline double bits_to_double(const void* p, DType dt) {
  switch (dt) {
    case DType::Float64: { double x; std::memcpy(&x, p, 8); return x; }
    case DType::Float32: { float x; std::memcpy(&x, p, 4); return x; }
    case DType::BFloat16: {
      uint16_t b; std::memcpy(&b, p, 2);
      const uint32_t u = uint32_t(b) << 16; float x; std::memcpy(&x, &u, 4); return x;
    }
    case DType::Float16: {
      uint16_t h; std::memcpy(&h, p, 2);
      const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
      const double s = (h & 0x8000) ? -1.0 : 1.0;
      if (e == 0x1f) return m ? std::numeric_limits<double>::quiet_NaN() : s * INFINITY;
      if (e == 0) return s * std::ldexp(double(m), -24);
      return s * std::ldexp(double(m | 0x400), e - 25);
    }
    case DType::Int32: { int32_t x; std::memcpy(&x, p, 4); return x; }
    default: return std::numeric_limits<double>::quiet_NaN();
  }
}

/// Rounds to nearest even (test-side, independent of the library's conversions).
inline void double_to_bits(double v, void* p, DType dt) {
  switch (dt) {
    case DType::Float64: std::memcpy(p, &v, 8); return;
    case DType::Float32: { const float x = float(v); std::memcpy(p, &x, 4); return; }
    case DType::BFloat16: {
      const float x = float(v);
      uint32_t u; std::memcpy(&u, &x, 4);
      uint16_t b;
      if (std::isnan(x)) b = 0x7fc0;
      else b = uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
      std::memcpy(p, &b, 2);
      return;
    }
    case DType::Float16: {
      // Nearest half by search over the exponent: exact and slow, fine for tests.
      uint16_t h;
      if (std::isnan(v)) {
        h = 0x7e00;
      } else {
        const double a = std::fabs(v);
        const uint16_t sign = v < 0 ? 0x8000 : 0;
        if (a >= 65520.0) {
          h = sign | 0x7c00;
        } else {
          const double q = a < std::ldexp(1.0, -14) ? std::ldexp(1.0, -24)
                                                    : std::ldexp(1.0, std::ilogb(a) - 10);
          const double n = std::nearbyint(a / q);  // RNE
          const double r = n * q;
          int e; const double f = std::frexp(r, &e);  // r = f 2^e, f in [0.5, 1)
          if (r == 0) h = sign;
          else if (r < std::ldexp(1.0, -14)) h = sign | uint16_t(n);
          else h = sign | uint16_t(((e + 14) << 10) | (uint16_t(std::ldexp(f, 11)) & 0x3ff));
        }
      }
      std::memcpy(p, &h, 2);
      return;
    }
    case DType::Int32: { const int32_t x = int32_t(v); std::memcpy(p, &x, 4); return; }
    default: return;
  }
}

inline int elem_size(DType dt) { return dtype_size(dt); }

// ------------------------------------------------------------------ host tensors

/// A host tensor owning its storage, with arbitrary (non-negative) strides.
class HostTensor {
 public:
  HostTensor() = default;
  /// Row-major contiguous.
  HostTensor(DType dt, std::vector<int64_t> shape) : HostTensor(dt, shape, contiguous(shape)) {}
  HostTensor(DType dt, std::vector<int64_t> shape, std::vector<int64_t> strides)
      : dtype_(dt), shape_(std::move(shape)), strides_(std::move(strides)) {
    int64_t span = 1;
    for (size_t i = 0; i < shape_.size(); ++i) {
      if (shape_[i] == 0) span = 0;
    }
    if (span) {
      for (size_t i = 0; i < shape_.size(); ++i) span += (shape_[i] - 1) * strides_[i];
    }
    storage_.assign(size_t(std::max<int64_t>(span, 1)) * elem_size(dt), 0);
  }

  static std::vector<int64_t> contiguous(const std::vector<int64_t>& shape) {
    std::vector<int64_t> s(shape.size(), 1);
    for (int i = int(shape.size()) - 2; i >= 0; --i) s[i] = s[i + 1] * std::max<int64_t>(shape[i + 1], 1);
    return s;
  }

  /// False for a default-constructed (absent) tensor.
  bool defined() const { return !shape_.empty(); }
  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  const std::vector<int64_t>& strides() const { return strides_; }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : shape_) n *= s;
    return n;
  }
  void* data() { return storage_.data(); }
  const void* data() const { return storage_.data(); }

  TensorRef ref() const {
    return TensorRef::make(const_cast<uint8_t*>(storage_.data()), dtype_, int(shape_.size()),
                           shape_.data(), strides_.data());
  }

  /// Element offset of the flat row-major logical index i.
  int64_t offset_of_flat(int64_t i) const {
    int64_t off = 0;
    for (int d = int(shape_.size()) - 1; d >= 0; --d) {
      off += (i % shape_[d]) * strides_[d];
      i /= shape_[d];
    }
    return off;
  }
  double get(int64_t flat) const {
    return bits_to_double(storage_.data() + offset_of_flat(flat) * elem_size(dtype_), dtype_);
  }
  void set(int64_t flat, double v) {
    double_to_bits(v, storage_.data() + offset_of_flat(flat) * elem_size(dtype_), dtype_);
  }
  std::vector<double> values() const {
    std::vector<double> v(static_cast<size_t>(numel()));
    for (int64_t i = 0; i < numel(); ++i) v[size_t(i)] = get(i);
    return v;
  }
  template <typename Rng>
  void fill_normal(Rng& rng, double stddev = 1.0) {
    std::normal_distribution<double> n(0.0, stddev);
    for (int64_t i = 0; i < numel(); ++i) set(i, n(rng));
  }
  /// NaN in every byte pattern of the storage, padding included.
  void poison() {
    const int es = elem_size(dtype_);
    for (size_t i = 0; i + es <= storage_.size(); i += es) {
      double_to_bits(std::numeric_limits<double>::quiet_NaN(), storage_.data() + i, dtype_);
    }
  }
  /// Number of logical elements that are NaN (after poison(): not written).
  int64_t count_nan() const {
    int64_t n = 0;
    for (int64_t i = 0; i < numel(); ++i) n += std::isnan(get(i)) ? 1 : 0;
    return n;
  }

 private:
  DType dtype_ = DType::Float32;
  std::vector<int64_t> shape_, strides_;
  std::vector<uint8_t> storage_;
};

/// Physical arrangements of a dense [B, L, H, d] or jagged [T, H, d] tensor.
enum class Arrangement {
  Contiguous,
  Padded,     ///< every dim's stride larger than needed (row and head gaps)
  HeadMajor,  ///< dense stored as [B, H, L, d] (a transposed view); jagged as [H, T, d]
};

inline HostTensor make_arranged(DType dt, const std::vector<int64_t>& shape, Arrangement a) {
  const int nd = int(shape.size());
  std::vector<int64_t> strides(static_cast<size_t>(nd));
  switch (a) {
    case Arrangement::Contiguous: return HostTensor(dt, shape);
    case Arrangement::Padded: {
      int64_t s = 1;
      for (int i = nd - 1; i >= 0; --i) {
        strides[size_t(i)] = s;
        s *= shape[size_t(i)] + (i == nd - 1 ? 3 : 1);
      }
      return HostTensor(dt, shape, strides);
    }
    case Arrangement::HeadMajor: {
      // Order of dims in memory, outermost first: batch, head, row, dim.
      const int head = nd - 2, row = nd - 3;
      std::vector<int> order;
      if (nd == 4) order.push_back(0);
      order.push_back(head);
      order.push_back(row);
      order.push_back(nd - 1);
      int64_t s = 1;
      for (int k = int(order.size()) - 1; k >= 0; --k) {
        strides[size_t(order[size_t(k)])] = s;
        s *= shape[size_t(order[size_t(k)])];
      }
      return HostTensor(dt, shape, strides);
    }
  }
  return HostTensor(dt, shape);
}

inline HostTensor int_vector(const std::vector<int64_t>& v) {
  HostTensor t(DType::Int32, {int64_t(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.set(int64_t(i), double(v[i]));
  return t;
}

// ------------------------------------------------------------------ problems

/// The shape of an attention problem. Each side is dense when its `dense_len` is >= 0 (then
/// `len` gives per-sequence lengths, passed as seqused when any differs from dense_len, or
/// when `seqused` is set), or jagged (packed sequences of lengths `len`, rows starting at
/// `jagged_first_row`, with seqused = `used` when given).
struct SideSpec {
  int64_t dense_len = -1;
  std::vector<int64_t> len;
  bool seqused = false;           ///< dense: pass len as seqused even if all equal dense_len
  std::vector<int64_t> used;      ///< jagged: optional seqused (<= len)
  int64_t jagged_first_row = 0;   ///< jagged: rows before the first sequence (unused)
  int64_t jagged_tail_rows = 0;   ///< jagged: rows after the last sequence (unused)
  bool jagged() const { return dense_len < 0; }
  int64_t batch() const { return int64_t(len.size()); }
  /// The length the math sees for sequence b.
  int64_t effective_len(int64_t b) const {
    return (!jagged() || used.empty()) ? len[size_t(b)] : used[size_t(b)];
  }
};

struct ProblemSpec {
  DType dtype = DType::Float64;
  DType out_dtype = DType::Float64;
  int64_t heads = 2, heads_kv = 1, d = 8, dv = 8;
  SideSpec q, kv;
  std::vector<int64_t> q_to_kv;  ///< empty: identity
  Arrangement arrangement = Arrangement::Contiguous;
  bool broadcast_q = false;  ///< dense q with batch stride 0 (GDPA's broadcast_q)
  double input_std = 1.0;
  std::string name;
};

/// Inputs (and the index vectors they reference) of one problem.
struct Problem {
  ProblemSpec spec;
  HostTensor q, k, v, cu_q, cu_k, used_q, used_k, q2kv;

  std::vector<int64_t> q_shape(int64_t dim) const {
    return spec.q.jagged() ? std::vector<int64_t>{rows_of(spec.q), spec.heads, dim}
                           : std::vector<int64_t>{spec.q.batch(), spec.q.dense_len, spec.heads, dim};
  }
  std::vector<int64_t> kv_shape(int64_t dim) const {
    return spec.kv.jagged()
               ? std::vector<int64_t>{rows_of(spec.kv), spec.heads_kv, dim}
               : std::vector<int64_t>{spec.kv.batch(), spec.kv.dense_len, spec.heads_kv, dim};
  }
  static int64_t rows_of(const SideSpec& s) {
    int64_t n = s.jagged_first_row + s.jagged_tail_rows;
    for (int64_t l : s.len) n += l;
    return n;
  }

  AttentionInputs inputs() const {
    AttentionInputs in;
    in.q = q.ref();
    in.k = k.ref();
    in.v = v.ref();
    if (spec.q.jagged()) in.cu_seqlens_q = cu_q.ref();
    if (spec.kv.jagged()) in.cu_seqlens_k = cu_k.ref();
    if (used_q.defined()) in.seqused_q = used_q.ref();
    if (used_k.defined()) in.seqused_k = used_k.ref();
    if (!spec.q_to_kv.empty()) in.q_to_kv = q2kv.ref();
    return in;
  }
  /// A tensor shaped like out (q's layout with d_v), in `dt`, contiguous.
  HostTensor make_out(DType dt) const { return HostTensor(dt, q_shape(spec.dv)); }
  /// LSE: [B, H, Lq] (dense q) or [H, Tq] (jagged q).
  HostTensor make_lse() const {
    return spec.q.jagged() ? HostTensor(DType::Float32, {spec.heads, rows_of(spec.q)})
                           : HostTensor(DType::Float32, {spec.q.batch(), spec.heads, spec.q.dense_len});
  }
};

inline void build_side_indices(const SideSpec& s, HostTensor& cu, HostTensor& used) {
  if (s.jagged()) {
    std::vector<int64_t> offs{s.jagged_first_row};
    for (int64_t l : s.len) offs.push_back(offs.back() + l);
    cu = int_vector(offs);
    if (!s.used.empty()) used = int_vector(s.used);
  } else {
    bool need = s.seqused;
    for (int64_t l : s.len) need = need || l != s.dense_len;
    if (need) used = int_vector(s.len);
  }
}

template <typename Rng>
Problem make_problem(const ProblemSpec& spec, Rng& rng) {
  Problem p;
  p.spec = spec;
  build_side_indices(spec.q, p.cu_q, p.used_q);
  build_side_indices(spec.kv, p.cu_k, p.used_k);
  if (spec.broadcast_q) {
    // One stored batch, viewed B times through a zero batch stride.
    std::vector<int64_t> shape = p.q_shape(spec.d);
    HostTensor one = make_arranged(spec.dtype, {1, shape[1], shape[2], shape[3]}, spec.arrangement);
    std::vector<int64_t> strides = one.strides();
    strides[0] = 0;
    p.q = HostTensor(spec.dtype, shape, strides);
  } else {
    p.q = make_arranged(spec.dtype, p.q_shape(spec.d), spec.arrangement);
  }
  p.k = make_arranged(spec.dtype, p.kv_shape(spec.d), spec.arrangement);
  p.v = make_arranged(spec.dtype, p.kv_shape(spec.dv), spec.arrangement);
  p.q.fill_normal(rng, spec.input_std);
  p.k.fill_normal(rng, spec.input_std);
  p.v.fill_normal(rng, spec.input_std);
  if (!spec.q_to_kv.empty()) p.q2kv = int_vector(spec.q_to_kv);
  return p;
}

// ------------------------------------------------------------------ comparisons

/// max |a - b| over the elements, with equal infinities counting as 0.
inline double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0.0;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::isinf(a[i]) && a[i] == b[i]) continue;
    const double d = std::fabs(a[i] - b[i]);
    if (std::isnan(d)) return INFINITY;
    m = std::max(m, d);
  }
  return m;
}

inline double max_abs(const std::vector<double>& a) {
  double m = 0.0;
  for (double x : a) {
    if (std::isfinite(x)) m = std::max(m, std::fabs(x));
  }
  return m;
}

/// Passes when max|got - want| <= tol * max(1, max|want|).
inline ::testing::AssertionResult close(const std::vector<double>& got,
                                        const std::vector<double>& want, double tol,
                                        const std::string& what) {
  if (got.size() != want.size()) {
    return ::testing::AssertionFailure() << what << ": size " << got.size() << " vs " << want.size();
  }
  const double err = max_abs_diff(got, want);
  const double bound = tol * std::max(1.0, max_abs(want));
  if (err <= bound) return ::testing::AssertionSuccess();
  size_t worst = 0;
  double w = -1;
  for (size_t i = 0; i < got.size(); ++i) {
    const double d = (std::isinf(got[i]) && got[i] == want[i]) ? 0 : std::fabs(got[i] - want[i]);
    if (!(d <= w)) { w = d; worst = i; }
  }
  return ::testing::AssertionFailure() << what << ": max error " << err << " > bound " << bound
                                       << " (worst flat index " << worst << ": got " << got[worst]
                                       << ", want " << want[worst] << ")";
}

}  // namespace amkl::test
