// `gpu-autoscaler simulate`: runs the controller over a workload trace on a virtual clock
// and reports what it costs and how long pods wait; with --sweep, for several settings. With
// no arguments it runs the bundled example week with a short sweep of idle timeouts.
#ifndef GPUA_AUTOSCALER_CLI_SIMULATE_COMMAND_H_
#define GPUA_AUTOSCALER_CLI_SIMULATE_COMMAND_H_

#include "autoscaler/cli/command.h"

namespace gpua {

int RunSimulateCommand(const CommandArgs& args, const CommandIo& io);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CLI_SIMULATE_COMMAND_H_
