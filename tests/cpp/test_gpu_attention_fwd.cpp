// The Hopper forward against the CPU oracle (DESIGN.md section 4): a GPU result passes when
// max|gpu - ref64| <= 2 * max|emul - ref64| + 1e-5, with ref64 the CPU forward on the float64
// upcast of the same inputs and emul the CPU forward with the kernel's roundings. Fresh random
// inputs each run, poisoned outputs, ragged lengths. Skips without a Hopper GPU.
#include <gtest/gtest.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "amkl/amkl.h"
#include "cuda/sm90/fwd_fold.h"
#include "cuda_assert.h"

namespace {

using amkl::Activation;
using amkl::DType;

uint16_t to_bits(float x, DType dt) {
  if (dt == DType::BFloat16) {
    __nv_bfloat16 h = __float2bfloat16_rn(x);
    uint16_t u;
    std::memcpy(&u, &h, 2);
    return u;
  }
  __half h = __float2half_rn(x);
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}
float from_bits(uint16_t u, DType dt) {
  if (dt == DType::BFloat16) {
    __nv_bfloat16_raw r;
    r.x = u;
    return __bfloat162float(__nv_bfloat16(r));
  }
  __half_raw r;
  r.x = u;
  return __half2float(__half(r));
}

struct Case {
  std::string name;
  DType dtype = DType::BFloat16;
  int d = 128, dv = 128;
  int H = 2, Hkv = 2;
  std::vector<int> lq{129}, lk{129};  // per sequence
  bool q_jagged = false, k_jagged = false;
  int dense_lq = -1, dense_lk = -1;  // dense capacity (default: max of the lengths)
  bool seqused_q = false, seqused_k = false;
  int q_lead = 0, q_trail = 0;  // jagged q: rows before cu_seqlens_q[0] / after its last entry
  std::vector<int> q_to_kv;  // empty: identity
  Activation act = Activation::Softmax;
  bool causal = false;
  int64_t wl = -1, wr = -1;
  amkl::MaskAlign align = amkl::MaskAlign::BottomRight;
  float softcap = 0.f, scale = NAN, out_scale = 1.f;
  bool out_f32 = true;  // float32 out: the comparison sees the kernel's internal roundings
  int q_row_pad = 0;  // extra elements per row of q/k/v (non-contiguous rows)
  int out_row_pad = 0;  // extra elements per row of out: must stay as poisoned
  bool broadcast_q = false;  // dense q with batch stride 0
  bool graph = false;  // run the GPU call captured in a CUDA graph (replayed twice)
  int section_pairs = 0;  // > 0: the GPU call runs with AMKL_SM90_SECTION_PAIRS set to it
  bool folds = false;  // the call must run the folded causal order (fwd_fold.h)
  // The GPU call runs with AMKL_SM90_FOLD=1 (folds small problems; not where the variable is
  // set already, as in a run with it 0).
  bool fold_forced = false;
  // KV sequences whose V is +inf throughout: their query sequences' rows (identity map) are
  // not compared; they leave inf in the O registers of the CTA that ran them.
  std::vector<int> inf_v_seqs;
  // K rows at positions >= k_jump_from of every KV sequence are multiplied by k_jump_gain:
  // softmax's running max then jumps at that key block (by ~4.6 (gain - 1) in log2 units).
  int k_jump_from = 0;
  float k_jump_gain = 1.f;
};

// GoogleTest prints a parameter with this (instead of its bytes).
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

// One side's host storage: [B, L, H, d] (dense) or [T, H, d] (jagged), row stride H*d + pad.
struct Side {
  bool jagged = false;
  int B = 0, L = 0, T = 0, H = 0, d = 0, pad = 0;
  std::vector<int32_t> cu, used;
  int64_t row_stride() const { return int64_t(H) * d + pad; }
  int64_t rows() const { return jagged ? T : int64_t(B) * L; }
  int64_t first_row(int b) const { return jagged ? cu[size_t(b)] : int64_t(b) * L; }
  int64_t elems() const { return rows() * row_stride(); }
};

Side make_side(bool jagged, const std::vector<int>& lens, int dense_cap, int H, int d, int pad,
               bool seqused, int lead = 0, int trail = 0) {
  Side s;
  s.jagged = jagged;
  s.B = int(lens.size());
  s.H = H;
  s.d = d;
  s.pad = pad;
  if (jagged) {
    s.cu.push_back(lead);
    for (int l : lens) s.cu.push_back(s.cu.back() + l + (seqused ? 3 : 0));
    s.T = s.cu.back() + trail;
  } else {
    int mx = 0;
    for (int l : lens) mx = std::max(mx, l);
    s.L = dense_cap >= 0 ? dense_cap : mx + (seqused ? 5 : 0);
  }
  if (seqused) s.used = lens;
  return s;
}

amkl::TensorRef ref_of(void* data, DType dt, const Side& s, int d, bool cuda, int64_t rs,
                       bool zero_batch = false) {
  amkl::Device dev;
  if (cuda) dev = amkl::Device{amkl::DeviceType::CUDA, 0};
  if (s.jagged) {
    return amkl::TensorRef::make(data, dt, {s.T, s.H, d}, {rs, d, 1}, dev);
  }
  return amkl::TensorRef::make(data, dt, {s.B, s.L, s.H, d},
                               {zero_batch ? 0 : s.L * rs, rs, d, 1}, dev);
}

struct Outputs {
  std::vector<double> out;  // [rows, H, dv] as double
  std::vector<double> lse;  // as laid out by the API
};

class GpuFwd : public ::testing::TestWithParam<Case> {};

std::mt19937_64& rng() {
  static std::mt19937_64 g(std::random_device{}());
  return g;
}

TEST_P(GpuFwd, MatchesOracle) {
  if (!amkl::gpu_supported(0)) GTEST_SKIP() << "no Hopper GPU: " << amkl::gpu_description(0);
  const Case c = GetParam();
  const DType dt = c.dtype;
  Side qs = make_side(c.q_jagged, c.lq, c.dense_lq, c.H, c.d, c.q_row_pad, c.seqused_q,
                      c.q_lead, c.q_trail);
  Side ks = make_side(c.k_jagged, c.lk, c.dense_lk, c.Hkv, c.d, c.q_row_pad, c.seqused_k);
  Side vs = make_side(c.k_jagged, c.lk, c.dense_lk, c.Hkv, c.dv, c.q_row_pad, c.seqused_k);
  if (c.broadcast_q) qs.B = int(c.lk.size());  // a dense q of one sequence, batch stride 0

  // Inputs: N(0,1) scaled so pointwise activations see a useful range.
  std::normal_distribution<float> nd(0.f, 1.f);
  // The polynomial activations grow like S^6 (gelu_taylor) or S^2: with float16 inputs, P can
  // overflow float16's range (65504) for |S| > ~10, in the kernel and in the emulation alike;
  // a quarter-scale draw keeps |S| well inside it.
  const bool poly = c.act == Activation::GeluTaylor || c.act == Activation::ReluSquare;
  const float in_scale = c.act == Activation::Softmax ? 1.f
                         : (poly && dt == DType::Float16) ? 0.25f
                                                          : 0.5f;
  auto fill = [&](int64_t n_elems) {
    std::vector<uint16_t> v(static_cast<size_t>(n_elems));
    for (auto& x : v) x = to_bits(in_scale * nd(rng()), dt);
    return v;
  };
  const int64_t q_elems = c.broadcast_q ? qs.L * qs.row_stride() : qs.elems();
  std::vector<uint16_t> hq = fill(q_elems), hk = fill(ks.elems()),
                        hv = fill(vs.elems());
  if (c.k_jump_gain != 1.f) {
    for (int b = 0; b < int(c.lk.size()); ++b) {
      const int64_t r0 = ks.first_row(b);
      for (int64_t r = r0 + c.k_jump_from; r < r0 + c.lk[size_t(b)]; ++r) {
        const int64_t i0 = r * ks.row_stride();
        for (int64_t i = i0; i < i0 + int64_t(ks.H) * ks.d; ++i) {
          hk[size_t(i)] = to_bits(c.k_jump_gain * from_bits(hk[size_t(i)], dt), dt);
        }
      }
    }
  }
  for (int sq : c.inf_v_seqs) {
    const int64_t r0 = vs.first_row(sq);
    const int64_t r1 = vs.jagged ? vs.cu[size_t(sq) + 1] : r0 + vs.L;
    for (int64_t i = r0 * vs.row_stride(); i < r1 * vs.row_stride(); ++i) {
      hv[size_t(i)] = to_bits(INFINITY, dt);
    }
  }
  // Output rows (and so LSE entries) of the query sequences whose V is inf: not compared.
  auto row_excluded = [&](int64_t row) {
    if (c.inf_v_seqs.empty()) return false;
    int sq = -1;
    if (qs.jagged) {
      for (size_t b = 0; b + 1 < qs.cu.size(); ++b) {
        if (row >= qs.cu[b] && row < qs.cu[b + 1]) sq = int(b);
      }
    } else {
      sq = int(row / qs.L);
    }
    return std::find(c.inf_v_seqs.begin(), c.inf_v_seqs.end(), sq) != c.inf_v_seqs.end();
  };
  auto to64 = [&](const std::vector<uint16_t>& v) {
    std::vector<double> r(v.size());
    for (size_t i = 0; i < v.size(); ++i) r[i] = from_bits(v[i], dt);
    return r;
  };
  std::vector<double> q64 = to64(hq), k64 = to64(hk), v64 = to64(hv);

  amkl::AttentionOptions opt;
  opt.activation = c.act;
  opt.causal = c.causal;
  opt.window_left = c.wl;
  opt.window_right = c.wr;
  opt.mask_align = c.align;
  opt.softcap = c.softcap;
  opt.scale = c.scale;
  opt.out_scale = c.out_scale;

  // Output geometry (from the API).
  Side os = make_side(c.q_jagged, c.lq, c.dense_lq, c.H, c.dv, c.out_row_pad, c.seqused_q,
                      c.q_lead, c.q_trail);
  if (c.broadcast_q) os.B = qs.B;
  const int64_t out_elems = os.elems();
  const bool softmax = c.act == Activation::Softmax;
  const int64_t lse_elems = softmax ? (c.q_jagged ? int64_t(c.H) * qs.T
                                                   : int64_t(qs.B) * c.H * qs.L)
                                    : 0;
  auto lse_ref = [&](void* data, bool cuda) {
    amkl::Device dev;
    if (cuda) dev = amkl::Device{amkl::DeviceType::CUDA, 0};
    if (!softmax) return amkl::TensorRef{};
    if (c.q_jagged) return amkl::TensorRef::make(data, DType::Float32, {c.H, qs.T}, {}, dev);
    return amkl::TensorRef::make(data, DType::Float32, {qs.B, c.H, qs.L}, {}, dev);
  };

  // Offsets and maps (host copies for the CPU; device copies for the GPU).
  auto i32 = [&](const std::vector<int32_t>& v, void* data, bool cuda) {
    amkl::Device dev;
    if (cuda) dev = amkl::Device{amkl::DeviceType::CUDA, 0};
    if (v.empty()) return amkl::TensorRef{};
    return amkl::TensorRef::make(data, DType::Int32, {int64_t(v.size())}, {}, dev);
  };
  std::vector<int32_t> map(c.q_to_kv.begin(), c.q_to_kv.end());

  auto make_inputs = [&](void* q, void* k, void* v, DType t, bool cuda, void* cuq, void* cuk,
                         void* uq, void* uk, void* m) {
    amkl::AttentionInputs in;
    in.q = ref_of(q, t, qs, c.d, cuda, qs.row_stride(), c.broadcast_q);
    in.k = ref_of(k, t, ks, c.d, cuda, ks.row_stride());
    in.v = ref_of(v, t, vs, c.dv, cuda, vs.row_stride());
    in.cu_seqlens_q = i32(qs.cu, cuq, cuda);
    in.cu_seqlens_k = i32(ks.cu, cuk, cuda);
    in.seqused_q = i32(qs.used, uq, cuda);
    in.seqused_k = i32(ks.used, uk, cuda);
    in.q_to_kv = i32(map, m, cuda);
    return in;
  };

  // ---- ref64
  std::vector<double> ref_out(size_t(out_elems), 0.0), ref_lse(size_t(lse_elems), 0.0);
  std::vector<float> ref_lse32(size_t(lse_elems), 0.f);
  {
    amkl::AttentionInputs in =
        make_inputs(q64.data(), k64.data(), v64.data(), DType::Float64, false, qs.cu.data(),
                    ks.cu.data(), qs.used.data(), ks.used.data(), map.data());
    amkl::AttentionForwardOutputs o;
    o.out = ref_of(ref_out.data(), DType::Float64, os, c.dv, false, os.row_stride());
    o.lse = lse_ref(ref_lse32.data(), false);
    amkl::attention_forward(in, opt, o);
  }
  // ---- emul (the kernel's roundings; output in the GPU's output dtype)
  const DType out_dt = c.out_f32 ? DType::Float32 : dt;
  const int osz = c.out_f32 ? 4 : 2;
  std::vector<uint8_t> emul_out(size_t(out_elems) * osz);
  std::vector<float> emul_lse(size_t(lse_elems), 0.f);
  {
    amkl::AttentionInputs in =
        make_inputs(hq.data(), hk.data(), hv.data(), dt, false, qs.cu.data(), ks.cu.data(),
                    qs.used.data(), ks.used.data(), map.data());
    amkl::AttentionForwardOutputs o;
    o.out = ref_of(emul_out.data(), out_dt, os, c.dv, false, os.row_stride());
    o.lse = lse_ref(emul_lse.data(), false);
    amkl::AttentionOptions eo = opt;
    eo.emulate = dt == DType::BFloat16 ? amkl::Rounding::BFloat16 : amkl::Rounding::Float16;
    // fast_gelu_bf16 is defined with bf16 roundings inside f, so ref64 carries them too and an
    // emulation of it has almost no error; the GPU's hardware tanh flips some of those roundings.
    // Its bar is the error of an emulated bf16 kernel of the tanh GELU it approximates, for fp16
    // inputs too (f rounds to bf16 whatever the input type, so an fp16 emulation's error is no
    // bar for it).
    if (c.act == Activation::FastGeluBf16) {
      eo.activation = Activation::FastGelu;
      eo.emulate = amkl::Rounding::BFloat16;
    }
    amkl::attention_forward(in, eo, o);
  }
  // ---- GPU
  auto dalloc = [&](size_t bytes) {
    void* p = nullptr;
    EXPECT_EQ(cudaMalloc(&p, std::max<size_t>(bytes, 16)), cudaSuccess);
    return p;
  };
  void* dq = dalloc(hq.size() * 2);
  void* dk = dalloc(hk.size() * 2);
  void* dv = dalloc(hv.size() * 2);
  void* dout = dalloc(size_t(out_elems) * osz);
  void* dlse = dalloc(size_t(lse_elems) * 4);
  void* dcuq = dalloc(qs.cu.size() * 4);
  void* dcuk = dalloc(ks.cu.size() * 4);
  void* duq = dalloc(qs.used.size() * 4);
  void* duk = dalloc(ks.used.size() * 4);
  void* dmap = dalloc(map.size() * 4);
  CK(cudaMemcpy(dq, hq.data(), hq.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dk, hk.data(), hk.size() * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dv, hv.data(), hv.size() * 2, cudaMemcpyHostToDevice));
  if (!qs.cu.empty()) CK(cudaMemcpy(dcuq, qs.cu.data(), qs.cu.size() * 4, cudaMemcpyHostToDevice));
  if (!ks.cu.empty()) CK(cudaMemcpy(dcuk, ks.cu.data(), ks.cu.size() * 4, cudaMemcpyHostToDevice));
  if (!qs.used.empty()) CK(cudaMemcpy(duq, qs.used.data(), qs.used.size() * 4, cudaMemcpyHostToDevice));
  if (!ks.used.empty()) CK(cudaMemcpy(duk, ks.used.data(), ks.used.size() * 4, cudaMemcpyHostToDevice));
  if (!map.empty()) CK(cudaMemcpy(dmap, map.data(), map.size() * 4, cudaMemcpyHostToDevice));
  CK(cudaMemset(dout, 0xff, size_t(out_elems) * osz));  // NaN in every float format
  CK(cudaMemset(dlse, 0xff, size_t(lse_elems) * 4));
  {
    amkl::AttentionInputs in = make_inputs(dq, dk, dv, dt, true, dcuq, dcuk, duq, duk, dmap);
    amkl::AttentionForwardOutputs o;
    o.out = ref_of(dout, out_dt, os, c.dv, true, os.row_stride());
    o.lse = lse_ref(dlse, true);
    const int64_t folded_before = amkl::cuda::sm90::fold_launches().load();
    const bool force_fold = c.fold_forced && std::getenv("AMKL_SM90_FOLD") == nullptr;
    if (force_fold) setenv("AMKL_SM90_FOLD", "1", 1);
    if (c.section_pairs > 0) {
      setenv("AMKL_SM90_SECTION_PAIRS", std::to_string(c.section_pairs).c_str(), 1);
      amkl::attention_forward(in, opt, o);
      unsetenv("AMKL_SM90_SECTION_PAIRS");
    } else if (!c.graph) {
      amkl::attention_forward(in, opt, o);
    } else {
      // Captured: no host sync may happen inside (offsets unchecked, length bounds given),
      // and the tile list, workspace and kernels must all be stream-ordered work.
      amkl::AttentionOptions go = opt;
      go.validate_offsets = false;
      in.max_seqlen_q = *std::max_element(c.lq.begin(), c.lq.end());
      in.max_seqlen_k = *std::max_element(c.lk.begin(), c.lk.end());
      // The uploads and poisoning above ran on the legacy stream, which a non-blocking stream
      // does not wait for (cudaMemset may return before it is done).
      CK(cudaDeviceSynchronize());
      cudaStream_t st;
      CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
      go.stream = st;
      cudaGraph_t graph;
      cudaGraphExec_t exec;
      CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeThreadLocal));
      amkl::attention_forward(in, go, o);
      CK(cudaStreamEndCapture(st, &graph));
      CK(cudaGraphInstantiate(&exec, graph, 0));
      for (int replay = 0; replay < 2; ++replay) CK(cudaGraphLaunch(exec, st));
      CK(cudaStreamSynchronize(st));
      CK(cudaGraphExecDestroy(exec));
      CK(cudaGraphDestroy(graph));
      CK(cudaStreamDestroy(st));
    }
    if (force_fold) unsetenv("AMKL_SM90_FOLD");
    bool forced = false;  // a gpu-check pass that forces a kernel choice
    for (const char* var : {"AMKL_SM90_PLAIN", "AMKL_SM90_FOLD", "AMKL_SM90_CONSUMER_WARPGROUPS",
                            "AMKL_SM90_PACK_GQA"}) {
      forced = forced || std::getenv(var) != nullptr;
    }
    if (c.folds && !forced) {
      EXPECT_EQ(amkl::cuda::sm90::fold_launches().load() - folded_before, 1)
          << "folded launches of this call";
    }
  }
  CK(cudaDeviceSynchronize());
  std::vector<uint8_t> gpu_out(size_t(out_elems) * osz);
  std::vector<float> gpu_lse(static_cast<size_t>(lse_elems));
  CK(cudaMemcpy(gpu_out.data(), dout, gpu_out.size(), cudaMemcpyDeviceToHost));
  if (lse_elems) CK(cudaMemcpy(gpu_lse.data(), dlse, gpu_lse.size() * 4, cudaMemcpyDeviceToHost));
  for (void* p : {dq, dk, dv, dout, dlse, dcuq, dcuk, duq, duk, dmap}) cudaFree(p);

  auto val = [&](const std::vector<uint8_t>& buf, int64_t i) -> double {
    if (c.out_f32) {
      float f;
      std::memcpy(&f, buf.data() + i * 4, 4);
      return f;
    }
    uint16_t u;
    std::memcpy(&u, buf.data() + i * 2, 2);
    return from_bits(u, dt);
  };
  // Every element of out (rows outside the sequences must be 0 like the oracle's) and of lse;
  // the row padding of out must keep the poison (NaN): nothing is written outside the rows.
  double err_gpu = 0, err_emul = 0;
  int64_t bad_rows = 0, checked = 0, pad_written = 0;
  const int64_t row_elems = int64_t(c.H) * c.dv;
  for (int64_t idx = 0; idx < out_elems; ++idx) {
    const double r = ref_out[size_t(idx)];
    const double g = val(gpu_out, idx), e = val(emul_out, idx);
    if (idx % os.row_stride() >= row_elems) {
      if (!std::isnan(g) && pad_written++ < 3) ADD_FAILURE() << "padding written at " << idx;
      continue;
    }
    if (row_excluded(idx / os.row_stride())) continue;
    if (!std::isfinite(g)) {
      if (bad_rows++ < 3) ADD_FAILURE() << "non-finite out at flat index " << idx;
      err_gpu = INFINITY;
    } else {
      err_gpu = std::max(err_gpu, std::fabs(g - r));
    }
    err_emul = std::max(err_emul, std::fabs(e - r));
    ++checked;
  }
  int lse_fail = 0;
  for (int64_t li = 0; li < lse_elems; ++li) {
    if (row_excluded(c.q_jagged ? li % qs.T : (li / (int64_t(c.H) * qs.L)) * qs.L + li % qs.L)) {
      continue;
    }
    const double r = ref_lse32[size_t(li)], g = gpu_lse[size_t(li)], e = emul_lse[size_t(li)];
    bool ok;
    if (std::isinf(r)) {
      ok = std::isinf(g) && g < 0;
    } else {
      ok = std::fabs(g - r) <= 2 * std::fabs(e - r) + 1e-4 + 1e-5 * std::fabs(r);
    }
    if (!ok && lse_fail++ < 3) {
      ADD_FAILURE() << "lse at flat index " << li << ": gpu " << g << " ref " << r << " emul "
                    << e;
    }
  }
  EXPECT_EQ(lse_fail, 0);
  EXPECT_EQ(bad_rows, 0) << "non-finite values in the GPU output";
  EXPECT_EQ(pad_written, 0) << "values written into the padding of out's rows";
  EXPECT_LE(err_gpu, 2 * err_emul + 1e-5)
      << c.name << ": max|gpu-ref64| " << err_gpu << " vs max|emul-ref64| " << err_emul
      << " over " << checked << " values";
  RecordProperty("err_gpu", std::to_string(err_gpu));
  RecordProperty("err_emul", std::to_string(err_emul));
}

