// `gpu-autoscaler record`: a workload trace for `simulate` from a real cluster. It lists and
// watches the pods (as the controller's informers do: paged lists, watches resumed from the
// last resourceVersion, a relist after 410 Gone) for `--for`, or reads a kubectl dump
// (`--from kubectl-json FILE`), and writes the pods that came and went as trace lines
// (trace_recorder.h), without names or namespaces unless `--keep-names`.
#ifndef GPUA_AUTOSCALER_CLI_RECORD_COMMAND_H_
#define GPUA_AUTOSCALER_CLI_RECORD_COMMAND_H_

#include <atomic>

#include "autoscaler/cli/command.h"

namespace gpua {

int RunRecordCommand(const CommandArgs& args, const CommandIo& io);

// As above, ending early (and writing what it has) once `stop` is set; main() sets it on
// SIGINT and SIGTERM.
int RunRecordCommandUntil(const CommandArgs& args, const CommandIo& io,
                          const std::atomic<bool>& stop);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CLI_RECORD_COMMAND_H_
