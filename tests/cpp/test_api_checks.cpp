// Every argument check of the public API, triggered at least once, with its message and
// error kind asserted, and the outputs checked untouched afterwards.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "amkl/amkl.h"

namespace {

using namespace amkl;

// Runs fn, expects amkl::Error of `kind` whose message contains every one of `parts`.
void expect_error(const std::function<void()>& fn, ErrorKind kind,
                  std::initializer_list<std::string> parts) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(int(e.kind()), int(kind)) << e.what();
    const std::string msg = e.what();
    for (const std::string& p : parts) {
      EXPECT_NE(msg.find(p), std::string::npos) << "message '" << msg << "' lacks '" << p << "'";
    }
    return;
  }
  ADD_FAILURE() << "no amkl::Error thrown";
}
#define EXPECT_INVALID(stmt, ...) expect_error([&] { stmt; }, ErrorKind::InvalidArgument, {__VA_ARGS__})
#define EXPECT_UNSUPPORTED(stmt, ...) expect_error([&] { stmt; }, ErrorKind::NotSupported, {__VA_ARGS__})

// Valid dense inputs (B=2, Lq=5, Lk=6, H=4, H_kv=2, d=8, d_v=8) and outputs, float32 CPU.
// Outputs are filled with a sentinel; every test checks they stay untouched.
class ApiChecks : public ::testing::Test {
 protected:
  static constexpr float kSentinel = 12345.0f;
  std::vector<float> q = std::vector<float>(2 * 5 * 4 * 8, 0.5f);
  std::vector<float> k = std::vector<float>(2 * 6 * 2 * 8, 0.25f);
  std::vector<float> v = std::vector<float>(2 * 6 * 2 * 8, 1.0f);
  std::vector<float> out = std::vector<float>(2 * 5 * 4 * 8, kSentinel);
  std::vector<float> lse = std::vector<float>(2 * 4 * 5, kSentinel);
  std::vector<float> dq = std::vector<float>(q.size(), kSentinel);
  std::vector<float> dk = std::vector<float>(k.size(), kSentinel);
  std::vector<float> dv = std::vector<float>(v.size(), kSentinel);
  std::vector<int32_t> cu_q{0, 3, 5};  // for jagged variants: T=5 rows of q
  std::vector<int32_t> idx2{0, 1};

  AttentionInputs in;
  AttentionOptions opt;
  AttentionForwardOutputs fo;
  AttentionBackwardArgs bo;

  void SetUp() override {
    in = {};
    opt = {};
    fo = {};
    bo = {};
    in.q = TensorRef::make(q.data(), DType::Float32, {2, 5, 4, 8});
    in.k = TensorRef::make(k.data(), DType::Float32, {2, 6, 2, 8});
    in.v = TensorRef::make(v.data(), DType::Float32, {2, 6, 2, 8});
    fo.out = TensorRef::make(out.data(), DType::Float32, {2, 5, 4, 8});
    fo.lse = TensorRef::make(lse.data(), DType::Float32, {2, 4, 5});
    bo.out = TensorRef::make(q.data(), DType::Float32, {2, 5, 4, 8});  // any valid values
    bo.dout = TensorRef::make(q.data(), DType::Float32, {2, 5, 4, 8});
    bo.lse = TensorRef::make(lse.data(), DType::Float32, {2, 4, 5});
    bo.dq = TensorRef::make(dq.data(), DType::Float32, {2, 5, 4, 8});
    bo.dk = TensorRef::make(dk.data(), DType::Float32, {2, 6, 2, 8});
    bo.dv = TensorRef::make(dv.data(), DType::Float32, {2, 6, 2, 8});
  }
  void TearDown() override {
    for (float x : out) ASSERT_EQ(x, kSentinel) << "out written on error";
    for (float x : dq) ASSERT_EQ(x, kSentinel) << "dq written on error";
    for (float x : dk) ASSERT_EQ(x, kSentinel) << "dk written on error";
    for (float x : dv) ASSERT_EQ(x, kSentinel) << "dv written on error";
  }
  void fwd() { attention_forward(in, opt, fo); }
  void bwd() { attention_backward(in, opt, bo); }
  // Switches q to jagged [T=5, 4, 8] with cu_seqlens_q = {0, 3, 5}.
  void make_q_jagged() {
    in.q = TensorRef::make(q.data(), DType::Float32, {5, 4, 8});
    in.cu_seqlens_q = TensorRef::make(cu_q.data(), DType::Int32, {3});
    fo.out = TensorRef::make(out.data(), DType::Float32, {5, 4, 8});
    fo.lse = TensorRef::make(lse.data(), DType::Float32, {4, 5});
  }
};

