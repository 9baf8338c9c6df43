// The externalgrpc client against real plugin servers on loopback: every RPC, caching, each
// status code, both protocol generations, mTLS, a plugin restart, broken templates, and
// `gpu-autoscaler plugin-check` on top.
#include <google/protobuf/util/message_differencer.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "autoscaler/cli/plugin_check_command.h"
#include "base/clock.h"
#include "base/log.h"
#include "cloudproviders/externalgrpc/externalgrpc_provider.h"
#include "cloudproviders/externalgrpc/plugin_server.h"
#include "cloudproviders/externalgrpc/provider_service.h"
#include "cloudproviders/node_group_file.h"
#include "cloudproviders/node_proto.h"
#include "cloudproviders/simulated/simulated_cloud.h"
#include "cloudproviders/slice_proto.h"
#include "tests/support/config_files.h"
#include "tests/support/run_command.h"
#include "tests/support/test_pki.h"

namespace gpua {
namespace {

namespace pb = externalgrpc::pb;
using externalgrpc::PluginServer;
using externalgrpc::PluginServerOptions;

constexpr char kGroups[] = R"(
nodeGroups:
- id: h100
  maxSize: 4
  pricePerHour: 40
  template:
    metadata: {labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3}}
    spec: {taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]}
    status: {allocatable: {cpu: "190", memory: 1900Gi, nvidia.com/gpu: "8", pods: "110"}}
  options: {scaleDownUnneededTime: 5m, scaleDownGpuUtilizationThreshold: 0.3}
  simulation: {provisioningDelay: {p50: 2m, p95: 2m}}
- id: cpu
  minSize: 1
  maxSize: 3
  targetSize: 1
  pricePerHour: 0.5
  template:
    status: {allocatable: {cpu: "16", pods: "110"}}
)";

// A simulated cloud served on 127.0.0.1 and a client for it.
struct Plugin {
  ManualClock clock;
  SimulatedCloud cloud;
  std::unique_ptr<PluginServer> server;
  MemoryLogSink log;
  std::unique_ptr<ExternalGrpcProvider> client;

  explicit Plugin(PluginServerOptions options = {}, ExternalGrpcConfig config = {})
      : cloud(*ParseNodeGroupFile(kGroups, "groups.yaml"), clock) {
    auto started = PluginServer::Start(cloud, options);
    REQUIRE(started.ok());
    server = *std::move(started);
    config.address = absl::StrCat("127.0.0.1:", server->port());
    if (config.timeout == absl::Seconds(5)) config.timeout = absl::Seconds(3);
    client = Connect(config);
  }

  std::unique_ptr<ExternalGrpcProvider> Connect(const ExternalGrpcConfig& config) {
    auto c = ExternalGrpcProvider::Create(config, log);
    REQUIRE(c.ok());
    return *std::move(c);
  }

  std::shared_ptr<NodeGroup> Group(const std::string& id) {
    auto group = FindNodeGroup(*client, id);
    REQUIRE(group.ok());
    return *group;
  }
};

