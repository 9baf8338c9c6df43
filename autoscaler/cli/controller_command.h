// `gpu-autoscaler [flags]`: the controller, with cluster-autoscaler's flags. Runs until
// SIGTERM or SIGINT, or until it loses the lease.
#ifndef GPUA_AUTOSCALER_CLI_CONTROLLER_COMMAND_H_
#define GPUA_AUTOSCALER_CLI_CONTROLLER_COMMAND_H_

#include "autoscaler/cli/command.h"

namespace gpua {

int RunControllerCommand(const CommandArgs& args, const CommandIo& io);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CLI_CONTROLLER_COMMAND_H_
