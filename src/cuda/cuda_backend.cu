// The CUDA backend's entry points (cuda_backend.h): device queries, the support check of the
// Hopper forward, its dispatch over the instantiation table, and the host copy helper.
#include "cuda/cuda_backend.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "amkl/error.h"
#include "cuda/common/capture_mode.h"
#include "cuda/common/cuda_check.h"
#include "cuda/common/outside_rows.h"
#include "cuda/sm90/fwd_instantiations.h"

namespace amkl::cuda {
namespace {

[[noreturn]] void not_supported(const std::string& what) {
  throw Error(ErrorKind::NotSupported, what);
}

/// Whether device `index` is a Hopper GPU (sm_90). Runs on every attention call, so it reads
/// two attributes (nanoseconds each) and not cudaGetDeviceProperties, which fills in every
/// property, some of them over PCIe (reported at up to milliseconds a call on some systems;
/// not measured here), time that validate_offsets' sync leaves the GPU idle through.
bool is_hopper(int index) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error
    return false;
  }
  if (index < 0 || index >= count) return false;
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, index) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, index) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return major == 9 && minor == 0;
}

/// The TMA engine needs 16-byte aligned bases and strides (in bytes) on every loaded tensor.
void check_tma_layout(const char* name, const detail::TensorLayout& t, const detail::SeqSide& s,
                      int64_t heads, int elem) {
  auto bad = [&](const char* what, int64_t v) {
    std::ostringstream m;
    m << "attention_forward on the GPU: " << name << "." << what << " = " << v
      << " elements; the Hopper kernels load " << name
      << " with TMA, which needs 16-byte aligned, non-negative strides (multiples of "
      << 16 / elem << " elements) and a 16-byte aligned data pointer";
    not_supported(m.str());
  };
  if (reinterpret_cast<uintptr_t>(t.data) % 16 != 0)
    bad("data pointer offset", int64_t(reinterpret_cast<uintptr_t>(t.data) % 16) / elem);
  const int64_t rows = s.jagged ? s.total_rows : s.dense_len;
  if (rows > 1 && (t.row_stride * elem) % 16 != 0) bad("row stride", t.row_stride);
  if (rows > 1 && t.row_stride <= 0) bad("row stride", t.row_stride);
  // Negative strides: TMA takes none (a descriptor built from one reads the wrong memory).
  if (heads > 1 && ((t.head_stride * elem) % 16 != 0 || t.head_stride < 0))
    bad("head stride", t.head_stride);
  if (!s.jagged && s.batch > 1 && ((t.batch_stride * elem) % 16 != 0 || t.batch_stride < 0))
    bad("batch stride", t.batch_stride);
  if (rows >= (int64_t(1) << 31)) bad("rows", rows);
}

bool has_instantiation(DType dt, int64_t d, int64_t dv) {
#define AMKL_X(DT, ELEM, D, DV) \
  if (dt == DType::DT && d == D && dv == DV) return true;
  AMKL_SM90_FWD_INSTANTIATIONS(AMKL_X)
#undef AMKL_X
  return false;
}

std::string instantiation_list() {
  std::ostringstream m;
  const char* sep = "";
#define AMKL_X(DT, ELEM, D, DV) \
  m << sep << #DT << " (d=" << D << ", d_v=" << DV << ")"; \
  sep = ", ";
  AMKL_SM90_FWD_INSTANTIATIONS(AMKL_X)
#undef AMKL_X
  return m.str();
}

}  // namespace

bool device_supported(int index) { return is_hopper(index); }

std::string device_description(int index) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return "no CUDA device (or no driver)";
  }
  if (index < 0 || index >= count) {
    return "no CUDA device " + std::to_string(index) + " (" + std::to_string(count) + " found)";
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, index) != cudaSuccess) {
    cudaGetLastError();
    return "CUDA device " + std::to_string(index) + ": properties unavailable";
  }
  std::ostringstream m;
  m << prop.name << ", sm_" << prop.major << prop.minor << ", " << prop.multiProcessorCount
    << " SMs";
  return m.str();
}

