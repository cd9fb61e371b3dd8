// Hopper forward, one instantiation of fwd_instantiations.h: Float16, d = 256, d_v = 256.
#include "cuda/sm90/fwd_instantiations.h"
#include "cuda/sm90/fwd_launch_sm90.h"

AMKL_SM90_FWD_DEFINE(Float16, cutlass::half_t, 256, 256)
