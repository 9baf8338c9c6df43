// The actuators' one way to the cloud: the groups the loop read, grown or shrunk, nothing else.
#include "autoscaler/controller/model/group_resizer.h"

#include <catch2/catch.hpp>

#include "tests/support/fake_cluster.h"
#include "tests/unit/controller/controller_test_util.h"

namespace gpua::testing {
namespace {

TEST_CASE("the resizer grows and shrinks the groups the loop read, through their NodeGroups",
          "[controller][group-resizer]") {
  ControllerOptions options;
  FakeCloudProvider cloud;
  FakeNodeGroup& h100 = cloud.AddGroup("h100", 0, 4, H100Template());
  const std::string running = h100.AddRunning();
  FakeClusterSource source;
  NodeGroupBackoff backoff{BackoffOptions{}};
  LoopInputs in = BuildLoopInputs(source, cloud, options, backoff, kNow);

  REQUIRE(in.groups->IncreaseSize("h100", 2).ok());
  CHECK(h100.increases == std::vector<int>{2});
  CHECK(h100.target == 3);
  REQUIRE(in.groups->DeleteNodes("h100", {{running, "h100-0", {}, {}}}).ok());
  CHECK(h100.deletions == std::vector<std::vector<std::string>>{{"h100-0"}});
  CHECK(h100.target == 2);
}

TEST_CASE("a group the loop did not read is not found, and nothing is asked of the cloud",
          "[controller][group-resizer]") {
  ControllerOptions options;
  FakeCloudProvider cloud;
  cloud.AddGroup("h100", 0, 4, H100Template());
  FakeClusterSource source;
  NodeGroupBackoff backoff{BackoffOptions{}};
  LoopInputs in = BuildLoopInputs(source, cloud, options, backoff, kNow);
  // A group that appears after the read is for the next loop to plan, not this one to act on.
  FakeNodeGroup& late = cloud.AddGroup("a100", 0, 4, A100Template());

  const absl::Status grown = in.groups->IncreaseSize("a100", 1);
  CHECK(absl::IsNotFound(grown));
  CHECK_THAT(std::string(grown.message()), Catch::Contains("node group a100"));
  CHECK(absl::IsNotFound(in.groups->DeleteNodes("l4", {{"i-9", "", {}, {}}})));
  CHECK(late.increases.empty());
  CHECK(late.target == 0);
}

}  // namespace
}  // namespace gpua::testing