TEST_F(ApiChecks, ValidCallsAreAccepted) {
  // The fixture's inputs are valid: shapes come back without error (nothing is written).
  AttentionShapes s = attention_forward_shapes(in, opt);
  EXPECT_EQ(s.out, (std::vector<int64_t>{2, 5, 4, 8}));
  EXPECT_EQ(s.lse, (std::vector<int64_t>{2, 4, 5}));
  opt.activation = Activation::FastGelu;
  s = attention_forward_shapes(in, opt);
  EXPECT_TRUE(s.lse.empty());
  make_q_jagged();
  opt.activation = Activation::Softmax;
  in.k = TensorRef::make(k.data(), DType::Float32, {12, 2, 8});
  in.v = TensorRef::make(v.data(), DType::Float32, {12, 2, 4});  // d_v = 4
  std::vector<int32_t> cu_k{0, 6, 12};
  in.cu_seqlens_k = TensorRef::make(cu_k.data(), DType::Int32, {3});
  s = attention_forward_shapes(in, opt);
  EXPECT_EQ(s.out, (std::vector<int64_t>{5, 4, 4}));
  EXPECT_EQ(s.lse, (std::vector<int64_t>{4, 5}));
}

TEST_F(ApiChecks, MissingAndMalformedTensors) {
  in.q = TensorRef{};
  EXPECT_INVALID(fwd(), "q: required but not given");
  SetUp();
  in.k = TensorRef::make(k.data(), DType::Float32, {2, -6, 2, 8});
  EXPECT_INVALID(fwd(), "k: negative size");
  SetUp();
  in.v = TensorRef::make(nullptr, DType::Float32, {2, 6, 2, 8});
  EXPECT_INVALID(fwd(), "v: null data pointer");
  SetUp();
  fo.out = TensorRef{};
  EXPECT_INVALID(fwd(), "out: required but not given");
}

TEST_F(ApiChecks, Devices) {
  in.k.device = Device{DeviceType::CUDA, 0};
  EXPECT_INVALID(fwd(), "k: expected device cpu (the device of q), got cuda:0");
  SetUp();
  in.v.device = Device{DeviceType::CUDA, 1};
  EXPECT_INVALID(fwd(), "v: expected device cpu", "cuda:1");
  SetUp();
  fo.out.device = Device{DeviceType::CUDA, 0};
  EXPECT_INVALID(fwd(), "out: expected device cpu");
  SetUp();
  in.q.device.type = DeviceType(7);
  EXPECT_INVALID(fwd(), "q: unknown device type 7");
}

TEST_F(ApiChecks, Dtypes) {
  in.q.dtype = DType::Int32;
  EXPECT_INVALID(fwd(), "q: expected dtype float64 or float32 or float16 or bfloat16, got int32");
  SetUp();
  in.q.dtype = in.k.dtype = in.v.dtype = DType::Float8E4M3;
  EXPECT_UNSUPPORTED(fwd(), "float8 attention is not implemented", "float8_e4m3");
  SetUp();
  in.k.dtype = DType::Float64;
  EXPECT_INVALID(fwd(), "k: expected dtype float32 (the dtype of q), got float64");
  SetUp();
  in.v.dtype = DType::BFloat16;
  EXPECT_INVALID(fwd(), "v: expected dtype float32 (the dtype of q), got bfloat16");
  SetUp();
  fo.out.dtype = DType::Float16;
  EXPECT_INVALID(fwd(), "out: expected dtype float32", "got float16");
  SetUp();
  fo.lse.dtype = DType::Float64;
  EXPECT_INVALID(fwd(), "lse: expected dtype float32, got float64");
}

