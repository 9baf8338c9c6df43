// `gpu-autoscaler plugin-check` against real plugin servers on loopback, each with one fault:
// templates judged by the planner's own rules, answers that make the autoscaler fall back
// shown as such, the summary and the JSON object, and the plugin's answers held against a
// cluster's Nodes (the fake API server).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "autoscaler/cli/plugin_check_command.h"
#include "base/clock.h"
#include "cloudproviders/externalgrpc/plugin_server.h"
#include "cloudproviders/externalgrpc/provider_service.h"
#include "cloudproviders/node_group_file.h"
#include "cloudproviders/simulated/simulated_cloud.h"
#include "tests/support/config_files.h"
#include "tests/support/fake_api_server.h"
#include "tests/support/run_command.h"

namespace gpua {
namespace {

namespace pb = externalgrpc::pb;
using externalgrpc::PluginServer;
using externalgrpc::ProviderService;

constexpr char kHealthy[] = R"(
nodeGroups:
- id: h100
  maxSize: 4
  targetSize: 1
  template:
    metadata: {labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}}
    spec: {taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]}
    status: {allocatable: {cpu: "190", memory: 1900Gi, nvidia.com/gpu: "8", pods: "110"}}
  options: {scaleDownUnneededTime: 5m}
- id: cpu
  maxSize: 3
  template:
    status: {allocatable: {cpu: "16", memory: 64Gi, pods: "110"}}
)";

struct Output {
  int rc = 0;
  std::string out, err;
};

// plugin-check against `service` (a ProviderService over `cloud`, maybe with a fault).
Output Check(std::unique_ptr<ProviderService> service, std::vector<std::string> extra = {}) {
  auto server = PluginServer::Serve(std::move(service), {});
  REQUIRE(server.ok());
  std::vector<std::string> args = {
      "--cloud-config",
      testing::CloudConfigFor((*server)->port(),
                              absl::StrCat("gpua-plugin-check-", (*server)->port(), ".yaml"))};
  args.insert(args.end(), extra.begin(), extra.end());
  std::ostringstream out, err;
  Output o;
  o.rc = testing::RunCommand(RunPluginCheckCommand, args, out, err);
  o.out = out.str();
  o.err = err.str();
  return o;
}

// The plugin check of a cloud serving `groups`, as the example plugin serves them.
struct Cloud {
  ManualClock clock;
  SimulatedCloud cloud;
  explicit Cloud(const char* groups = kHealthy)
      : cloud(*ParseNodeGroupFile(groups, "groups.yaml"), clock) {}
  Output Check(std::vector<std::string> extra = {}) {
    return gpua::Check(std::make_unique<ProviderService>(cloud), std::move(extra));
  }
};

// The line of `rpc` for `subject`, and the indented lines under it.
std::string Block(const std::string& out, const std::string& rpc, const std::string& subject) {
  std::istringstream in(out);
  std::string line, block;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind(rpc, 0) == 0 && line.find(" " + subject + " ") != std::string::npos) {
      inside = true;
      block = line + "\n";
    } else if (inside && line.rfind("    ", 0) == 0) {
      block += line + "\n";
    } else if (inside) {
      break;
    }
  }
  return block;
}

TEST_CASE("a healthy plugin passes, every call ok, with the summary counting them",
          "[plugin-check]") {
  Cloud c;
  const Output o = c.Check({"--mutate"});
  INFO(o.out << o.err);
  CHECK(o.rc == 0);
  CHECK_THAT(o.out, Catch::Contains("GPUs as planned: 8 NVIDIA-H100-80GB-HBM3, exclusive") &&
                        Catch::Contains("0 warning(s), 0 problem(s)") &&
                        Catch::Contains("no problems found"));
}

