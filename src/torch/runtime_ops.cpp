// Ops that describe this build and machine (amkl/runtime.h), so Python can report what the
// GPU backend covers without importing anything CUDA-specific.
#include <torch/library.h>

#include <string>

#include "amkl/runtime.h"

namespace {
std::string version_op() { return amkl::version(); }
bool built_with_cuda_op() { return amkl::built_with_cuda(); }
bool gpu_supported_op(int64_t index) { return amkl::gpu_supported(static_cast<int>(index)); }
std::string gpu_description_op(int64_t index) {
  return amkl::gpu_description(static_cast<int>(index));
}
}  // namespace

TORCH_LIBRARY_FRAGMENT(amkl, m) {
  m.def("version() -> str", &version_op);
  m.def("built_with_cuda() -> bool", &built_with_cuda_op);
  m.def("gpu_supported(int index=0) -> bool", &gpu_supported_op);
  m.def("gpu_description(int index=0) -> str", &gpu_description_op);
}
