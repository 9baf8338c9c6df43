#include "autoscaler/sim/html_report.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/time.h"
#include "autoscaler/sim/result_table.h"
#include "autoscaler/sim/svg_chart.h"

namespace gpua::sim {
namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                    "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

std::string Color(size_t i) { return kPalette[i % (sizeof(kPalette) / sizeof(kPalette[0]))]; }

std::string Label(const SettingResult& r) { return r.label.empty() ? "this run" : r.label; }

constexpr char kStyle[] = R"(<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 980px; color: #222; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; } h3 { font-size: 15px; }
table { border-collapse: collapse; margin: 8px 0; font-size: 12.5px; }
td, th { padding: 3px 6px; text-align: right; }
th { border-bottom: 1px solid #999; } td:first-child, th:first-child { text-align: left; white-space: nowrap; }
tr:nth-child(even) td { background: #f4f4f4; }
svg { display: block; margin: 4px 0 12px; } .grid { stroke: #ddd; } .axis { stroke: #666; }
.reference { stroke: #2ca02c; stroke-dasharray: 6 4; } .tick { font-size: 11px; fill: #444; }
.label { font-size: 12px; fill: #222; } .point { font-size: 12px; fill: #111; }
.leader { stroke: #999; stroke-width: 0.75; }
.series { fill: none; stroke-width: 1.6; } .legend span { margin-right: 16px; white-space: nowrap; }
.swatch { display: inline-block; width: 12px; height: 12px; margin-right: 5px; vertical-align: -1px; }
.note { color: #555; }
</style>
)";

std::string Legend(const std::vector<SettingResult>& results) {
  std::string html = "<p class='legend'>";
  for (size_t i = 0; i < results.size(); ++i) {
    absl::StrAppend(&html, "<span><i class='swatch' style='background:", Color(i), "'></i>",
                    XmlEscape(Label(results[i])), "</span>");
  }
  return html + "</p>\n";
}

std::string CostAgainstWait(const std::vector<SettingResult>& results) {
  Chart chart;
  chart.x_label = "p95 wait of GPU pods (minutes)";
  chart.y_label = "total cost (USD)";
  for (size_t i = 0; i < results.size(); ++i) {
    const Figures& f = results[i].result.total;
    chart.series.push_back({Label(results[i]), Color(i), {{f.gpu_pending.p95 / 60, f.cost_usd}}});
  }
  const Figures& first = results.front().result.total;
  chart.references.push_back({first.lower_bound_cost_usd,
                              absl::StrFormat("share bound $%.0f", first.lower_bound_cost_usd)});
  chart.references.push_back(
      {first.packing_bound_cost_usd,
       absl::StrFormat("packing bound $%.0f", first.packing_bound_cost_usd)});
  return PointChartSvg(chart);
}

std::string SettingsTable(const std::vector<SettingResult>& results) {
  std::string html =
      "<table><tr><th>setting</th><th>cost USD</th><th>idle cost USD</th><th>GPU-h billed</th>"
      "<th>GPU-h idle</th><th>GPU wait p50</th><th>p95</th><th>p99</th><th>max</th>"
      "<th>scale-ups</th><th>scale-downs</th><th>preemptions</th></tr>\n";
  for (const SettingResult& r : results) {
    const Figures& f = r.result.total;
    absl::StrAppendFormat(
        &html,
        "<tr><td>%s</td><td>%.2f</td><td>%.2f</td><td>%.1f</td><td>%.1f</td><td>%s</td>"
        "<td>%s</td><td>%s</td><td>%s</td><td>%d</td><td>%d</td><td>%d</td></tr>\n",
        XmlEscape(Label(r)), f.cost_usd, f.idle_cost_usd, f.gpu_hours_billed, f.gpu_hours_idle,
        FormatWait(f.gpu_pending.p50), FormatWait(f.gpu_pending.p95), FormatWait(f.gpu_pending.p99),
        FormatWait(f.gpu_pending.max), f.scale_ups, f.scale_downs, f.preemptions);
  }
  return html + "</table>\n";
}

template <typename Map>
double ValueOf(const Map& values, const std::string& key) {
  auto it = values.find(key);
  return it == values.end() ? 0 : static_cast<double>(it->second);
}

// One line per setting of a group's nodes (or idle GPUs) sample by sample, in days.
Chart OverTime(const std::vector<SettingResult>& results, const std::string& group, bool idle) {
  Chart chart;
  chart.x_label = "days since the trace starts";
  chart.y_label = idle ? "idle GPUs" : "nodes";
  for (size_t i = 0; i < results.size(); ++i) {
    Series s{Label(results[i]), Color(i), {}};
    for (const Sample& sample : results[i].result.samples) {
      const double y = idle ? ValueOf(sample.idle_gpus, group) : ValueOf(sample.nodes, group);
      s.points.emplace_back(absl::ToDoubleHours(sample.at) / 24, y);
    }
    chart.series.push_back(std::move(s));
  }
  return chart;
}

bool HasGpus(const std::vector<SettingResult>& results, const std::string& group) {
  for (const SettingResult& r : results) {
    for (const GroupFigures& g : r.result.groups) {
      if (g.id == group && g.figures.gpu_hours_billed > 0) return true;
    }
  }
  return false;
}

// A group's idle GPU-hours by what kept them, one row per setting: what to change.
std::string IdleByCauseTable(const std::vector<SettingResult>& results, const std::string& group) {
  std::string html = "<table><tr><th>setting</th><th>idle GPU-h</th>";
  for (size_t c = 0; c < kIdleCauseCount; ++c) {
    std::string name(IdleCauseName(static_cast<IdleCause>(c)));
    std::replace(name.begin(), name.end(), '_', ' ');
    absl::StrAppend(&html, "<th>", name, "</th>");
  }
  absl::StrAppend(&html, "</tr>\n");
  for (const SettingResult& r : results) {
    for (const GroupFigures& g : r.result.groups) {
      if (g.id != group) continue;
      absl::StrAppendFormat(&html, "<tr><td>%s</td><td>%.1f</td>", XmlEscape(Label(r)),
                            g.figures.idle_by_cause.total);
      for (double h : g.figures.idle_by_cause.by_cause)
        absl::StrAppendFormat(&html, "<td>%.1f</td>", h);
      absl::StrAppend(&html, "</tr>\n");
    }
  }
  return html + "</table>\n";
}

std::string Groups(const std::vector<SettingResult>& results) {
  std::string html;
  for (const GroupFigures& g : results.front().result.groups) {
    absl::StrAppend(&html, "<h3>", XmlEscape(g.id), "</h3>\n", "<p class='note'>nodes</p>\n",
                    LineChartSvg(OverTime(results, g.id, false)));
    if (HasGpus(results, g.id)) {
      absl::StrAppend(&html, "<p class='note'>physical GPUs billed and unused</p>\n",
                      LineChartSvg(OverTime(results, g.id, true)),
                      "<p class='note'>idle GPU-hours by what kept them: starting (booting, GPUs "
                      "not yet up, or a replacement awaiting its pods), idle timeout (unneeded, "
                      "waiting it out), pods cannot move "
                      "(a pod that may not be evicted), warm capacity, fragmentation (needed "
                      "for pods that do not fill it), min size, removing, other</p>\n",
                      IdleByCauseTable(results, g.id));
    }
  }
  return html;
}

}  // namespace

std::string HtmlReport(const std::vector<SettingResult>& results, const ReportInfo& info) {
  std::string html = absl::StrCat(
      "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>\n"
      "<title>gpu-autoscaler simulate: ",
      XmlEscape(info.trace), "</title>\n", kStyle, "</head><body>\n",
      "<h1>gpu-autoscaler simulate</h1>\n<p>Trace <b>", XmlEscape(info.trace), "</b>, seed ",
      info.seed);
  if (results.empty()) return html + "; nothing was simulated.</p></body></html>\n";
  const SimulationResult& first = results.front().result;
  absl::StrAppendFormat(&html, ", %s simulated, %d pods.</p>\n",
                        absl::FormatDuration(first.simulated), first.pods);
  absl::StrAppend(&html, "<h2>Cost against waiting</h2>\n",
                  "<p class='note'>Each point is one setting: lower is cheaper, further left "
                  "means GPU pods wait less for a node. The dashed lines are the bounds: the share "
                  "bound bills every pod its share of a node only while it runs; the packing "
                  "bound bills the cheapest whole nodes that hold the pods running at each "
                  "instant, none waiting.</p>\n",
                  CostAgainstWait(results), SettingsTable(results),
                  "<h2>Nodes and idle GPUs over time, per group</h2>\n", Legend(results),
                  Groups(results), "</body></html>\n");
  return html;
}

}  // namespace gpua::sim
