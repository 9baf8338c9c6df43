// The controller as the binary runs it: flags, the lease, the informers, a gRPC plugin, and
// /metrics and /health-check, in real time on loopback.
#include "autoscaler/cli/controller_runner.h"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "autoscaler/cli/controller_flags.h"
#include "cloudproviders/externalgrpc/plugin_server.h"
#include "cloudproviders/node_group_file.h"
#include "cloudproviders/simulated/simulated_cloud.h"
#include "tests/support/config_files.h"
#include "tests/support/eventually.h"
#include "tests/support/fake_api_server.h"
#include "tests/support/pod_json.h"
#include "tests/support/temp_file.h"

namespace gpua::testing {
namespace {

constexpr char kGroups[] = R"(
nodeGroups:
- id: h100
  maxSize: 4
  pricePerHour: 98.32
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}
    status:
      allocatable: {cpu: "190", memory: 1900Gi, pods: "110", nvidia.com/gpu: "8"}
  simulation:
    provisioningDelay: {p50: 1h, p95: 1h}
)";

nlohmann::json PendingPod(const std::string& name) {
  return UnschedulablePodJson(name, "uid-" + name, {{"nvidia.com/gpu", "8"}});
}

// One replica of the controller in a thread, as a Deployment's pod would run it.
struct Replica {
  // What one loop that ran saw and did, on the controller's clock.
  struct Loop {
    absl::Time start;
    int unneeded = 0;
    int deleted = 0;
  };
  std::atomic<bool> stop{false};
  std::atomic<int> loops{0};
  absl::Mutex mu;
  std::vector<Loop> ran ABSL_GUARDED_BY(mu);
  std::atomic<int> port{0};
  std::atomic<int> exit_code{-1};
  MemoryLogSink log;
  std::thread thread;

  Replica(const CommandArgs& args, Clock& clock) {
    bool help = false;
    std::string usage;
    absl::StatusOr<ControllerConfig> config = ParseControllerFlags(args, &help, &usage);
    REQUIRE(config.ok());
    thread = std::thread([this, config = *config, &clock] {
      std::ostringstream out, err;
      RunnerHooks hooks;
      hooks.loop_done = [this](const LoopReport& r) {
        if (!r.skipped.empty()) return;
        absl::MutexLock lock(&mu);
        ran.push_back({r.start, r.unneeded, static_cast<int>(r.removals.deleted.size())});
        ++loops;
      };
      hooks.serving = [this](int p) { port = p; };
      exit_code = RunController(config, {out, err, clock}, log, stop, hooks);
    });
  }
  ~Replica() { Stop(); }
  void Stop() {
    stop = true;
    if (thread.joinable()) thread.join();
  }
};

struct Cluster {
  RealClock clock;
  SimulatedCloud cloud;
  FakeApiServer server;
  std::unique_ptr<externalgrpc::PluginServer> plugin;
  std::string kubeconfig, cloud_config;

  explicit Cluster(const std::string& name, const std::string& groups = kGroups)
      : cloud(*ParseNodeGroupFile(groups, "groups.yaml"), clock) {
    auto started = externalgrpc::PluginServer::Start(cloud, {});
    REQUIRE(started.ok());
    plugin = *std::move(started);
    kubeconfig = KubeconfigFor(server.url(), name + ".kubeconfig");
    cloud_config = CloudConfigFor(plugin->port(), name + ".cloud-config");
  }
  CommandArgs Args() const {
    return {"--cloud-provider=externalgrpc",
            "--cloud-config",
            cloud_config,
            "--kubeconfig",
            kubeconfig,
            "--scan-interval=1s",
            "--address=127.0.0.1:0",
            "--leader-elect-lease-duration=2s",
            "--leader-elect-renew-deadline=1s",
            "--leader-elect-retry-period=200ms",
            "--balance-similar-node-groups=false",
            "--logtostderr"};
  }
  // Args() at the default scan interval, 10s.
  CommandArgs DefaultScanArgs() const {
    CommandArgs args = Args();
    args.erase(std::find(args.begin(), args.end(), "--scan-interval=1s"));
    return args;
  }
  int Target() { return *(*FindNodeGroup(cloud, "h100"))->TargetSize(); }
};

std::string Get(int port, const std::string& path, int* status) {
  httplib::Client client("127.0.0.1", port);
  auto res = client.Get(path.c_str());
  *status = res ? res->status : 0;
  return res ? res->body : "";
}

// `promtool check metrics` on the text; its output, and whether it passed.
bool Promtool(const std::string& metrics, std::string* output) {
  const auto file = std::filesystem::temp_directory_path() / "gpua-metrics.prom";
  std::ofstream(file) << metrics;
  FILE* p = popen(absl::StrCat("promtool check metrics < '", file.string(), "' 2>&1").c_str(), "r");
  REQUIRE(p != nullptr);
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), p)) > 0) output->append(buffer, n);
  return pclose(p) == 0;
}