void check_forward_supported(const detail::AttentionParams& p) {
  if (!is_hopper(p.device.index)) {
    not_supported("attention_forward on the GPU: " + device_description(p.device.index) +
                  "; the CUDA kernels need a Hopper GPU (sm_90)");
  }
  if (p.in_dtype != DType::BFloat16 && p.in_dtype != DType::Float16) {
    not_supported(std::string("attention_forward on the GPU: q/k/v dtype ") +
                  dtype_name(p.in_dtype) + " is not supported; the Hopper kernels take " +
                  "bfloat16 or float16");
  }
  if (p.out_dtype != p.in_dtype && p.out_dtype != DType::Float32) {
    not_supported(std::string("attention_forward on the GPU: out dtype ") +
                  dtype_name(p.out_dtype) + " (expected the dtype of q or float32)");
  }
  if (!has_instantiation(p.in_dtype, p.head_dim, p.head_dim_v)) {
    std::ostringstream m;
    m << "attention_forward on the GPU: head dims (d=" << p.head_dim << ", d_v=" << p.head_dim_v
      << ") with " << dtype_name(p.in_dtype) << " are not built; available: "
      << instantiation_list();
    not_supported(m.str());
  }
  const int elem = 2;
  check_tma_layout("q", p.q, p.q_side, p.heads_q, elem);
  check_tma_layout("k", p.k, p.kv_side, p.heads_kv, elem);
  check_tma_layout("v", p.v, p.kv_side, p.heads_kv, elem);
  if (p.q_side.batch > 65535) {
    not_supported("attention_forward on the GPU: " + std::to_string(p.q_side.batch) +
                  " query sequences (at most 65535)");
  }
  if (p.heads_q > 65535) not_supported("attention_forward on the GPU: more than 65535 heads");
  const int64_t big = int64_t(1) << 30;
  if (p.window_left > big || p.window_right > big) {
    not_supported("attention_forward on the GPU: window sizes above 2^30");
  }
}

void attention_forward(const detail::AttentionParams& p) {
  // src/api has called check_forward_supported and guarantees a bound on the query lengths
  // (read from the offsets it validated, or promised by the caller).
  if (p.q_side.max_len < 0) {
    throw Error(ErrorKind::Runtime, "attention_forward on the GPU: no bound on the query lengths");
  }
  AMKL_CUDA_CHECK(cudaSetDevice(p.device.index));
  const int max_len_q = int(p.q_side.max_len);
#define AMKL_X(DT, ELEM, D, DV)                                           \
  if (p.in_dtype == DType::DT && p.head_dim == D && p.head_dim_v == DV) { \
    sm90::run_fwd<DType::DT, D, DV>(p, max_len_q);                        \
    write_rows_outside_sequences(p);                                      \
    return;                                                               \
  }
  AMKL_SM90_FWD_INSTANTIATIONS(AMKL_X)
#undef AMKL_X
  not_supported("attention_forward on the GPU: no kernel for this configuration");
}

void check_backward_supported(const detail::AttentionParams&) {
  not_supported("attention_backward is not implemented on the GPU yet");
}
void attention_backward(const detail::AttentionParams&) {
  not_supported("attention_backward is not implemented on the GPU yet");
}
void attention_combine(const detail::CombineParams&) {
  not_supported("attention_combine is not implemented on the GPU yet");
}

namespace {

/// The calling thread's pinned staging buffer for copy_to_host, grown as needed and kept
/// (cudaMallocHost costs far more than the copies it serves).
class PinnedStaging {
 public:
  ~PinnedStaging() {
    if (data_ == nullptr) return;
    const RelaxedCaptureScope relaxed;
    cudaFreeHost(data_);  // at thread exit; nothing to report to
  }
  void* reserve(size_t bytes) {
    if (bytes > capacity_) {
      const RelaxedCaptureScope relaxed;  // another thread may be capturing a graph
      if (data_ != nullptr) AMKL_CUDA_CHECK(cudaFreeHost(data_));
      data_ = nullptr;
      capacity_ = 0;
      const size_t want = std::max(bytes, size_t(64) << 10);
      AMKL_CUDA_CHECK(cudaMallocHost(&data_, want));
      capacity_ = want;
    }
    return data_;
  }

 private:
  void* data_ = nullptr;
  size_t capacity_ = 0;
};

}  // namespace

void copy_to_host(const std::vector<HostCopy>& copies, void* stream) {
  constexpr size_t kAlign = 16;
  size_t total = 0;
  for (const HostCopy& c : copies) total += (c.bytes + kAlign - 1) / kAlign * kAlign;
  if (total == 0) return;
  thread_local PinnedStaging staging;
  auto* base = static_cast<char*>(staging.reserve(total));
  auto s = static_cast<cudaStream_t>(stream);
  size_t at = 0;
  for (const HostCopy& c : copies) {
    if (c.bytes == 0) continue;
    const cudaError_t err = cudaMemcpyAsync(base + at, c.src, c.bytes, cudaMemcpyDeviceToHost, s);
    if (err != cudaSuccess) {
      cudaStreamSynchronize(s);  // the copies already queued land before the buffer is reused
      check_cuda(err, "cudaMemcpyAsync(index vector to the host)", __FILE__, __LINE__);
    }
    at += (c.bytes + kAlign - 1) / kAlign * kAlign;
  }
  AMKL_CUDA_CHECK(cudaStreamSynchronize(s));
  at = 0;
  for (const HostCopy& c : copies) {
    if (c.bytes == 0) continue;
    std::memcpy(c.dst, base + at, c.bytes);
    at += (c.bytes + kAlign - 1) / kAlign * kAlign;
  }
}

}  // namespace amkl::cuda