TEST_F(ApiChecks, Options) {
  opt.activation = Activation(13);
  EXPECT_INVALID(fwd(), "activation: id must be in [0, 12], got 13");
  SetUp();
  opt = {};
  opt.scale = INFINITY;
  EXPECT_INVALID(fwd(), "scale: must be finite");
  opt = {};
  opt.out_scale = NAN;
  EXPECT_INVALID(fwd(), "out_scale: must be finite");
  opt = {};
  opt.out_scale = 2.0f;
  EXPECT_INVALID(fwd(), "out_scale: applies to pointwise activations only");
  opt = {};
  opt.softcap = -1.0f;
  EXPECT_INVALID(fwd(), "softcap: must be finite and >= 0");
  opt = {};
  opt.activation = Activation::Gelu;
  opt.softcap = 30.0f;
  fo.lse = TensorRef{};
  EXPECT_INVALID(fwd(), "softcap: applies to softmax only", "'gelu'");
  opt = {};
  opt.window_left = -2;
  EXPECT_INVALID(fwd(), "window: each side must be >= -1", "(-2, -1)");
  opt = {};
  opt.causal = true;
  opt.window_right = 3;
  EXPECT_INVALID(fwd(), "window: causal=true means window_right = 0", "3");
  opt = {};
  opt.mask_align = MaskAlign(5);
  EXPECT_INVALID(fwd(), "mask_align: expected BottomRight (0) or TopLeft (1), got 5");
  opt = {};
  opt.emulate = Rounding(9);
  EXPECT_INVALID(fwd(), "emulate: expected None (0), BFloat16 (1) or Float16 (2), got 9");
  opt = {};
  opt.emulate = Rounding::BFloat16;
  in.q.device = in.k.device = in.v.device = fo.out.device = fo.lse.device =
      Device{DeviceType::CUDA, 0};
  EXPECT_INVALID(fwd(), "emulate: rounding emulation is a CPU-backend feature", "cuda:0");
}

TEST_F(ApiChecks, LayoutsAndShapes) {
  in.cu_seqlens_q = TensorRef::make(cu_q.data(), DType::Int32, {3});
  EXPECT_INVALID(fwd(), "q: cu_seqlens_q is given, so expected a jagged tensor", "[2, 5, 4, 8]");
  SetUp();
  in.q = TensorRef::make(q.data(), DType::Float32, {10, 4, 8});
  EXPECT_INVALID(fwd(), "q: expected a dense tensor [B, Lq, H, d] (4 dims)", "cu_seqlens_q");
  SetUp();
  make_q_jagged();
  in.cu_seqlens_q = TensorRef::make(cu_q.data(), DType::Int32, {0});
  EXPECT_INVALID(fwd(), "cu_seqlens_q: expected shape [B + 1]", "[0]");
  SetUp();
  make_q_jagged();
  in.cu_seqlens_q.dtype = DType::Int64;
  EXPECT_INVALID(fwd(), "cu_seqlens_q: expected dtype int32, got int64");
  SetUp();
  make_q_jagged();
  in.cu_seqlens_q = TensorRef::make(cu_q.data(), DType::Int32, {3, 1});
  EXPECT_INVALID(fwd(), "cu_seqlens_q: expected 1 dim");
  SetUp();
  make_q_jagged();
  in.cu_seqlens_q = TensorRef::make(cu_q.data(), DType::Int32, {2}, {2});
  EXPECT_INVALID(fwd(), "cu_seqlens_q: must be contiguous");
  SetUp();
  in.v = TensorRef::make(v.data(), DType::Float32, {2, 5, 2, 8});
  EXPECT_INVALID(fwd(), "v: expected shape [2, 6, 2, 8] (k's shape with v's head dim)");
  SetUp();
  in.k = TensorRef::make(k.data(), DType::Float32, {2, 6, 4, 4});
  in.v = TensorRef::make(v.data(), DType::Float32, {2, 6, 4, 4});
  EXPECT_INVALID(fwd(), "k: head dim must equal q's (8)");
  SetUp();
  in.q = TensorRef::make(q.data(), DType::Float32, {2, 5, 4, 0});
  in.k = TensorRef::make(k.data(), DType::Float32, {2, 6, 2, 0});
  EXPECT_INVALID(fwd(), "head dims must be positive");
  SetUp();
  in.q = TensorRef::make(q.data(), DType::Float32, {2, 5, 0, 8});
  EXPECT_INVALID(fwd(), "head counts must be positive");
  SetUp();
  in.k = TensorRef::make(k.data(), DType::Float32, {2, 6, 3, 8});
  in.v = TensorRef::make(v.data(), DType::Float32, {2, 6, 3, 8});
  EXPECT_INVALID(fwd(), "number of query heads (4) must be a multiple of the number of kv heads, got 3");
  SetUp();
  in.q = TensorRef::make(q.data(), DType::Float32, {2, 5, 4, 4}, {160, 32, 8, 2});
  in.k = TensorRef::make(k.data(), DType::Float32, {2, 6, 2, 4});
  fo.out = TensorRef::make(out.data(), DType::Float32, {2, 5, 4, 8});
  EXPECT_INVALID(fwd(), "q: the last dim must be contiguous (stride 1), got strides of 2");
  SetUp();
  fo.out = TensorRef::make(out.data(), DType::Float32, {2, 5, 4, 4});
  EXPECT_INVALID(fwd(), "out: expected shape [2, 5, 4, 8], got [2, 5, 4, 4]");
  SetUp();
  fo.out = TensorRef::make(out.data(), DType::Float32, {2, 5, 4, 8}, {0, 32, 8, 1});
  EXPECT_INVALID(fwd(), "out: an output needs positive strides", "stride 0");
  SetUp();
  fo.lse = TensorRef::make(lse.data(), DType::Float32, {2, 5, 4});
  EXPECT_INVALID(fwd(), "lse: expected shape [2, 4, 5], got [2, 5, 4]");
  SetUp();
  opt.activation = Activation::Relu;
  EXPECT_INVALID(fwd(), "lse: exists for softmax only", "'relu'");
}

