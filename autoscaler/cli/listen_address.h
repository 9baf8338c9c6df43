// Where the controller serves /metrics and /health-check: "host:port" or ":port".
#ifndef GPUA_AUTOSCALER_CLI_LISTEN_ADDRESS_H_
#define GPUA_AUTOSCALER_CLI_LISTEN_ADDRESS_H_

#include <string>

#include "absl/status/statusor.h"

namespace gpua {

// The address's port (0: any free one); an error names --address and the range.
absl::StatusOr<int> ListenPort(const std::string& address);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CLI_LISTEN_ADDRESS_H_