TEST_CASE("two replicas, one lease: only the leader acts, and the other takes over when it stops",
          "[controller][runner][lease]") {
  Cluster c("gpua-two-replicas");
  c.server.Upsert("pods", PendingPod("train-0"));
  Replica a(c.Args(), c.clock), b(c.Args(), c.clock);
  REQUIRE(Eventually([&] { return c.Target() == 1; }, absl::Seconds(20)));
  REQUIRE(Eventually([&] { return a.loops + b.loops >= 3; }, absl::Seconds(10)));
  CHECK(c.Target() == 1);  // asked for once, not once per replica
  CHECK((a.loops == 0) != (b.loops == 0));
  Replica& leader = a.loops > 0 ? a : b;
  Replica& follower = a.loops > 0 ? b : a;
  const auto lease = c.server.Get("leases", "kube-system", "cluster-autoscaler");
  REQUIRE(lease.has_value());
  leader.Stop();
  CHECK(leader.exit_code == 0);
  REQUIRE(Eventually([&] { return follower.loops > 0; }, absl::Seconds(20)));
  CHECK(c.Target() == 1);  // the pod's node is on its way: nothing asked twice
}

TEST_CASE("/metrics passes promtool with cluster-autoscaler's names, /health-check is OK",
          "[controller][runner][metrics]") {
  Cluster c("gpua-metrics");
  c.server.Upsert("pods", PendingPod("train-0"));
  Replica r(c.Args(), c.clock);
  REQUIRE(Eventually([&] { return r.loops >= 2 && r.port > 0; }, absl::Seconds(20)));
  int status = 0;
  const std::string metrics = Get(r.port, "/metrics", &status);
  REQUIRE(status == 200);
  for (const char* name :
       {"cluster_autoscaler_nodes_count{state=\"ready\"}",
        "cluster_autoscaler_unschedulable_pods_count",
        "cluster_autoscaler_node_group_target_count{node_group=\"h100\"} 1",
        "cluster_autoscaler_scaled_up_nodes_total 1",
        "cluster_autoscaler_function_duration_seconds_bucket{function=\"main\"",
        "cluster_autoscaler_last_activity{activity=\"scaleUp\"}", "cluster_autoscaler_errors_total",
        "gpu_autoscaler_gpus{node_group=\"h100\",state=\"upcoming\"} 8",
        "gpu_autoscaler_pending_gpu_pods 1",
        "gpu_autoscaler_node_group_cost_per_hour{node_group=\"h100\"} 98.32"}) {
    INFO(name);
    CHECK(metrics.find(name) != std::string::npos);
  }
  std::string lint;
  INFO(lint);
  CHECK(Promtool(metrics, &lint));
  CHECK(lint.empty());
  CHECK(Get(r.port, "/health-check", &status) == "OK");
  CHECK(status == 200);
}

// One H100 node up, with an idle timeout of three seconds.
constexpr char kRunningNode[] = R"(
nodeGroups:
- id: h100
  maxSize: 4
  targetSize: 1
  pricePerHour: 98.32
  template:
    metadata:
      labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3, nvidia.com/gpu.count: "8"}
    status:
      allocatable: {cpu: "190", memory: 1900Gi, pods: "110", nvidia.com/gpu: "8"}
  options: {scaleDownUnneededTime: 3s}
)";

