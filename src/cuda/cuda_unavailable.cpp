// The CUDA entry points of a build without the CUDA backend: each one says so.
#include "amkl/error.h"
#include "cuda/cuda_backend.h"

namespace amkl::cuda {
namespace {
[[noreturn]] void unavailable() {
  throw Error(ErrorKind::NotSupported,
              "CUDA tensors given, but this build of amkl has no CUDA backend "
              "(configure with -DAMKL_CUDA=ON on a machine with nvcc)");
}
}  // namespace

bool device_supported(int) { return false; }
std::string device_description(int) { return "amkl was built without CUDA"; }
void check_forward_supported(const detail::AttentionParams&) { unavailable(); }
void attention_forward(const detail::AttentionParams&) { unavailable(); }
void check_backward_supported(const detail::AttentionParams&) { unavailable(); }
void attention_backward(const detail::AttentionParams&) { unavailable(); }
void attention_combine(const detail::CombineParams&) { unavailable(); }
void copy_to_host(const std::vector<HostCopy>&, void*) { unavailable(); }
}  // namespace amkl::cuda
