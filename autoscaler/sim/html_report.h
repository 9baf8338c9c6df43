// `simulate --report out.html`: one self-contained page (inline SVG and CSS, no script, no
// network) to pick an idle timeout by looking: cost against the p95 GPU wait per setting,
// the settings' figures, and per group the nodes and the idle GPUs over time.
#ifndef GPUA_AUTOSCALER_SIM_HTML_REPORT_H_
#define GPUA_AUTOSCALER_SIM_HTML_REPORT_H_

#include <string>
#include <vector>

#include "autoscaler/sim/sweep_runner.h"

namespace gpua::sim {

struct ReportInfo {
  std::string trace;  // what was simulated, as the user named it
  uint64_t seed = 1;
};

std::string HtmlReport(const std::vector<SettingResult>& results, const ReportInfo& info);

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_HTML_REPORT_H_