std::vector<Case> all_cases() {
  std::vector<Case> v;
  const Activation acts[] = {
      Activation::Raw,        Activation::Gelu,      Activation::GeluApprox,
      Activation::FastGelu,   Activation::LeakyRelu, Activation::Relu,
      Activation::FastGeluBf16, Activation::Silu,    Activation::FastSilu,
      Activation::Hardswish,  Activation::ReluSquare, Activation::GeluTaylor,
      Activation::Softmax};
  // Every activation is a kernel of its own for every head dim: each one runs once per
  // (dtype, head dims).
  for (DType dt : {DType::BFloat16, DType::Float16}) {
    for (int d : {64, 128}) {
      for (Activation a : acts) {
        Case c;
        c.dtype = dt;
        c.d = c.dv = d;
        c.act = a;
        c.lq = {129, 65};
        c.lk = {129, 200};
        c.out_f32 = !(dt == DType::BFloat16 && d == 64);  // one sweep with a bf16 output
        c.name = std::string(dt == DType::BFloat16 ? "bf16" : "fp16") + "_d" + std::to_string(d) +
                 "_" + amkl::activation_name(a);
        v.push_back(c);
      }
    }
  }
  // Head dims (192, 128) and (256, 256): both policies, masks, jagged, GQA, both dtypes.
  for (DType dt : {DType::BFloat16, DType::Float16}) {
    for (std::pair<int, int> dd : {std::make_pair(192, 128), std::make_pair(256, 256)}) {
      for (Activation a : {Activation::Softmax, Activation::FastGelu, Activation::Silu}) {
        Case c;
        c.dtype = dt;
        c.d = dd.first;
        c.dv = dd.second;
        c.act = a;
        c.lq = {1, 63, 65, 129, 300};
        c.lk = {200, 129, 0, 81, 300};
        c.q_jagged = c.k_jagged = true;
        c.causal = a == Activation::Silu;
        c.name = std::string(dt == DType::BFloat16 ? "bf16" : "fp16") + "_d" +
                 std::to_string(dd.first) + "_" + std::to_string(dd.second) + "_" +
                 amkl::activation_name(a);
        v.push_back(c);
      }
      for (Activation a : acts) {
        if (a == Activation::Softmax || a == Activation::FastGelu || a == Activation::Silu) {
          continue;  // above
        }
        Case c;
        c.dtype = dt;
        c.d = dd.first;
        c.dv = dd.second;
        c.act = a;
        c.lq = {65};
        c.lk = {129};
        c.name = std::string(dt == DType::BFloat16 ? "bf16" : "fp16") + "_d" +
                 std::to_string(dd.first) + "_" + std::to_string(dd.second) + "_" +
                 amkl::activation_name(a);
        v.push_back(c);
      }
      Case c;
      c.dtype = dt;
      c.d = dd.first;
      c.dv = dd.second;
      c.H = 4;
      c.Hkv = 2;
      c.lq = {130, 257};
      c.lk = {260, 190};
      c.wl = 40;
      c.wr = 8;
      c.name = std::string(dt == DType::BFloat16 ? "bf16" : "fp16") + "_d" +
               std::to_string(dd.first) + "_" + std::to_string(dd.second) + "_gqa_window";
      v.push_back(c);
    }
  }
  // Masks x Lq != Lk x both policies.
  struct M {
    const char* n;
    bool causal;
    int64_t wl, wr;
    amkl::MaskAlign al;
  };
  const M masks[] = {{"causal", true, -1, -1, amkl::MaskAlign::BottomRight},
                     {"win_32_16", false, 32, 16, amkl::MaskAlign::BottomRight},
                     {"win_100_0", false, 100, 0, amkl::MaskAlign::BottomRight},
                     {"win_left_only_70", false, 70, -1, amkl::MaskAlign::BottomRight},
                     {"causal_topleft", true, -1, -1, amkl::MaskAlign::TopLeft},
                     {"sym_win_64_topleft", false, 64, 64, amkl::MaskAlign::TopLeft}};
  const std::pair<std::vector<int>, std::vector<int>> lens[] = {
      {{65, 1000, 1}, {1000, 63, 129}}, {{127, 0}, {127, 300}}, {{300}, {0}}};
  for (const M& m : masks) {
    for (Activation a : {Activation::Softmax, Activation::FastGelu}) {
      for (size_t li = 0; li < 3; ++li) {
        Case c;
        c.act = a;
        c.causal = m.causal;
        c.wl = m.wl;
        c.wr = m.wr;
        c.align = m.al;
        c.lq = lens[li].first;
        c.lk = lens[li].second;
        c.out_f32 = a == Activation::Softmax;
        c.name = std::string(m.n) + "_" + amkl::activation_name(a) + "_lens" + std::to_string(li);
        v.push_back(c);
      }
    }
  }
  // Jagged sides, ragged lengths.
  const std::vector<int> rag = {0, 1, 63, 65, 127, 129, 1000};
  std::vector<int> rag_k = rag;
  std::reverse(rag_k.begin(), rag_k.end());
  for (int d : {64, 128}) {
    for (Activation a : {Activation::Softmax, Activation::FastGelu, Activation::Relu}) {
      for (int mode = 0; mode < 4; ++mode) {
        Case c;
        c.d = c.dv = d;
        c.act = a;
        c.lq = rag;
        c.lk = rag_k;
        c.q_jagged = mode != 1;
        c.k_jagged = mode == 1 || mode == 2;
        c.seqused_q = mode == 3;
        c.seqused_k = mode == 3;
        c.causal = (mode == 2);
        c.name = "jagged_d" + std::to_string(d) + "_" + amkl::activation_name(a) + "_mode" +
                 std::to_string(mode);
        v.push_back(c);
      }
    }
  }
  // Jagged q with rows before the first and after the last sequence (out 0, lse -inf there),
  // with and without seqused.
  for (Activation a : {Activation::Softmax, Activation::FastGelu}) {
    for (bool used : {false, true}) {
      Case c;
      c.act = a;
      c.lq = rag;
      c.lk = rag_k;
      c.q_jagged = true;
      c.seqused_q = used;
      c.q_lead = 5;
      c.q_trail = 130;
      c.name = std::string("jagged_lead_trail_") + amkl::activation_name(a) +
               (used ? "_seqused" : "");
      v.push_back(c);
    }
  }
  // GQA ratios.
  for (int r : {1, 2, 4, 8}) {
    for (Activation a : {Activation::Softmax, Activation::Silu}) {
      Case c;
      c.H = 8;
      c.Hkv = 8 / r;
      c.act = a;
      c.lq = {200, 77};
      c.lk = {333, 129};
      c.causal = r == 4;
      c.name = "gqa_" + std::to_string(r) + "_" + amkl::activation_name(a);
      v.push_back(c);
    }
  }
  // GQA packing (a KV head's query heads in one tile) where the query sequences are shorter
  // than a tile: chosen automatically for each case below but the last (ceil(L_q G / 128) < G,
  // two consumer warpgroups: the three-warpgroup kernels do not pack);
  // gpu-check also runs every case with it forced (the GQA cases above then pack too).
  for (int r : {2, 4, 8, 16}) {
    for (Activation a : {Activation::Softmax, Activation::FastGelu}) {
      Case c;
      c.H = 16;
      c.Hkv = 16 / r;
      c.act = a;
      c.lq = {1, 7, 16, 33, 0};
      c.lk = {300, 129, 1, 64, 50};
      c.q_jagged = r != 4;
      c.seqused_q = r == 4;  // dense q: the lengths through seqused
      c.k_jagged = r == 8;
      if (r == 8) c.lk = {300, 129, 0, 64, 50};  // a sequence without keys: the zeros path
      c.causal = r == 2;
      c.wl = r == 16 ? 20 : -1;
      c.wr = r == 16 ? 3 : -1;
      c.out_f32 = a == Activation::Softmax;
      c.name = "pack_gqa_" + std::to_string(r) + "_" + amkl::activation_name(a);
      v.push_back(c);
    }
  }
  for (std::pair<int, int> dd : {std::pair<int, int>{64, 64}, {256, 256}, {192, 128}}) {
    Case c;
    c.dtype = dd.first == 64 ? DType::Float16 : DType::BFloat16;
    c.d = dd.first;
    c.dv = dd.second;
    c.H = 8;
    c.Hkv = 2;
    c.act = dd.first == 256 ? Activation::Silu : Activation::Softmax;
    c.lq = {5, 32};
    c.lk = {200, 33};
    c.q_row_pad = 8;
    c.name = "pack_gqa_d" + std::to_string(dd.first) + "_" + std::to_string(dd.second);
    v.push_back(c);
  }
  {  // packed GQA (8 heads over 2 KV heads) with the other layouts and output paths
    const auto gqa = [] {
      Case c;
      c.H = 8;
      c.Hkv = 2;
      return c;
    };
    Case c = gqa();
    c.act = Activation::FastGelu;
    c.lq = {5, 30, 1, 64};
    c.lk = {257, 64};
    c.q_jagged = c.k_jagged = true;
    c.q_to_kv = {1, 0, 1, 0};
    c.name = "pack_gqa_q_to_kv";
    v.push_back(c);
    c = gqa();
    c.act = Activation::Softmax;
    c.lq = {50};
    c.lk = {256, 100, 300};
    c.broadcast_q = true;
    c.dense_lq = 50;
    c.name = "pack_gqa_broadcast_q";
    v.push_back(c);
    c = gqa();
    c.act = Activation::Softmax;
    c.lq = {0, 1, 63, 60, 5};
    c.lk = {5, 129, 300, 64, 1000};
    c.q_jagged = true;
    c.seqused_q = true;
    c.q_lead = 5;
    c.q_trail = 130;
    c.name = "pack_gqa_lead_trail_seqused";
    v.push_back(c);
    for (int pad : {2, 3}) {  // 16-bit O by pair stores (2) and element stores (3)
      c = gqa();
      c.act = pad == 2 ? Activation::FastGelu : Activation::Softmax;
      c.lq = {20, 1, 60};
      c.lk = {200, 65, 3};
      c.q_jagged = true;
      c.out_row_pad = pad;
      c.out_f32 = false;
      c.name = "pack_gqa_out_row_pad" + std::to_string(pad);
      v.push_back(c);
    }
    c = gqa();  // causal dense: 6 (sequence, KV head) pairs in sections of 4 and 2
    c.lq = {60, 60, 60};
    c.lk = {300, 300, 300};
    c.causal = true;
    c.section_pairs = 4;
    c.name = "pack_gqa_sections_causal";
    v.push_back(c);
    c = gqa();  // several packed tiles per sequence (packed only by gpu-check's forced pass)
    c.d = c.dv = 64;
    c.lq = {100, 37};
    c.lk = {300, 90};
    c.q_jagged = c.k_jagged = true;
    c.causal = true;
    c.name = "pack_gqa_d64_causal_tiles";
    v.push_back(c);
  }
  // q_to_kv (ad-to-request), broadcast q, strided rows, softcap, scales, float32 out.
  {
    Case c;
    c.act = Activation::FastGelu;
    c.lq = {100, 300, 5, 129};
    c.lk = {257, 64};
    c.q_jagged = true;
    c.k_jagged = true;
    c.q_to_kv = {1, 0, 1, 0};
    c.name = "q_to_kv_jagged";
    v.push_back(c);
    c.act = Activation::Softmax;
    c.q_jagged = false;
    c.k_jagged = false;
    c.name = "q_to_kv_dense_softmax";
    v.push_back(c);
  }
  {
    Case c;
    c.act = Activation::FastGelu;
    c.lq = {150};
    c.lk = {256, 100, 300};
    c.broadcast_q = true;
    c.dense_lq = 150;
    c.name = "broadcast_q";
    v.push_back(c);
  }
  for (int d : {64, 128}) {
    Case c;
    c.d = c.dv = d;
    c.q_row_pad = 24;
    c.H = 3;
    c.Hkv = 3;
    c.lq = {130, 257};
    c.lk = {260, 190};
    c.act = Activation::Softmax;
    c.softcap = 15.f;
    c.name = "strided_softcap_d" + std::to_string(d);
    v.push_back(c);
    c.softcap = 0.f;
    c.act = Activation::Gelu;
    c.scale = 0.3f;
    c.out_scale = 0.25f;
    c.out_f32 = true;
    c.name = "strided_scales_f32out_d" + std::to_string(d);
    v.push_back(c);
  }
  // Output rows with padding: 8 (16-byte aligned rows: the 16-byte chunk stores), 2 (4-byte
  // pair stores), 3 (odd stride: element stores); 16-bit and float32 outputs.
  for (int pad : {8, 2, 3}) {
    for (bool f32 : {false, true}) {
      Case c;
      c.act = f32 ? Activation::Softmax : Activation::FastGelu;
      c.lq = {70, 129, 1};
      c.lk = {200, 65, 3};
      c.q_jagged = pad != 8;
      c.out_row_pad = pad;
      c.out_f32 = f32;
      c.name = std::string("out_row_pad") + std::to_string(pad) + (f32 ? "_f32out" : "");
      v.push_back(c);
    }
  }
  // fast_gelu, gelu_approx, silu and gelu fold the scale into their constants only for 1e-12
  // <= |scale| <= 1e13 (act_fold); scales on both sides of that range take the plain formula.
  for (Activation act : {Activation::FastGelu, Activation::GeluApprox, Activation::Silu,
                         Activation::Gelu}) {
    for (float sc : {1e-14f, 3e-12f, 5e12f, 2e13f}) {
      Case c;
      c.act = act;
      c.lq = {70, 129};
      c.lk = {200, 65};
      c.scale = sc;
      c.out_scale = 1.f / sc;
      c.out_f32 = true;
      char name[64];
      std::snprintf(name, sizeof(name), "%s_scale_%.0e", amkl::activation_name(act),
                    double(sc));
      c.name = name;
      for (char& ch : c.name) ch = ch == '-' ? 'm' : (ch == '+' ? 'p' : ch);
      v.push_back(c);
    }
  }
  // Softmax's running max jumping at a later key block, by ~30 and by ~180 (log2 units): the
  // max moves past the slack and O and the row sums are rescaled. ~180 also overflows 2^x
  // where exponentials are taken against the old max (ScorePolicy::exp_ahead: the refill).
  for (float gain : {8.f, 40.f}) {
    for (int d : {64, 128, 256}) {
      for (DType dt : {DType::BFloat16, DType::Float16}) {
        Case c;
        c.dtype = dt;
        c.d = c.dv = d;
        c.lq = {300, 70};
        c.lk = {1000, 450};
        c.k_jump_from = 300;
        c.k_jump_gain = gain;
        c.causal = d == 128 && dt == DType::Float16;
        c.name = std::string("softmax_k_jump") + std::to_string(int(gain)) + "_" +
                 (dt == DType::BFloat16 ? "bf16" : "fp16") + "_d" + std::to_string(d) +
                 (c.causal ? "_causal" : "");
        v.push_back(c);
      }
    }
  }
  {
    Case c;  // fp16 masks + jagged
    c.dtype = DType::Float16;
    c.act = Activation::Softmax;
    c.lq = rag;
    c.lk = rag_k;
    c.q_jagged = c.k_jagged = true;
    c.wl = 50;
    c.wr = 10;
    c.name = "fp16_jagged_window";
    v.push_back(c);
  }
  // Many sequences of varied lengths: thousands of tiles of different cost, so the heaviest-
  // first tile list (fwd_tile_list.h) spans several blocks of both of its kernels and many
  // cost buckets, with empty and one-row sequences among them.
  for (Activation a : {Activation::Softmax, Activation::FastGelu}) {
    Case c;
    c.act = a;
    c.lq.clear();
    c.lk.clear();
    uint32_t x = 12345u;
    auto next = [&x](int mod) {
      x = x * 1664525u + 1013904223u;
      return int((x >> 8) % uint32_t(mod));
    };
    for (int b = 0; b < 300; ++b) {
      c.lq.push_back(b % 37 == 0 ? 0 : (b % 41 == 0 ? 1 : next(400)));
      c.lk.push_back(b % 43 == 0 ? 0 : next(900));
    }
    c.q_jagged = c.k_jagged = true;
    c.causal = a == Activation::Softmax;
    c.name = std::string("jagged_many_tiles_") + amkl::activation_name(a);
    v.push_back(c);
    c.graph = true;
    c.name += "_cuda_graph";
    v.push_back(c);
  }
  // Many jagged query sequences (empty and one-row ones among them) over dense keys without a
  // mask (the GDPA benchmark's layout): every tile with rows costs the same.
  {
    Case c;
    c.act = Activation::FastGelu;
    c.lq.clear();
    for (int b = 0; b < 300; ++b) c.lq.push_back(b % 37 == 0 ? 0 : (b % 41 == 0 ? 1 : (b * 97) % 400));
    c.lk.assign(c.lq.size(), 300);
    c.q_jagged = true;
    c.name = "jagged_q_dense_kv_many_tiles_fast_gelu";
    v.push_back(c);
  }
  // Dense causal calls take their tiles longest-first in sections of (sequence, head) pairs
  // (TileScheduler): many sections and a short last one, with and without GQA, forced small
  // (real sizes need K and V of megabytes per pair).
  for (int hkv : {5, 1}) {
    for (Activation a : {Activation::Softmax, Activation::FastGelu}) {
      Case c;
      c.act = a;
      c.H = 5;
      c.Hkv = hkv;
      c.lq = {300, 300, 300};
      c.lk = {400, 400, 400};
      c.causal = true;
      c.section_pairs = 4;  // 15 pairs: sections of 4, 4, 4 and 3
      c.out_f32 = a == Activation::Softmax;
      c.name = std::string("sections_causal_hkv") + std::to_string(hkv) + "_" +
               amkl::activation_name(a);
      v.push_back(c);
    }
  }
  // O through smem and TMA stores (16-bit outputs with 16-byte aligned rows): every head-dim
  // pair that stages O, both dtypes; jagged sequences with full and partial 64-row slices (a
  // warpgroup stores by TMA only where its 64 rows all exist, else from registers: both in one
  // tile), dense batches with several heads, and thousands of tiles, where the Q ring cycles
  // with each tile's O leaving through its Q stage.
  for (DType dt : {DType::BFloat16, DType::Float16}) {
    for (std::pair<int, int> dd :
         {std::make_pair(64, 64), std::make_pair(128, 128), std::make_pair(192, 128)}) {
      for (Activation a : {Activation::Softmax, Activation::FastGelu}) {
        const std::string stem = std::string("staged_o_") +
                                 (dt == DType::BFloat16 ? "bf16" : "fp16") + "_d" +
                                 std::to_string(dd.first) + "_" + std::to_string(dd.second) +
                                 "_" + amkl::activation_name(a);
        Case c;
        c.dtype = dt;
        c.d = dd.first;
        c.dv = dd.second;
        c.act = a;
        c.out_f32 = false;
        c.lq = {64, 128, 200, 1, 300, 256, 0, 191, 384};
        c.lk = {300, 64, 129, 7, 256, 400, 50, 191, 128};
        c.q_jagged = c.k_jagged = true;
        c.name = stem + "_jagged";
        v.push_back(c);
        c.q_jagged = c.k_jagged = false;
        c.H = c.Hkv = 3;
        c.lq = {256, 256};
        c.lk = {320, 320};
        c.causal = a == Activation::Softmax;
        c.name = stem + "_dense";
        v.push_back(c);
      }
    }
  }
  // The plain kernel (fwd_plain.h: softmax, 16-bit O by TMA, dense queries in whole tiles, no
  // softcap, left window or packing): every head-dim pair (d = 256 has no staged O, so its
  // cases run the full kernel), both dtypes, full and causal (the causal one with L_q > L_k:
  // its first tiles see no key and store zeros), a right window, GQA; 384 rows fill the
  // three-warpgroup tiles (192 rows) as well as the two-warpgroup ones. The gpu-check pass wg2
  // runs them all on the full kernel (AMKL_SM90_PLAIN=0).
  for (DType dt : {DType::BFloat16, DType::Float16}) {
    for (std::pair<int, int> dd : {std::make_pair(64, 64), std::make_pair(128, 128),
                                   std::make_pair(192, 128), std::make_pair(256, 256)}) {
      for (int kind = 0; kind < 3; ++kind) {
        Case c;
        c.dtype = dt;
        c.d = dd.first;
        c.dv = dd.second;
        c.out_f32 = false;
        c.H = 4;
        c.Hkv = kind == 2 ? 2 : 4;
        c.lq = {384, 384};
        c.lk = kind == 1 ? std::vector<int>{200, 200} : std::vector<int>{320, 320};
        c.causal = kind == 1;
        if (kind == 2) c.wr = 16;
        c.name = std::string("plain_") + (dt == DType::BFloat16 ? "bf16" : "fp16") + "_d" +
                 std::to_string(dd.first) + "_" + std::to_string(dd.second) +
                 (kind == 0 ? "_full" : (kind == 1 ? "_causal_lq_gt_lk" : "_gqa_right_window"));
        v.push_back(c);
      }
    }
  }
  {  // many tiles per CTA: the plain kernel's Q ring and O stages cycling, causal tile order
    Case c;
    c.out_f32 = false;
    c.H = c.Hkv = 16;
    c.lq.assign(4, 512);
    c.lk.assign(4, 512);
    c.causal = true;
    c.name = "plain_many_tiles_causal";
    v.push_back(c);
  }
  // The folded causal order (fwd_fold.h; plain calls with two consumer warpgroups): query
  // blocks j and M - 1 - j in one unit, the light one first. Even and odd M (the middle block
  // alone), many units per CTA, L_k > L_q, a right window, a batch map, fp16 and the (192, 128)
  // kernel, a running max that jumps up at key 256, a CUDA graph, d = 64 (two warpgroups under
  // a causal mask), light tiles without keys beside heavy ones with keys (L_q > L_k), and units
  // of two one-block tiles (top-left, L_k = 128). Folding by default needs d = 128, 8 query
  // blocks and no GQA, so all but many_units force it (AMKL_SM90_FOLD=1). The gpu-check pass
  // wg2 runs them all unfolded (AMKL_SM90_PLAIN=0).
  for (int kind = 0; kind < 11; ++kind) {
    Case c;
    c.fold_forced = true;
    c.out_f32 = false;
    c.causal = true;
    c.H = c.Hkv = 4;
    // Sequence lengths: `seqs_q` query sequences of lq rows over `seqs_k` KV sequences of lk.
    auto lengths = [&c](int seqs_q, int lq, int seqs_k, int lk) {
      c.lq.assign(size_t(seqs_q), lq);
      c.lk.assign(size_t(seqs_k), lk);
    };
    lengths(2, 512, 2, 512);
    std::string what;
    switch (kind) {
      case 0:
        what = "odd_m";
        lengths(2, 640, 2, 640);
        break;
      case 1:
        what = "many_units";  // 8 query blocks: folded by default, 512 units
        c.fold_forced = false;
        c.H = c.Hkv = 16;
        lengths(8, 1024, 8, 1024);
        break;
      case 2:
        what = "lk_gt_lq";
        lengths(3, 384, 3, 700);
        break;
      case 3:
        what = "right_window";
        c.causal = false;
        c.wr = 100;
        c.H = 8;
        c.Hkv = 2;
        break;
      case 4:
        what = "q_to_kv";
        lengths(3, 512, 2, 512);
        c.q_to_kv = {1, 0, 1};
        break;
      case 5:
        what = "fp16_d192";
        c.dtype = DType::Float16;
        c.d = 192;
        c.dv = 128;
        break;
      case 6:
        what = "k_jump";
        c.k_jump_from = 256;
        c.k_jump_gain = 6.f;
        break;
      case 8:
        what = "d64";
        c.d = c.dv = 64;
        lengths(2, 1024, 2, 1024);
        break;
      case 9:
        what = "lq_gt_lk";  // M = 5; tiles 0-1 without keys, 2 partly
        lengths(2, 640, 2, 300);
        break;
      case 10:
        what = "top_left_one_block";  // M = 2: both tiles see only key block 0
        c.align = amkl::MaskAlign::TopLeft;
        lengths(2, 256, 2, 128);
        break;
      default:
        what = "graph";
        c.graph = true;
        lengths(2, 768, 2, 768);
        break;
    }
    c.name = "fold_causal_" + what;
    c.folds = true;
    v.push_back(c);
  }
  for (Activation a : {Activation::Softmax, Activation::FastGelu}) {
    Case c;
    c.act = a;
    c.out_f32 = false;
    c.lq.clear();
    for (int b = 0; b < 300; ++b) c.lq.push_back(b % 37 == 0 ? 0 : (b % 41 == 0 ? 1 : (b * 97) % 400));
    c.lk.assign(c.lq.size(), 256);
    c.q_jagged = true;
    c.name = std::string("staged_o_many_tiles_") + amkl::activation_name(a);
    v.push_back(c);
  }
  // Two or more tiles in every CTA (over 264 tiles on 132 SMs) for the head dims other than
  // 128: the rings, the Q stages and the mailbox carry from tile to tile, the next tile's
  // first S is issued at the end of the last, and O of the tiles whose last warpgroup rows
  // are partial (L_q = 1050 / 600) is deferred into the next tile's first policy (16-bit O;
  // at d = 256 every O is, as it does not stage O through smem).
  for (std::pair<int, int> dd :
       {std::make_pair(64, 64), std::make_pair(256, 256), std::make_pair(192, 128)}) {
    for (Activation a : {Activation::Softmax, Activation::FastGelu}) {
      Case c;
      c.dtype = dd.first == 192 ? DType::Float16 : DType::BFloat16;
      c.d = dd.first;
      c.dv = dd.second;
      c.act = a;
      c.out_f32 = false;
      c.H = c.Hkv = 16;
      c.lq.assign(4, dd.first == 64 ? 1050 : 600);
      c.lk.assign(4, dd.first == 64 ? 300 : 200);
      c.name = "many_tiles_per_cta_" +
               std::string(c.dtype == DType::BFloat16 ? "bf16" : "fp16") + "_d" +
               std::to_string(dd.first) + "_" + std::to_string(dd.second) + "_" +
               amkl::activation_name(a);
      v.push_back(c);
    }
  }
  // Rows without keys must come out exactly 0 whatever the CTA's O registers hold: 150
  // sequences whose V is inf (two tiles each, the heavy ones, run first) and then 50 with no
  // keys, so most CTAs reach a keyless tile with inf in O (0 * inf is NaN, not 0).
  for (Activation a : {Activation::Softmax, Activation::FastGelu}) {
    Case c;
    c.act = a;
    c.H = c.Hkv = 1;
    c.lq.clear();
    c.lk.clear();
    for (int b = 0; b < 200; ++b) {
      c.lq.push_back(b < 150 ? 129 : 65);
      c.lk.push_back(b < 150 ? 129 : 0);
      if (b < 150) c.inf_v_seqs.push_back(b);
    }
    c.q_jagged = c.k_jagged = true;
    c.name = std::string("keyless_rows_after_inf_") + amkl::activation_name(a);
    v.push_back(c);
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Sm90, GpuFwd, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

TEST(GpuFwdErrors, UnsupportedHeadDimThrowsNotSupported) {
  if (!amkl::gpu_supported(0)) GTEST_SKIP() << "no Hopper GPU";
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, 1 << 20), cudaSuccess);
  const amkl::Device dev{amkl::DeviceType::CUDA, 0};
  amkl::AttentionInputs in;
  in.q = amkl::TensorRef::make(p, DType::BFloat16, {1, 16, 1, 96}, {}, dev);
  in.k = in.q;
  in.v = in.q;
  amkl::AttentionForwardOutputs o;
  o.out = in.q;
  amkl::AttentionOptions opt;
  opt.activation = Activation::FastGelu;
  try {
    amkl::attention_forward(in, opt, o);
    ADD_FAILURE() << "expected amkl::Error";
  } catch (const amkl::Error& e) {
    EXPECT_EQ(e.kind(), amkl::ErrorKind::NotSupported);
    EXPECT_NE(std::string(e.what()).find("d=96"), std::string::npos) << e.what();
  }
  cudaFree(p);
}

