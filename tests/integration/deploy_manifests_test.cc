// deploy/ as a cluster gets it: every overlay rendered by `kubectl kustomize`, the
// Deployment's args through the binary's own flag parser, the pod hardened as the restricted
// Pod Security profile asks, and RBAC held against what the controller really does: it runs
// with each overlay's args against the fake API server, which records every request as RBAC
// sees it, and each request must be granted and each grant used.
#include <yaml-cpp/yaml.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "autoscaler/cli/controller_flags.h"
#include "autoscaler/cli/controller_runner.h"
#include "autoscaler/kube/api_client.h"
#include "autoscaler/kube/api_kube_writer.h"
#include "autoscaler/kube/cluster_api_watch.h"
#include "autoscaler/kube/rest_config.h"
#include "base/file.h"
#include "cloudproviders/externalgrpc/cloud_config.h"
#include "cloudproviders/externalgrpc/plugin_server.h"
#include "cloudproviders/node_group_file.h"
#include "cloudproviders/simulated/simulated_cloud.h"
#include "tests/support/config_files.h"
#include "tests/support/eventually.h"
#include "tests/support/fake_api_client.h"
#include "tests/support/fake_api_server.h"
#include "tests/support/test_pki.h"

namespace gpua::testing {
namespace {

namespace fs = std::filesystem;
using Access = FakeApiServer::Access;

const fs::path kDeploy = fs::path(GPUA_SOURCE_DIR) / "deploy";
const char* const kOverlays[] = {"externalgrpc", "simulated", "clusterapi"};

std::string Run(const std::string& command, int* exit_code) {
  FILE* p = popen(command.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), p)) > 0) out.append(buffer, n);
  *exit_code = pclose(p);
  return out;
}

// The overlay as `kubectl kustomize` renders it: one node per object.
std::vector<YAML::Node> Render(const std::string& overlay) {
  int code = 0;
  Run("command -v kubectl", &code);
  if (code != 0) {
    FAIL(
        "kubectl is not on PATH: the manifests are rendered with `kubectl kustomize` "
        "(kubectl v1.32 with kustomize v5.5; Debian 12 packages no kustomize)");
  }
  const std::string yaml =
      Run(absl::StrCat("kubectl kustomize '", (kDeploy / "overlays" / overlay).string(), "' 2>&1"),
          &code);
  INFO(yaml);
  REQUIRE(code == 0);
  std::vector<YAML::Node> objects = YAML::LoadAll(yaml);
  REQUIRE(!objects.empty());
  return objects;
}

YAML::Node Find(const std::vector<YAML::Node>& objects, const std::string& kind) {
  for (const YAML::Node& o : objects) {
    if (o["kind"].as<std::string>() == kind) return o;
  }
  FAIL("no " << kind << " rendered");
  return {};
}

YAML::Node Container(const YAML::Node& deployment, const std::string& name) {
  for (const YAML::Node& c : deployment["spec"]["template"]["spec"]["containers"]) {
    if (c["name"].as<std::string>() == name) return c;
  }
  FAIL("the Deployment has no container " << name);
  return {};
}

CommandArgs ArgsOf(const YAML::Node& container) {
  CommandArgs args;
  for (const YAML::Node& a : container["args"]) args.push_back(a.as<std::string>());
  return args;
}

std::set<std::string> Strings(const YAML::Node& list) {
  std::set<std::string> out;
  for (const YAML::Node& s : list) out.insert(s.as<std::string>());
  return out;
}

// One RBAC rule; a Role's apply in its namespace only.
struct Rule {
  std::set<std::string> groups, resources, verbs, names;
  std::string ns;  // "" for a ClusterRole's
  std::string source;

  bool Allows(const Access& a) const {
    return (ns.empty() || ns == a.ns) && groups.count(a.api_group) && resources.count(a.resource) &&
           verbs.count(a.verb) && (names.empty() || names.count(a.name));
  }
};

std::vector<Rule> RulesOf(const std::vector<YAML::Node>& objects) {
  std::vector<Rule> rules;
  for (const std::string kind : {"ClusterRole", "Role"}) {
    const YAML::Node role = Find(objects, kind);
    const std::string ns = kind == "Role" ? role["metadata"]["namespace"].as<std::string>() : "";
    for (const YAML::Node& r : role["rules"]) {
      rules.push_back({Strings(r["apiGroups"]), Strings(r["resources"]), Strings(r["verbs"]),
                       Strings(r["resourceNames"]), ns, YAML::Dump(r)});
    }
  }
  return rules;
}

