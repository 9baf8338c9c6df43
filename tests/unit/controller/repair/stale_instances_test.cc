// Instances that will never become nodes: the cluster state backs their group off before
// anything plans, and the cleaner deletes them through the group and says why.
#include "autoscaler/controller/repair/stale_instances.h"

#include <catch2/catch.hpp>

#include "autoscaler/controller/model/events.h"
#include "tests/support/fake_cluster.h"
#include "tests/support/fake_kube_writer.h"
#include "tests/unit/controller/controller_test_util.h"

namespace gpua::testing {
namespace {

TEST_CASE("an instance that failed for lack of capacity backs its group off and is deleted",
          "[controller][stale]") {
  ControllerOptions options;
  FakeCloudProvider cloud;
  FakeNodeGroup& g = cloud.AddGroup("h100", 0, 4, H100Template());
  g.AddFailed(InstanceErrorClass::kOutOfResources, "");
  FakeClusterSource source;
  NodeGroupBackoff backoff(options.cluster_state.backoff);
  LoopInputs in = BuildLoopInputs(source, cloud, options, backoff, kNow);
  // Backed off in the state itself: this loop's plan already goes elsewhere.
  const GroupState* h100 = in.state.FindGroup("h100");
  REQUIRE(h100->backoff.has_value());
  CHECK(h100->backoff->error_code == "OutOfResource");
  CHECK(h100->failed.size() == 1);

  FakeKubeWriter writer;
  MemoryLogSink log;
  StaleInstanceCleaner cleaner(writer, log, options.status);
  const StaleInstanceReport report = cleaner.Clean(in.state, *in.groups);
  CHECK(report.failed_deleted == 1);
  CHECK(g.instances.empty());
  CHECK(g.target == 0);
  const auto failed = writer.EventsWithReason(event_reason::kFailedToScaleUpGroup);
  REQUIRE(failed.size() == 1);
  CHECK_THAT(failed[0].message, Catch::Contains("1 instance(s) failed to start: OutOfResource"));
}

TEST_CASE("an instance with no node after max-node-provision-time is deleted, its group backed off",
          "[controller][stale]") {
  ControllerOptions options;
  options.group_defaults.max_node_provision_time = absl::Minutes(15);
  FakeCloudProvider cloud;
  FakeNodeGroup& g = cloud.AddGroup("h100", 0, 4, H100Template());
  REQUIRE(g.IncreaseSize(1).ok());
  FakeClusterSource source;
  NodeGroupBackoff backoff(options.cluster_state.backoff);
  // One builder across loops: it remembers when it first saw the instance without a node.
  MemoryLogSink log;
  ProviderReader reader(cloud, options, log);
  ClusterStateBuilder builder(options.cluster_state);
  const auto view = source.View();
  const ProviderSnapshot first = reader.Read(view->nodes, kNow);
  ClusterState early = builder.Build(*view, first, backoff, kNow);
  CHECK(early.FindGroup("h100")->upcoming == 1);
  CHECK_FALSE(early.FindGroup("h100")->backoff.has_value());
  const absl::Time late = kNow + absl::Minutes(16);
  const ProviderSnapshot second = reader.Read(view->nodes, late);
  ClusterState state = builder.Build(*view, second, backoff, late);
  const GroupState* h100 = state.FindGroup("h100");
  CHECK(h100->upcoming == 0);
  REQUIRE(h100->long_unregistered.size() == 1);
  REQUIRE(h100->backoff.has_value());
  CHECK(h100->backoff->error_code == "timeout");

  FakeKubeWriter writer;
  StaleInstanceCleaner cleaner(writer, log, options.status);
  SnapshotGroupResizer groups(second);
  CHECK(cleaner.Clean(state, groups).unregistered_deleted == 1);
  CHECK(g.instances.empty());
  CHECK(writer.EventsWithReason(event_reason::kScaleUpTimedOut).size() == 1);
  CHECK(writer.EventsWithReason(event_reason::kDeleteUnregistered).size() == 1);
}

TEST_CASE("a group that will not delete its failed instances says so and keeps them",
          "[controller][stale]") {
  ControllerOptions options;
  FakeCloudProvider cloud;
  FakeNodeGroup& g = cloud.AddGroup("h100", 0, 4, H100Template());
  g.AddFailed(InstanceErrorClass::kOther, "QuotaExceeded");
  g.failing["DeleteNodes"] = absl::UnavailableError("provider down");
  FakeClusterSource source;
  NodeGroupBackoff backoff(options.cluster_state.backoff);
  LoopInputs in = BuildLoopInputs(source, cloud, options, backoff, kNow);
  CHECK(in.state.FindGroup("h100")->backoff->error_code == "QuotaExceeded");
  FakeKubeWriter writer;
  MemoryLogSink log;
  StaleInstanceCleaner cleaner(writer, log, options.status);
  CHECK(cleaner.Clean(in.state, *in.groups).delete_errors == 1);
  CHECK(g.instances.size() == 1);
  CHECK(writer.EventsWithReason(event_reason::kDeleteUnregisteredFailed).size() == 1);
}

}  // namespace
}  // namespace gpua::testing
