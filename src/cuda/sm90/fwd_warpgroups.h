// How many consumer warpgroups serve a forward call on the Hopper kernels (host side, no CUDA
// dependencies, so the CPU tests cover it).
#pragma once

#include <cstdlib>
#include <string>

#include "amkl/error.h"

namespace amkl::cuda::sm90 {

/// Query rows from which three consumer warpgroups (192-row tiles) serve an unmasked call
/// where a head dim has such kernels (d = 64). H200, d = 64 dense softmax, three against two
/// (bench/NOTES.md step 12): L = 4096 +13%, 2048 +17%, 1024 +1%, 512 -2%; below 1024 the
/// larger tiles' unused rows cost more than the third warpgroup gains.
constexpr int kThreeWarpgroupMinRows = 1024;

/// The consumer warpgroups for a call with query sequences of at most max_len_q rows and,
/// when masked, a causal or local window: two for masked calls (causal d = 64 lost 3-5% with
/// three: a 192-row tile crosses the diagonal in more key blocks), else the row rule above.
/// The environment variable AMKL_SM90_CONSUMER_WARPGROUPS (2 or 3) forces the choice where a
/// head dim has both kernels (the GPU tests run every case with each; measurements). Other
/// values of the variable are an error for every call.
inline int consumer_warpgroups_for(int max_len_q, bool masked) {
  if (const char* env = std::getenv("AMKL_SM90_CONSUMER_WARPGROUPS")) {
    const std::string v(env);
    if (v == "2") return 2;
    if (v == "3") return 3;
    if (!v.empty()) {
      throw Error(ErrorKind::InvalidArgument,
                  "AMKL_SM90_CONSUMER_WARPGROUPS: expected 2 or 3 (or unset), got '" + v + "'");
    }
  }
  return !masked && max_len_q >= kThreeWarpgroupMinRows ? 3 : 2;
}

}  // namespace amkl::cuda::sm90