TEST_CASE("every RPC of a plugin round-trips through the client", "[externalgrpc]") {
  Plugin p;
  auto groups = p.client->NodeGroups();
  REQUIRE(groups.ok());
  REQUIRE(groups->size() == 2);
  auto h100 = p.Group("h100");
  CHECK(h100->MinSize() == 0);
  CHECK(h100->MaxSize() == 4);
  CHECK_THAT(h100->Debug(), Catch::Contains("h100"));
  CHECK(*h100->TargetSize() == 0);

  REQUIRE(h100->IncreaseSize(2).ok());
  CHECK(*h100->TargetSize() == 2);
  auto instances = h100->Nodes();
  REQUIRE(instances.ok());
  REQUIRE(instances->size() == 2);
  CHECK((*instances)[0].state == InstanceState::kCreating);
  p.clock.Advance(absl::Minutes(3));
  CHECK((*h100->Nodes())[0].state == InstanceState::kRunning);

  const NodeRef node{(*instances)[0].id, "h100-0", {}, {}};
  auto owner = p.client->NodeGroupForNode(node);
  REQUIRE(owner.ok());
  CHECK(*owner == h100);  // the very group object, with its cached template
  CHECK(*p.client->NodeGroupForNode({"aws:///us-east-1a/i-123", "other", {}, {}}) == nullptr);

  auto t = h100->TemplateNode();
  REQUIRE(t.ok());
  CHECK(t->labels.at("nvidia.com/gpu.product") == "NVIDIA-H100-80GB-HBM3");
  REQUIRE(t->taints.size() == 1);
  CHECK(t->taints[0].effect == TaintEffect::kNoSchedule);
  CHECK(t->allocatable.Get("memory") == *Quantity::Parse("1900Gi"));

  auto options = h100->GetOptions(AutoscalingOptions{});
  REQUIRE(options.ok());
  CHECK(options->scale_down_unneeded_time == absl::Minutes(5));
  CHECK(options->scale_down_gpu_utilization_threshold == Approx(0.3));
  CHECK(options->max_node_provision_time == absl::Minutes(15));

  const absl::Time now = p.clock.Now();
  CHECK(*p.client->NodePrice(node, now - absl::Hours(2), now) == Approx(80.0));
  CHECK(IsNotImplemented(p.client->PodPrice(PodSpec{}, now, now).status()));
  CHECK(IsNotImplemented(p.client->PodPrice(PodSpec{}, now, now).status()));
  CHECK(p.log.lines().size() == 1);  // said once
  CHECK_THAT(p.log.lines()[0], Catch::Contains("price expander"));
  CHECK(*p.client->GpuLabel() == "nvidia.com/gpu.product");
  CHECK(*p.client->AvailableGpuTypes() == std::vector<std::string>{"NVIDIA-H100-80GB-HBM3"});

  REQUIRE(h100->DeleteNodes({node}).ok());
  CHECK(*h100->TargetSize() == 1);
  CHECK(h100->DecreaseTargetSize(-1).code() == absl::StatusCode::kFailedPrecondition);
  CHECK(p.client->Refresh().ok());
  CHECK(p.client->Cleanup().ok());
}

TEST_CASE("node groups, node-to-group answers and templates are cached until Refresh",
          "[externalgrpc]") {
  Plugin p;
  auto h100 = p.Group("h100");
  REQUIRE(h100->TemplateNode().ok());
  REQUIRE(p.client->NodeGroupForNode({"sim://h100/7", "x", {}, {}}).ok());
  p.cloud.FailNextCalls(absl::UnavailableError("cloud API down"), 1);
  // Served from the cache: the plugin is not asked, so the injected failure waits.
  CHECK(p.client->NodeGroups().ok());
  CHECK(h100->TemplateNode().ok());
  CHECK(p.client->NodeGroupForNode({"sim://h100/7", "x", {}, {}}).ok());
  p.cloud.FailNextCalls(absl::UnavailableError("cloud API down"), 0);
  REQUIRE(p.client->Refresh().ok());
  auto fresh = p.client->NodeGroups();
  REQUIRE(fresh.ok());
  CHECK((*fresh)[0] != h100);  // new group objects after a refresh
}

