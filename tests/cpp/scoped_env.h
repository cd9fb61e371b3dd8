// An environment variable unset for the life of a test and restored after (tests of the
// variables that force a kernel choice), and a gtest fixture that does it for each test.
#pragma once

#include <gtest/gtest.h>

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

// Fixture for the tests of one variable: `kVar` names it; it is unset at each test's start
// (a test sets it as it needs) and restored after. `Name` must have static storage
// (`constexpr char kName[] = "...";`).
template <const char* Name>
class UnsetEnvTest : public ::testing::Test {
 protected:
  static constexpr const char* kVar = Name;
  ScopedUnsetEnv env_{Name};
};

}  // namespace amkl::test
