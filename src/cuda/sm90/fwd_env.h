// On / off switches of the Hopper forward read from the environment (measurements, and the GPU
// tests that force a choice on problems too small for it to be taken). Host only.
#pragma once

#include <cstdlib>
#include <string>

#include "amkl/error.h"

namespace amkl::cuda::sm90 {

/// The switch `name`: -1 where the variable is unset or empty (the library chooses), 1 for
/// "1" (forced on), 0 for "0" (forced off); any other value is an InvalidArgument error naming
/// the variable.
inline int forced_switch(const char* name) {
  const char* env = std::getenv(name);
  if (env == nullptr || *env == '\0') return -1;
  const std::string v(env);
  if (v == "0" || v == "1") return v == "1";
  throw Error(ErrorKind::InvalidArgument,
              std::string(name) + ": expected 0 or 1 (or unset), got '" + v + "'");
}

}  // namespace amkl::cuda::sm90
