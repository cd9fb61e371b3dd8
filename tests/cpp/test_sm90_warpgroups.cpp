// The Hopper forward's choice of consumer warpgroups (host side: runs on any machine).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "cuda/sm90/fwd_warpgroups.h"
#include "scoped_env.h"

namespace {

using amkl::cuda::sm90::consumer_warpgroups_for;
using amkl::cuda::sm90::kThreeWarpgroupMinRows;

// AMKL_SM90_CONSUMER_WARPGROUPS unset for each test (set inside one) and restored after.
constexpr char kWarpgroupsVar[] = "AMKL_SM90_CONSUMER_WARPGROUPS";
using WarpgroupsEnv = amkl::test::UnsetEnvTest<kWarpgroupsVar>;

TEST_F(WarpgroupsEnv, RowRuleWithoutTheVariable) {
  EXPECT_EQ(consumer_warpgroups_for(0, false), 2);
  EXPECT_EQ(consumer_warpgroups_for(kThreeWarpgroupMinRows - 1, false), 2);
  EXPECT_EQ(consumer_warpgroups_for(kThreeWarpgroupMinRows, false), 3);
  EXPECT_EQ(consumer_warpgroups_for(1 << 20, false), 3);
}

TEST_F(WarpgroupsEnv, MaskedCallsKeepTwo) {
  EXPECT_EQ(consumer_warpgroups_for(kThreeWarpgroupMinRows, true), 2);
  EXPECT_EQ(consumer_warpgroups_for(1 << 20, true), 2);
}

TEST_F(WarpgroupsEnv, VariableForcesEitherCount) {
  setenv(kVar, "2", 1);
  EXPECT_EQ(consumer_warpgroups_for(1 << 20, false), 2);
  setenv(kVar, "3", 1);
  EXPECT_EQ(consumer_warpgroups_for(1, false), 3);
  EXPECT_EQ(consumer_warpgroups_for(1 << 20, true), 3);
  setenv(kVar, "", 1);  // empty: as if unset
  EXPECT_EQ(consumer_warpgroups_for(1, false), 2);
}

TEST_F(WarpgroupsEnv, OtherValuesAreRejected) {
  for (const char* bad : {"4", "1", "three", " 3"}) {
    setenv(kVar, bad, 1);
    try {
      consumer_warpgroups_for(1, false);
      ADD_FAILURE() << "no error for '" << bad << "'";
    } catch (const amkl::Error& e) {
      EXPECT_EQ(e.kind(), amkl::ErrorKind::InvalidArgument);
      EXPECT_NE(std::string(e.what()).find("AMKL_SM90_CONSUMER_WARPGROUPS"), std::string::npos);
    }
  }
}

}  // namespace
