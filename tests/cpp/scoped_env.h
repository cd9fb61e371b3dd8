// An environment variable unset for the life of a test and restored after (tests of the
// variables that force a kernel choice).
#pragma once

#include <cstdlib>
#include <string>

namespace amkl::test {

class ScopedUnsetEnv {
 public:
  explicit ScopedUnsetEnv(const char* name) : name_(name) {
    if (const char* old = std::getenv(name)) {
      had_ = true;
      old_ = old;
    }
    unsetenv(name);
  }
  ~ScopedUnsetEnv() {
    if (had_) {
      setenv(name_.c_str(), old_.c_str(), 1);
    } else {
      unsetenv(name_.c_str());
    }
  }
  ScopedUnsetEnv(const ScopedUnsetEnv&) = delete;
  ScopedUnsetEnv& operator=(const ScopedUnsetEnv&) = delete;

 private:
  std::string name_, old_;
  bool had_ = false;
};

}  // namespace amkl::test
