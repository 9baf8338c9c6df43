#include "autoscaler/cli/listen_address.h"

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace gpua {

absl::StatusOr<int> ListenPort(const std::string& address) {
  const size_t colon = address.rfind(':');
  int port = 0;
  if (colon == std::string::npos || !absl::SimpleAtoi(address.substr(colon + 1), &port) ||
      port < 0 || port > 65535) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--address \"", address, "\": expected host:port with a port from 0 to 65535, e.g. :8085"));
  }
  return port;
}

}  // namespace gpua
