// Command-line flags in the style of Go's flag package, which cluster-autoscaler uses, so
// its command lines carry over: `-name`, `--name`, `--name=value` or `--name value`; a boolean
// takes its value only after `=`; `--` ends the flags.
#ifndef GPUA_BASE_FLAG_SET_H_
#define GPUA_BASE_FLAG_SET_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace gpua {

class FlagSet {
 public:
  // `command` names the flags' owner in errors and usage ("gpu-autoscaler estimate").
  explicit FlagSet(std::string command);

  void AddString(const std::string& name, std::string* target, std::string help);
  void AddBool(const std::string& name, bool* target, std::string help);
  void AddInt(const std::string& name, int64_t* target, std::string help);
  void AddDouble(const std::string& name, double* target, std::string help);
  // A duration of 0 or more, finite: no setting means a negative or endless time.
  void AddDuration(const std::string& name, absl::Duration* target, std::string help);
  // A flag that may be given several times; each value is appended.
  void AddStringList(const std::string& name, std::vector<std::string>* target, std::string help);
  // A flag another program has (cluster-autoscaler) that this one refuses, saying why.
  void AddRefused(const std::string& name, std::string type, std::string why);
  // A boolean whose other value this program does not support: `supported` is accepted (it
  // changes nothing), the other refused with `why`.
  void AddBoolFixed(const std::string& name, bool supported, std::string why);
  // A flag accepted for compatibility that changes nothing here; noted() says so for each
  // one given, so a program can log it at start rather than ignore it silently.
  void AddNoEffect(const std::string& name, std::string type, std::string why);
  const std::vector<std::string>& noted() const { return noted_; }
  // Whether a flag was given on the command line (not left at its default).
  bool Given(absl::string_view name) const;
  const std::vector<std::string>& given() const { return given_; }

  // Sets the flags found in `args` and returns the remaining positional arguments. An
  // unknown flag, a bad value or a flag other than a list given twice is an error that names
  // the flag. `-h`/`--help` set help().
  absl::StatusOr<std::vector<std::string>> Parse(const std::vector<std::string>& args);
  bool help() const { return help_; }
  const std::string& command() const { return command_; }

  // One line a flag: name, value type, default, help; then the refused flags, with why.
  std::string Usage() const;

 private:
  enum class Kind { kNormal, kRefused, kNoEffect };
  struct Flag {
    std::string name;
    std::string type;  // shown in usage: string, bool, int, float, duration
    std::string default_value;
    std::string help;
    std::function<absl::Status(absl::string_view)> set;
    Kind kind = Kind::kNormal;
    bool repeatable = false;  // a list; any other flag given twice is refused
  };
  const Flag* Find(absl::string_view name) const;
  void Add(Flag flag);

  std::string command_;
  std::vector<Flag> flags_;
  bool help_ = false;
  std::vector<std::string> noted_;
  std::vector<std::string> given_;
  std::vector<std::pair<std::string, std::string>> given_values_;  // name, value, in order
};

}  // namespace gpua

#endif  // GPUA_BASE_FLAG_SET_H_
