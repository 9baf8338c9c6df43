// The cluster's health said once per change: ClusterUnhealthy when scaling stops, a line when
// it resumes.
#include "autoscaler/controller/status/cluster_health.h"

#include <catch2/catch.hpp>

#include "autoscaler/controller/model/events.h"
#include "base/log.h"
#include "tests/support/fake_kube_writer.h"

namespace gpua::testing {
namespace {

TEST_CASE("an unhealthy cluster is said once with ClusterUnhealthy, and its recovery once",
          "[controller][status][health]") {
  StatusOptions options;
  FakeKubeWriter writer;
  MemoryLogSink log;
  ClusterHealthReporter health(writer, options, log);
  ClusterState state;
  health.Report(state);  // healthy from the start: nothing to say
  CHECK(writer.events.empty());
  state.healthy = false;
  state.unhealthy_reason = "5 of 8 registered nodes are unready";
  health.Report(state);
  health.Report(state);
  const auto said = writer.EventsWithReason(event_reason::kClusterUnhealthy);
  REQUIRE(said.size() == 1);
  CHECK(said[0].type == "Warning");
  CHECK(said[0].object.name == "cluster-autoscaler-status");
  CHECK(said[0].message == "Cluster is unhealthy: 5 of 8 registered nodes are unready");
  state.healthy = true;
  health.Report(state);
  health.Report(state);
  CHECK(writer.events.size() == 1);
  int resumed = 0;
  for (const std::string& line : log.lines())
    resumed += line.find("scaling resumes") != std::string::npos;
  CHECK(resumed == 1);
}

}  // namespace
}  // namespace gpua::testing
