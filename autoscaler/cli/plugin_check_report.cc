#include "autoscaler/cli/plugin_check_report.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cloudproviders/cloud_provider.h"

namespace gpua {

PluginCheckReport::PluginCheckReport(std::ostream& out, const Clock& clock, Format format)
    : out_(out), clock_(clock), format_(format) {
  json_ = {{"calls", nlohmann::json::array()}, {"findings", nlohmann::json::array()}};
}

void PluginCheckReport::Plugin(const std::string& address, bool tls, absl::Duration deadline) {
  json_["plugin"] = {
      {"address", address}, {"tls", tls}, {"deadline_seconds", absl::ToDoubleSeconds(deadline)}};
  if (format_ == Format::kText) {
    out_ << "plugin at " << address << (tls ? " (TLS)" : " (plaintext)") << ", deadline "
         << absl::FormatDuration(deadline) << "\n\n";
  }
}

void PluginCheckReport::Provider(const std::string& name, const std::string& where) {
  json_["provider"] = {{"name", name}, {"reads", where}};
  if (format_ == Format::kText) out_ << name << ", reading " << where << "\n\n";
}

void PluginCheckReport::TimedStatus(const std::string& rpc, const std::string& subject,
                                    const std::function<absl::Status()>& call,
                                    const std::string& detail, const std::string& fallback) {
  const absl::Time start = clock_.Now();
  const absl::Status status = call();
  Call(rpc, subject, {status, detail, fallback, clock_.Now() - start});
}

void PluginCheckReport::Call(const std::string& rpc, const std::string& subject,
                             const Outcome& call) {
  const absl::Status& status = call.status;
  std::string outcome, shown = call.detail;
  const char* kind = "ok";  // the JSON's outcome
  if (status.ok()) {
    ++ok_;
    outcome = "ok";
  } else if (IsNotImplemented(status)) {
    ++fallbacks_;
    kind = "fallback";
    outcome = absl::StrCat("not implemented: ", call.fallback);
  } else {
    kind = "failed";
    outcome = "FAILED";
    shown = std::string(status.message());
  }
  const int64_t ms = absl::ToInt64Milliseconds(call.took);
  json_["calls"].push_back(
      {{"rpc", rpc}, {"subject", subject}, {"outcome", kind}, {"detail", shown}, {"ms", ms}});
  if (format_ == Format::kText) {
    out_ << absl::StrFormat("%-28s %-22s %-16s %s (%d ms)\n", rpc, subject, outcome, shown, ms);
  }
  if (std::string_view(kind) == "failed")
    Problem(subject, absl::StrCat(rpc, ": ", status.message()));
}

void PluginCheckReport::Detail(const std::string& line) {
  if (format_ == Format::kText) out_ << "    " << line << "\n";
}

void PluginCheckReport::Problem(const std::string& subject, const std::string& message) {
  ++problems_;
  problem_lines_.push_back(message);
  Finding("problem", subject, message);
}

void PluginCheckReport::Warning(const std::string& subject, const std::string& message) {
  ++warnings_;
  warning_lines_.push_back(message);
  Finding("warning", subject, message);
}

void PluginCheckReport::Finding(const char* severity, const std::string& subject,
                                const std::string& message) {
  json_["findings"].push_back({{"severity", severity}, {"subject", subject}, {"message", message}});
  if (format_ == Format::kText) out_ << "    " << severity << ": " << message << "\n";
}

int PluginCheckReport::Finish() {
  const int exit_code = problems_ > 0 ? 1 : 0;
  json_["summary"] = {
      {"ok", ok_}, {"fallbacks", fallbacks_}, {"warnings", warnings_}, {"problems", problems_}};
  json_["exit_code"] = exit_code;
  if (format_ == Format::kJson) {
    out_ << json_.dump(2) << "\n";
    return exit_code;
  }
  out_ << absl::StrFormat(
      "\nsummary: %d ok, %d not implemented (defaults used), %d warning(s), %d problem(s)\n", ok_,
      fallbacks_, warnings_, problems_);
  if (problems_ == 0) out_ << "no problems found\n";
  for (const auto& [title, lines] :
       {std::pair{"problems", &problem_lines_}, std::pair{"warnings", &warning_lines_}}) {
    if (lines->empty()) continue;
    out_ << title << ":\n";
    for (const std::string& l : *lines) out_ << "  - " << l << "\n";
  }
  return exit_code;
}

}  // namespace gpua
