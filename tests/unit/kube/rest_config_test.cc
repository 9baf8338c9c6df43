// Finding the API server and credentials as client-go does.
#include "autoscaler/kube/rest_config.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>

#include "absl/strings/escaping.h"

namespace gpua::kube {
namespace {

// A folder of files for one test, removed after it.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("gpua-rest-config-" + std::to_string(reinterpret_cast<uintptr_t>(this)));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string Write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

EnvLookup Env(std::map<std::string, std::string> values) {
  return [values](const std::string& name) -> std::optional<std::string> {
    auto it = values.find(name);
    if (it == values.end()) return std::nullopt;
    return it->second;
  };
}

const std::string kCa = "-----BEGIN CERTIFICATE-----\nMA==\n-----END CERTIFICATE-----\n";

std::string Kubeconfig(const std::string& extra_user = "") {
  return R"(apiVersion: v1
kind: Config
current-context: prod
clusters:
- name: prod-cluster
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority-data: )" +
         absl::Base64Escape(kCa) + R"(
- name: lab-cluster
  cluster: {server: "https://lab:6443", certificate-authority: certs/lab-ca.crt, tls-server-name: api.lab}
users:
- name: admin
  user: {token: secret-token)" +
         extra_user + R"(}
- name: eks
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: aws
      args: [eks, get-token, --cluster-name, lab]
      env: [{name: AWS_PROFILE, value: lab}]
contexts:
- name: prod
  context: {cluster: prod-cluster, user: admin, namespace: autoscaling}
- name: lab
  context: {cluster: lab-cluster, user: eks}
)";
}

TEST_CASE("a kubeconfig's current context gives server, CA data, token and namespace",
          "[kube][config]") {
  TempDir dir;
  auto c = LoadKubeconfig(dir.Write("config", Kubeconfig()), "");
  REQUIRE(c.ok());
  CHECK(c->server == "https://10.0.0.1:6443");
  CHECK(c->ca_pem == kCa);
  CHECK(c->token == "secret-token");
  CHECK(c->namespace_name == "autoscaling");
}

TEST_CASE(
    "the context flag picks another context, files are relative to the kubeconfig, exec plugins",
    "[kube][config]") {
  TempDir dir;
  std::filesystem::create_directories(dir.path / "certs");
  dir.Write("certs/lab-ca.crt", kCa);
  auto c = LoadKubeconfig(dir.Write("config", Kubeconfig()), "lab");
  REQUIRE(c.ok());
  CHECK(c->server == "https://lab:6443");
  CHECK(c->ca_pem == kCa);
  CHECK(c->tls_server_name == "api.lab");
  CHECK(c->namespace_name == "default");
  REQUIRE(c->exec.has_value());
  CHECK(c->exec->command == "aws");
  CHECK(c->exec->args.size() == 4);
  CHECK(c->exec->env[0].second == "lab");
}

TEST_CASE("a broken kubeconfig names the file, the entry and the field", "[kube][config]") {
  TempDir dir;
  const auto error = [&](const std::string& text, const std::string& context = "") {
    auto c = LoadKubeconfig(dir.Write("config", text), context);
    REQUIRE(!c.ok());
    return std::string(c.status().message());
  };
  CHECK_THAT(error(Kubeconfig(), "staging"),
             Catch::Contains("config: contexts: no entry named \"staging\""));
  CHECK_THAT(error(Kubeconfig(), "lab"),
             Catch::Contains("clusters[1].cluster.certificate-authority"));
  CHECK_THAT(error(Kubeconfig(", client-certificate-data: bm9wZQ==")),
             Catch::Contains("users[0].user: client-certificate and client-key go together"));
  CHECK_THAT(error(Kubeconfig(", client-key-data: '%%%'")),
             Catch::Contains("users[0].user.client-key-data: not base64"));
  CHECK_THAT(error("clusters: []\n"), Catch::Contains("current-context: not set"));
}

