#include "autoscaler/sim/share_spread.h"

#include <catch2/catch.hpp>

namespace gpua::sim {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);

TEST_CASE("shares spread over three 4-GPU nodes that one node would hold keep two nodes extra",
          "[sim][share-spread]") {
  ShareSpreadTally tally;
  tally.AddPool("l4-shared", 4);
  // Three nodes each running one quarter-GPU share for an hour: packed, one node holds them.
  for (int n = 0; n < 3; ++n) tally.NodeUse("l4-shared", 0, 0.25, kT0);
  CHECK(tally.Kept("l4-shared", kT0 + absl::Hours(1)) == absl::Hours(2));
  // Two of them end: one node is left, and it is needed.
  tally.NodeUse("l4-shared", 0.25, 0, kT0 + absl::Hours(1));
  tally.NodeUse("l4-shared", 0.25, 0, kT0 + absl::Hours(1));
  CHECK(tally.Kept("l4-shared", kT0 + absl::Hours(5)) == absl::Hours(2));
}

TEST_CASE(
    "shares that need every node they run on keep none extra, and pools not added count "
    "nothing",
    "[sim][share-spread]") {
  ShareSpreadTally tally;
  tally.AddPool("mig", 8);
  tally.NodeUse("mig", 0, 6, kT0);
  tally.NodeUse("mig", 0, 5, kT0);  // 11 GPUs: two 8-GPU nodes
  CHECK(tally.Kept("mig", kT0 + absl::Hours(3)) == absl::ZeroDuration());
  tally.NodeUse("whole", 0, 1, kT0);
  tally.NodeUse("whole", 0, 1, kT0);
  CHECK(tally.Kept("whole", kT0 + absl::Hours(3)) == absl::ZeroDuration());
}

TEST_CASE("a node whose shares all left stops counting though its sum drifted below zero",
          "[sim][share-spread]") {
  ShareSpreadTally tally;
  tally.AddPool("p", 1);
  // 0.1 + 0.2 - 0.1 - 0.2 is not 0 in floating point.
  tally.NodeUse("p", 0, 0.1, kT0);
  tally.NodeUse("p", 0.1, 0.1 + 0.2, kT0);
  tally.NodeUse("p", 0, 0.5, kT0);
  tally.NodeUse("p", 0.1 + 0.2, 0.1 + 0.2 - 0.1, kT0);
  tally.NodeUse("p", 0.1 + 0.2 - 0.1, 0.1 + 0.2 - 0.1 - 0.2, kT0);
  CHECK(tally.Kept("p", kT0 + absl::Hours(1)) == absl::ZeroDuration());
}

}  // namespace
}  // namespace gpua::sim
