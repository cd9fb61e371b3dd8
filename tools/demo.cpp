// `amkl demo`: runs attention on default problems, on the GPU when a supported one is
// present, else on the CPU, and prints a table: op, shape, device, time, throughput, and the
// max error against the float64 CPU oracle next to the error a correct bf16 kernel may have
// (DESIGN.md section 4: err <= 2 * err(bf16 emulation) + 1e-5).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "amkl/amkl.h"
#include "buffer.h"

namespace amkl::tools {
namespace {

struct Problem {
  std::string name;
  Activation act;
  int64_t batch, heads, len_q, len_k, dim;
  bool jagged_q;
  bool causal;
  bool backward;
};

struct Row {
  std::string op, shape, device, time, tflops, err, bound, verdict;
};

double median_seconds(const std::function<void()>& fn, int reps, bool sync_cuda) {
  fn();  // warm-up
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
#if defined(AMKL_WITH_CUDA)
    if (sync_cuda) cudaDeviceSynchronize();
#else
    (void)sync_cuda;
#endif
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// Inputs of one problem in one dtype on one device, filled from shared double values.
struct Inputs {
  std::unique_ptr<Buffer> q, k, v, cu_q, dout;
  AttentionInputs in;
};

Inputs make_inputs(const Problem& pb, DType dt, Device dev, const std::vector<double>& qv,
                   const std::vector<double>& kv, const std::vector<double>& vv,
                   const std::vector<int32_t>& cu, const std::vector<double>& dov) {
  Inputs x;
  const int64_t tq = cu.empty() ? 0 : cu.back();
  std::vector<int64_t> qshape = pb.jagged_q ? std::vector<int64_t>{tq, pb.heads, pb.dim}
                                            : std::vector<int64_t>{pb.batch, pb.len_q, pb.heads, pb.dim};
  x.q = std::make_unique<Buffer>(dt, qshape, dev);
  x.k = std::make_unique<Buffer>(dt, std::vector<int64_t>{pb.batch, pb.len_k, pb.heads, pb.dim}, dev);
  x.v = std::make_unique<Buffer>(dt, std::vector<int64_t>{pb.batch, pb.len_k, pb.heads, pb.dim}, dev);
  x.dout = std::make_unique<Buffer>(dt, qshape, dev);
  for (int64_t i = 0; i < x.q->numel(); ++i) x.q->set(i, qv[i]);
  for (int64_t i = 0; i < x.k->numel(); ++i) x.k->set(i, kv[i]);
  for (int64_t i = 0; i < x.v->numel(); ++i) x.v->set(i, vv[i]);
  for (int64_t i = 0; i < x.dout->numel(); ++i) x.dout->set(i, dov[i]);
  x.q->upload();
  x.k->upload();
  x.v->upload();
  x.dout->upload();
  x.in.q = x.q->ref();
  x.in.k = x.k->ref();
  x.in.v = x.v->ref();
  if (pb.jagged_q) {
    x.cu_q = std::make_unique<Buffer>(DType::Int32, std::vector<int64_t>{int64_t(cu.size())}, dev);
    for (size_t i = 0; i < cu.size(); ++i) x.cu_q->set(int64_t(i), cu[i]);
    x.cu_q->upload();
    x.in.cu_seqlens_q = x.cu_q->ref();
    // Dense KV with jagged Q: give K/V as jagged too, sequence b = rows [b*Lk, (b+1)*Lk).
    // (Mixed layouts are allowed; dense K/V keeps the example short.)
  }
  return x;
}

// Runs forward (and backward) once, returns the values of the result to compare
// (out for forward; dq for backward) on the host, as doubles.
std::vector<double> run_once(const Problem& pb, Inputs& x, DType out_dt, Device dev,
                             Rounding emulate, const std::function<void(std::function<void()>)>& timer) {
  AttentionOptions opt;
  opt.activation = pb.act;
  opt.causal = pb.causal;
  opt.emulate = emulate;
  const AttentionShapes s = attention_forward_shapes(x.in, opt);
  Buffer out(out_dt, s.out, dev);
  std::unique_ptr<Buffer> lse;
  AttentionForwardOutputs o;
  o.out = out.ref();
  if (!s.lse.empty()) {
    lse = std::make_unique<Buffer>(DType::Float32, s.lse, dev);
    o.lse = lse->ref();
  }
  auto fwd = [&] { attention_forward(x.in, opt, o); };
  if (!pb.backward) {
    if (timer) timer(fwd); else fwd();
    out.download();
    std::vector<double> r(static_cast<size_t>(out.numel()));
    for (int64_t i = 0; i < out.numel(); ++i) r[i] = out.get(i);
    return r;
  }
  fwd();
  const DType gdt = x.q->ref().dtype;
  Buffer dq(gdt, x.q->shape(), dev), dk(gdt, x.k->shape(), dev), dv(gdt, x.v->shape(), dev);
  AttentionBackwardArgs b;
  b.out = out.ref();
  b.lse = o.lse;
  b.dout = x.dout->ref();
  b.dq = dq.ref();
  b.dk = dk.ref();
  b.dv = dv.ref();
  auto bwd = [&] { attention_backward(x.in, opt, b); };
  if (timer) timer(bwd); else bwd();
  dq.download();
  std::vector<double> r(static_cast<size_t>(dq.numel()));
  for (int64_t i = 0; i < dq.numel(); ++i) r[i] = dq.get(i);
  return r;
}

Row run_problem(const Problem& pb, Device dev, std::mt19937_64& rng) {
  Row row;
  row.op = pb.name;
  row.device = device_name(dev);
  std::vector<int32_t> cu;
  double pairs = 0;  // sum over sequences of Lq * Lk (allowed pairs, causal counts half)
  if (pb.jagged_q) {
    std::uniform_int_distribution<int64_t> len(1, pb.len_q);
    cu.push_back(0);
    for (int64_t b = 0; b < pb.batch; ++b) {
      const int64_t l = len(rng);
      cu.push_back(int32_t(cu.back() + l));
      pairs += double(l) * pb.len_k;
    }
    row.shape = "B=" + std::to_string(pb.batch) + " jagged Lq<=" + std::to_string(pb.len_q) +
                " (T=" + std::to_string(cu.back()) + ") Lk=" + std::to_string(pb.len_k);
  } else {
    pairs = double(pb.batch) * pb.len_q * pb.len_k * (pb.causal ? 0.5 : 1.0);
    row.shape = "B=" + std::to_string(pb.batch) + " L=" + std::to_string(pb.len_q);
  }
  row.shape += " H=" + std::to_string(pb.heads) + " d=" + std::to_string(pb.dim) +
               (pb.causal ? " causal" : "");
  const int64_t tq = pb.jagged_q ? cu.back() : pb.batch * pb.len_q;
  std::normal_distribution<double> nd(0.0, 1.0);
  auto randv = [&](int64_t n, double sd) {
    std::vector<double> v(static_cast<size_t>(n));
    for (auto& x : v) x = double(from_bf16_bits(to_bf16_bits(float(sd * nd(rng)))));
    return v;
  };
  // GDPA runs on raw logits (scale 1): keep |S| moderate as production inputs do.
  const double qk_sd = pb.act == Activation::Softmax ? 1.0 : 0.3;
  const auto qv = randv(tq * pb.heads * pb.dim, qk_sd);
  const auto kv = randv(pb.batch * pb.len_k * pb.heads * pb.dim, qk_sd);
  const auto vv = randv(pb.batch * pb.len_k * pb.heads * pb.dim, 1.0);
  const auto dov = randv(tq * pb.heads * pb.dim, 1.0);

  const double flops = 4.0 * pb.heads * pb.dim * pairs * (pb.backward ? 2.5 : 1.0);
  const bool gpu = dev.type == DeviceType::CUDA;
  try {
    Inputs x = make_inputs(pb, DType::BFloat16, dev, qv, kv, vv, cu, dov);
    double secs = 0;
    auto timer = [&](std::function<void()> fn) { secs = median_seconds(fn, gpu ? 20 : 3, gpu); };
    const std::vector<double> got = run_once(pb, x, DType::BFloat16, dev, Rounding::None, timer);
    row.time = fmt("%.3f ms", secs * 1e3);
    row.tflops = fmt("%.2f", flops / secs * 1e-12);

    const Device cpu{};
    Inputs x64 = make_inputs(pb, DType::Float64, cpu, qv, kv, vv, cu, dov);
    const std::vector<double> ref = run_once(pb, x64, DType::Float64, cpu, Rounding::None, nullptr);
    Inputs xe = make_inputs(pb, DType::Float32, cpu, qv, kv, vv, cu, dov);
    const std::vector<double> emu = run_once(pb, xe, DType::Float32, cpu, Rounding::BFloat16, nullptr);
    double err = 0, emu_err = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
      err = std::max(err, std::fabs(got[i] - ref[i]));
      emu_err = std::max(emu_err, std::fabs(emu[i] - ref[i]));
    }
    // The bf16 output itself rounds: allow half an ulp of the largest value too.
    double amax = 0;
    for (double r : ref) amax = std::max(amax, std::fabs(r));
    const double bound = 2 * emu_err + 1e-5 + amax * std::ldexp(1.0, -8);
    row.err = fmt("%.2e", err);
    row.bound = fmt("%.2e", bound);
    row.verdict = std::isfinite(err) && err <= bound ? "ok" : "FAIL";
  } catch (const Error& e) {
    row.time = row.tflops = row.err = row.bound = "-";
    row.verdict = e.kind() == ErrorKind::NotSupported ? std::string("not supported: ") + e.what()
                                                      : std::string("error: ") + e.what();
  }
  return row;
}

}  // namespace

int run_demo(int argc, char** argv) {
  bool force_cpu = false;
  for (int i = 0; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--cpu") {
      force_cpu = true;
    } else {
      std::fprintf(stderr, "amkl demo: unknown option '%s' (options: --cpu)\n", a.c_str());
      return 2;
    }
  }
  const bool gpu = !force_cpu && gpu_supported(0);
  Device dev;
  if (gpu) dev = Device{DeviceType::CUDA, 0};
  std::printf("amkl %s demo on %s (%s)\n", version(), gpu ? "the GPU" : "the CPU",
              gpu ? gpu_description(0).c_str()
                  : (built_with_cuda() ? gpu_description(0).c_str() : "built without CUDA"));
  std::mt19937_64 rng(std::random_device{}());
  const int64_t L = gpu ? 2048 : 512;
  const int64_t B = gpu ? 8 : 2;
  const std::vector<Problem> problems = {
      {"attention fwd softmax bf16", Activation::Softmax, B, 8, L, L, 128, false, false, false},
      {"attention fwd softmax causal", Activation::Softmax, B, 8, L, L, 128, false, true, false},
      {"attention fwd gdpa fast_gelu", Activation::FastGelu, gpu ? 64 : 8, 4, L, L, 128, true,
       false, false},
      {"attention bwd softmax bf16", Activation::Softmax, B, 8, L, L, 128, false, false, true},
      {"attention bwd gdpa fast_gelu", Activation::FastGelu, gpu ? 64 : 8, 4, L, L, 128, true,
       false, true},
  };
  std::vector<Row> rows;
  for (const Problem& pb : problems) {
    std::fprintf(stderr, "running %s ...\n", pb.name.c_str());
    rows.push_back(run_problem(pb, dev, rng));
  }
  std::printf("\n%-30s %-44s %-7s %-12s %-8s %-10s %-10s %s\n", "op", "shape", "device", "time",
              "TFLOP/s", "max err", "allowed", "check");
  bool ok = true;
  for (const Row& r : rows) {
    std::printf("%-30s %-44s %-7s %-12s %-8s %-10s %-10s %s\n", r.op.c_str(), r.shape.c_str(),
                r.device.c_str(), r.time.c_str(), r.tflops.c_str(), r.err.c_str(),
                r.bound.c_str(), r.verdict.c_str());
    ok = ok && (r.verdict == "ok" || r.verdict.rfind("not supported", 0) == 0);
  }
  std::printf("\nmax err: max |result - float64 CPU oracle| over the output (dQ for bwd);\n"
              "allowed: 2 x the error of the CPU run that rounds like a bf16 kernel, + 1e-5,\n"
              "+ half a bf16 ulp of the largest output (the output's own rounding).\n");
  return ok ? 0 : 1;
}

}  // namespace amkl::tools
