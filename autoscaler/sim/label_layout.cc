#include "autoscaler/sim/label_layout.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace gpua::sim {
namespace {

constexpr double kTextHeight = 12;
constexpr double kGap = 3;
constexpr int kRows = 8;  // rows of labels stacked beside a cluster of points

double OverlapArea(const Box& a, const Box& b) {
  const double w = std::min(a.x + a.width, b.x + b.width) - std::max(a.x, b.x);
  const double h = std::min(a.y + a.height, b.y + b.height) - std::max(a.y, b.y);
  return w > 0 && h > 0 ? w * h : 0;
}

// How far a box reaches outside the area, as an area.
double OutsideArea(const Box& b, const Box& area) {
  return b.width * b.height - OverlapArea(b, area);
}

}  // namespace

bool Box::Overlaps(const Box& other) const { return OverlapArea(*this, other) > 0; }

double TextWidth(const std::string& text) {
  // Average glyph width of a 12px sans-serif, rounded up, so real text fits the box.
  return 7.2 * static_cast<double>(text.size());
}

std::vector<PlacedLabel> PlaceLabels(const std::vector<LabelRequest>& requests, const Box& area) {
  std::vector<Box> taken;  // markers first: no label covers a point
  for (const LabelRequest& r : requests) {
    taken.push_back({r.x - r.radius, r.y - r.radius, 2 * r.radius, 2 * r.radius});
  }
  std::vector<PlacedLabel> placed;
  for (const LabelRequest& r : requests) {
    const double w = TextWidth(r.text), h = kTextHeight;
    const double d = r.radius + kGap;
    // Top-left corners of the candidate boxes: right, left, above, below, the corners, then
    // rows further up and down on either side, for points that all but coincide.
    std::vector<std::pair<double, double>> spots = {
        {r.x + d, r.y - h / 2}, {r.x - d - w, r.y - h / 2}, {r.x - w / 2, r.y - d - h},
        {r.x - w / 2, r.y + d}, {r.x + d, r.y - d - h},     {r.x - d - w, r.y - d - h},
        {r.x + d, r.y + d},     {r.x - d - w, r.y + d},
    };
    for (int row = 2; row <= kRows; ++row) {
      for (const double side : {r.x + d, r.x - d - w}) {
        spots.emplace_back(side, r.y - h / 2 - row * (h + kGap));
        spots.emplace_back(side, r.y - h / 2 + row * (h + kGap));
      }
    }
    Box best;
    double best_cost = std::numeric_limits<double>::infinity();
    for (const auto& [x, y] : spots) {
      const Box box{x, y, w, h};
      double cost = 4 * OutsideArea(box, area);
      for (const Box& t : taken) cost += OverlapArea(box, t);
      if (cost < best_cost) {
        best = box;
        best_cost = cost;
      }
      if (cost == 0) break;
    }
    taken.push_back(best);
    // SVG text: anchored at its start, with the baseline near the box's bottom.
    const double center = best.y + h / 2;
    const bool beside = std::abs(center - r.y) <= r.radius + h;
    placed.push_back({best.x, best.y + h - 2, best, !beside});
  }
  return placed;
}

}  // namespace gpua::sim