TEST(GpuFwdErrors, NegativeStridesThrowNotSupported) {
  // TMA takes no negative stride; the CPU backend does (the API accepts them on inputs).
  if (!amkl::gpu_supported(0)) GTEST_SKIP() << "no Hopper GPU";
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, 1 << 20), cudaSuccess);
  const amkl::Device dev{amkl::DeviceType::CUDA, 0};
  auto* base = static_cast<uint16_t*>(p);
  for (bool head : {true, false}) {
    amkl::AttentionInputs in;
    // [B=2, L=16, H=2, d=64], the stride of heads or of batches negative: element 0 of that dim
    // lies last in memory.
    const int64_t hs = head ? -64 : 64, bs = head ? 2048 : -2048;
    in.q = amkl::TensorRef::make(base + (head ? 64 : 2048), DType::BFloat16, {2, 16, 2, 64},
                                 {bs, 128, hs, 1}, dev);
    in.k = amkl::TensorRef::make(base + 8192, DType::BFloat16, {2, 16, 2, 64}, {}, dev);
    in.v = in.k;
    amkl::AttentionForwardOutputs o;
    o.out = amkl::TensorRef::make(base + 16384, DType::BFloat16, {2, 16, 2, 64}, {}, dev);
    try {
      amkl::attention_forward(in, amkl::AttentionOptions{}, o);
      ADD_FAILURE() << "expected amkl::Error";
    } catch (const amkl::Error& e) {
      EXPECT_EQ(e.kind(), amkl::ErrorKind::NotSupported);
      EXPECT_NE(std::string(e.what()).find(head ? "head stride" : "batch stride"),
                std::string::npos)
          << e.what();
    }
  }
  cudaFree(p);
}

