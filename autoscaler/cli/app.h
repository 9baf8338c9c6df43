// The `gpu-autoscaler` command line: global flags, then a subcommand, or none to run the
// controller. Kept apart from main() so tests drive it with their own streams and clock.
#ifndef GPUA_AUTOSCALER_CLI_APP_H_
#define GPUA_AUTOSCALER_CLI_APP_H_

#include <functional>
#include <string>
#include <vector>

#include "autoscaler/cli/command.h"

namespace gpua {

struct Subcommand {
  std::string name;
  std::string summary;  // one line for --help
  // Receives the arguments after the subcommand's name; returns the exit status.
  std::function<int(const CommandArgs& args, const CommandIo& io)> run;
};

// The subcommands this build has, in the order --help lists them.
const std::vector<Subcommand>& Subcommands();

// Runs the program on `args` (without argv[0]) and returns its exit status: 0 on success,
// 1 when the work failed, 2 for a usage error.
int RunApp(const CommandArgs& args, const CommandIo& io);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CLI_APP_H_