std::string Describe(const Access& a) {
  return absl::StrCat(a.verb, " ", a.api_group.empty() ? "core" : a.api_group, "/", a.resource,
                      a.ns.empty() ? "" : " in " + a.ns, a.name.empty() ? "" : " named " + a.name);
}

// Every request granted; every grant (each verb of each resource, and name) requested.
void CheckLeastPrivilege(const std::vector<Rule>& rules, const std::vector<Access>& accesses) {
  for (const Access& a : accesses) {
    // API discovery (/apis/<group>): every authenticated user's, by the system:discovery role.
    if (absl::StartsWith(a.resource, "/apis/") && a.verb == "list") continue;
    bool allowed = false;
    for (const Rule& r : rules) allowed = allowed || r.Allows(a);
    INFO("the controller made a request no rule grants: " << Describe(a));
    CHECK(allowed);
  }
  for (const Rule& r : rules) {
    CHECK(!r.groups.count("*"));
    CHECK(!r.resources.count("*"));
    CHECK(!r.verbs.count("*"));
    for (const std::string& g : r.groups) {
      for (const std::string& res : r.resources) {
        for (const std::string& v : r.verbs) {
          std::set<std::string> names = r.names;
          if (names.empty()) names.insert("");
          for (const std::string& name : names) {
            bool used = false;
            for (const Access& a : accesses) {
              used = used || (a.api_group == g && a.resource == res && a.verb == v &&
                              (name.empty() || a.name == name) && (r.ns.empty() || a.ns == r.ns));
            }
            INFO("granted but never used: " << v << " " << (g.empty() ? "core" : g) << "/" << res
                                            << (name.empty() ? "" : " named " + name) << " in\n"
                                            << r.source);
            CHECK(used);
          }
        }
      }
    }
  }
}

