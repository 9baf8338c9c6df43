// The status ConfigMap as the reporter writes it through the KubeWriter: cluster-autoscaler's
// schema under `status`, its last-updated annotation, and the intent the controller keeps.
#include "autoscaler/controller/status/status_report.h"

#include <catch2/catch.hpp>

#include "tests/support/fake_cluster.h"
#include "tests/support/fake_kube_writer.h"
#include "tests/unit/controller/controller_test_util.h"

namespace gpua::testing {
namespace {

TEST_CASE("the status ConfigMap carries the status, last-updated and the controller's intent",
          "[controller][status]") {
  ControllerOptions options;
  FakeCloudProvider cloud;
  FakeNodeGroup& g = cloud.AddGroup("h100", 0, 4, H100Template());
  FakeClusterSource source;
  RegisterNode(source, g, "h100-0", kNow - absl::Hours(1));
  REQUIRE(g.IncreaseSize(1).ok());
  NodeGroupBackoff backoff(options.cluster_state.backoff);
  LoopInputs in = BuildLoopInputs(source, cloud, options, backoff, kNow);
  FakeKubeWriter writer;
  MemoryLogSink log;
  StatusReporter reporter(writer, options.status, log);
  reporter.Write(in.state, {}, kNow);
  const auto& cm = writer.config_maps.at("kube-system/cluster-autoscaler-status");
  const std::string& status = cm.data.at("status");
  CHECK_THAT(status, Catch::Contains("registered: 1") && Catch::Contains("ready: 1"));
  CHECK_THAT(status, Catch::Contains("name: h100\n") && Catch::Contains("InProgress"));
  CHECK(cm.annotations.at("cluster-autoscaler.kubernetes.io/last-updated") == StatusTime(kNow));
}

TEST_CASE("with --write-status-configmap=false nothing is written, and a failed write is said",
          "[controller][status]") {
  ControllerOptions options;
  FakeCloudProvider cloud;
  FakeClusterSource source;
  NodeGroupBackoff backoff(options.cluster_state.backoff);
  LoopInputs in = BuildLoopInputs(source, cloud, options, backoff, kNow);
  FakeKubeWriter writer;
  MemoryLogSink log;
  options.status.write_configmap = false;
  StatusReporter off(writer, options.status, log);
  off.Write(in.state, {}, kNow);
  CHECK(writer.calls.empty());
  options.status.write_configmap = true;
  writer.failing["WriteConfigMap"] = absl::PermissionDeniedError("configmaps is forbidden");
  StatusReporter on(writer, options.status, log);
  on.Write(in.state, {}, kNow);
  CHECK(log.Contains("Writing the status ConfigMap failed: configmaps is forbidden"));
}

}  // namespace
}  // namespace gpua::testing