TEST_CASE("a tokenFile that cannot be read is an error naming the field, not silent 401s",
          "[kube][config]") {
  TempDir dir;
  auto missing =
      LoadKubeconfig(dir.Write("config", Kubeconfig(", tokenFile: /nonexistent-gpua/token")), "");
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(std::string(missing.status().message()),
             Catch::Contains("users[0].user.tokenFile: /nonexistent-gpua/token: cannot open"));
  dir.Write("empty-token", "\n");
  auto empty = LoadKubeconfig(dir.Write("config", Kubeconfig(", tokenFile: empty-token")), "");
  REQUIRE_FALSE(empty.ok());
  CHECK_THAT(std::string(empty.status().message()), Catch::Contains("empty-token: empty"));
  dir.Write("token", "rotated\n");
  auto good = LoadKubeconfig(dir.Write("config", Kubeconfig(", tokenFile: token")), "");
  REQUIRE(good.ok());
  CHECK(good->token_file == (dir.path / "token").string());
}

TEST_CASE("insecure-skip-tls-verify is honoured with a warning that names the cluster",
          "[kube][config]") {
  TempDir dir;
  std::string text = Kubeconfig();
  const std::string server = "server: https://10.0.0.1:6443";
  text.replace(text.find(server), server.size(), server + "\n    insecure-skip-tls-verify: true");
  auto c = LoadKubeconfig(dir.Write("config", text), "");
  REQUIRE(c.ok());
  CHECK(c->insecure_skip_tls_verify);
  REQUIRE(c->warnings.size() == 1);
  CHECK_THAT(c->warnings[0],
             Catch::Contains("config: cluster prod-cluster: insecure-skip-tls-verify "
                             "is set: the API server's certificate is not checked"));
  CHECK(LoadKubeconfig(dir.Write("config", Kubeconfig()), "")->warnings.empty());
}

TEST_CASE("in a pod: the service account's token, CA and namespace", "[kube][config]") {
  TempDir dir;
  dir.Write("token", "eyJ.token\n");
  dir.Write("ca.crt", kCa);
  dir.Write("namespace", "kube-system\n");
  auto c = InClusterConfig(
      Env({{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}}),
      dir.path.string());
  REQUIRE(c.ok());
  CHECK(c->server == "https://10.96.0.1:443");
  CHECK(c->token_file == (dir.path / "token").string());
  CHECK(c->namespace_name == "kube-system");
  auto v6 = InClusterConfig(
      Env({{"KUBERNETES_SERVICE_HOST", "fd00::1"}, {"KUBERNETES_SERVICE_PORT", "443"}}),
      dir.path.string());
  CHECK(v6->server == "https://[fd00::1]:443");
  CHECK(InClusterConfig(Env({}), dir.path.string()).status().code() ==
        absl::StatusCode::kFailedPrecondition);
}

TEST_CASE("resolution order: flag, KUBECONFIG, ~/.kube/config, in-cluster", "[kube][config]") {
  TempDir dir;
  const std::string flag = dir.Write("flag-config", Kubeconfig());
  std::filesystem::create_directories(dir.path / "home/.kube");
  dir.Write("home/.kube/config", Kubeconfig());
  const std::string env_file = dir.Write("env-config", Kubeconfig());
  auto from_flag = ResolveRestConfig(flag, "", Env({{"KUBECONFIG", env_file}}));
  CHECK(from_flag->source == "kubeconfig " + flag);
  auto from_env = ResolveRestConfig("", "", Env({{"KUBECONFIG", env_file + ":/other"}}));
  CHECK(from_env->source == "kubeconfig " + env_file);
  auto from_home = ResolveRestConfig("", "", Env({{"HOME", (dir.path / "home").string()}}));
  CHECK(from_home->source == "kubeconfig " + (dir.path / "home/.kube/config").string());
  CHECK(!ResolveRestConfig("", "", Env({{"HOME", "/nonexistent"}})).ok());
}

}  // namespace
}  // namespace gpua::kube
