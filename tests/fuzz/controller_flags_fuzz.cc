// Fuzzes the controller's command line (one argument a line): cluster-autoscaler's flags, with
// their values (durations, quantities, --nodes=min:max:id, expander lists, ...), are read or
// refused with an error, never a crash; and Go's two spellings of a flag, `--name=value` and
// `-name=value`, read alike.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "autoscaler/cli/controller_flags.h"

namespace {

// What the arguments read as: a few of the settings, or "refused".
std::string Read(const gpua::CommandArgs& args) {
  bool help = false;
  std::string usage;
  const absl::StatusOr<gpua::ControllerConfig> c = gpua::ParseControllerFlags(args, &help, &usage);
  if (!c.ok()) {
    if (c.status().message().empty()) {
      std::cerr << "A refusal that says nothing\n";
      std::abort();
    }
    return "refused";
  }
  return help ? "help" : "read";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const gpua::CommandArgs args = absl::StrSplit(text, '\n');
  const std::string first = Read(args);
  gpua::CommandArgs single_dash;
  for (const std::string& a : args) {
    // Only `--name=value`: `--` alone ends the flags, and `---x` is no flag in either spelling.
    if (a.size() < 4 || a.rfind("--", 0) != 0 || a[2] == '-' || a[2] == '=') return 0;
    single_dash.push_back(a.substr(1));
  }
  const std::string second = Read(single_dash);
  if (first != second) {
    std::cerr << "--name and -name read differently: " << first << " / " << second << "\n  "
              << absl::StrJoin(args, " ") << "\n";
    std::abort();
  }
  return 0;
}
