// Hopper forward, one instantiation of fwd_instantiations.h: BFloat16, d = 256, d_v = 256.
#include "cuda/sm90/fwd_instantiations.h"
#include "cuda/sm90/fwd_launch_sm90.h"

AMKL_SM90_FWD_DEFINE(BFloat16, cutlass::bfloat16_t, 256, 256)
