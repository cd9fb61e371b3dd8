// AMKL_HD marks small inline functions usable from host and device code.
#pragma once

#if defined(__CUDACC__)
#define AMKL_HD __host__ __device__ __forceinline__
#else
#define AMKL_HD inline
#endif
