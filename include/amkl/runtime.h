// What this build of amkl and this machine can run.
#pragma once

#include <string>

namespace amkl {

/// Library version, "MAJOR.MINOR.PATCH".
const char* version();

/// True when this build contains the CUDA backend.
bool built_with_cuda();

/// True when a CUDA device with compute capability 9.0 (Hopper, the kernels' target) is
/// visible at `device_index`. Never throws.
bool gpu_supported(int device_index = 0);

/// A one-line description of CUDA device `device_index` ("NVIDIA H200, sm_90, 132 SMs"),
/// or why there is none ("amkl was built without CUDA", "no CUDA device").
std::string gpu_description(int device_index = 0);

}  // namespace amkl