nlohmann::json PendingGpuPod(const std::string& ns, const std::string& name) {
  return {{"metadata", {{"name", name}, {"namespace", ns}, {"uid", "uid-" + name}}},
          {"spec",
           {{"tolerations", {{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}}}},
            {"containers",
             {{{"name", "main"}, {"resources", {{"requests", {{"nvidia.com/gpu", "1"}}}}}}}}}},
          {"status",
           {{"phase", "Pending"},
            {"conditions",
             {{{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"}}}}}}};
}

// Its hands on nodes and pods, each once: what scale-down, spot handling and MIG layouts do,
// which a few loops of an idle test cluster do not all reach.
void ExerciseNodeAndPodWrites(FakeApiServer& server, MemoryLogSink& log) {
  RealClock clock;
  server.Upsert("nodes", {{"metadata", {{"name", "gpu-1"}}}, {"spec", nlohmann::json::object()}});
  server.Upsert("pods", {{"metadata", {{"name", "train-0"}, {"namespace", "ml"}}},
                         {"spec", {{"nodeName", "gpu-1"}}}});
  const std::string kubeconfig = KubeconfigFor(server.url(), absl::StrCat("writer-", getpid()));
  absl::StatusOr<kube::RestConfig> rest = kube::ResolveRestConfig(kubeconfig, "", kube::ProcessEnv);
  REQUIRE(rest.ok());
  auto client = kube::ApiClient::Create(*rest, clock, {});
  REQUIRE(client.ok());
  kube::ApiKubeWriter writer(**client, clock, "gpu-autoscaler", log);
  CHECK(writer
            .AddTaint("gpu-1",
                      {"DeletionCandidateOfClusterAutoscaler", "1", TaintEffect::kPreferNoSchedule})
            .ok());
  CHECK(writer.RemoveTaint("gpu-1", "DeletionCandidateOfClusterAutoscaler").ok());
  CHECK(writer.SetUnschedulable("gpu-1", true).ok());
  CHECK(writer.Annotate("gpu-1", "gpu-autoscaler.io/removal-reason", "idle").ok());
  CHECK(writer.Label("gpu-1", "nvidia.com/mig.config", "all-1g.10gb").ok());
  CHECK(writer.Evict("ml", "train-0", absl::Seconds(30)).ok());
  CHECK(writer.Nominate("ml", "infer-0", "gpu-1").ok());
  CHECK((*server.Get("pods", "ml", "infer-0"))["status"]["nominatedNodeName"] == "gpu-1");
  const EventRecord event{{"Node", "", "gpu-1", "uid"}, "Normal", "ScaleDown", "node removed"};
  CHECK(writer.RecordEvent(event).ok());
  CHECK(writer.RecordEvent(event).ok());  // a repeat is counted on the same Event
  writer.Flush();                         // Events go out from a queue
  CHECK(writer.DeleteNode("gpu-1").ok());
}

// `--name=value` in place of the Deployment's own value, if it has one: a flag is given once.
void SetFlag(CommandArgs& args, const std::string& flag) {
  const std::string name = flag.substr(0, flag.find('=') + 1);
  std::erase_if(args, [&](const std::string& given) { return absl::StartsWith(given, name); });
  args.push_back(flag);
}

// The controller with a Deployment's args (plus what points it at the test's cluster) until
// its status ConfigMap has been written twice (created, then updated) and the lease renewed.
void RunAsDeployed(CommandArgs args, FakeApiServer& server, const std::string& status_name,
                   MemoryLogSink& log) {
  const std::string kubeconfig = KubeconfigFor(server.url(), absl::StrCat("deploy-", getpid()));
  for (const std::string& a :
       {"--kubeconfig=" + kubeconfig, std::string("--address=127.0.0.1:0"),
        std::string("--scan-interval=1s"), std::string("--leader-elect-lease-duration=2s"),
        std::string("--leader-elect-renew-deadline=1s"),
        std::string("--leader-elect-retry-period=200ms")}) {
    SetFlag(args, a);
  }
  bool help = false;
  std::string usage;
  absl::StatusOr<ControllerConfig> config = ParseControllerFlags(args, &help, &usage);
  INFO(config.status().message());
  REQUIRE(config.ok());
  RealClock clock;
  std::atomic<bool> stop{false};
  std::atomic<int> loops{0};
  std::thread controller([&] {
    std::ostringstream out, err;
    RunnerHooks hooks;
    hooks.loop_done = [&](const LoopReport& r) { loops += r.skipped.empty(); };
    RunController(*config, {out, err, clock}, log, stop, hooks);
  });
  const bool ran = Eventually([&] { return loops >= 3; }, absl::Seconds(30));
  stop = true;
  controller.join();
  INFO(absl::StrJoin(log.lines(), "\n"));
  REQUIRE(ran);
  REQUIRE(server.Get("configmaps", "kube-system", status_name).has_value());
}

TEST_CASE("every overlay's Deployment runs the binary with flags its own parser accepts",
          "[deploy]") {
  for (const char* overlay : kOverlays) {
    INFO("overlay " << overlay);
    const YAML::Node deployment = Find(Render(overlay), "Deployment");
    bool help = false;
    std::string usage;
    absl::StatusOr<ControllerConfig> config =
        ParseControllerFlags(ArgsOf(Container(deployment, "gpu-autoscaler")), &help, &usage);
    INFO(config.status().message());
    REQUIRE(config.ok());
    CHECK(config->notes.empty());  // no flag that would have no effect
    CHECK(config->leader_elect);
    CHECK(config->address == ":8085");
  }
}

// The default `--help` states for a flag ("" when it states none).
std::string DocumentedDefault(const std::string& usage, const std::string& flag) {
  const size_t at = usage.find(absl::StrCat("  --", flag, " "));
  if (at == std::string::npos) return "";
  const size_t line_end = usage.find('\n', usage.find('\n', at) + 1);
  const std::string entry = usage.substr(at, line_end - at);
  const size_t open = entry.rfind("(default ");
  if (open == std::string::npos) return "";
  return entry.substr(open + 9, entry.rfind(')') - open - 9);
}

TEST_CASE("deploy/base changes no documented default without a comment that says why", "[deploy]") {
  bool help = false;
  std::string usage;
  REQUIRE(ParseControllerFlags({"--help"}, &help, &usage).ok());
  std::ifstream in(kDeploy / "base" / "deployment.yaml");
  REQUIRE(in);
  std::string line, previous;
  int flags = 0;
  while (std::getline(in, line)) {
    const absl::string_view text = absl::StripAsciiWhitespace(line);
    if (absl::StartsWith(text, "- --")) {
      ++flags;
      const std::string arg(text.substr(4));
      const size_t eq = arg.find('=');
      REQUIRE(eq != std::string::npos);
      const std::string name = arg.substr(0, eq), value = arg.substr(eq + 1);
      INFO("--" << name << "=" << value << ", documented default \""
                << DocumentedDefault(usage, name) << "\"");
      if (value != DocumentedDefault(usage, name)) {
        CHECK(absl::StartsWith(absl::StripAsciiWhitespace(previous), "#"));
      }
    }
    previous = line;
  }
  CHECK(flags > 5);
}

TEST_CASE("the Deployment is hardened, highly available and never evicted by an autoscaler",
          "[deploy]") {
  const std::vector<YAML::Node> objects = Render("externalgrpc");
  const YAML::Node deployment = Find(objects, "Deployment");
  const YAML::Node pod = deployment["spec"]["template"];
  CHECK(deployment["spec"]["replicas"].as<int>() == 2);
  CHECK(pod["metadata"]["annotations"]["cluster-autoscaler.kubernetes.io/safe-to-evict"]
            .as<std::string>() == "false");
  CHECK(pod["spec"]["priorityClassName"].as<std::string>() == "system-cluster-critical");
  const YAML::Node security = pod["spec"]["securityContext"];
  CHECK(security["runAsNonRoot"].as<bool>());
  CHECK(security["runAsUser"].as<int>() != 0);
  CHECK(security["seccompProfile"]["type"].as<std::string>() == "RuntimeDefault");
  for (const YAML::Node& c : pod["spec"]["containers"]) {
    INFO("container " << c["name"].as<std::string>());
    const YAML::Node s = c["securityContext"];
    CHECK_FALSE(s["allowPrivilegeEscalation"].as<bool>());
    CHECK(s["readOnlyRootFilesystem"].as<bool>());
    CHECK(Strings(s["capabilities"]["drop"]) == std::set<std::string>{"ALL"});
    CHECK(!s["capabilities"]["add"]);
    CHECK(c["resources"]["requests"]["cpu"]);
    CHECK(c["resources"]["requests"]["memory"]);
    CHECK(c["image"].as<std::string>().find(':') != std::string::npos);  // a tag, not latest
  }
  const YAML::Node main = Container(deployment, "gpu-autoscaler");
  CHECK(main["livenessProbe"]["httpGet"]["path"].as<std::string>() == "/health-check");
  CHECK(main["livenessProbe"]["httpGet"]["port"].as<std::string>() == "metrics");
  CHECK(main["ports"][0]["containerPort"].as<int>() == 8085);

  // The budget, the Service and the bindings point at what exists.
  const YAML::Node labels = pod["metadata"]["labels"];
  const auto selects = [&](const YAML::Node& selector) {
    REQUIRE(selector.IsMap());
    REQUIRE(selector.size() > 0);
    for (const auto& kv : selector) {
      if (!labels[kv.first.as<std::string>()] ||
          labels[kv.first.as<std::string>()].as<std::string>() != kv.second.as<std::string>())
        return false;
    }
    return true;
  };
  CHECK(selects(Find(objects, "PodDisruptionBudget")["spec"]["selector"]["matchLabels"]));
  CHECK(Find(objects, "PodDisruptionBudget")["spec"]["maxUnavailable"].as<int>() == 1);
  const YAML::Node service = Find(objects, "Service");
  CHECK(selects(service["spec"]["selector"]));
  CHECK(service["spec"]["ports"][0]["targetPort"].as<std::string>() == "metrics");
  for (const char* overlay : kOverlays) {
    INFO("overlay " << overlay);
    const std::vector<YAML::Node> rendered = Render(overlay);
    const std::string account =
        Find(rendered, "ServiceAccount")["metadata"]["name"].as<std::string>();
    CHECK(Find(rendered, "Deployment")["spec"]["template"]["spec"]["serviceAccountName"]
              .as<std::string>() == account);
    for (const auto& [binding, role] :
         {std::pair{"ClusterRoleBinding", "ClusterRole"}, std::pair{"RoleBinding", "Role"}}) {
      const YAML::Node b = Find(rendered, binding);
      CHECK(b["roleRef"]["name"].as<std::string>() ==
            Find(rendered, role)["metadata"]["name"].as<std::string>());
      CHECK(b["subjects"][0]["name"].as<std::string>() == account);
      CHECK(b["subjects"][0]["namespace"].as<std::string>() == "kube-system");
    }
  }
}

TEST_CASE(
    "the externalgrpc overlay: its plugin over mutual TLS, and RBAC exactly what the "
    "controller uses",
    "[deploy][rbac]") {
  const std::vector<YAML::Node> objects = Render("externalgrpc");
  const fs::path overlay = kDeploy / "overlays" / "externalgrpc";

  // The sidecar's groups, served by a plugin with the Secrets' files, as the pod runs it.
  absl::StatusOr<std::vector<NodeGroupConfig>> groups =
      LoadNodeGroupFile((overlay / "plugin-node-groups.yaml").string());
  REQUIRE(groups.ok());
  RealClock clock;
  SimulatedCloud cloud(*groups, clock);
  const TestPki pki = MakeTestPki();
  externalgrpc::PluginServerOptions tls;
  tls.cert_pem = pki.server_cert;
  tls.key_pem = pki.server_key;
  tls.client_ca_pem = pki.ca_cert;
  auto plugin = externalgrpc::PluginServer::Start(cloud, tls);
  REQUIRE(plugin.ok());

  // The overlay's cloud-config, its certificate paths where the test put the client Secret.
  const fs::path secret = fs::temp_directory_path() / absl::StrCat("gpua-client-tls-", getpid());
  fs::create_directories(secret);
  std::ofstream(secret / "ca.crt") << pki.ca_cert;
  std::ofstream(secret / "tls.crt") << pki.client_cert;
  std::ofstream(secret / "tls.key") << pki.client_key;
  absl::StatusOr<std::string> text = ReadFile((overlay / "cloud-config.yaml").string());
  REQUIRE(text.ok());
  const std::string cloud_config =
      absl::StrReplaceAll(*text, {{"127.0.0.1:8086", absl::StrCat("127.0.0.1:", (*plugin)->port())},
                                  {"/etc/gpu-autoscaler/tls", secret.string()}});
  REQUIRE(ParseExternalGrpcConfig(cloud_config, "cloud-config.yaml").ok());
  const fs::path cloud_config_file = secret / "cloud-config.yaml";
  std::ofstream(cloud_config_file) << cloud_config;

  FakeApiServer server;
  server.Upsert("pods", PendingGpuPod("ml", "infer-0"));
  MemoryLogSink log;
  CommandArgs args = ArgsOf(Container(Find(objects, "Deployment"), "gpu-autoscaler"));
  SetFlag(args, "--cloud-config=" + cloud_config_file.string());
  RunAsDeployed(args, server, "cluster-autoscaler-status", log);
  CHECK(*(*FindNodeGroup(cloud, "l4-spot"))->TargetSize() == 1);  // it reached the plugin

  ExerciseNodeAndPodWrites(server, log);
  CheckLeastPrivilege(RulesOf(objects), server.accesses());
}

// A Cluster API scalable resource of `kind` with cluster-autoscaler's annotations for a pool of
// 1xL4 nodes at zero.
nlohmann::json L4Scalable(const std::string& kind, const std::string& name) {
  return {{"apiVersion", "cluster.x-k8s.io/v1beta1"},
          {"kind", kind},
          {"metadata",
           {{"name", name},
            {"namespace", "gpu"},
            {"uid", "uid-" + name},
            {"annotations",
             {{"cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size", "0"},
              {"cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size", "4"},
              {"capacity.cluster-autoscaler.kubernetes.io/cpu", "16"},
              {"capacity.cluster-autoscaler.kubernetes.io/memory", "64Gi"},
              {"capacity.cluster-autoscaler.kubernetes.io/gpu-type", "nvidia.com/gpu"},
              {"capacity.cluster-autoscaler.kubernetes.io/gpu-count", "1"},
              {"capacity.cluster-autoscaler.kubernetes.io/labels",
               "nvidia.com/gpu.product=NVIDIA-L4,nvidia.com/gpu.count=1"}}}}},
          {"spec", {{"clusterName", "gpu-cluster"}, {"replicas", 0}}}};
}

TEST_CASE(
    "the clusterapi overlay: node groups from Cluster API objects, and RBAC exactly what the "
    "controller uses",
    "[deploy][rbac][clusterapi]") {
  const std::vector<YAML::Node> objects = Render("clusterapi");
  FakeApiServer server;
  server.Upsert("pods", PendingGpuPod("ml", "infer-0"));
  server.Upsert("machinedeployments", L4Scalable("MachineDeployment", "l4"));
  server.Upsert("machinesets", L4Scalable("MachineSet", "l4-set"));
  server.Upsert("machinepools", L4Scalable("MachinePool", "l4-pool"));
  MemoryLogSink log;
  RunAsDeployed(ArgsOf(Container(Find(objects, "Deployment"), "gpu-autoscaler")), server,
                "cluster-autoscaler-status", log);
  int grown = 0;
  for (const char* resource : {"machinedeployments", "machinesets", "machinepools"}) {
    for (const nlohmann::json& o : server.List(resource)) grown += o["spec"]["replicas"].get<int>();
  }
  CHECK(grown == 1);  // one of the three, through its scale subresource

  // What removals do, once each: every kind's scale subresource, and a Machine's mark.
  server.Upsert("machines", {{"metadata",
                              {{"name", "l4-set-0"},
                               {"namespace", "gpu"},
                               {"uid", "uid-l4-set-0"},
                               {"ownerReferences",
                                {{{"kind", "MachineSet"},
                                  {"name", "l4-set"},
                                  {"uid", "uid-l4-set"},
                                  {"controller", true}}}}}},
                             {"spec", {{"providerID", "aws:///us-east-1a/i-0"}}},
                             {"status", {{"phase", "Running"}}}});
  kube::ReflectorOptions reflector;
  reflector.log = &log;
  auto watch = kube::ClusterApiWatch::Start(ClientFor(server), TestClock(), "cluster.x-k8s.io",
                                            "v1beta1", reflector);
  REQUIRE(watch.ok());
  REQUIRE(Eventually([&] { return (*watch)->Synced(); }, absl::Seconds(10)));
  const CapiObjects capi = (*watch)->Objects();
  REQUIRE(capi.scalables.size() == 3);
  for (const auto& s : capi.scalables) CHECK((*watch)->SetReplicas(*s, 0).ok());
  REQUIRE(capi.machines.size() == 1);
  CHECK(
      (*watch)->AnnotateMachine(*capi.machines[0], "cluster.x-k8s.io/delete-machine", "now").ok());
  watch->reset();

  ExerciseNodeAndPodWrites(server, log);
  CheckLeastPrivilege(RulesOf(objects), server.accesses());
}

TEST_CASE("the simulated overlay is a dry run: it reads, reports, and changes nothing",
          "[deploy][rbac]") {
  const std::vector<YAML::Node> objects = Render("simulated");
  FakeApiServer server;
  server.Upsert("pods", PendingGpuPod("ml", "infer-0"));
  server.Upsert("nodes", {{"metadata", {{"name", "cpu-1"}}}, {"spec", nlohmann::json::object()}});
  MemoryLogSink log;
  CommandArgs args = ArgsOf(Container(Find(objects, "Deployment"), "gpu-autoscaler"));
  SetFlag(args,
          "--cloud-config=" + (kDeploy / "overlays" / "simulated" / "node-groups.yaml").string());
  RunAsDeployed(args, server, "gpu-autoscaler-dry-run-status", log);

  CHECK(log.Contains("Dry run: would record event Normal TriggeredScaleUp on Pod ml/infer-0"));
  CHECK(server.List("events").empty());
  CHECK(server.Get("leases", "kube-system", "gpu-autoscaler-dry-run").has_value());
  CHECK_FALSE(server.Get("leases", "kube-system", "cluster-autoscaler").has_value());
  CHECK_FALSE(server.Get("configmaps", "kube-system", "cluster-autoscaler-status").has_value());
  CheckLeastPrivilege(RulesOf(objects), server.accesses());
}

}  // namespace
}  // namespace gpua::testing
