// The Hopper forward's choice of its plain kernel (host side: runs on any machine): taken only
// where that kernel's missing paths (softcap, left window, GQA packing, register stores of O)
// are not needed, and AMKL_SM90_PLAIN=0 turns it off.
#include <gtest/gtest.h>

#include <cstdlib>

#include "cuda/sm90/fwd_plain.h"
#include "scoped_env.h"

namespace {

using namespace amkl::cuda::sm90;
using amkl::detail::SeqSide;

constexpr char kPlainVar[] = "AMKL_SM90_PLAIN";
class PlainEnv : public amkl::test::UnsetEnvTest<kPlainVar> {
 protected:
  SeqSide dense(int64_t len) const {
    SeqSide q;
    q.batch = 4;
    q.dense_len = len;
    q.total_rows = 4 * len;
    return q;
  }
  PlainCall plain(const SeqSide* q) const {
    return PlainCall{true, 0.f, -1, 0, true, q, 128};
  }
};

TEST_F(PlainEnv, DenseFullTilesWithTmaStores) {
  const SeqSide q = dense(512);
  EXPECT_TRUE(runs_plain(plain(&q)));
  PlainCall causal = plain(&q);  // causal and right windows: window_left stays -1
  EXPECT_TRUE(runs_plain(causal));
  PlainCall three = plain(&q);
  three.block_m = 192;  // three warpgroups: 512 rows leave a partial tile
  EXPECT_FALSE(runs_plain(three));
  const SeqSide q576 = dense(576);
  three.q = &q576;
  EXPECT_TRUE(runs_plain(three));
}

TEST_F(PlainEnv, NotWhereAMissingPathIsNeeded) {
  const SeqSide q = dense(512);
  PlainCall c = plain(&q);
  c.softmax = false;
  EXPECT_FALSE(runs_plain(c));
  c = plain(&q);
  c.softcap = 30.f;
  EXPECT_FALSE(runs_plain(c));
  c = plain(&q);
  c.window_left = 0;  // a left window, even of zero keys
  EXPECT_FALSE(runs_plain(c));
  c = plain(&q);
  c.pack_shift = 2;
  EXPECT_FALSE(runs_plain(c));
  c = plain(&q);
  c.out_tma = false;  // O stored from registers
  EXPECT_FALSE(runs_plain(c));
  const SeqSide ragged = dense(500);  // the last tile partly empty
  EXPECT_FALSE(runs_plain(plain(&ragged)));
  SeqSide jagged = dense(0);
  jagged.jagged = true;
  EXPECT_FALSE(runs_plain(plain(&jagged)));
  SeqSide used = dense(512);
  const int32_t lens[4] = {512, 512, 512, 512};
  used.seqused = lens;  // lengths read on the device: not known to be full
  EXPECT_FALSE(runs_plain(plain(&used)));
}

TEST_F(PlainEnv, EnvironmentTurnsItOff) {
  const SeqSide q = dense(512);
  setenv(kVar, "0", 1);
  EXPECT_FALSE(runs_plain(plain(&q)));
  setenv(kVar, "1", 1);
  EXPECT_TRUE(runs_plain(plain(&q)));
  setenv(kVar, "2", 1);
  EXPECT_THROW(runs_plain(plain(&q)), amkl::Error);
}

}  // namespace