nlohmann::json ReadyH100Node(const std::string& name, const std::string& provider_id,
                             absl::Time created) {
  const nlohmann::json resources = {
      {"cpu", "190"}, {"memory", "1900Gi"}, {"pods", "110"}, {"nvidia.com/gpu", "8"}};
  return {
      {"metadata",
       {{"name", name},
        {"creationTimestamp", absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", created, absl::UTCTimeZone())},
        {"labels",
         {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"}, {"nvidia.com/gpu.count", "8"}}}}},
      {"spec", {{"providerID", provider_id}}},
      {"status",
       {{"allocatable", resources},
        {"capacity", resources},
        {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}};
}

TEST_CASE(
    "with a 10s scan interval, the pool is back at zero within its idle timeout and a few "
    "seconds of its GPU work ending",
    "[controller][runner][scale-down]") {
  Cluster c("gpua-idle-to-zero", kRunningNode);
  c.server.Upsert("nodes", ReadyH100Node("h100-0", "sim://h100/0", c.clock.Now() - absl::Hours(1)));
  nlohmann::json train = PendingPod("train-0");
  train["spec"]["nodeName"] = "h100-0";
  train["status"] = {{"phase", "Running"}};
  c.server.Upsert("pods", train);
  Replica r(c.DefaultScanArgs(), c.clock);
  // Busy: judged in two loops, kept in both.
  REQUIRE(Eventually([&] { return r.loops >= 2; }, absl::Seconds(30)));
  CHECK(c.Target() == 1);
  c.server.Delete("pods", "ml", "train-0");
  REQUIRE(Eventually([&] { return c.Target() == 0; }, absl::Seconds(30)));
  r.Stop();
  // The schedule the loops kept, on the controller's own clock: no wall-clock bound.
  absl::MutexLock lock(&r.mu);
  const std::vector<Replica::Loop>& ran = r.ran;
  size_t first_unneeded = 0, removal = 0;
  while (first_unneeded < ran.size() && ran[first_unneeded].unneeded == 0) ++first_unneeded;
  while (removal < ran.size() && ran[removal].deleted == 0) ++removal;
  REQUIRE(first_unneeded >= 2);  // the two busy loops found nothing unneeded
  REQUIRE(removal < ran.size());
  REQUIRE(removal > first_unneeded);
  const absl::Duration scan = absl::Seconds(10);
  INFO("unneeded from " << ran[first_unneeded].start << ", removed at " << ran[removal].start);
  // The pod leaving woke a loop before the next scan, and so did the idle timeout's end.
  CHECK(ran[first_unneeded].start - ran[first_unneeded - 1].start < scan);
  CHECK(ran[removal].start - ran[removal - 1].start < scan);
  // Removed only once its 3s idle timeout had passed, and in the first loop after it did.
  CHECK(ran[removal].start - ran[first_unneeded].start >= absl::Seconds(3));
  CHECK(ran[removal - 1].start - ran[first_unneeded].start < absl::Seconds(3));
}

TEST_CASE(
    "with a 10s scan interval, a node registering wakes a loop before the next scan (a MIG "
    "node's layout label waits on it)",
    "[controller][runner]") {
  Cluster c("gpua-node-wakes", kRunningNode);
  c.server.Upsert("nodes", ReadyH100Node("h100-0", "sim://h100/0", c.clock.Now() - absl::Hours(1)));
  Replica r(c.DefaultScanArgs(), c.clock);
  REQUIRE(Eventually([&] { return r.loops >= 1; }, absl::Seconds(30)));
  c.server.Upsert("nodes", ReadyH100Node("h100-1", "sim://h100/1", c.clock.Now()));
  REQUIRE(Eventually([&] { return r.loops >= 2; }, absl::Seconds(30)));
  r.Stop();
  absl::MutexLock lock(&r.mu);
  // The controller's own clock: the second loop began well before a scan interval passed.
  CHECK(r.ran[1].start - r.ran[0].start < absl::Seconds(10));
}

TEST_CASE("SIGTERM ends the controller while its exec credential plugin hangs",
          "[controller][runner][shutdown]") {
  // The plugin never answers: every request, the lease's first, waits on it.
  const std::string kubeconfig = WriteTempFile("hung-exec.kubeconfig", R"(
apiVersion: v1
kind: Config
current-context: hung
contexts: [{name: hung, context: {cluster: local, user: plugin}}]
clusters: [{name: local, cluster: {server: "https://127.0.0.1:1"}}]
users: [{name: plugin, user: {exec: {apiVersion: client.authentication.k8s.io/v1, command: sleep, args: ["3600"]}}}]
)");
  const std::string groups = WriteTempFile("hung-exec-groups.yaml", kGroups);
  bool help = false;
  std::string usage;
  absl::StatusOr<ControllerConfig> config =
      ParseControllerFlags({"--kubeconfig=" + kubeconfig, "--cloud-provider=simulated",
                            "--cloud-config=" + groups, "--address=127.0.0.1:0"},
                           &help, &usage);
  REQUIRE(config.ok());
  RealClock clock;
  std::atomic<bool> stop{false}, returned{false};
  MemoryLogSink log;
  std::thread controller([&] {
    std::ostringstream out, err;
    RunController(*config, {out, err, clock}, log, stop);
    returned = true;
  });
  clock.SleepFor(absl::Seconds(1));  // campaigning, inside the plugin
  stop = true;                       // as the SIGTERM handler does
  // The plugin's own deadline is 30s: returning well before it shows it was killed.
  const bool ended = Eventually([&] { return returned.load(); }, absl::Seconds(10));
  if (!ended) {
    controller.detach();  // let the run report the hang rather than wait on it
    FAIL("the controller was still running 10s after SIGTERM");
  }
  controller.join();
}

}  // namespace
}  // namespace gpua::testing