TEST_F(ApiChecks, BatchMapAndLengths) {
  in.k = TensorRef::make(k.data(), DType::Float32, {1, 6, 2, 8});
  in.v = TensorRef::make(v.data(), DType::Float32, {1, 6, 2, 8});
  EXPECT_INVALID(fwd(), "without q_to_kv, q and k need the same number of sequences; q has 2, k has 1");
  std::vector<int32_t> map{0, 0, 0};
  in.q_to_kv = TensorRef::make(map.data(), DType::Int32, {3});
  EXPECT_INVALID(fwd(), "q_to_kv: expected shape [2] (one entry per query sequence), got [3]");
  map = {0, 1};
  in.q_to_kv = TensorRef::make(map.data(), DType::Int32, {2});
  EXPECT_INVALID(fwd(), "q_to_kv: entry 1 must lie in [0, 1)", "got 1");
  SetUp();
  std::vector<int32_t> used{1, 2, 3};
  in.seqused_q = TensorRef::make(used.data(), DType::Int32, {3});
  EXPECT_INVALID(fwd(), "seqused_q: expected shape [2]");
  SetUp();
  in.seqused_k = TensorRef::make(used.data(), DType::Int32, {3});
  EXPECT_INVALID(fwd(), "seqused_k: expected shape [2]");
  SetUp();
  used = {2, 7};
  in.seqused_k = TensorRef::make(used.data(), DType::Int32, {2});
  EXPECT_INVALID(fwd(), "seqused_k: entry 1 must lie in [0, 6]", "got 7");
  SetUp();
  in.max_seqlen_q = -5;
  EXPECT_INVALID(fwd(), "max_seqlen_q/max_seqlen_k: must be >= 0, or -1");
}

TEST_F(ApiChecks, Offsets) {
  make_q_jagged();
  cu_q = {-1, 3, 5};
  EXPECT_INVALID(fwd(), "cu_seqlens_q: offsets must be >= 0", "cu_seqlens_q[0] = -1");
  cu_q = {0, 4, 3};
  EXPECT_INVALID(fwd(), "cu_seqlens_q: offsets must be non-decreasing",
                 "cu_seqlens_q[1] = 4 > cu_seqlens_q[2] = 3");
  cu_q = {0, 3, 6};
  EXPECT_INVALID(fwd(), "cu_seqlens_q: the last offset (6) exceeds the 5 rows of q");
  cu_q = {0, 3, 5};
  in.max_seqlen_q = 2;
  EXPECT_INVALID(fwd(), "max_seqlen_q: given as 2, but a sequence has length 3");
}

