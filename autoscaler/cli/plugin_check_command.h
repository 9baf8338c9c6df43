// `gpu-autoscaler plugin-check --cloud-config FILE`: a conformance check for externalgrpc
// provider plugins. Calls every RPC of a running plugin through the same client the
// autoscaler uses, prints what each answered and what is wrong, and exits 0 (no problems),
// 1 (problems) or 2 (bad usage or config). Calls that change the cluster (increase, then
// decrease, a group's target) run only with --mutate; DeleteNodes is never called.
#ifndef GPUA_AUTOSCALER_CLI_PLUGIN_CHECK_COMMAND_H_
#define GPUA_AUTOSCALER_CLI_PLUGIN_CHECK_COMMAND_H_

#include "autoscaler/cli/command.h"

namespace gpua {

int RunPluginCheckCommand(const CommandArgs& args, const CommandIo& io);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CLI_PLUGIN_CHECK_COMMAND_H_
