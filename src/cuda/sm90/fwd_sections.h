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

/// The fewest pairs a section takes, whatever their bytes. With a section of 2 or 4 long pairs
/// (16 MB of K and V at 16384 or 8192 keys, d = 128) the GPU's SMs all work on the heaviest
/// query blocks of those few pairs at once; 8 pairs (32-64 MB) ran 4.8-5.6% faster on the H200
/// at the power cap (causal (2,16,8192) and (1,16,16384); 12 pairs +1.2-1.8%, 16 pairs about
/// as 8 at boost clock: bench/results/ab_sections_long*_h200.json, bench/NOTES.md step 16).
constexpr int64_t kMinSectionPairs = 8;

/// Pairs per section for `pairs` (sequence, head) pairs whose K and V take `pair_bytes` each
/// (a KV head shared by several query heads counted once per query head's share): as many as
/// fit kL2SectionBytes but at least kMinSectionPairs, at most all. The environment variable
/// AMKL_SM90_SECTION_PAIRS (a positive integer) forces the count (the GPU tests use it to
/// get many sections out of small problems); other values are an error for every call that
/// uses sections.
inline int l2_section_pairs(int64_t pairs, int64_t pair_bytes) {
  int64_t n = std::max(kL2SectionBytes / std::max<int64_t>(pair_bytes, 1), kMinSectionPairs);
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
