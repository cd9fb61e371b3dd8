// Times amkl's CPU attention (forward, optionally backward) on dense [B, L, H, d] inputs and
// prints one JSON object: per case the shape, dtype, raw samples (seconds), median and
// GFLOP/s (4 * B * H * Lq * Lk * d forward, halved for causal; backward counts 2.5x).
//
//   cpu_attention_bench                       the default cases (bench/cpu_vs_torch.py's)
//   cpu_attention_bench --case B,H,L,d,causal,dtype[,fwd|bwd] ...   chosen cases
//   options: --min-time S (per case, default 2), --min-reps N (default 3), --threads N,
//            --layout bhld|blhd: memory order of q, k, v, out (default bhld, PyTorch's
//            [B, H, L, d], passed to amkl as a strided [B, L, H, d] view; blhd is
//            FlashAttention's contiguous [B, L, H, d])
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "amkl/amkl.h"
#include "cpu/convert.h"
#include "cpu/parallel.h"

namespace {

using amkl::DType;

struct Case {
  int64_t b, h, l, d;
  bool causal;
  DType dtype;
  bool backward;
};

std::string case_name(const Case& c) {
  std::ostringstream s;
  s << "B" << c.b << "_H" << c.h << "_L" << c.l << "_d" << c.d << (c.causal ? "_causal" : "")
    << "_" << amkl::dtype_name(c.dtype) << (c.backward ? "_bwd" : "_fwd");
  return s.str();
}

Case parse_case(const std::string& spec) {
  std::vector<std::string> f;
  std::stringstream ss(spec);
  for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
  if (f.size() < 6) {
    std::fprintf(stderr, "bad --case '%s': want B,H,L,d,causal,dtype[,fwd|bwd]\n", spec.c_str());
    std::exit(2);
  }
  Case c{std::stoll(f[0]), std::stoll(f[1]), std::stoll(f[2]), std::stoll(f[3]),
         f[4] == "1" || f[4] == "true" || f[4] == "causal", DType::Float32,
         f.size() > 6 && f[6] == "bwd"};
  if (f[5] == "bf16" || f[5] == "bfloat16") c.dtype = DType::BFloat16;
  else if (f[5] == "f16" || f[5] == "float16") c.dtype = DType::Float16;
  else if (f[5] == "f64" || f[5] == "float64") c.dtype = DType::Float64;
  return c;
}

/// Random normal values stored in `dt`.
std::vector<uint8_t> random_tensor(int64_t n, DType dt, std::mt19937& rng) {
  std::normal_distribution<float> dist;
  std::vector<float> v(static_cast<size_t>(n));
  for (float& x : v) x = dist(rng);
  std::vector<uint8_t> out(size_t(n) * size_t(amkl::dtype_size(dt)));
  amkl::cpu::store_row(v.data(), n, out.data(), dt);
  return out;
}

double flops(const Case& c) {
  const double f = 4.0 * double(c.b * c.h) * double(c.l) * double(c.l) * double(c.d);
  return (c.causal ? 0.5 : 1.0) * (c.backward ? 2.5 : 1.0) * f;
}

struct Result {
  std::vector<double> samples;
  double median = 0;
};

Result run_case(const Case& c, double min_time, int min_reps, bool head_major) {
  std::mt19937 rng(1234);
  const int64_t n = c.b * c.l * c.h * c.d;
  auto q = random_tensor(n, c.dtype, rng), k = random_tensor(n, c.dtype, rng),
       v = random_tensor(n, c.dtype, rng), dout = random_tensor(n, c.dtype, rng);
  std::vector<uint8_t> out(q.size()), dq(q.size()), dk(q.size()), dv(q.size());
  std::vector<float> lse(size_t(c.b * c.h * c.l));
  auto ref = [&](std::vector<uint8_t>& buf) {
    if (head_major) {  // [B, H, L, d] memory seen as [B, L, H, d]
      return amkl::TensorRef::make(buf.data(), c.dtype, {c.b, c.l, c.h, c.d},
                                   {c.h * c.l * c.d, c.d, c.l * c.d, 1});
    }
    return amkl::TensorRef::make(buf.data(), c.dtype, {c.b, c.l, c.h, c.d});
  };
  amkl::AttentionInputs in;
  in.q = ref(q);
  in.k = ref(k);
  in.v = ref(v);
  amkl::AttentionOptions opt;
  opt.causal = c.causal;
  amkl::AttentionForwardOutputs fo;
  fo.out = ref(out);
  fo.lse = amkl::TensorRef::make(lse.data(), DType::Float32, {c.b, c.h, c.l});
  amkl::AttentionBackwardArgs ba;
  ba.out = fo.out;
  ba.lse = fo.lse;
  ba.dout = ref(dout);
  ba.dq = ref(dq);
  ba.dk = ref(dk);
  ba.dv = ref(dv);

  amkl::attention_forward(in, opt, fo);  // warm-up (and the forward the backward needs)
  auto once = [&] {
    const auto t0 = std::chrono::steady_clock::now();
    if (c.backward) {
      amkl::attention_backward(in, opt, ba);
    } else {
      amkl::attention_forward(in, opt, fo);
    }
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  Result r;
  double total = 0;
  while (int(r.samples.size()) < min_reps || total < min_time) {
    r.samples.push_back(once());
    total += r.samples.back();
  }
  std::vector<double> s = r.samples;
  std::sort(s.begin(), s.end());
  r.median = s[s.size() / 2];
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Case> cases;
  double min_time = 2.0;
  int min_reps = 3;
  bool head_major = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--case" && i + 1 < argc) {
      cases.push_back(parse_case(argv[++i]));
    } else if (a == "--min-time" && i + 1 < argc) {
      min_time = std::atof(argv[++i]);
    } else if (a == "--min-reps" && i + 1 < argc) {
      min_reps = std::atoi(argv[++i]);
    } else if (a == "--layout" && i + 1 < argc) {
      head_major = std::string(argv[++i]) != "blhd";
    } else if (a == "--threads" && i + 1 < argc) {
      setenv("AMKL_NUM_THREADS", argv[++i], 1);
    } else {
      std::fprintf(stderr, "usage: %s [--case B,H,L,d,causal,dtype[,fwd|bwd]]... "
                           "[--min-time S] [--min-reps N] [--threads N] [--layout bhld|blhd]\n", argv[0]);
      return 2;
    }
  }
  if (cases.empty()) {
    for (DType dt : {DType::Float32, DType::BFloat16}) {
      for (bool causal : {false, true}) {
        cases.push_back({1, 8, 2048, 128, causal, dt, false});
        cases.push_back({4, 8, 1024, 64, causal, dt, false});
      }
    }
    cases.push_back({1, 1, 32768, 128, false, DType::Float32, false});
  }
  std::printf("{\n  \"threads\": %d,\n  \"layout\": \"%s\",\n  \"cases\": [\n",
              amkl::cpu::num_threads(), head_major ? "bhld" : "blhd");
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const Result r = run_case(c, min_time, min_reps, head_major);
    std::printf("    {\"name\": \"%s\", \"B\": %lld, \"H\": %lld, \"L\": %lld, \"d\": %lld, "
                "\"causal\": %s, \"dtype\": \"%s\", \"direction\": \"%s\", \"median_s\": %.6g, "
                "\"gflops\": %.4g, \"samples_s\": [",
                case_name(c).c_str(), (long long)c.b, (long long)c.h, (long long)c.l,
                (long long)c.d, c.causal ? "true" : "false", amkl::dtype_name(c.dtype),
                c.backward ? "backward" : "forward", r.median, flops(c) / r.median * 1e-9);
    for (size_t s = 0; s < r.samples.size(); ++s) {
      std::printf("%s%.6g", s ? ", " : "", r.samples[s]);
    }
    std::printf("]}%s\n", i + 1 < cases.size() ? "," : "");
    std::fflush(stdout);
  }
  std::printf("  ]\n}\n");
  return 0;
}
