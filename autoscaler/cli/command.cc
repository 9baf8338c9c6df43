#include "autoscaler/cli/command.h"

namespace gpua {

int ExitStatusForInput(const absl::Status& error) {
  switch (error.code()) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kFailedPrecondition:  // in-cluster settings missing, an empty token
      return kExitUsage;
    default:
      return kExitFailure;
  }
}

std::optional<int> ParseFlagsOrExit(FlagSet& flags, const CommandArgs& args,
                                    absl::string_view usage, const CommandIo& io,
                                    std::vector<std::string>* positional) {
  absl::StatusOr<std::vector<std::string>> rest = flags.Parse(args);
  if (!rest.ok()) {
    io.err << rest.status().message() << "\n";
    return kExitUsage;
  }
  if (flags.help()) {
    io.out << usage << "\n\nFlags:\n" << flags.Usage();
    return kExitOk;
  }
  if (positional != nullptr) {
    *positional = *std::move(rest);
  } else if (!rest->empty()) {
    io.err << flags.command() << ": unexpected argument \"" << rest->front() << "\"\n";
    return kExitUsage;
  }
  return std::nullopt;
}

}  // namespace gpua
