// `gpu-autoscaler inspect`: what the autoscaler sees. Connects as the controller would
// (--kubeconfig, --context, in-cluster by default), fills the informers and prints nodes by
// group and state (ready, not ready, GPUs not yet advertised) with their GPU capacity and
// use, and the unschedulable pods with their requests; `--output json` prints the same as
// one object; `--watch DURATION` then keeps the watches open and prints each change.
#ifndef GPUA_AUTOSCALER_CLI_INSPECT_COMMAND_H_
#define GPUA_AUTOSCALER_CLI_INSPECT_COMMAND_H_

#include "autoscaler/cli/command.h"

namespace gpua {

int RunInspectCommand(const CommandArgs& args, const CommandIo& io);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CLI_INSPECT_COMMAND_H_
