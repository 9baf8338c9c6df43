// Small SVG charts for the HTML report: lines over time and labelled points, with axes
// whose ticks fall on round numbers.
#ifndef GPUA_AUTOSCALER_SIM_SVG_CHART_H_
#define GPUA_AUTOSCALER_SIM_SVG_CHART_H_

#include <string>
#include <utility>
#include <vector>

namespace gpua::sim {

struct Series {
  std::string name;
  std::string color;                              // CSS colour
  std::vector<std::pair<double, double>> points;  // (x, y)
};

// A horizontal line across the chart (a bound), with its label.
struct Reference {
  double y = 0;
  std::string label;
};

struct Chart {
  std::string x_label;
  std::string y_label;
  std::vector<Series> series;
  std::vector<Reference> references;
};

// Lines through each series' points.
std::string LineChartSvg(const Chart& chart);
// One marker per point, labelled with its series' name.
std::string PointChartSvg(const Chart& chart);

// Text made safe inside HTML or SVG elements and attributes.
std::string XmlEscape(const std::string& text);

// Round tick values (1, 2 or 5 times a power of ten) covering [lo, hi], about `count`.
std::vector<double> NiceTicks(double lo, double hi, int count);

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_SVG_CHART_H_