TEST_CASE("each status code from the plugin means what cluster-autoscaler makes of it",
          "[externalgrpc]") {
  Plugin p;
  SECTION("Unavailable fails the call, caches nothing, and the next loop asks again") {
    p.cloud.FailNextCalls(absl::UnavailableError("cloud API down"), 1);
    auto groups = p.client->NodeGroups();
    CHECK(groups.status().code() == absl::StatusCode::kUnavailable);
    CHECK_THAT(std::string(groups.status().message()),
               Catch::Contains("externalgrpc NodeGroups: cloud API down"));
    CHECK(p.client->NodeGroups().ok());
  }
  SECTION("ResourceExhausted on a scale-up keeps its code, for the group's back-off") {
    auto h100 = p.Group("h100");
    p.cloud.FailNextCalls(absl::ResourceExhaustedError("quota exceeded"), 1);
    absl::Status s = h100->IncreaseSize(1);
    CHECK(s.code() == absl::StatusCode::kResourceExhausted);
    CHECK_THAT(std::string(s.message()), Catch::Contains("node group h100"));
  }
  SECTION("InvalidArgument carries the plugin's reason") {
    absl::Status s = p.Group("cpu")->IncreaseSize(5);
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(std::string(s.message()), Catch::Contains("size increase too large"));
  }
  SECTION("an answer past the deadline is DeadlineExceeded") {
    RealClock real;
    SimulatedCloud slow(*ParseNodeGroupFile(kGroups, "groups.yaml"), real);
    slow.SetLatency(absl::Seconds(1));
    auto server = PluginServer::Start(slow, {});
    REQUIRE(server.ok());
    ExternalGrpcConfig config;
    config.address = absl::StrCat("127.0.0.1:", (*server)->port());
    config.timeout = absl::Milliseconds(200);
    auto client = p.Connect(config);
    CHECK(client->NodeGroups().status().code() == absl::StatusCode::kDeadlineExceeded);
  }
}

// A plugin that implements nothing: the generated service answers Unimplemented to all.
TEST_CASE("Unimplemented means defaults for options and no pricing, and is not an error",
          "[externalgrpc]") {
  auto server = PluginServer::Serve(std::make_unique<pb::CloudProvider::Service>(), {});
  REQUIRE(server.ok());
  ExternalGrpcConfig config;
  config.address = absl::StrCat("127.0.0.1:", (*server)->port());
  MemoryLogSink log;
  auto client = *ExternalGrpcProvider::Create(config, log);
  CHECK(IsNotImplemented(client->NodeGroups().status()));
  CHECK(IsNotImplemented(client->GpuLabel().status()));
  const absl::Time now = absl::Now();
  CHECK(IsNotImplemented(client->NodePrice({"p", "n", {}, {}}, now, now).status()));
  CHECK(log.lines().size() == 1);
}

