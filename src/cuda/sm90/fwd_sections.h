// How many (sequence, head) pairs one section of the Hopper forward's longest-first tile order
// takes (TileScheduler::section; host side, no CUDA dependencies, so the CPU tests cover it).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "amkl/error.h"

namespace amkl::cuda::sm90 {

/// The K and V bytes one section's pairs may take together: a third of the H100 / H200's
/// 50 MB L2, so the section's K and V stay there while its tiles run heaviest first.
constexpr int64_t kL2SectionBytes = int64_t(16) << 20;

/// Pairs per section for `pairs` (sequence, head) pairs whose K and V take `pair_bytes` each
/// (a KV head shared by several query heads counted once per query head's share): as many as
/// fit kL2SectionBytes, at least 1, at most all. The environment variable
/// AMKL_SM90_SECTION_PAIRS (a positive integer) forces the count (the GPU tests use it to
/// get many sections out of small problems); other values are an error for every call that
/// uses sections.
inline int l2_section_pairs(int64_t pairs, int64_t pair_bytes) {
  int64_t n = kL2SectionBytes / std::max<int64_t>(pair_bytes, 1);
  if (const char* env = std::getenv("AMKL_SM90_SECTION_PAIRS")) {
    const std::string v(env);
    char* end = nullptr;
    const long long forced = std::strtoll(v.c_str(), &end, 10);
    if (v.empty() || *end != '\0' || forced <= 0) {
      throw Error(ErrorKind::InvalidArgument,
                  "AMKL_SM90_SECTION_PAIRS: expected a positive integer (or unset), got '" + v +
                      "'");
    }
    n = forced;
  }
  return int(std::clamp<int64_t>(n, 1, std::max<int64_t>(pairs, 1)));
}

}  // namespace amkl::cuda::sm90