TEST_F(ApiChecks, EveryIndexVectorIsCheckedAsItself) {
  // All five index vectors at once (they are read to the host together): a bad entry in each
  // in turn is reported under that vector's name.
  make_q_jagged();  // q: T = 5, cu_seqlens_q = {0, 3, 5}
  in.k = TensorRef::make(k.data(), DType::Float32, {12, 2, 8});
  in.v = TensorRef::make(v.data(), DType::Float32, {12, 2, 8});
  std::vector<int32_t> cu_k{0, 6, 12}, used_q{3, 2}, used_k{6, 6}, map{1, 0};
  in.cu_seqlens_k = TensorRef::make(cu_k.data(), DType::Int32, {3});
  in.seqused_q = TensorRef::make(used_q.data(), DType::Int32, {2});
  in.seqused_k = TensorRef::make(used_k.data(), DType::Int32, {2});
  in.q_to_kv = TensorRef::make(map.data(), DType::Int32, {2});
  cu_q = {0, 4, 3};
  EXPECT_INVALID(fwd(), "cu_seqlens_q: offsets must be non-decreasing");
  cu_q = {0, 3, 5};
  used_q = {3, 3};
  EXPECT_INVALID(fwd(), "seqused_q: entry 1 must lie in [0, 2]", "got 3");
  used_q = {3, 2};
  cu_k = {0, 6, 13};
  EXPECT_INVALID(fwd(), "cu_seqlens_k: the last offset (13) exceeds the 12 rows of k");
  cu_k = {0, 6, 12};
  used_k = {6, 7};
  EXPECT_INVALID(fwd(), "seqused_k: entry 1 must lie in [0, 6]", "got 7");
  used_k = {6, 6};
  map = {1, 2};
  EXPECT_INVALID(fwd(), "q_to_kv: entry 1 must lie in [0, 2)", "got 2");
}

TEST_F(ApiChecks, CudaTensorsWithoutUsableGpu) {
  if (gpu_supported(0)) GTEST_SKIP() << "a supported GPU is present";
  in.q.device = in.k.device = in.v.device = fo.out.device = fo.lse.device =
      Device{DeviceType::CUDA, 0};
  opt.validate_offsets = false;
  if (!built_with_cuda()) {
    EXPECT_UNSUPPORTED(fwd(), "this build of amkl has no CUDA backend");
  } else {
    expect_error([&] { fwd(); }, ErrorKind::NotSupported, {});
  }
  SetUp();
  make_q_jagged();
  in.q.device = in.k.device = in.v.device = in.cu_seqlens_q.device = fo.out.device =
      fo.lse.device = Device{DeviceType::CUDA, 0};
  opt.validate_offsets = false;
  EXPECT_INVALID(fwd(), "max_seqlen_q: required for jagged CUDA inputs when validate_offsets is false");
}

TEST_F(ApiChecks, Backward) {
  bo.dout = TensorRef{};
  EXPECT_INVALID(bwd(), "dout: required but not given");
  SetUp();
  bo.out = TensorRef{};
  EXPECT_INVALID(bwd(), "out: the softmax backward needs the forward's out");
  SetUp();
  bo.lse = TensorRef{};
  EXPECT_INVALID(bwd(), "lse: the softmax backward needs the forward's lse");
  SetUp();
  bo.dout = TensorRef::make(q.data(), DType::Float32, {2, 5, 4, 4});
  EXPECT_INVALID(bwd(), "dout: expected shape [2, 5, 4, 8]");
  SetUp();
  std::vector<double> out64(q.size());
  bo.out = TensorRef::make(out64.data(), DType::Float64, {2, 5, 4, 8});
  EXPECT_INVALID(bwd(), "out: expected dtype float32");
  SetUp();
  bo.dq = TensorRef::make(dq.data(), DType::Float32, {2, 5, 4, 4});
  EXPECT_INVALID(bwd(), "dq: expected shape [2, 5, 4, 8], got [2, 5, 4, 4]");
  SetUp();
  bo.dk.dtype = DType::Float64;
  EXPECT_INVALID(bwd(), "dk: expected dtype float32 (the dtype of q), got float64");
  SetUp();
  bo.dv = TensorRef{};
  EXPECT_INVALID(bwd(), "dv: required but not given");
  SetUp();
  bo.dv = TensorRef::make(dv.data(), DType::Float32, {2, 6, 2, 8}, {0, 16, 8, 1});
  EXPECT_INVALID(bwd(), "dv: an output needs positive strides");
  SetUp();
  opt.activation = Activation::Silu;
  EXPECT_INVALID(bwd(), "lse: exists for softmax only", "'silu'");
}

