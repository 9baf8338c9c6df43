// gpu-autoscaler-example-plugin: an externalgrpc provider plugin that serves the simulated
// cloud from a node-group file. For provider authors it is the template to copy: replace
// SimulatedCloud with a CloudProvider that calls your cloud's API, keep the rest. Both
// cluster-autoscaler (--cloud-provider=externalgrpc, any version) and gpu-autoscaler can use
// it. With --kubeconfig it also acts as the cloud for a development cluster: each instance
// it starts becomes a Node there, and goes when the instance goes.
#include <atomic>
#include <csignal>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "autoscaler/cli/simulated_node_registrar.h"
#include "autoscaler/kube/api_client.h"
#include "autoscaler/kube/rest_config.h"
#include "base/clock.h"
#include "base/file.h"
#include "base/flag_set.h"
#include "base/log.h"
#include "cloudproviders/externalgrpc/plugin_server.h"
#include "cloudproviders/node_group_file.h"
#include "cloudproviders/simulated/simulated_cloud.h"

namespace {

std::atomic<bool> stop_requested{false};

void RequestStop(int) { stop_requested = true; }

int Fail(const std::string& message) {
  std::cerr << "gpu-autoscaler-example-plugin: " << message << "\n";
  return 1;
}

// Reads a PEM file named by a flag; empty flag, empty result.
bool ReadPem(const std::string& flag, const std::string& path, std::string* pem) {
  if (path.empty()) return true;
  absl::StatusOr<std::string> text = gpua::ReadFile(path);
  if (!text.ok()) {
    Fail(std::string("--") + flag + ": " + std::string(text.status().message()));
    return false;
  }
  *pem = *std::move(text);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string node_groups, cert, key, client_ca, kubeconfig;
  gpua::externalgrpc::PluginServerOptions server;
  server.address = "127.0.0.1:8086";
  gpua::FlagSet flags("gpu-autoscaler-example-plugin");
  flags.AddString("node-groups", &node_groups, "the node-group file to serve (required)");
  flags.AddString("address", &server.address, "host:port to listen on (port 0: any free port)");
  flags.AddString("cert", &cert, "server certificate (PEM); with --key, serve TLS");
  flags.AddString("key", &key, "the certificate's private key (PEM)");
  flags.AddString("client-ca", &client_ca, "CA (PEM) that client certificates must chain to");
  flags.AddString("kubeconfig", &kubeconfig,
                  "register each running instance as a Node of this cluster, and delete the "
                  "Node when the instance goes (a development cluster: Nodes without kubelets)");
  auto rest = flags.Parse(std::vector<std::string>(argv + 1, argv + argc));
  if (!rest.ok()) return Fail(std::string(rest.status().message()));
  if (flags.help()) {
    std::cout << "Usage: gpu-autoscaler-example-plugin --node-groups FILE [flags]\n"
              << flags.Usage();
    return 0;
  }
  if (node_groups.empty()) return Fail("--node-groups is required");
  if (!ReadPem("cert", cert, &server.cert_pem) || !ReadPem("key", key, &server.key_pem) ||
      !ReadPem("client-ca", client_ca, &server.client_ca_pem)) {
    return 1;
  }
  absl::StatusOr<std::vector<gpua::NodeGroupConfig>> groups = gpua::LoadNodeGroupFile(node_groups);
  if (!groups.ok()) return Fail(std::string(groups.status().message()));
  const size_t count = groups->size();

  gpua::RealClock clock;
  gpua::StderrLogSink log(clock);
  std::unique_ptr<gpua::kube::ApiClient> client;
  if (!kubeconfig.empty()) {
    auto rest = gpua::kube::ResolveRestConfig(kubeconfig, "", gpua::kube::ProcessEnv);
    if (!rest.ok()) return Fail(absl::StrCat("--kubeconfig: ", rest.status().message()));
    auto made = gpua::kube::ApiClient::Create(*std::move(rest), clock);
    if (!made.ok()) return Fail(absl::StrCat("--kubeconfig: ", made.status().message()));
    client = *std::move(made);
  }
  const std::vector<gpua::NodeGroupConfig> configs = *groups;
  gpua::SimulatedCloud cloud(*std::move(groups), clock);
  auto running = gpua::externalgrpc::PluginServer::Start(cloud, server);
  if (!running.ok()) return Fail(std::string(running.status().message()));
  std::string host = server.address.substr(0, server.address.rfind(':'));
  std::cout << "gpu-autoscaler-example-plugin: serving " << count << " node group(s) on " << host
            << ":" << (*running)->port() << (server.cert_pem.empty() ? "" : " (TLS)") << std::endl;

  std::signal(SIGINT, RequestStop);
  std::signal(SIGTERM, RequestStop);
  std::unique_ptr<gpua::kube::SimulatedNodeRegistrar> registrar;
  if (client != nullptr) {
    registrar =
        std::make_unique<gpua::kube::SimulatedNodeRegistrar>(*client, cloud, configs, clock, log);
    std::cout << "gpu-autoscaler-example-plugin: registering instances as Nodes of "
              << client->config().server << std::endl;
  }
  absl::Time next_sync = absl::InfinitePast();
  while (!stop_requested) {
    if (registrar != nullptr && clock.Now() >= next_sync) {
      registrar->Sync();
      next_sync = clock.Now() + absl::Seconds(1);
    }
    absl::SleepFor(absl::Milliseconds(100));
  }
  (*running)->Shutdown();
  return 0;
}
