// Hopper forward, one instantiation of fwd_instantiations.h: BFloat16, d = 128, d_v = 128.
#include "cuda/sm90/fwd_instantiations.h"
#include "cuda/sm90/fwd_launch_sm90.h"

AMKL_SM90_FWD_DEFINE(BFloat16, cutlass::bfloat16_t, 128, 128)
