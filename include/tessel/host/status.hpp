// tessel/host/status.hpp — the status of a host API call.
#pragma once

#include <string>
#include <utility>

namespace tessel {

/// What a host API call reports.  On any code other than ok, nothing was
/// written to the call's outputs.
struct Status {
  enum Code { ok = 0, invalid_argument, unsupported, cuda_error };
  Code code = ok;
  std::string message;

  static Status success() { return {}; }
  static Status failure(Code c, std::string msg) { return Status{c, std::move(msg)}; }
  bool is_ok() const { return code == ok; }
  explicit operator bool() const { return is_ok(); }
};

inline const char* to_string(Status::Code c) {
  switch (c) {
    case Status::ok:
      return "ok";
    case Status::invalid_argument:
      return "invalid-argument";
    case Status::unsupported:
      return "unsupported";
    case Status::cuda_error:
      return "cuda-error";
  }
  return "unknown";
}

}  // namespace tessel
