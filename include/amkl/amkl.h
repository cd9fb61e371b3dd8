// The whole public C++ API of amkl.
#pragma once

#include "amkl/activation.h"
#include "amkl/attention.h"
#include "amkl/error.h"
#include "amkl/runtime.h"
#include "amkl/tensor.h"
