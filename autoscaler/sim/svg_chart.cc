#include "autoscaler/sim/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "autoscaler/sim/label_layout.h"

namespace gpua::sim {
namespace {

constexpr double kWidth = 760, kHeight = 300;
constexpr double kLeft = 64, kRight = 20, kTop = 16, kBottom = 44;

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void Add(double v) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  // Never empty, and padded when a single value.
  void Settle(bool from_zero) {
    if (!std::isfinite(lo)) lo = hi = 0;
    if (from_zero) lo = std::min(lo, 0.0);
    if (hi - lo < 1e-9) hi = lo + (lo == 0 ? 1 : std::abs(lo) * 0.1);
  }
};

// Maps data to the plot area.
class Frame {
 public:
  Frame(const Chart& chart, bool pad_x) {
    for (const Series& s : chart.series) {
      for (const auto& [x, y] : s.points) {
        x_.Add(x);
        y_.Add(y);
      }
    }
    for (const Reference& r : chart.references) y_.Add(r.y);
    x_.Settle(!pad_x);
    y_.Settle(true);
    if (pad_x) {
      const double pad = (x_.hi - x_.lo) * 0.08;
      x_.lo = std::max(0.0, x_.lo - pad);
      x_.hi += pad;
    }
    x_ticks_ = NiceTicks(x_.lo, x_.hi, 6);
    y_ticks_ = NiceTicks(y_.lo, y_.hi, 5);
    x_.lo = std::min(x_.lo, x_ticks_.front());
    x_.hi = std::max(x_.hi, x_ticks_.back());
    y_.lo = std::min(y_.lo, y_ticks_.front());
    y_.hi = std::max(y_.hi, y_ticks_.back());
  }
  double X(double x) const {
    return kLeft + (x - x_.lo) / (x_.hi - x_.lo) * (kWidth - kLeft - kRight);
  }
  double Y(double y) const {
    return kHeight - kBottom - (y - y_.lo) / (y_.hi - y_.lo) * (kHeight - kTop - kBottom);
  }
  std::string Axes(const Chart& chart) const {
    std::string svg;
    for (double t : y_ticks_) {
      absl::StrAppendFormat(&svg,
                            "<line x1='%.1f' x2='%.1f' y1='%.1f' y2='%.1f' class='grid'/>"
                            "<text x='%.1f' y='%.1f' class='tick' text-anchor='end'>%g</text>\n",
                            kLeft, kWidth - kRight, Y(t), Y(t), kLeft - 6, Y(t) + 4, t);
    }
    for (double t : x_ticks_) {
      absl::StrAppendFormat(&svg,
                            "<line x1='%.1f' x2='%.1f' y1='%.1f' y2='%.1f' class='axis'/>"
                            "<text x='%.1f' y='%.1f' class='tick' text-anchor='middle'>%g</text>\n",
                            X(t), X(t), kHeight - kBottom, kHeight - kBottom + 5, X(t),
                            kHeight - kBottom + 18, t);
    }
    absl::StrAppendFormat(&svg,
                          "<line x1='%.1f' x2='%.1f' y1='%.1f' y2='%.1f' class='axis'/>\n"
                          "<text x='%.1f' y='%.1f' class='label' text-anchor='middle'>%s</text>\n"
                          "<text x='14' y='%.1f' class='label' text-anchor='middle' "
                          "transform='rotate(-90 14 %.1f)'>%s</text>\n",
                          kLeft, kWidth - kRight, kHeight - kBottom, kHeight - kBottom,
                          (kLeft + kWidth - kRight) / 2, kHeight - 6, XmlEscape(chart.x_label),
                          (kTop + kHeight - kBottom) / 2, (kTop + kHeight - kBottom) / 2,
                          XmlEscape(chart.y_label));
    // Each bound's label above its line, or below it when an earlier label is there (two
    // bounds close together).
    std::vector<Box> labels;
    for (const Reference& r : chart.references) {
      const double y = Y(r.y);
      const double width = TextWidth(r.label);
      const double right = kWidth - kRight - 4;
      Box box{right - width, y - 16, width, 12};
      const auto covered = [&](const Box& b) {
        return std::any_of(labels.begin(), labels.end(),
                           [&](const Box& l) { return l.Overlaps(b); });
      };
      if (covered(box)) box.y = y + 3;
      for (int shift = 1; covered(box) && shift < 8; ++shift) box.x = right - width - shift * 40;
      labels.push_back(box);
      absl::StrAppendFormat(&svg,
                            "<line x1='%.1f' x2='%.1f' y1='%.1f' y2='%.1f' class='reference'/>"
                            "<text x='%.1f' y='%.1f' class='tick' text-anchor='start'>%s</text>\n",
                            kLeft, kWidth - kRight, y, y, box.x, box.y + 10, XmlEscape(r.label));
    }
    return svg;
  }

