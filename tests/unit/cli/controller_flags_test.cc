// The controller's flags: cluster-autoscaler's names and defaults carry over; what is not
// supported is refused by name with the reason; what changes nothing here is said.
#include "autoscaler/cli/controller_flags.h"

#include <catch2/catch.hpp>

namespace gpua {
namespace {

absl::StatusOr<ControllerConfig> Parse(const CommandArgs& args) {
  bool help = false;
  std::string usage;
  return ParseControllerFlags(args, &help, &usage);
}

TEST_CASE(
    "with no flags, cluster-autoscaler's defaults, all but the delay after a scale-up and "
    "the expander",
    "[cli][controller-flags]") {
  auto c = Parse({});
  REQUIRE(c.ok());
  const ControllerOptions& o = c->controller;
  CHECK(o.scan_interval == absl::Seconds(10));
  // cluster-autoscaler's least-waste, after dropping groups that cost more for the same pods.
  CHECK(o.scale_up.expander == "cheapest-equal,least-waste");
  CHECK(o.scale_up.max_nodes_per_scaleup == 1000);
  CHECK(o.scale_up.new_pod_scale_up_delay == absl::ZeroDuration());
  CHECK(o.cluster_state.ok_total_unready_count == 3);
  CHECK(o.cluster_state.max_total_unready_percentage == 45);
  CHECK(o.cluster_state.max_node_startup_time == absl::Minutes(15));
  CHECK(o.cluster_state.backoff.initial == absl::Minutes(5));
  CHECK(o.cluster_state.backoff.max == absl::Minutes(30));
  CHECK(o.cluster_state.backoff.reset == absl::Hours(3));
  CHECK(o.group_defaults.max_node_provision_time == absl::Minutes(15));
  CHECK(o.group_defaults.scale_down_unneeded_time == absl::Minutes(10));
  CHECK(o.group_defaults.scale_down_unready_time == absl::Minutes(20));
  CHECK(o.group_defaults.scale_down_utilization_threshold == 0.5);
  // The one default we do not share: a pool is back at zero within its idle timeout.
  CHECK(o.scale_down.delay_after_add == absl::ZeroDuration());
  CHECK(o.scale_down.delay_after_failure == absl::Minutes(3));
  CHECK(o.scale_down.max_graceful_termination == absl::Seconds(600));
  CHECK(o.status.namespace_name == "kube-system");
  CHECK(o.status.configmap_name == "cluster-autoscaler-status");
  CHECK(o.status.write_configmap);
  CHECK(o.limits.cores.max == 320'000);
  CHECK(c->address == ":8085");
  CHECK(c->leader_elect);
  CHECK(c->leader_election.lease_name == "cluster-autoscaler");
  CHECK(c->leader_election.namespace_name == "kube-system");
  CHECK_FALSE(c->dry_run);
}

TEST_CASE("the --dry-run flag is ours, off unless asked for", "[cli][controller-flags]") {
  auto c = Parse({"--cloud-provider=simulated", "--dry-run"});
  REQUIRE(c.ok());
  CHECK(c->dry_run);
  CHECK(c->notes.empty());
}

TEST_CASE("the consolidation payback is ours: 30m, 0 for cluster-autoscaler's rule, never negative",
          "[cli][controller-flags]") {
  auto c = Parse({});
  REQUIRE(c.ok());
  CHECK(c->controller.scale_down.consolidation_payback == absl::Minutes(30));
  c = Parse({"--consolidation-payback=0s"});
  REQUIRE(c.ok());
  CHECK(c->controller.scale_down.consolidation_payback == absl::ZeroDuration());
  c = Parse({"--consolidation-payback=-5m"});
  REQUIRE_FALSE(c.ok());
  CHECK_THAT(std::string(c.status().message()),
             Catch::Contains("--consolidation-payback: expected a duration of 0 or more"));
  CHECK_FALSE(Parse({"--consolidation-payback=soon"}).ok());
}

TEST_CASE("a cluster-autoscaler Deployment's arguments carry over", "[cli][controller-flags]") {
  auto c =
      Parse({"--cloud-provider=externalgrpc", "--cloud-config=/etc/cc.yaml",
             "--nodes=0:10:h100-spot", "--nodes", "1:4:cpu", "--namespace=autoscaling",
             "--scale-down-unneeded-time=5m", "--max-nodes-total=50", "--cores-total=0:1000",
             "--memory-total=0:4096", "--gpu-total=nvidia-h100:0:64", "--expander=priority,price",
             "--v=4", "--logtostderr=true", "--skip-nodes-with-local-storage=false",
             "--leader-elect-lease-duration=30s", "--kube-client-qps=20", "--cluster-name=prod"});
  REQUIRE(c.ok());
  const ControllerOptions& o = c->controller;
  REQUIRE(o.node_groups.size() == 2);
  CHECK(o.node_groups[0].id == "h100-spot");
  CHECK(o.node_groups[0].max_size == 10);
  CHECK(o.node_groups[1].min_size == 1);
  CHECK(o.status.namespace_name == "autoscaling");
  CHECK(c->leader_election.namespace_name == "autoscaling");  // follows --namespace
  CHECK(o.group_defaults.scale_down_unneeded_time == absl::Minutes(5));
  CHECK(o.limits.max_nodes_total == 50);
  CHECK(o.limits.memory_bytes.max == int64_t{4096} << 30);
  CHECK(o.limits.gpus_by_type.at("nvidia-h100").max == 64);
  CHECK_FALSE(o.scale_down.skip_nodes_with_local_storage);
  CHECK(c->verbosity == 4);
  CHECK(c->kube_api_qps == 20);
  REQUIRE(c->notes.size() == 1);
  CHECK_THAT(c->notes[0], Catch::StartsWith("--cluster-name=prod has no effect"));
}

TEST_CASE("unknown and unsupported flags are refused by name, with the reason",
          "[cli][controller-flags]") {
  struct Case {
    CommandArgs args;
    std::string message;
  };
  const Case cases[] = {
      {{"--no-such-flag=1"}, "unknown flag --no-such-flag"},
      {{"--balance-similar-node-groups"}, "--balance-similar-node-groups=true is not supported"},
      {{"--grpc-expander-url=x"}, "flag --grpc-expander-url is not supported: the grpc expander"},
      {{"--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled"},
       "--node-group-auto-discovery is not meaningful for --cloud-provider=externalgrpc"},
      {{"--cloud-provider=aws"}, "--cloud-provider"},
      {{"--nodes=1:0:g"}, "--nodes"},
      {{"--nodes=0:3"}, "<min>:<max>:<node group id>"},
      {{"--cores-total=10"}, "--cores-total"},
      {{"--gpu-total=:0:8"}, "--gpu-total"},
      {{"--estimator=oldbinpacking"}, "--estimator"},
      {{"--logtostderr=false"}, "--logtostderr=false is not supported"},
      {{"--scale-down-utilization-threshold=1.5"}, "--scale-down-utilization-threshold"},
  };
  for (const Case& c : cases) {
    INFO(c.args[0]);
    auto parsed = Parse(c.args);
    REQUIRE_FALSE(parsed.ok());
    CHECK_THAT(std::string(parsed.status().message()), Catch::Contains(c.message));
  }
}

TEST_CASE("cluster-autoscaler's clusterapi flags carry over: discovery and an authoritative config",
          "[cli][controller-flags][clusterapi]") {
  auto c = Parse({"--cloud-provider=clusterapi",
                  "--node-group-auto-discovery=clusterapi:namespace=gpu,clusterName=prod",
                  "--clusterapi-cloud-config-authoritative"});
  REQUIRE(c.ok());
  CHECK(c->cloud_provider == "clusterapi");
  CHECK(c->auto_discovery == std::vector<std::string>{"clusterapi:namespace=gpu,clusterName=prod"});
  CHECK(c->clusterapi_cloud_config_authoritative);
  CHECK(c->notes.empty());
  auto bad = Parse({"--cloud-provider=clusterapi", "--node-group-auto-discovery=clusterapi:gpu"});
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(std::string(bad.status().message()), Catch::Contains("\"gpu\" is not key=value"));
}

TEST_CASE("the --help output lists every flag with its default, and the refused ones with why",
          "[cli][controller-flags]") {
  bool help = false;
  std::string usage;
  REQUIRE(ParseControllerFlags({"--help"}, &help, &usage).ok());
  CHECK(help);
  for (const char* line : {"--scan-interval duration", "(default 10s)", "--max-node-provision-time",
                           "--nodes string (repeatable)",
                           "Refused (not supported, and why):", "--scheduler-config-file"}) {
    INFO(line);
    CHECK_THAT(usage, Catch::Contains(line));
  }
}

}  // namespace
}  // namespace gpua