TEST(GpuFwdErrors, BadDeviceIndexVectorsThrowNamingTheirArgument) {
  // The five index vectors of a call are read to the host together (one copy, one sync:
  // api::read_index_vectors); each check must still see its own vector and name it, and
  // nothing is written to out.
  if (!amkl::gpu_supported(0)) GTEST_SKIP() << "no Hopper GPU";
  // q, k and v jagged: T = 40 rows, H = 2, d = 64; two sequences of each.
  const int64_t rows = 40, heads = 2, d = 64, elems = rows * heads * d;
  void* p = nullptr;
  ASSERT_EQ(cudaMalloc(&p, size_t(4 * elems) * 2 + 256), cudaSuccess);
  auto* base = static_cast<uint16_t*>(p);
  CK(cudaMemset(base, 0, size_t(3 * elems) * 2));
  const std::vector<uint16_t> poison(size_t(elems), uint16_t(0x7fc1));  // a bf16 NaN
  CK(cudaMemcpy(base + 3 * elems, poison.data(), size_t(elems) * 2, cudaMemcpyHostToDevice));
  auto* idx = reinterpret_cast<int32_t*>(base + 4 * elems);  // 5 vectors of up to 3 entries
  const amkl::Device dev{amkl::DeviceType::CUDA, 0};
  // Uploads cu_seqlens_q, seqused_q, cu_seqlens_k, seqused_k, q_to_kv (in that order) and
  // runs the forward on them.
  using Vectors = std::vector<std::vector<int32_t>>;
  auto upload_and_run = [&](const Vectors& vecs) {
    for (size_t i = 0; i < vecs.size(); ++i) {
      const cudaError_t e = cudaMemcpy(idx + 4 * i, vecs[i].data(), vecs[i].size() * 4,
                                       cudaMemcpyHostToDevice);
      if (e != cudaSuccess) throw std::runtime_error(cudaGetErrorString(e));
    }
    amkl::AttentionInputs in;
    in.q = amkl::TensorRef::make(base, DType::BFloat16, {rows, heads, d}, {}, dev);
    in.k = amkl::TensorRef::make(base + elems, DType::BFloat16, {rows, heads, d}, {}, dev);
    in.v = amkl::TensorRef::make(base + 2 * elems, DType::BFloat16, {rows, heads, d}, {}, dev);
    in.cu_seqlens_q = amkl::TensorRef::make(idx, DType::Int32, {3}, {}, dev);
    in.seqused_q = amkl::TensorRef::make(idx + 4, DType::Int32, {2}, {}, dev);
    in.cu_seqlens_k = amkl::TensorRef::make(idx + 8, DType::Int32, {3}, {}, dev);
    in.seqused_k = amkl::TensorRef::make(idx + 12, DType::Int32, {2}, {}, dev);
    in.q_to_kv = amkl::TensorRef::make(idx + 16, DType::Int32, {2}, {}, dev);
    amkl::AttentionForwardOutputs o;
    o.out = amkl::TensorRef::make(base + 3 * elems, DType::BFloat16, {rows, heads, d}, {}, dev);
    amkl::AttentionOptions opt;
    opt.activation = Activation::FastGelu;
    amkl::attention_forward(in, opt, o);
  };
  struct Bad {
    Vectors vecs;
    const char* message;
  };
  const std::vector<Bad> cases = {
      {{{0, 30, 25}, {1, 1}, {0, 20, 40}, {5, 5}, {1, 0}},
       "cu_seqlens_q: offsets must be non-decreasing"},
      {{{0, 20, 40}, {1, 21}, {0, 20, 40}, {5, 5}, {1, 0}},
       "seqused_q: entry 1 must lie in [0, 20]"},
      {{{0, 20, 40}, {1, 1}, {0, 20, 41}, {5, 5}, {1, 0}},
       "cu_seqlens_k: the last offset (41) exceeds the 40 rows of k"},
      {{{0, 20, 40}, {1, 1}, {0, 20, 40}, {5, 25}, {1, 0}},
       "seqused_k: entry 1 must lie in [0, 20]"},
      {{{0, 20, 40}, {1, 1}, {0, 20, 40}, {5, 5}, {1, 2}}, "q_to_kv: entry 1 must lie in [0, 2)"},
  };
  for (const Bad& c : cases) {
    try {
      upload_and_run(c.vecs);
      ADD_FAILURE() << "expected amkl::Error for " << c.message;
    } catch (const amkl::Error& e) {
      EXPECT_EQ(e.kind(), amkl::ErrorKind::InvalidArgument) << e.what();
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos)
          << "expected '" << c.message << "' in: " << e.what();
    }
    std::vector<uint16_t> after(static_cast<size_t>(elems));
    CK(cudaMemcpy(after.data(), base + 3 * elems, size_t(elems) * 2, cudaMemcpyDeviceToHost));
    EXPECT_EQ(after, poison) << "out written on error (" << c.message << ")";
  }
  // The same vectors, valid: the call runs (its results are checked by the oracle cases).
  EXPECT_NO_THROW(upload_and_run({{0, 20, 40}, {1, 20}, {0, 20, 40}, {5, 20}, {1, 0}}));
  CK(cudaDeviceSynchronize());
  cudaFree(p);
}

}  // namespace