TEST_CASE(
    "a template whose GPU labels contradict its allocatable is a problem on its group's "
    "line, with the planner's own message",
    "[plugin-check]") {
  Cloud c(R"(
nodeGroups:
- id: l4
  maxSize: 4
  template:
    metadata: {labels: {nvidia.com/gpu.product: NVIDIA-L4, nvidia.com/gpu.count: "4"}}
    status: {allocatable: {cpu: "16", memory: 64Gi, pods: "58", nvidia.com/gpu: "1"}}
)");
  const Output o = c.Check();
  INFO(o.out);
  CHECK(o.rc == 1);
  const std::string message =
      "node group l4: template: allocatable nvidia.com/gpu is 1 but its GPU labels say 4 "
      "(4 NVIDIA-L4, exclusive)";
  CHECK_THAT(Block(o.out, "NodeGroupTemplateNodeInfo", "l4"),
             Catch::Contains("problem: " + message));
  CHECK_THAT(o.out, Catch::Contains("1 problem(s)") && Catch::Contains("  - " + message));
}

TEST_CASE("a template that holds no pod, or offers nothing but pods, is a problem",
          "[plugin-check]") {
  Cloud c(R"(
nodeGroups:
- id: no-pods
  maxSize: 4
  template: {status: {allocatable: {cpu: "16", memory: 64Gi}}}
- id: only-pods
  maxSize: 4
  template: {status: {allocatable: {pods: "110"}}}
)");
  const Output o = c.Check();
  INFO(o.out);
  CHECK(o.rc == 1);
  CHECK_THAT(Block(o.out, "NodeGroupTemplateNodeInfo", "no-pods"),
             Catch::Contains("problem: node group no-pods: template: allocatable pods is 0 or "
                             "missing: the planner fits no pod on it"));
  CHECK_THAT(Block(o.out, "NodeGroupTemplateNodeInfo", "only-pods"),
             Catch::Contains("offers nothing but pods"));
}

TEST_CASE(
    "a MIG template with a layout the GPU does not have is a problem, named as the "
    "planner names it",
    "[plugin-check]") {
  Cloud c(R"(
nodeGroups:
- id: mig
  maxSize: 2
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}
      annotations: {gpu-autoscaler.io/gpu-sharing: mig, gpu-autoscaler.io/mig-strategy: mixed,
                    gpu-autoscaler.io/mig-layouts: all-9g.99gb}
    status: {allocatable: {cpu: "190", memory: 1900Gi, pods: "110"}}
)");
  const Output o = c.Check();
  INFO(o.out);
  CHECK(o.rc == 1);
  CHECK_THAT(Block(o.out, "NodeGroupTemplateNodeInfo", "mig"),
             Catch::Contains("problem: node group mig: template") && Catch::Contains("9g.99gb"));
}

TEST_CASE("a template whose driver version cannot be read is a problem", "[plugin-check]") {
  Cloud c(R"(
nodeGroups:
- id: a100
  maxSize: 2
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB, nvidia.com/gpu.count: "8",
               nvidia.com/cuda.driver-version.full: "latest"}
    status: {allocatable: {cpu: "96", memory: 1000Gi, pods: "110", nvidia.com/gpu: "8"}}
)");
  const Output o = c.Check();
  INFO(o.out);
  CHECK(o.rc == 1);
  CHECK_THAT(Block(o.out, "NodeGroupTemplateNodeInfo", "a100"),
             Catch::Contains("problem: node group a100: template: driver version: ") &&
                 Catch::Contains("latest"));
}

TEST_CASE("a template with GPUs but no GPU label is a warning, and the check still passes",
          "[plugin-check]") {
  Cloud c(R"(
nodeGroups:
- id: h100
  maxSize: 2
  template:
    metadata:
      annotations: {gpu-autoscaler.io/gpu-vendor: nvidia, gpu-autoscaler.io/gpu-count: "8"}
    status: {allocatable: {cpu: "190", memory: 1900Gi, pods: "110", nvidia.com/gpu: "8"}}
)");
  const Output o = c.Check();
  INFO(o.out);
  CHECK(o.rc == 0);
  CHECK_THAT(Block(o.out, "NodeGroupTemplateNodeInfo", "h100"),
             Catch::Contains("warning: node group h100: template: it has GPUs") &&
                 Catch::Contains("but no nvidia.com/gpu.product label"));
  CHECK_THAT(o.out, Catch::Contains("1 warning(s), 0 problem(s)"));
}

