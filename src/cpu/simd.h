// Portable SIMD for the CPU backend's hot loops: GCC/Clang vector extensions (32-byte
// vectors of float or double) plus a way to compile one function body twice, for the
// baseline ISA and for AVX2+FMA, choosing at run time. The library then needs no
// -march flags and still runs on any x86-64 (and on other architectures, baseline only).
#pragma once

#include <cstdint>
#include <cstring>

// These helpers are always inlined, so GCC's note that 32-byte vector arguments have a
// different ABI with and without AVX concerns no real call.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

namespace amkl::cpu::simd {

template <typename T>
struct VecOf {
  typedef T type __attribute__((vector_size(32)));
};
template <typename T>
using Vec = typename VecOf<T>::type;
template <typename T>
constexpr int kLanes = int(32 / sizeof(T));
// No broadcast helper: `scalar * vector` broadcasts (and compiles to a broadcast FMA).

// Loads and stores through memcpy: unaligned, and free of aliasing questions.
template <typename T>
__attribute__((always_inline)) inline Vec<T> load(const T* p) {
  Vec<T> v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}
template <typename T>
__attribute__((always_inline)) inline void store(T* p, const Vec<T>& v) {
  std::memcpy(p, &v, sizeof(v));
}
}  // namespace amkl::cpu::simd

// AMKL_CPU_AVX2 marks a function to be compiled for AVX2+FMA; AMKL_CPU_HAVE_AVX2_DISPATCH
// says whether this compiler/architecture can build and detect it.
#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#define AMKL_CPU_HAVE_AVX2_DISPATCH 1
#define AMKL_CPU_AVX2 __attribute__((target("avx2,fma")))
namespace amkl::cpu::simd {
inline bool cpu_has_avx2_fma() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
}  // namespace amkl::cpu::simd
#else
#define AMKL_CPU_HAVE_AVX2_DISPATCH 0
#define AMKL_CPU_AVX2
namespace amkl::cpu::simd {
inline bool cpu_has_avx2_fma() { return false; }
}  // namespace amkl::cpu::simd
#endif
