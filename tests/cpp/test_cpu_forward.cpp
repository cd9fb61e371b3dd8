// CPU attention forward against the float64 reference (tests/cpp/reference.h), through the
// public API: every activation x mask x alignment over the structural cases, dtypes, and
// rounding emulation. Outputs are poisoned (NaN) first and must be written everywhere.
#include <gtest/gtest.h>

#include "reference.h"
#include "test_cpu_cases.h"
#include "test_support.h"

namespace amkl::test {
namespace {

struct ForwardResult {
  HostTensor out, lse;
};

ForwardResult run_forward(const Problem& pr, const AttentionOptions& o, DType out_dtype) {
  ForwardResult r;
  r.out = pr.make_out(out_dtype);
  r.out.poison();
  AttentionForwardOutputs outs;
  outs.out = r.out.ref();
  if (o.activation == Activation::Softmax) {
    r.lse = pr.make_lse();
    r.lse.poison();
    outs.lse = r.lse.ref();
  }
  attention_forward(pr.inputs(), o, outs);
  return r;
}

void expect_forward_matches(const Problem& pr, const AttentionOptions& o, double tol,
                            const std::string& what) {
  SCOPED_TRACE(what);
  const ForwardResult got = run_forward(pr, o, pr.spec.out_dtype);
  const RefForward want = reference_forward(pr.inputs(), o);
  EXPECT_EQ(got.out.count_nan(), 0) << "out has unwritten (NaN) elements";
  EXPECT_TRUE(close(got.out.values(), want.out, tol, "out"));
  if (o.activation == Activation::Softmax) {
    EXPECT_EQ(got.lse.count_nan(), 0) << "lse has unwritten (NaN) elements";
    // lse is float32 whatever the input dtype.
    EXPECT_TRUE(close(got.lse.values(), want.lse, std::max(tol, 1e-6), "lse"));
  }
}

// Every activation x mask x alignment; the structural case rotates so that each case
// meets many activations and masks (13 x 7 x 2 = 182 calls).
TEST(CpuForward, ActivationsMasksAlignsFloat64) {
  AMKL_SEEDED_RNG(rng);
  const std::vector<ProblemSpec> cases = structural_cases();
  size_t n = 0;
  for (int a = 0; a < kNumActivations; ++a) {
    for (const MaskCase& m : mask_cases()) {
      for (MaskAlign align : {MaskAlign::BottomRight, MaskAlign::TopLeft}) {
        const ProblemSpec& spec = cases[n++ % cases.size()];
        const Problem pr = make_problem(spec, rng);
        const AttentionOptions o = options_for(activation_from_id(a), m, align);
        expect_forward_matches(pr, o, 1e-11, describe(spec, o, m));
      }
    }
  }
}

// Every structural case with softmax and one pointwise activation under every mask.
TEST(CpuForward, StructuralCasesAllMasksFloat64) {
  AMKL_SEEDED_RNG(rng);
  for (const ProblemSpec& spec : structural_cases()) {
    const Problem pr = make_problem(spec, rng);
    for (const MaskCase& m : mask_cases()) {
      for (Activation a : {Activation::Softmax, Activation::Silu}) {
        const MaskAlign align = (&m - &mask_cases()[0]) % 2 ? MaskAlign::TopLeft : MaskAlign::BottomRight;
        const AttentionOptions o = options_for(a, m, align);
        expect_forward_matches(pr, o, 1e-11, describe(spec, o, m));
      }
    }
  }
}

TEST(CpuForward, ScaleOutScaleSoftcap) {
  AMKL_SEEDED_RNG(rng);
  const ProblemSpec spec = structural_cases()[3];  // jagged, ragged
  const Problem pr = make_problem(spec, rng);
  const MaskCase causal{"causal", true, -1, -1};
  for (float softcap : {0.0f, 2.5f}) {
    AttentionOptions o = options_for(Activation::Softmax, causal, MaskAlign::BottomRight);
    o.scale = 0.7f;
    o.softcap = softcap;
    expect_forward_matches(pr, o, 1e-11, describe(spec, o, causal) + " softcap " + std::to_string(softcap));
  }
  for (Activation a : {Activation::Gelu, Activation::ReluSquare}) {
    AttentionOptions o = options_for(a, causal, MaskAlign::TopLeft);
    o.scale = 0.3f;
    o.out_scale = 1.75f;
    expect_forward_matches(pr, o, 1e-11, describe(spec, o, causal) + " scaled");
  }
}

// float32 / bfloat16 / float16 inputs (computed in fp32), out in the input dtype or float32.
// The reference reads the same (rounded) inputs, so the only errors are fp32 accumulation
// and the rounding of out.
TEST(CpuForward, LowPrecisionDtypes) {
  AMKL_SEEDED_RNG(rng);
  const std::vector<ProblemSpec> cases = structural_cases();
  const MaskCase m{"causal_window_4", true, 4, 0};
  size_t n = 0;
  for (DType dt : {DType::Float32, DType::BFloat16, DType::Float16}) {
    for (DType out_dt : {dt, DType::Float32}) {
      for (Activation a : {Activation::Softmax, Activation::Gelu, Activation::FastGelu}) {
        for (size_t k = 0; k < 3; ++k) {
          ProblemSpec spec = cases[(n++ * 5) % cases.size()];
          spec.dtype = dt;
          spec.out_dtype = out_dt;
          const Problem pr = make_problem(spec, rng);
          const AttentionOptions o = options_for(a, m, MaskAlign::BottomRight);
          const double tol = out_dt == DType::BFloat16 ? 8e-3 : (out_dt == DType::Float16 ? 1e-3 : 2e-5);
          expect_forward_matches(pr, o, tol, describe(spec, o, m));
        }
      }
    }
  }
}

// Rounding emulation: with bf16 (fp16) roundings of Q, K, V and P the error against the
// float64 reference grows to the bf16 (fp16) level, and stays there.
TEST(CpuForward, RoundingEmulation) {
  AMKL_SEEDED_RNG(rng);
  ProblemSpec spec = structural_cases()[13];  // multi-tile dense
  spec.dtype = DType::Float32;
  spec.out_dtype = DType::Float32;
  for (Activation a : {Activation::Softmax, Activation::Gelu}) {
    const Problem pr = make_problem(spec, rng);
    AttentionOptions o;
    o.activation = a;
    const RefForward want = reference_forward(pr.inputs(), o);
    const double scale = std::max(1.0, max_abs(want.out));
    double err[3];
    for (Rounding r : {Rounding::None, Rounding::BFloat16, Rounding::Float16}) {
      o.emulate = r;
      const ForwardResult got = run_forward(pr, o, DType::Float32);
      err[int(r)] = max_abs_diff(got.out.values(), want.out) / scale;
    }
    SCOPED_TRACE(activation_name(a));
    EXPECT_LT(err[0], 1e-5);
    EXPECT_GT(err[1], 10 * err[0]) << "bf16 emulation did not round anything";
    EXPECT_LT(err[1], 3e-2) << "bf16 emulation error beyond the bf16 range";
    EXPECT_GT(err[1], err[2]) << "fp16 (10-bit mantissa) must be closer than bf16 (7-bit)";
    EXPECT_LT(err[2], 4e-3);
  }
}

// Same inputs, any thread count: bitwise the same output.
TEST(CpuForward, DeterministicAcrossThreadCounts) {
  AMKL_SEEDED_RNG(rng);
  ProblemSpec spec = structural_cases()[14];
  spec.dtype = DType::Float32;
  spec.out_dtype = DType::Float32;
  const Problem pr = make_problem(spec, rng);
  AttentionOptions o;
  o.causal = true;
  setenv("AMKL_NUM_THREADS", "1", 1);
  const ForwardResult one = run_forward(pr, o, DType::Float32);
  setenv("AMKL_NUM_THREADS", "3", 1);
  const ForwardResult three = run_forward(pr, o, DType::Float32);
  unsetenv("AMKL_NUM_THREADS");
  EXPECT_EQ(one.out.values(), three.out.values());
}

}  // namespace
}  // namespace amkl::test