TEST_CASE(
    "a DRA template's GPUs are shown as devices, and a pool its slices leave incomplete "
    "is a problem",
    "[plugin-check][dra]") {
  Cloud c(R"(
nodeGroups:
- id: h100-dra
  maxSize: 2
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}
      annotations: {gpu-autoscaler.io/dra-driver: gpu.nvidia.com}
    status: {allocatable: {cpu: "190", memory: 1900Gi, pods: "110", nvidia.com/gpu: "8"}}
- id: half
  maxSize: 2
  template:
    status: {allocatable: {cpu: "16", memory: 64Gi, pods: "110"}}
  resourceSlices:
  - apiVersion: resource.k8s.io/v1
    kind: ResourceSlice
    metadata: {name: half-0}
    spec:
      driver: gpu.example.com
      nodeName: t
      pool: {name: t, generation: 1, resourceSliceCount: 2}
      devices: [{name: g0}]
)");
  const Output o = c.Check();
  INFO(o.out);
  CHECK_THAT(Block(o.out, "NodeGroupTemplateNodeInfo", "h100-dra"),
             Catch::Contains("GPUs as planned: 8 GPU(s) as DRA devices (") &&
                 Catch::Contains("of gpu.nvidia.com)"));
  CHECK_THAT(Block(o.out, "NodeGroupTemplateNodeInfo", "half"),
             Catch::Contains("pool gpu.example.com/t has fewer slices than its "
                             "resourceSliceCount: it offers no devices"));
  CHECK(o.rc != 0);
}

// A plugin that implements only what cluster-autoscaler requires.
class MinimalPlugin : public ProviderService {
 public:
  using ProviderService::ProviderService;
  grpc::Status NodeGroupGetOptions(grpc::ServerContext*,
                                   const pb::NodeGroupAutoscalingOptionsRequest*,
                                   pb::NodeGroupAutoscalingOptionsResponse*) override {
    return {grpc::StatusCode::UNIMPLEMENTED, "no options"};
  }
  grpc::Status PricingNodePrice(grpc::ServerContext*, const pb::PricingNodePriceRequest*,
                                pb::PricingNodePriceResponse*) override {
    return {grpc::StatusCode::UNIMPLEMENTED, "no pricing"};
  }
  grpc::Status GetAvailableGPUTypes(grpc::ServerContext*, const pb::GetAvailableGPUTypesRequest*,
                                    pb::GetAvailableGPUTypesResponse*) override {
    return {grpc::StatusCode::UNIMPLEMENTED, "no GPU types"};
  }
};

TEST_CASE(
    "options, pricing and GPU types not implemented are fallbacks: defaults used, not ok "
    "and not failures",
    "[plugin-check]") {
  Cloud c;
  const Output o = Check(std::make_unique<MinimalPlugin>(c.cloud), {});
  INFO(o.out);
  CHECK(o.rc == 0);
  const std::string options = Block(o.out, "NodeGroupGetOptions", "h100");
  CHECK_THAT(options, Catch::Contains("not implemented: defaults used") &&
                          Catch::Contains("the flags' defaults apply: idle timeout 10m"));
  CHECK_THAT(options, !Catch::Contains(" ok "));
  CHECK_THAT(o.out, Catch::Contains("GetAvailableGPUTypes") &&
                        Catch::Contains("PricingNodePrice") &&
                        Catch::Contains("not implemented: defaults used (no prices)"));
  // Two groups' options, node price, pod price (the simulated cloud has none), GPU types.
  CHECK_THAT(o.out,
             Catch::Contains("5 not implemented (defaults used), 0 warning(s), 0 problem(s)"));
}

TEST_CASE("plugin-check --output json prints one object: the calls, the findings and the summary",
          "[plugin-check]") {
  Cloud c(R"(
nodeGroups:
- id: l4
  maxSize: 4
  template:
    metadata: {labels: {nvidia.com/gpu.product: NVIDIA-L4, nvidia.com/gpu.count: "4"}}
    status: {allocatable: {cpu: "16", memory: 64Gi, pods: "58", nvidia.com/gpu: "1"}}
)");
  const Output o = Check(std::make_unique<MinimalPlugin>(c.cloud), {"--output", "json"});
  INFO(o.out << o.err);
  CHECK(o.rc == 1);
  const nlohmann::json report = nlohmann::json::parse(o.out);  // stdout holds the object alone
  CHECK(report["exit_code"] == 1);
  CHECK(report["summary"]["problems"] == 1);
  CHECK(report["summary"]["fallbacks"] == 3);  // options, pod price, GPU types
  CHECK(report["summary"]["warnings"] == 0);
  CHECK(report["summary"]["ok"].get<int>() > 3);
  CHECK(report["findings"][0]["severity"] == "problem");
  CHECK(report["findings"][0]["subject"] == "l4");
  bool options_fell_back = false;
  for (const nlohmann::json& call : report["calls"]) {
    options_fell_back |= call["rpc"] == "NodeGroupGetOptions" && call["outcome"] == "fallback";
  }
  CHECK(options_fell_back);
  CHECK(report["plugin"]["tls"] == false);
}