 private:
  Range x_, y_;
  std::vector<double> x_ticks_, y_ticks_;
};

std::string Open() {
  return absl::StrFormat(
      "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 %g %g' width='%g' height='%g'>\n",
      kWidth, kHeight, kWidth, kHeight);
}

}  // namespace

std::string XmlEscape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::vector<double> NiceTicks(double lo, double hi, int count) {
  if (!(hi > lo) || count < 1) return {lo};
  const double raw = (hi - lo) / count;
  const double power = std::pow(10, std::floor(std::log10(raw)));
  double step = power;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * power;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  for (double t = std::floor(lo / step) * step; t <= hi + step * 0.999; t += step) {
    ticks.push_back(std::abs(t) < step * 1e-9 ? 0 : t);
  }
  return ticks;
}

std::string LineChartSvg(const Chart& chart) {
  const Frame frame(chart, false);
  std::string svg = Open() + frame.Axes(chart);
  for (const Series& s : chart.series) {
    absl::StrAppend(&svg, "<polyline class='series' stroke='", s.color, "' points='");
    for (const auto& [x, y] : s.points) {
      absl::StrAppendFormat(&svg, "%.1f,%.1f ", frame.X(x), frame.Y(y));
    }
    absl::StrAppend(&svg, "'><title>", XmlEscape(s.name), "</title></polyline>\n");
  }
  return svg + "</svg>\n";
}

std::string PointChartSvg(const Chart& chart) {
  const Frame frame(chart, true);
  std::string svg = Open() + frame.Axes(chart);
  constexpr double kRadius = 6;
  std::vector<LabelRequest> requests;
  std::vector<const Series*> of;
  for (const Series& s : chart.series) {
    for (const auto& [x, y] : s.points) {
      requests.push_back({frame.X(x), frame.Y(y), kRadius, s.name});
      of.push_back(&s);
    }
  }
  // Settings close together (costs alike) would print their names over each other; each name
  // is in its marker's colour, so a stacked one is found by colour as well as by its line.
  const std::vector<PlacedLabel> labels =
      PlaceLabels(requests, {kLeft, kTop, kWidth - kLeft - kRight, kHeight - kTop - kBottom});
  for (size_t i = 0; i < requests.size(); ++i) {
    if (labels[i].needs_leader) {
      const Box& b = labels[i].box;
      const double to_x = b.x > requests[i].x ? b.x : b.x + b.width;
      absl::StrAppendFormat(&svg, "<line x1='%.1f' y1='%.1f' x2='%.1f' y2='%.1f' class='leader'/>",
                            requests[i].x, requests[i].y, to_x, b.y + b.height / 2);
    }
    absl::StrAppendFormat(&svg,
                          "<circle cx='%.1f' cy='%.1f' r='%g' fill='%s'/>"
                          "<text x='%.1f' y='%.1f' class='point' style='fill:%s'>%s</text>\n",
                          requests[i].x, requests[i].y, kRadius, of[i]->color, labels[i].x,
                          labels[i].y, of[i]->color, XmlEscape(requests[i].text));
  }
  return svg + "</svg>\n";
}

}  // namespace gpua::sim