// A plugin written for cluster-autoscaler up to 1.34: templates as an embedded nodeInfo,
// durations as meta.v1.Duration, pricing windows as meta.v1.Time.
class EarlierGenerationPlugin : public pb::CloudProvider::Service {
 public:
  grpc::Status NodeGroups(grpc::ServerContext*, const pb::NodeGroupsRequest*,
                          pb::NodeGroupsResponse* response) override {
    pb::NodeGroup* g = response->add_nodegroups();
    g->set_id("legacy");
    g->set_maxsize(3);
    return grpc::Status::OK;
  }
  grpc::Status NodeGroupTemplateNodeInfo(grpc::ServerContext*,
                                         const pb::NodeGroupTemplateNodeInfoRequest*,
                                         pb::NodeGroupTemplateNodeInfoResponse* response) override {
    NodeTemplate t;
    t.name = "legacy-template";
    t.labels = {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB"}};
    t.allocatable = {{"cpu", Quantity::FromUnits(96)}, {"nvidia.com/gpu", Quantity::FromUnits(8)}};
    *response->mutable_nodeinfo() = NodeTemplateToProto(t);
    return grpc::Status::OK;
  }
  grpc::Status NodeGroupGetOptions(grpc::ServerContext*,
                                   const pb::NodeGroupAutoscalingOptionsRequest* request,
                                   pb::NodeGroupAutoscalingOptionsResponse* response) override {
    saw_earlier_defaults = request->defaults().has_scaledownunneededtime();
    auto* o = response->mutable_nodegroupautoscalingoptions();
    o->set_scaledownutilizationthreshold(0.4);
    o->mutable_scaledownunneededtime()->set_duration(absl::ToInt64Nanoseconds(absl::Minutes(7)));
    return grpc::Status::OK;
  }
  grpc::Status PricingNodePrice(grpc::ServerContext*, const pb::PricingNodePriceRequest* request,
                                pb::PricingNodePriceResponse* response) override {
    response->set_price(
        static_cast<double>(request->endtime().seconds() - request->starttime().seconds()) /
        3600.0);
    return grpc::Status::OK;
  }
  bool saw_earlier_defaults = false;
};

TEST_CASE("a plugin of the earlier protocol generation works unchanged", "[externalgrpc]") {
  auto service = std::make_unique<EarlierGenerationPlugin>();
  EarlierGenerationPlugin* plugin = service.get();
  auto server = PluginServer::Serve(std::move(service), {});
  REQUIRE(server.ok());
  ExternalGrpcConfig config;
  config.address = absl::StrCat("127.0.0.1:", (*server)->port());
  MemoryLogSink quiet;
  auto client = *ExternalGrpcProvider::Create(config, quiet);
  auto groups = client->NodeGroups();
  REQUIRE(groups.ok());
  auto t = (*groups)[0]->TemplateNode();
  REQUIRE(t.ok());
  CHECK(t->allocatable.Get("nvidia.com/gpu") == Quantity::FromUnits(8));
  auto options = (*groups)[0]->GetOptions(AutoscalingOptions{});
  REQUIRE(options.ok());
  CHECK(options->scale_down_unneeded_time == absl::Minutes(7));
  CHECK(options->scale_down_unready_time == absl::Minutes(20));  // not set: the default
  CHECK(plugin->saw_earlier_defaults);
  const absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  CHECK(*client->NodePrice({"p", "n", {}, {}}, now - absl::Hours(3), now) == Approx(3.0));
}

TEST_CASE("our plugin answers in both generations, for cluster-autoscaler of any version",
          "[externalgrpc]") {
  Plugin p;
  auto channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", p.server->port()),
                                     grpc::InsecureChannelCredentials());
  auto stub = pb::CloudProvider::NewStub(channel);
  grpc::ClientContext c1;
  pb::NodeGroupTemplateNodeInfoRequest request;
  request.set_id("h100");
  pb::NodeGroupTemplateNodeInfoResponse t;
  REQUIRE(stub->NodeGroupTemplateNodeInfo(&c1, request, &t).ok());
  CHECK(!t.nodebytes().empty());
  CHECK(t.has_nodeinfo());
  corev1::Node from_bytes;
  REQUIRE(from_bytes.ParseFromString(t.nodebytes()));
  // Map order on the wire is not fixed, so compare the messages, not their bytes.
  CHECK(google::protobuf::util::MessageDifferencer::Equals(from_bytes, t.nodeinfo()));
  grpc::ClientContext c2;
  pb::NodeGroupAutoscalingOptionsRequest options_request;
  options_request.set_id("h100");
  pb::NodeGroupAutoscalingOptionsResponse options;
  REQUIRE(stub->NodeGroupGetOptions(&c2, options_request, &options).ok());
  const auto& o = options.nodegroupautoscalingoptions();
  CHECK(o.scaledownunneededduration().seconds() == 300);
  CHECK(o.scaledownunneededtime().duration() == 300'000'000'000);
}

TEST_CASE("mutual TLS: the right CA and client certificate get in, others are refused",
          "[externalgrpc][tls]") {
  const testing::TestPki pki = testing::MakeTestPki();
  PluginServerOptions tls;
  tls.cert_pem = pki.server_cert;
  tls.key_pem = pki.server_key;
  tls.client_ca_pem = pki.ca_cert;
  ExternalGrpcConfig good;
  good.ca_pem = pki.ca_cert;
  good.cert_pem = pki.client_cert;
  good.key_pem = pki.client_key;
  Plugin p(tls, good);
  CHECK(p.client->NodeGroups().ok());

  ExternalGrpcConfig stranger = good;
  stranger.address = absl::StrCat("127.0.0.1:", p.server->port());
  stranger.timeout = absl::Seconds(2);
  const testing::TestPki other = testing::MakeTestPki();
  stranger.ca_pem = other.ca_cert;  // does not trust the plugin's certificate
  CHECK(p.Connect(stranger)->NodeGroups().status().code() == absl::StatusCode::kUnavailable);

  ExternalGrpcConfig no_client_cert = stranger;
  no_client_cert.ca_pem = pki.ca_cert;
  no_client_cert.cert_pem.clear();
  no_client_cert.key_pem.clear();
  CHECK(!p.Connect(no_client_cert)->NodeGroups().ok());

  ExternalGrpcConfig foreign_client = stranger;
  foreign_client.ca_pem = pki.ca_cert;
  foreign_client.cert_pem = other.client_cert;  // signed by a CA the plugin does not know
  foreign_client.key_pem = other.client_key;
  CHECK(!p.Connect(foreign_client)->NodeGroups().ok());
}

TEST_CASE("a plugin restarted mid-run is reconnected", "[externalgrpc]") {
  Plugin p;
  REQUIRE(p.client->NodeGroups().ok());
  const int port = p.server->port();
  p.server->Shutdown();
  p.server.reset();
  REQUIRE(p.client->Refresh().code() == absl::StatusCode::kUnavailable);
  PluginServerOptions same_port;
  same_port.address = absl::StrCat("127.0.0.1:", port);
  auto restarted = PluginServer::Start(p.cloud, same_port);
  REQUIRE(restarted.ok());
  bool back = false;
  for (int attempt = 0; attempt < 50 && !back; ++attempt) {  // bounded: about 10 s at most
    back = p.client->Refresh().ok();
    if (!back) absl::SleepFor(absl::Milliseconds(200));
  }
  CHECK(back);
  CHECK(p.client->NodeGroups().ok());
}

// Serves the simulated cloud but breaks the template of some groups.
class BrokenTemplates : public externalgrpc::ProviderService {
 public:
  using ProviderService::ProviderService;
  grpc::Status NodeGroupTemplateNodeInfo(grpc::ServerContext* context,
                                         const pb::NodeGroupTemplateNodeInfoRequest* request,
                                         pb::NodeGroupTemplateNodeInfoResponse* response) override {
    if (request->id() == "h100") {
      response->set_nodebytes("\xff\xff garbage \x01");
      return grpc::Status::OK;
    }
    return ProviderService::NodeGroupTemplateNodeInfo(context, request, response);
  }
};

TEST_CASE("a garbage template is reported for its group, the others keep working",
          "[externalgrpc]") {
  ManualClock clock;
  SimulatedCloud cloud(*ParseNodeGroupFile(kGroups, "groups.yaml"), clock);
  auto server = PluginServer::Serve(std::make_unique<BrokenTemplates>(cloud), {});
  REQUIRE(server.ok());
  ExternalGrpcConfig config;
  config.address = absl::StrCat("127.0.0.1:", (*server)->port());
  MemoryLogSink quiet;
  auto client = *ExternalGrpcProvider::Create(config, quiet);
  auto groups = *client->NodeGroups();
  for (const auto& g : groups) {
    auto t = g->TemplateNode();
    if (g->Id() == "h100") {
      REQUIRE(!t.ok());
      CHECK_THAT(std::string(t.status().message()), Catch::Contains("node group h100: nodeBytes"));
    } else {
      CHECK(t.ok());
    }
  }
}

constexpr char kDraGroups[] = R"(
nodeGroups:
- id: h100-dra
  maxSize: 4
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB, nvidia.com/gpu.count: "2"}
      annotations: {gpu-autoscaler.io/dra-driver: gpu.nvidia.com}
    status: {allocatable: {cpu: "96", memory: 1Ti, pods: "110"}}
