// CK(call): a GoogleTest assertion that a CUDA runtime call succeeded, naming the call and
// the runtime's message (GPU tests only: they include the CUDA runtime).
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#define CK(call)                                                                       \
  do {                                                                                 \
    cudaError_t e_ = (call);                                                           \
    ASSERT_EQ(e_, cudaSuccess) << #call << ": " << cudaGetErrorString(e_);             \
  } while (0)