TEST_F(ApiChecks, Combine) {
  std::vector<float> part(3 * 5 * 4 * 8, 0.0f), lsep(3 * 5 * 4, 0.0f), o(5 * 4 * 8, kSentinel);
  CombineArgs c;
  c.out_partial = TensorRef::make(part.data(), DType::Float32, {3, 5, 4, 8});
  c.lse_partial = TensorRef::make(lsep.data(), DType::Float32, {3, 5, 4});
  c.out = TensorRef::make(o.data(), DType::Float32, {5, 4, 8});
  auto run = [&] { attention_combine(c); };
  CombineArgs good = c;
  c.out_partial.dtype = DType::Float16;
  EXPECT_INVALID(run(), "out_partial: expected dtype float32 or float64, got float16");
  c = good;
  c.out_partial = TensorRef::make(part.data(), DType::Float32, {3, 8});
  EXPECT_INVALID(run(), "out_partial: expected [splits, rows..., H, d_v]");
  c = good;
  c.out_partial = TensorRef::make(part.data(), DType::Float32, {0, 5, 4, 8});
  EXPECT_INVALID(run(), "out_partial: needs at least one split");
  c = good;
  c.out = TensorRef::make(o.data(), DType::Float32, {5, 4, 4});
  EXPECT_INVALID(run(), "out: expected shape [5, 4, 8]");
  c = good;
  c.lse_partial = TensorRef{};
  EXPECT_INVALID(run(), "lse_partial: required but not given");
  c = good;
  c.lse_partial = TensorRef::make(lsep.data(), DType::Float32, {3, 4, 5});
  EXPECT_INVALID(run(), "lse_partial: expected shape [3, 5, 4]");
  c = good;
  c.lse_partial.dtype = DType::Float64;
  EXPECT_INVALID(run(), "lse_partial: expected dtype float32 (the dtype of out_partial)");
  c = good;
  std::vector<float> l(5 * 4, kSentinel);
  c.lse = TensorRef::make(l.data(), DType::Float32, {4, 5});
  EXPECT_INVALID(run(), "lse: expected shape [5, 4]");
  c = good;
  c.softmax = false;
  EXPECT_INVALID(run(), "lse_partial: the pointwise combine is a plain sum");
  c.lse_partial = TensorRef{};
  c.lse = TensorRef::make(l.data(), DType::Float32, {5, 4});
  EXPECT_INVALID(run(), "lse: the pointwise combine has no lse");
  c = good;
  c.out.device = Device{DeviceType::CUDA, 0};
  EXPECT_INVALID(run(), "out: expected device cpu (the device of out_partial)");
  for (float x : o) ASSERT_EQ(x, kSentinel);
  for (float x : l) ASSERT_EQ(x, kSentinel);
}

TEST(ApiNames, ActivationsAndTensors) {
  EXPECT_EQ(activation_from_name("fast_gelu"), Activation::FastGelu);
  EXPECT_EQ(activation_from_name("fast_gelu_taylor_approx"), Activation::GeluTaylor);
  EXPECT_EQ(activation_from_name("softmax"), Activation::Softmax);
  for (int i = 0; i < kNumActivations; ++i) {
    EXPECT_EQ(activation_from_name(activation_name(Activation(i))), Activation(i));
    EXPECT_EQ(activation_from_id(i), Activation(i));
  }
  EXPECT_INVALID(activation_from_name("gelu2"), "activation: unknown name 'gelu2'", "fast_gelu");
  EXPECT_INVALID(activation_from_id(-1), "activation: id must be in [0, 12], got -1");
  float x = 0;
  EXPECT_INVALID(TensorRef::make(&x, DType::Float32, {1, 2}, {1}), "TensorRef: 1 strides given for 2 dims");
  const int64_t shape[7] = {1, 1, 1, 1, 1, 1, 1};
  EXPECT_INVALID(TensorRef::make(&x, DType::Float32, 7, shape, nullptr), "at most 6 dims");
  EXPECT_INVALID(dtype_size(DType(42)), "unknown dtype id 42");
  EXPECT_EQ(std::string(dtype_name(DType::BFloat16)), "bfloat16");
}

}  // namespace