- id: plain
  maxSize: 2
  template:
    status: {allocatable: {cpu: "16", pods: "110"}}
)";

TEST_CASE("a template's ResourceSlices travel as resourceSliceBytes and read back whole",
          "[externalgrpc][dra]") {
  ManualClock clock;
  SimulatedCloud cloud(*ParseNodeGroupFile(kDraGroups, "groups.yaml"), clock);
  auto server = PluginServer::Start(cloud, {});
  REQUIRE(server.ok());
  ExternalGrpcConfig config;
  config.address = absl::StrCat("127.0.0.1:", (*server)->port());
  MemoryLogSink quiet;
  auto client = *ExternalGrpcProvider::Create(config, quiet);
  auto dra = FindNodeGroup(*client, "h100-dra");
  REQUIRE(dra.ok());
  auto t = (*dra)->TemplateNode();
  REQUIRE(t.ok());
  REQUIRE(t->resource_slices.size() == 1);
  const dra::ResourceSlice& got = *t->resource_slices[0];
  const dra::ResourceSlice& sent = *cloud.NodeGroups()->front()->TemplateNode()->resource_slices[0];
  CHECK(got.driver == "gpu.nvidia.com");
  REQUIRE(got.devices.size() == sent.devices.size());
  for (size_t i = 0; i < got.devices.size(); ++i) {
    CHECK(got.devices[i].name == sent.devices[i].name);
    CHECK(got.devices[i].attributes == sent.devices[i].attributes);
    CHECK(got.devices[i].capacity == sent.devices[i].capacity);
    CHECK(got.devices[i].consumes_counters.size() == sent.devices[i].consumes_counters.size());
  }
  CHECK(got.counter_sets.size() == 2);
  CHECK_FALSE(t->allocatable.Has("nvidia.com/gpu"));
  auto plain = FindNodeGroup(*client, "plain");
  REQUIRE(plain.ok());
  CHECK((*plain)->TemplateNode()->resource_slices.empty());
}

