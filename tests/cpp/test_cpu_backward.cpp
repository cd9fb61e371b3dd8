// CPU attention backward: against the float64 reference's chain rule (every activation x
// mask x alignment over the structural cases), against finite differences of the forward
// (float64), in float32/bf16, and bitwise determinism across thread counts. Gradients are
// poisoned first: every element of dq, dk, dv must be written (zeros where no query looks).
#include <gtest/gtest.h>

#include "reference.h"
#include "test_cpu_cases.h"
#include "test_support.h"

namespace amkl::test {
namespace {

struct Grads {
  HostTensor dq, dk, dv;
};

/// Runs forward (out in `out_dtype`, lse) then backward with the given dout.
Grads run_backward(const Problem& pr, const AttentionOptions& o, const HostTensor& dout) {
  const bool softmax = o.activation == Activation::Softmax;
  HostTensor out = pr.make_out(dout.dtype()), lse;
  AttentionForwardOutputs fo;
  fo.out = out.ref();
  if (softmax) {
    lse = pr.make_lse();
    fo.lse = lse.ref();
  }
  attention_forward(pr.inputs(), o, fo);
  Grads g{HostTensor(pr.spec.dtype, pr.q.shape()), HostTensor(pr.spec.dtype, pr.k.shape()),
          HostTensor(pr.spec.dtype, pr.v.shape())};
  g.dq.poison();
  g.dk.poison();
  g.dv.poison();
  AttentionBackwardArgs a;
  a.dout = dout.ref();
  if (softmax) {
    a.out = out.ref();
    a.lse = lse.ref();
  }
  a.dq = g.dq.ref();
  a.dk = g.dk.ref();
  a.dv = g.dv.ref();
  attention_backward(pr.inputs(), o, a);
  return g;
}

template <typename Rng>
HostTensor random_dout(const Problem& pr, Rng& rng) {
  HostTensor d = make_arranged(pr.spec.out_dtype, pr.q_shape(pr.spec.dv), pr.spec.arrangement);
  d.fill_normal(rng);
  return d;
}

template <typename Rng>
void expect_backward_matches(const Problem& pr, const AttentionOptions& o, double tol, Rng& rng,
                             const std::string& what) {
  SCOPED_TRACE(what);
  const HostTensor dout = random_dout(pr, rng);
  const Grads got = run_backward(pr, o, dout);
  const RefGrads want = reference_backward(pr.inputs(), o, dout.ref());
  EXPECT_EQ(got.dq.count_nan() + got.dk.count_nan() + got.dv.count_nan(), 0)
      << "unwritten (NaN) gradient elements";
  EXPECT_TRUE(close(got.dq.values(), want.dq, tol, "dq"));
  EXPECT_TRUE(close(got.dk.values(), want.dk, tol, "dk"));
  EXPECT_TRUE(close(got.dv.values(), want.dv, tol, "dv"));
}

TEST(CpuBackward, ActivationsMasksAlignsFloat64) {
  AMKL_SEEDED_RNG(rng);
  const std::vector<ProblemSpec> cases = structural_cases();
  size_t n = 3;  // a different rotation than the forward test's
  for (int a = 0; a < kNumActivations; ++a) {
    for (const MaskCase& m : mask_cases()) {
      for (MaskAlign align : {MaskAlign::BottomRight, MaskAlign::TopLeft}) {
        const ProblemSpec& spec = cases[n++ % cases.size()];
        const Problem pr = make_problem(spec, rng);
        const AttentionOptions o = options_for(activation_from_id(a), m, align);
        expect_backward_matches(pr, o, 1e-10, rng, describe(spec, o, m));
      }
    }
  }
}

TEST(CpuBackward, StructuralCasesFloat64) {
  AMKL_SEEDED_RNG(rng);
  const std::vector<MaskCase> masks = mask_cases();
  size_t n = 0;
  for (const ProblemSpec& spec : structural_cases()) {
    const Problem pr = make_problem(spec, rng);
    for (Activation a : {Activation::Softmax, Activation::GeluApprox}) {
      const MaskCase& m = masks[n++ % masks.size()];
      const AttentionOptions o = options_for(a, m, n % 2 ? MaskAlign::TopLeft : MaskAlign::BottomRight);
      expect_backward_matches(pr, o, 1e-10, rng, describe(spec, o, m));
    }
  }
}

TEST(CpuBackward, ScaleOutScaleSoftcapFloat64) {
  AMKL_SEEDED_RNG(rng);
  const Problem pr = make_problem(structural_cases()[6], rng);  // q_to_kv
  const MaskCase m{"window_3_2", false, 3, 2};
  AttentionOptions o = options_for(Activation::Softmax, m, MaskAlign::TopLeft);
  o.softcap = 1.5f;
  o.scale = 0.4f;
  expect_backward_matches(pr, o, 1e-10, rng, "softmax softcap 1.5 scale 0.4");
  o = options_for(Activation::Silu, m, MaskAlign::BottomRight);
  o.scale = 0.6f;
  o.out_scale = 0.25f;
  expect_backward_matches(pr, o, 1e-10, rng, "silu scale 0.6 out_scale 0.25");
}

TEST(CpuBackward, LowPrecisionDtypes) {
  AMKL_SEEDED_RNG(rng);
  const std::vector<ProblemSpec> cases = structural_cases();
  const MaskCase m{"causal", true, -1, -1};
  size_t n = 0;
  for (DType dt : {DType::Float32, DType::BFloat16}) {
    for (Activation a : {Activation::Softmax, Activation::Silu}) {
      for (size_t k = 0; k < 3; ++k) {
        ProblemSpec spec = cases[(n++ * 4 + 1) % cases.size()];
        spec.dtype = dt;
        spec.out_dtype = DType::Float32;
        const Problem pr = make_problem(spec, rng);
        // Gradients are stored in the input dtype: bf16 rounding of the results.
        expect_backward_matches(pr, options_for(a, m, MaskAlign::BottomRight),
                                dt == DType::BFloat16 ? 8e-3 : 5e-5, rng, describe(spec, options_for(a, m, MaskAlign::BottomRight), m));
      }
    }
  }
}

// Central differences of L = sum(O * W) along random directions, in float64, against the
// directional derivative <grad, U> from the backward. The kinked activations (relu,
// leaky_relu, hardswish, relu_square) are checked with a small step: a score would have to lie within
// 1e-6 of a kink to break the check. fast_gelu_bf16 rounds to bf16 internally (piecewise
// constant), so differences of it mean nothing; its backward is covered by the reference.
TEST(CpuBackward, FiniteDifferencesFloat64) {
  AMKL_SEEDED_RNG(rng);
  ProblemSpec spec;
  spec.name = "fd";
  spec.heads = 2;
  spec.heads_kv = 1;
  spec.d = 6;
  spec.dv = 5;
  spec.q = jagged({7, 4, 9});
  spec.kv = jagged({9, 6, 5});
  spec.q_to_kv = {0, 2, 0};
  spec.input_std = 0.8;
  for (int a = 0; a < kNumActivations; ++a) {
    const Activation act = activation_from_id(a);
    if (act == Activation::FastGeluBf16) continue;
    for (const MaskCase& m : {MaskCase{"none", false, -1, -1}, MaskCase{"causal", true, -1, -1},
                              MaskCase{"window_2_1", false, 2, 1}}) {
      AttentionOptions o = options_for(act, m, a % 2 ? MaskAlign::TopLeft : MaskAlign::BottomRight);
      if (act == Activation::Softmax && m.causal) o.softcap = 2.0f;
      SCOPED_TRACE(describe(spec, o, m) + (o.softcap > 0 ? " softcap 2" : ""));
      // relu_square's f' is continuous but f'' jumps at 0: a step across it breaks the
      // smoothness the extrapolation below relies on, so it takes the small step too.
      const bool kinked = act == Activation::Relu || act == Activation::LeakyRelu ||
                          act == Activation::Hardswish || act == Activation::ReluSquare;
      const double eps = kinked ? 1e-6 : 1e-4;
      struct Check {
        std::string what;
        double analytic, numeric;
      };
      std::vector<Check> checks;
      // The kinked activations are piecewise linear or quadratic, where central differences
      // are exact: two step sizes then agree to rounding unless a step crossed a kink (a score
      // within ~1e-6 of it, a few draws in a thousand). Such a draw is replaced by a new one.
      for (int draw = 0; draw < 5; ++draw) {
        Problem pr = make_problem(spec, rng);
        const HostTensor w = random_dout(pr, rng);
        const Grads g = run_backward(pr, o, w);
        auto loss = [&]() {
          HostTensor out = pr.make_out(DType::Float64), lse;
          AttentionForwardOutputs fo;
          fo.out = out.ref();
          attention_forward(pr.inputs(), o, fo);
          double s = 0;
          for (int64_t i = 0; i < out.numel(); ++i) s += out.get(i) * w.get(i);
          return s;
        };
        struct Target {
          const char* name;
          HostTensor* x;
          const HostTensor* grad;
        } targets[] = {{"dq", &pr.q, &g.dq}, {"dk", &pr.k, &g.dk}, {"dv", &pr.v, &g.dv}};
        checks.clear();
        bool crossed = false;
        for (const Target& t : targets) {
          for (int dir = 0; dir < 2; ++dir) {
            HostTensor u(DType::Float64, t.x->shape());
            u.fill_normal(rng);
            const std::vector<double> x0 = t.x->values();
            double analytic = 0;
            for (int64_t i = 0; i < u.numel(); ++i) analytic += t.grad->get(i) * u.get(i);
            auto shift = [&](double h) {
              for (int64_t i = 0; i < u.numel(); ++i) t.x->set(i, x0[size_t(i)] + h * u.get(i));
            };
            auto central = [&](double h) {
              shift(h);
              const double lp = loss();
              shift(-h);
              const double lm = loss();
              shift(0);
              return (lp - lm) / (2 * h);
            };
            // Richardson extrapolation cancels the O(h^2) truncation error of central
            // differences (alone it reached 1e-6 relative for gelu_approx on some draws).
            const double c_full = central(eps), c_half = central(eps / 2);
            const double numeric = (4 * c_half - c_full) / 3;
            crossed |= kinked && std::fabs(c_full - c_half) > 1e-7 * std::max(1.0, std::fabs(c_half));
            checks.push_back({std::string(t.name) + " direction " + std::to_string(dir), analytic,
                              numeric});
          }
        }
        if (!crossed) break;
      }
      for (const Check& c : checks) {
        EXPECT_NEAR(c.analytic, c.numeric, 1e-6 * std::max(1.0, std::fabs(c.numeric))) << c.what;
      }
    }
  }
}

TEST(CpuBackward, DeterministicAcrossThreadCounts) {
  AMKL_SEEDED_RNG(rng);
  ProblemSpec spec = structural_cases()[6];  // q_to_kv: several query sequences per kv one
  spec.dtype = DType::Float32;
  spec.out_dtype = DType::Float32;
  spec.heads = 4;
  spec.heads_kv = 2;
  const Problem pr = make_problem(spec, rng);
  const HostTensor dout = random_dout(pr, rng);
  AttentionOptions o;
  setenv("AMKL_NUM_THREADS", "1", 1);
  const Grads one = run_backward(pr, o, dout);
  setenv("AMKL_NUM_THREADS", "3", 1);
  const Grads three = run_backward(pr, o, dout);
  const Grads again = run_backward(pr, o, dout);
  unsetenv("AMKL_NUM_THREADS");
  EXPECT_EQ(one.dq.values(), three.dq.values());
  EXPECT_EQ(one.dk.values(), three.dk.values());
  EXPECT_EQ(one.dv.values(), three.dv.values());
  EXPECT_EQ(three.dk.values(), again.dk.values());
}

}  // namespace
}  // namespace amkl::test
