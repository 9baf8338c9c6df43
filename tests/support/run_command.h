// Runs a `gpu-autoscaler` command as main() would, on the real clock, into a test's streams.
#ifndef GPUA_TESTS_SUPPORT_RUN_COMMAND_H_
#define GPUA_TESTS_SUPPORT_RUN_COMMAND_H_

#include <functional>
#include <ostream>

#include "autoscaler/cli/command.h"

namespace gpua::testing {

inline int RunCommand(const std::function<int(const CommandArgs&, const CommandIo&)>& command,
                      const CommandArgs& args, std::ostream& out, std::ostream& err) {
  RealClock clock;
  return command(args, {out, err, clock});
}

}  // namespace gpua::testing

#endif  // GPUA_TESTS_SUPPORT_RUN_COMMAND_H_
