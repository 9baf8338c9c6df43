#include "base/flag_set.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gpua {
namespace {

absl::Status BadValue(absl::string_view command, absl::string_view flag, absl::string_view value,
                      absl::string_view expected) {
  return absl::InvalidArgumentError(absl::StrCat(command, ": invalid value \"", value,
                                                 "\" for flag --", flag, ": expected ", expected));
}

}  // namespace

FlagSet::FlagSet(std::string command) : command_(std::move(command)) {}

void FlagSet::Add(Flag flag) { flags_.push_back(std::move(flag)); }

void FlagSet::AddString(const std::string& name, std::string* target, std::string help) {
  Add({name, "string", *target, std::move(help), [target](absl::string_view v) {
         *target = std::string(v);
         return absl::OkStatus();
       }});
}

void FlagSet::AddBool(const std::string& name, bool* target, std::string help) {
  Add({name, "bool", *target ? "true" : "false", std::move(help),
       [this, name, target](absl::string_view v) {
         if (v == "true" || v == "1" || v == "t" || v == "True" || v == "TRUE") {
           *target = true;
         } else if (v == "false" || v == "0" || v == "f" || v == "False" || v == "FALSE") {
           *target = false;
         } else {
           return BadValue(command_, name, v, "true or false");
         }
         return absl::OkStatus();
       }});
}

void FlagSet::AddInt(const std::string& name, int64_t* target, std::string help) {
  Add({name, "int", absl::StrCat(*target), std::move(help),
       [this, name, target](absl::string_view v) {
         if (!absl::SimpleAtoi(v, target)) return BadValue(command_, name, v, "an integer");
         return absl::OkStatus();
       }});
}

void FlagSet::AddDouble(const std::string& name, double* target, std::string help) {
  Add({name, "float", absl::StrCat(*target), std::move(help),
       [this, name, target](absl::string_view v) {
         if (!absl::SimpleAtod(v, target)) return BadValue(command_, name, v, "a number");
         return absl::OkStatus();
       }});
}

void FlagSet::AddDuration(const std::string& name, absl::Duration* target, std::string help) {
  Add({name, "duration", absl::FormatDuration(*target), std::move(help),
       [this, name, target](absl::string_view v) {
         absl::Duration d;
         // No setting here means a negative time, and "inf" is a typo, not a setting.
         if (!absl::ParseDuration(v, &d) || d < absl::ZeroDuration() ||
             d == absl::InfiniteDuration()) {
           return BadValue(command_, name, v, "a duration of 0 or more, such as 30s, 10m or 1h30m");
         }
         *target = d;
         return absl::OkStatus();
       }});
}

void FlagSet::AddStringList(const std::string& name, std::vector<std::string>* target,
                            std::string help) {
  Flag f{name, "string (repeatable)", "", std::move(help), [target](absl::string_view v) {
           target->emplace_back(v);
           return absl::OkStatus();
         }};
  f.repeatable = true;
  Add(std::move(f));
}

void FlagSet::AddRefused(const std::string& name, std::string type, std::string why) {
  Flag f{name, std::move(type), "", why, nullptr, Kind::kRefused};
  f.set = [this, name, why = std::move(why)](absl::string_view) {
    return absl::InvalidArgumentError(
        absl::StrCat(command_, ": flag --", name, " is not supported: ", why));
  };
  Add(std::move(f));
}

void FlagSet::AddBoolFixed(const std::string& name, bool supported, std::string why) {
  Flag f{name, "bool", supported ? "true" : "false", "", nullptr, Kind::kNormal};
  f.help = absl::StrCat("only ", supported ? "true" : "false", " is supported: ", why);
  f.set = [this, name, supported, why = std::move(why)](absl::string_view v) {
    bool value = false;
    if (v == "true" || v == "1" || v == "t" || v == "True" || v == "TRUE") {
      value = true;
    } else if (!(v == "false" || v == "0" || v == "f" || v == "False" || v == "FALSE")) {
      return BadValue(command_, name, v, "true or false");
    }
    if (value != supported) {
      return absl::InvalidArgumentError(
          absl::StrCat(command_, ": --", name, "=", v, " is not supported: ", why));
    }
    return absl::OkStatus();
  };
  Add(std::move(f));
}