// Serves the simulated cloud with a broken slice for one group.
class BrokenSlices : public externalgrpc::ProviderService {
 public:
  using ProviderService::ProviderService;
  grpc::Status NodeGroupTemplateNodeInfo(grpc::ServerContext* context,
                                         const pb::NodeGroupTemplateNodeInfoRequest* request,
                                         pb::NodeGroupTemplateNodeInfoResponse* response) override {
    grpc::Status st = ProviderService::NodeGroupTemplateNodeInfo(context, request, response);
    if (request->id() == "h100-dra") {
      resourcev1::ResourceSlice slice;
      slice.ParseFromString(response->resourceslicebytes(0));
      (*slice.mutable_spec()->mutable_devices(0)->mutable_attributes())["productName"].set_int_(3);
      response->set_resourceslicebytes(0, slice.SerializeAsString());
      response->add_resourceslicebytes("\xff\xff not a slice");
    }
    return st;
  }
};

TEST_CASE("a plugin's broken slice is refused for its group, naming the device and field",
          "[externalgrpc][dra]") {
  ManualClock clock;
  SimulatedCloud cloud(*ParseNodeGroupFile(kDraGroups, "groups.yaml"), clock);
  auto server = PluginServer::Serve(std::make_unique<BrokenSlices>(cloud), {});
  REQUIRE(server.ok());
  ExternalGrpcConfig config;
  config.address = absl::StrCat("127.0.0.1:", (*server)->port());
  MemoryLogSink quiet;
  auto client = *ExternalGrpcProvider::Create(config, quiet);
  auto t = (*FindNodeGroup(*client, "h100-dra"))->TemplateNode();
  REQUIRE_FALSE(t.ok());
  CHECK_THAT(std::string(t.status().message()),
             Catch::Contains("node group h100-dra: resourceSliceBytes[0]: ResourceSlice "
                             "template-gpu.nvidia.com: spec.devices[0].attributes[productName]: "
                             "exactly one of int, bool, string and version must be set"));
  CHECK((*FindNodeGroup(*client, "plain"))->TemplateNode().ok());
  CHECK_FALSE(ResourceSliceFromBytes("\xff\xff", "x").ok());
}

TEST_CASE("a template without allocatable is refused, naming the group and the field",
          "[externalgrpc]") {
  corev1::Node node;
  node.mutable_metadata()->set_name("empty");
  auto t = NodeTemplateFromBytes(node.SerializeAsString(), "node group g: nodeBytes");
  REQUIRE(!t.ok());
  CHECK_THAT(std::string(t.status().message()),
             Catch::Contains("node group g: nodeBytes: status.allocatable: missing"));
  (*node.mutable_status()->mutable_allocatable())["cpu"].set_string("lots");
  t = NodeTemplateFromProto(node, "node group g: nodeBytes");
  REQUIRE(!t.ok());
  CHECK_THAT(std::string(t.status().message()), Catch::Contains("status.allocatable[cpu]"));
}

