// What `gpu-autoscaler plugin-check` saw: each call with its outcome (ok; not implemented,
// so the autoscaler falls back to its defaults; failed), and the findings (problems, which
// fail the check, and warnings), each on the line of the group, node or instance it is about.
// As text, lines are printed as they come; as JSON, one object at the end.
#ifndef GPUA_AUTOSCALER_CLI_PLUGIN_CHECK_REPORT_H_
#define GPUA_AUTOSCALER_CLI_PLUGIN_CHECK_REPORT_H_

#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/clock.h"

namespace gpua {

class PluginCheckReport {
 public:
  enum class Format { kText, kJson };
  PluginCheckReport(std::ostream& out, const Clock& clock, Format format);

  // The plugin checked, as the first line (or the JSON's "plugin").
  void Plugin(const std::string& address, bool tls, absl::Duration deadline);
  // A provider other than a plugin, and where it reads from (the JSON's "provider").
  void Provider(const std::string& name, const std::string& where);

  // Runs `call` and records it; `describe` gives the detail of an answer. A call the plugin
  // does not implement is a fallback: `fallback` says what the autoscaler does instead.
  template <typename T, typename Describe>
  absl::StatusOr<T> Timed(const std::string& rpc, const std::string& subject,
                          const std::function<absl::StatusOr<T>()>& call, Describe describe,
                          const std::string& fallback = "defaults used") {
    const absl::Time start = clock_.Now();
    absl::StatusOr<T> result = call();
    const std::string detail = result.ok() ? describe(*result) : "";
    Call(rpc, subject, {result.status(), detail, fallback, clock_.Now() - start});
    return result;
  }
  void TimedStatus(const std::string& rpc, const std::string& subject,
                   const std::function<absl::Status()>& call, const std::string& detail = "",
                   const std::string& fallback = "nothing to do");
  // How a call went: `detail` of an answer, `fallback` what the autoscaler does instead when
  // the plugin does not implement it.
  struct Outcome {
    absl::Status status;
    std::string detail;
    std::string fallback;
    absl::Duration took;
  };
  // One call's outcome: a failure is also a problem.
  void Call(const std::string& rpc, const std::string& subject, const Outcome& outcome);

  // A line under the last call (a label, an instance).
  void Detail(const std::string& line);
  void Problem(const std::string& subject, const std::string& message);
  void Warning(const std::string& subject, const std::string& message);
  bool has_problems() const { return problems_ > 0; }
  const Clock& clock() const { return clock_; }

  // The summary (text) or the whole object (JSON); the exit code: 1 with problems, else 0.
  int Finish();

 private:
  void Finding(const char* severity, const std::string& subject, const std::string& message);

  std::ostream& out_;
  const Clock& clock_;
  const Format format_;
  int ok_ = 0, fallbacks_ = 0, warnings_ = 0, problems_ = 0;
  std::vector<std::string> problem_lines_, warning_lines_;
  nlohmann::json json_;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CLI_PLUGIN_CHECK_REPORT_H_
