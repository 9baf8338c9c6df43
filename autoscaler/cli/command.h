// What every `gpu-autoscaler` command runs with: its output streams and the clock. main()
// hands the real ones; tests hand their own.
#ifndef GPUA_AUTOSCALER_CLI_COMMAND_H_
#define GPUA_AUTOSCALER_CLI_COMMAND_H_

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "base/clock.h"
#include "base/flag_set.h"

namespace gpua {

struct CommandIo {
  std::ostream& out;
  std::ostream& err;
  Clock& clock;
};

// Exit statuses, the same for the controller and every subcommand (docs/exit-codes in the
// README): the work succeeded; the work failed (a cluster or plugin that does not answer or
// answers wrong, checks that found problems, an invariant broken); what was given cannot be
// used (a flag, an argument, or a file one names: missing, unreadable or malformed).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

// The status for an error met while reading what was given, before any work: the input's
// fault (2) when the error says so (malformed, or a file that is not there), else 1.
int ExitStatusForInput(const absl::Status& error);

using CommandArgs = std::vector<std::string>;

// Parses a command's flags. Returns the exit status when the command is to stop here: help
// asked for (printed with `usage`, 0) or a bad flag or a stray argument (the error printed,
// 2); nullopt to go on. A command that takes arguments besides its flags gets them in
// `positional`; without it, any is a stray.
std::optional<int> ParseFlagsOrExit(FlagSet& flags, const CommandArgs& args,
                                    absl::string_view usage, const CommandIo& io,
                                    std::vector<std::string>* positional = nullptr);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CLI_COMMAND_H_
