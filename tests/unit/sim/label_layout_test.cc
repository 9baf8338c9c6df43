// A chart's point labels: none covers another or a marker, and all stay on the chart.
#include "autoscaler/sim/label_layout.h"

#include <catch2/catch.hpp>

#include "absl/strings/str_cat.h"

namespace gpua::sim {
namespace {

bool Inside(const Box& b, const Box& area) {
  return b.x >= area.x && b.y >= area.y && b.x + b.width <= area.x + area.width &&
         b.y + b.height <= area.y + area.height;
}

TEST_CASE("labels of points close together cover neither each other nor a marker",
          "[sim][report]") {
  const Box area{64, 16, 676, 240};
  // Five settings of a sweep whose cost and wait differ by a few pixels.
  std::vector<LabelRequest> requests;
  for (int i = 0; i < 5; ++i) {
    requests.push_back(
        {300.0 + 4 * i, 120.0 + 3 * i, 6, absl::StrCat("scale-down-unneeded-time=", i * 5, "m")});
  }
  const std::vector<PlacedLabel> labels = PlaceLabels(requests, area);
  REQUIRE(labels.size() == requests.size());
  for (size_t i = 0; i < labels.size(); ++i) {
    INFO("label " << i);
    CHECK(Inside(labels[i].box, area));
    for (size_t j = 0; j < labels.size(); ++j) {
      if (j != i) CHECK_FALSE(labels[i].box.Overlaps(labels[j].box));
      const LabelRequest& r = requests[j];
      CHECK_FALSE(
          labels[i].box.Overlaps({r.x - r.radius, r.y - r.radius, 2 * r.radius, 2 * r.radius}));
    }
  }
}

TEST_CASE("a label at the chart's right edge goes to its point's left", "[sim][report]") {
  const Box area{64, 16, 676, 240};
  const std::vector<PlacedLabel> labels = PlaceLabels({{730, 100, 6, "whole-gpus"}}, area);
  REQUIRE(labels.size() == 1);
  CHECK(Inside(labels[0].box, area));
  CHECK(labels[0].box.x + labels[0].box.width < 730);
}

}  // namespace
}  // namespace gpua::sim