void FlagSet::AddNoEffect(const std::string& name, std::string type, std::string why) {
  Flag f{name,    std::move(type), "", absl::StrCat("accepted, no effect: ", why),
         nullptr, Kind::kNoEffect};
  f.repeatable = true;  // nothing to disagree about
  f.set = [this, name, why = std::move(why)](absl::string_view v) {
    noted_.push_back(absl::StrCat("--", name, "=", v, " has no effect: ", why));
    return absl::OkStatus();
  };
  Add(std::move(f));
}

bool FlagSet::Given(absl::string_view name) const {
  return std::find(given_.begin(), given_.end(), name) != given_.end();
}

const FlagSet::Flag* FlagSet::Find(absl::string_view name) const {
  for (const Flag& f : flags_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

absl::StatusOr<std::vector<std::string>> FlagSet::Parse(const std::vector<std::string>& args) {
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    absl::string_view arg = args[i];
    if (arg == "--") {
      positional.insert(positional.end(), args.begin() + static_cast<ptrdiff_t>(i) + 1, args.end());
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') {
      positional.emplace_back(arg);
      continue;
    }
    arg.remove_prefix(arg[1] == '-' ? 2 : 1);
    absl::string_view name = arg;
    std::optional<absl::string_view> value;
    if (size_t eq = arg.find('='); eq != absl::string_view::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
    }
    if (name == "h" || name == "help") {
      help_ = true;
      continue;
    }
    const Flag* flag = Find(name);
    if (flag == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(command_, ": unknown flag --", name, " (see --help)"));
    }
    if (!value.has_value()) {
      if (flag->type == "bool") {
        value = "true";
      } else if (i + 1 < args.size()) {
        value = args[++i];
      } else {
        return absl::InvalidArgumentError(
            absl::StrCat(command_, ": flag --", name, " needs a value"));
      }
    }
    // Go's flag package keeps the last of two values; a second value is more often a
    // forgotten first (a patch appended to a manifest's args) than a choice, so say so.
    if (!flag->repeatable) {
      auto earlier = std::find_if(given_values_.begin(), given_values_.end(),
                                  [&](const auto& g) { return g.first == name; });
      if (earlier != given_values_.end()) {
        return absl::InvalidArgumentError(absl::StrCat(command_, ": flag --", name,
                                                       " is given twice (\"", earlier->second,
                                                       "\" and \"", *value, "\"): give it once"));
      }
    }
    if (absl::Status s = flag->set(*value); !s.ok()) return s;
    given_.emplace_back(name);
    given_values_.emplace_back(std::string(name), std::string(*value));
  }
  return positional;
}

std::string FlagSet::Usage() const {
  std::vector<const Flag*> sorted;
  for (const Flag& f : flags_) sorted.push_back(&f);
  std::sort(sorted.begin(), sorted.end(),
            [](const Flag* a, const Flag* b) { return a->name < b->name; });
  std::string out, refused;
  for (const Flag* f : sorted) {
    if (f->kind == Kind::kRefused) {
      absl::StrAppendFormat(&refused, "  --%s\n      %s\n", f->name, f->help);
      continue;
    }
    absl::StrAppendFormat(&out, "  --%s %s\n      %s", f->name, f->type, f->help);
    if (!f->default_value.empty()) absl::StrAppend(&out, " (default ", f->default_value, ")");
    out += "\n";
  }
  if (!refused.empty()) absl::StrAppend(&out, "\nRefused (not supported, and why):\n", refused);
  return out;
}

}  // namespace gpua
