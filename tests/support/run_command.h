// Runs a `gpu-autoscaler` command as main() would, on the real clock, into a test's streams.
#ifndef GPUA_TESTS_SUPPORT_RUN_COMMAND_H_
#define GPUA_TESTS_SUPPORT_RUN_COMMAND_H_

#include <functional>
#include <ostream>
#include <sstream>
#include <string>

#include "autoscaler/cli/command.h"

namespace gpua::testing {

inline int RunCommand(const std::function<int(const CommandArgs&, const CommandIo&)>& command,
                      const CommandArgs& args, std::ostream& out, std::ostream& err) {
  RealClock clock;
  return command(args, {out, err, clock});
}

// What a command printed and returned, for tests that read both streams.
struct CommandRun {
  int code;
  std::string out, err;
};

inline CommandRun RunCaptured(
    const std::function<int(const CommandArgs&, const CommandIo&)>& command,
    const CommandArgs& args) {
  std::ostringstream out, err;
  const int code = RunCommand(command, args, out, err);
  return {code, out.str(), err.str()};
}

}  // namespace gpua::testing

#endif  // GPUA_TESTS_SUPPORT_RUN_COMMAND_H_
