// Where the labels of a chart's points go so that none covers another or a marker: settings of
// a sweep often land close together (two idle timeouts that cost alike), and so do the bounds.
#ifndef GPUA_AUTOSCALER_SIM_LABEL_LAYOUT_H_
#define GPUA_AUTOSCALER_SIM_LABEL_LAYOUT_H_

#include <string>
#include <vector>

namespace gpua::sim {

struct Box {
  double x = 0, y = 0, width = 0, height = 0;  // top-left corner, in SVG units
  bool Overlaps(const Box& other) const;
};

// A label to place beside a point (a marker of `radius`), inside `area`.
struct LabelRequest {
  double x = 0, y = 0;
  double radius = 0;
  std::string text;
};

struct PlacedLabel {
  double x = 0, y = 0;  // where the text starts, and its baseline
  Box box;
  bool needs_leader = false;  // set a row or more away from its point: draw a line to it
};

// The width a label of `text` takes at the chart's 12px sans-serif, a little generously.
double TextWidth(const std::string& text);

// Places each label, in order, at the first spot around its point (right, left, above, below,
// the corners, then rows further up and down on either side) that stays inside `area` and
// covers no label placed before it and no marker; failing that, the spot that covers least.
std::vector<PlacedLabel> PlaceLabels(const std::vector<LabelRequest>& requests, const Box& area);

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_LABEL_LAYOUT_H_
