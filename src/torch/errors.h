// Runs an amkl call and turns amkl::Error into the exception PyTorch maps to the right
// Python type: InvalidArgument -> ValueError, NotSupported -> NotImplementedError (a
// subclass of RuntimeError), Runtime -> RuntimeError.
#pragma once

#include <c10/util/Exception.h>

#include <utility>

#include "amkl/error.h"

namespace amkl::torch_binding {

template <class F>
decltype(auto) translate_errors(F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const Error& e) {
    switch (e.kind()) {
      case ErrorKind::InvalidArgument: TORCH_CHECK_VALUE(false, e.what());
      case ErrorKind::NotSupported: TORCH_CHECK_NOT_IMPLEMENTED(false, e.what());
      case ErrorKind::Runtime: break;
    }
    TORCH_CHECK(false, e.what());
  }
}

}  // namespace amkl::torch_binding