TEST_CASE("plugin-check refuses a bad --output", "[plugin-check]") {
  Cloud c;
  const Output o = c.Check({"--output", "yaml"});
  CHECK(o.rc == 2);
  CHECK_THAT(o.err, Catch::Contains("--output"));
}

// Grows a group by two for every increase asked.
class IncreasesTwice : public ProviderService {
 public:
  using ProviderService::ProviderService;
  grpc::Status NodeGroupIncreaseSize(grpc::ServerContext* context,
                                     const pb::NodeGroupIncreaseSizeRequest* request,
                                     pb::NodeGroupIncreaseSizeResponse* response) override {
    grpc::Status s = ProviderService::NodeGroupIncreaseSize(context, request, response);
    return s.ok() ? ProviderService::NodeGroupIncreaseSize(context, request, response) : s;
  }
};

// Never lowers a target: as a plugin does once the new node is up.
class RefusesToLower : public ProviderService {
 public:
  using ProviderService::ProviderService;
  grpc::Status NodeGroupDecreaseTargetSize(grpc::ServerContext*,
                                           const pb::NodeGroupDecreaseTargetSizeRequest*,
                                           pb::NodeGroupDecreaseTargetSizeResponse*) override {
    return {grpc::StatusCode::FAILED_PRECONDITION, "the node is already running"};
  }
};

int TargetOf(SimulatedCloud& cloud, const std::string& id) {
  const auto groups = cloud.NodeGroups();
  REQUIRE(groups.ok());
  for (const auto& g : *groups) {
    if (g->Id() == id) return *g->TargetSize();
  }
  FAIL("no group " << id);
  return -1;
}

TEST_CASE("plugin-check --mutate returns the group to its starting size whatever the check found",
          "[plugin-check]") {
  SECTION("a plugin that grows by two: a problem, and the group lowered back by both") {
    Cloud c;
    const Output o = Check(std::make_unique<IncreasesTwice>(c.cloud), {"--mutate"});
    INFO(o.out);
    CHECK(o.rc == 1);
    CHECK_THAT(o.out, Catch::Contains("node group h100: target 3 after increasing 1 by 1"));
    CHECK(TargetOf(c.cloud, "h100") == 1);
  }
  SECTION("a plugin that will not lower the target: the node the check added is deleted") {
    Cloud c;
    const Output o = Check(std::make_unique<RefusesToLower>(c.cloud), {"--mutate"});
    INFO(o.out);
    CHECK_THAT(o.out, Catch::Contains("NodeGroupDeleteNodes") &&
                          Catch::Contains("1 node(s) the check added"));
    CHECK(TargetOf(c.cloud, "h100") == 1);
    CHECK_THAT(o.out, !Catch::Contains("is left at target"));
  }
}

// Lists h100's instance under cpu too.
class ListsTwice : public ProviderService {
 public:
  using ProviderService::ProviderService;
  grpc::Status NodeGroupNodes(grpc::ServerContext* context,
                              const pb::NodeGroupNodesRequest* request,
                              pb::NodeGroupNodesResponse* response) override {
    grpc::Status s = ProviderService::NodeGroupNodes(context, request, response);
    if (request->id() == "cpu") {
      pb::Instance* i = response->add_instances();
      i->set_id("sim://h100/0");
      i->mutable_status()->set_instancestate(pb::InstanceStatus::instanceRunning);
    }
    return s;
  }
};

