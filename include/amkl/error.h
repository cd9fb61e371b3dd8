// amkl::Error: the one exception type every public function throws for bad input,
// unsupported combinations, or a failure of the device runtime.
#pragma once

#include <stdexcept>
#include <string>

namespace amkl {

/// What kind of failure an Error reports. Python maps InvalidArgument to ValueError and
/// the others to RuntimeError.
enum class ErrorKind {
  InvalidArgument,  ///< a wrong dtype, shape, stride, device, offset or value
  NotSupported,     ///< a valid request this build or this GPU cannot run
  Runtime,          ///< the device runtime failed (launch error, out of memory)
};

/// Thrown by every amkl function on error. The message names the argument, what was
/// expected and what was given. No output has been written when it is thrown.
class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message)
      : std::runtime_error("amkl: " + message), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

}  // namespace amkl
