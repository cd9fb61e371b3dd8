// Small argument-checking helpers used by every op in src/api. Each throws amkl::Error with
// a message that names the argument, what was expected and what was given.
#pragma once

#include <initializer_list>
#include <string>
#include <vector>

#include "amkl/error.h"
#include "amkl/tensor.h"

namespace amkl::api {

[[noreturn]] inline void fail(const std::string& msg) {
  throw Error(ErrorKind::InvalidArgument, msg);
}
[[noreturn]] inline void unsupported(const std::string& msg) {
  throw Error(ErrorKind::NotSupported, msg);
}

inline std::string shape_of(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
  return r + "]";
}

inline std::vector<int64_t> shape_vec(const TensorRef& t) {
  return std::vector<int64_t>(t.shape, t.shape + t.ndim);
}

/// The argument must be given, with non-null data unless it has no elements.
inline void require_defined(const TensorRef& t, const char* name) {
  if (!t.defined()) fail(std::string(name) + ": required but not given");
  for (int i = 0; i < t.ndim; ++i) {
    if (t.shape[i] < 0) fail(std::string(name) + ": negative size in shape " + t.shape_str());
  }
  if (t.data == nullptr && t.numel() > 0) {
    fail(std::string(name) + ": null data pointer for a tensor of shape " + t.shape_str());
  }
}

inline void require_dtype(const TensorRef& t, const char* name, std::initializer_list<DType> ok) {
  for (DType d : ok) {
    if (t.dtype == d) return;
  }
  std::string list;
  for (DType d : ok) list += (list.empty() ? "" : " or ") + std::string(dtype_name(d));
  fail(std::string(name) + ": expected dtype " + list + ", got " + dtype_name(t.dtype));
}

inline void require_device(const TensorRef& t, const char* name, const Device& dev,
                           const char* ref_name) {
  if (t.device != dev) {
    fail(std::string(name) + ": expected device " + device_name(dev) + " (the device of " +
         ref_name + "), got " + device_name(t.device));
  }
}

inline void require_shape(const TensorRef& t, const char* name, const std::vector<int64_t>& want) {
  if (shape_vec(t) != want) {
    fail(std::string(name) + ": expected shape " + shape_of(want) + ", got " + t.shape_str());
  }
}

/// The last dim must have stride 1 (or size <= 1).
inline void require_last_contiguous(const TensorRef& t, const char* name) {
  if (t.ndim > 0 && t.shape[t.ndim - 1] > 1 && t.strides[t.ndim - 1] != 1) {
    fail(std::string(name) + ": the last dim must be contiguous (stride 1), got strides of " +
         std::to_string(t.strides[t.ndim - 1]));
  }
}

/// Outputs may not have zero or negative strides on dims of size > 1 (elements would alias).
inline void require_writable_strides(const TensorRef& t, const char* name) {
  for (int i = 0; i < t.ndim; ++i) {
    if (t.shape[i] > 1 && t.strides[i] <= 0) {
      fail(std::string(name) + ": an output needs positive strides, but dim " + std::to_string(i) +
           " of shape " + t.shape_str() + " has stride " + std::to_string(t.strides[i]));
    }
  }
}

/// A 1-D contiguous int32 vector of the given length on the given device.
inline void require_index_vector(const TensorRef& t, const char* name, int64_t len,
                                 const Device& dev, const char* len_what) {
  require_defined(t, name);
  require_dtype(t, name, {DType::Int32});
  require_device(t, name, dev, "q");
  if (t.ndim != 1) fail(std::string(name) + ": expected 1 dim, got shape " + t.shape_str());
  if (len >= 0 && t.shape[0] != len) {
    fail(std::string(name) + ": expected shape [" + std::to_string(len) + "] (" + len_what +
         "), got " + t.shape_str());
  }
  if (t.shape[0] > 1 && t.strides[0] != 1) {
    fail(std::string(name) + ": must be contiguous, got stride " + std::to_string(t.strides[0]));
  }
}

}  // namespace amkl::api