TEST_CASE("an instance two groups list is a problem naming both", "[plugin-check]") {
  Cloud c;
  const Output o = Check(std::make_unique<ListsTwice>(c.cloud));
  INFO(o.out);
  CHECK(o.rc == 1);
  CHECK_THAT(o.out, Catch::Contains("instance sim://h100/0 is listed by node groups h100 and cpu"));
}

// Claims a node of another cloud for h100, and disowns h100's own instance.
class WrongOwners : public ProviderService {
 public:
  using ProviderService::ProviderService;
  grpc::Status NodeGroupForNode(grpc::ServerContext* context,
                                const pb::NodeGroupForNodeRequest* request,
                                pb::NodeGroupForNodeResponse* response) override {
    if (request->node().providerid() == "aws:///us-east-1a/i-0abc") {
      response->mutable_nodegroup()->set_id("h100");
      response->mutable_nodegroup()->set_maxsize(4);
      return grpc::Status::OK;
    }
    if (request->node().providerid() == "sim://h100/0") return grpc::Status::OK;  // "none"
    return ProviderService::NodeGroupForNode(context, request, response);
  }
};

nlohmann::json NodeWithProviderId(const std::string& name, const std::string& provider_id) {
  return {{"metadata", {{"name", name}}},
          {"spec", {{"providerID", provider_id}}},
          {"status", {{"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
}

TEST_CASE(
    "with --kubeconfig, the plugin's answers are held against the cluster's Nodes both "
    "ways, naming node, group and instance",
    "[plugin-check][cluster]") {
  Cloud c(R"(
nodeGroups:
- id: h100
  maxSize: 4
  targetSize: 2
  template:
    metadata: {labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}}
    status: {allocatable: {cpu: "190", memory: 1900Gi, nvidia.com/gpu: "8", pods: "110"}}
  options: {maxNodeProvisionTime: 20m}
)");
  testing::FakeApiServer api;
  api.Upsert("nodes", NodeWithProviderId("h100-0", "sim://h100/0"));
  api.Upsert("nodes", NodeWithProviderId("foreign", "aws:///us-east-1a/i-0abc"));
  api.Upsert("nodes", NodeWithProviderId("control-plane", ""));
  const std::string kubeconfig = testing::KubeconfigFor(api.url(), "gpua-plugin-check.kubeconfig");
  const Output o = Check(std::make_unique<WrongOwners>(c.cloud), {"--kubeconfig", kubeconfig});
  INFO(o.out << o.err);
  CHECK(o.rc == 1);
  CHECK_THAT(o.out, Catch::Contains("the cluster at " + api.url() + " has 3 node(s)"));
  CHECK_THAT(o.out,
             Catch::Contains("node foreign (instance aws:///us-east-1a/i-0abc) is claimed by node "
                             "group h100 (NodeGroupForNode), which does not list the instance"));
  CHECK_THAT(o.out, Catch::Contains("node h100-0 (instance sim://h100/0) is listed by node group "
                                    "h100 but NodeGroupForNode answers no group"));
  // The second instance has no Node yet: a warning with the group's provision time.
  CHECK_THAT(o.out, Catch::Contains("warning: instance sim://h100/1 of node group h100 is running "
                                    "but no Node has it") &&
                        Catch::Contains("provision time (20m)"));
  // The disowned instance is also named from the plugin's side, without a cluster.
  CHECK_THAT(o.out, Catch::Contains("instance sim://h100/0 is listed by node group h100 but "
                                    "NodeGroupForNode answers no group"));
  CHECK_THAT(o.out, Catch::Contains("3 problem(s)"));
}

TEST_CASE("with --kubeconfig and a cluster that cannot be read, the check says so and fails",
          "[plugin-check][cluster]") {
  Cloud c;
  testing::FakeApiServer api;
  api.FailNext(100, 403);
  const std::string kubeconfig =
      testing::KubeconfigFor(api.url(), "gpua-plugin-check-403.kubeconfig");
  const Output o = c.Check({"--kubeconfig", kubeconfig});
  INFO(o.out);
  CHECK(o.rc == 1);
  CHECK_THAT(o.out, Catch::Contains("reading the cluster's Nodes: list /api/v1/nodes: HTTP 403"));
}

}  // namespace
}  // namespace gpua