// Lists groups a client cannot use next to a good one.
class OddGroups : public pb::CloudProvider::Service {
 public:
  grpc::Status NodeGroups(grpc::ServerContext*, const pb::NodeGroupsRequest*,
                          pb::NodeGroupsResponse* response) override {
    const auto add = [&](const std::string& id, int min, int max) {
      pb::NodeGroup* g = response->add_nodegroups();
      g->set_id(id);
      g->set_minsize(min);
      g->set_maxsize(max);
    };
    add("good", 0, 3);
    add("", 0, 3);
    add("inverted", 5, 2);
    add("good", 0, 3);
    return grpc::Status::OK;
  }
};

TEST_CASE("groups a plugin lists wrongly are left out and named, the good ones stay",
          "[externalgrpc]") {
  auto server = PluginServer::Serve(std::make_unique<OddGroups>(), {});
  REQUIRE(server.ok());
  ExternalGrpcConfig config;
  config.address = absl::StrCat("127.0.0.1:", (*server)->port());
  MemoryLogSink log;
  auto client = *ExternalGrpcProvider::Create(config, log);
  auto groups = client->NodeGroups();
  REQUIRE(groups.ok());
  REQUIRE(groups->size() == 1);
  CHECK((*groups)[0]->Id() == "good");
  const std::vector<std::string> ignored = client->IgnoredGroups();
  REQUIRE(ignored.size() == 3);
  CHECK_THAT(ignored[0], Catch::Contains("empty id"));
  CHECK_THAT(ignored[1], Catch::Contains("node group inverted: maxSize 2 is below minSize 5"));
  CHECK_THAT(ignored[2], Catch::Contains("listed twice"));
  CHECK(log.lines().size() == 3);
}

std::string WriteCloudConfig(int port) {
  return testing::CloudConfigFor(port, "gpua-plugin-check-" + std::to_string(port) + ".yaml");
}

TEST_CASE("plugin-check passes a healthy plugin and lists what is wrong with a broken one",
          "[externalgrpc][plugin-check]") {
  ManualClock clock;
  SimulatedCloud cloud(*ParseNodeGroupFile(kGroups, "groups.yaml"), clock);
  {
    auto healthy = PluginServer::Start(cloud, {});
    REQUIRE(healthy.ok());
    std::ostringstream out, err;
    const int rc = testing::RunCommand(
        RunPluginCheckCommand, {"--cloud-config", WriteCloudConfig((*healthy)->port()), "--mutate"},
        out, err);
    INFO(out.str() << err.str());
    CHECK(rc == 0);
    CHECK_THAT(out.str(), Catch::Contains("NodeGroupTemplateNodeInfo") &&
                              Catch::Contains("nvidia.com/gpu: 8") &&
                              Catch::Contains("no problems found"));
  }
  auto broken = PluginServer::Serve(std::make_unique<BrokenTemplates>(cloud), {});
  REQUIRE(broken.ok());
  std::ostringstream out, err;
  const int rc = testing::RunCommand(
      RunPluginCheckCommand, {"--cloud-config", WriteCloudConfig((*broken)->port())}, out, err);
  CHECK(rc == 1);
  CHECK_THAT(out.str(), Catch::Contains("1 problem(s)") &&
                            Catch::Contains("node group h100: nodeBytes: not a serialized"));
}

TEST_CASE("plugin-check refuses a missing or bad cloud-config", "[plugin-check]") {
  std::ostringstream out, err;
  CHECK(testing::RunCommand(RunPluginCheckCommand, {}, out, err) == 2);
  CHECK(testing::RunCommand(RunPluginCheckCommand, {"--cloud-config", "/nonexistent/cc.yaml"}, out,
                            err) == 2);
  CHECK_THAT(err.str(), Catch::Contains("/nonexistent/cc.yaml"));
}

}  // namespace
}  // namespace gpua
