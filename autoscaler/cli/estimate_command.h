// `gpu-autoscaler estimate`: what would the autoscaler add for these pods?
#ifndef GPUA_AUTOSCALER_CLI_ESTIMATE_COMMAND_H_
#define GPUA_AUTOSCALER_CLI_ESTIMATE_COMMAND_H_

#include "autoscaler/cli/command.h"

namespace gpua {

int RunEstimateCommand(const CommandArgs& args, const CommandIo& io);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CLI_ESTIMATE_COMMAND_H_
