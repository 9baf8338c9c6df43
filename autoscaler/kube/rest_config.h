// Where the Kubernetes API is and how to authenticate to it, as client-go resolves it:
// the --kubeconfig flag, else the first file of KUBECONFIG, else ~/.kube/config, else the
// in-cluster service account. Paths in a kubeconfig are relative to the file.
#ifndef GPUA_AUTOSCALER_KUBE_REST_CONFIG_H_
#define GPUA_AUTOSCALER_KUBE_REST_CONFIG_H_

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gpua::kube {

// A client.authentication.k8s.io/v1 exec credential plugin (aws eks get-token, gke-gcloud-
// auth-plugin, ...).
struct ExecPlugin {
  std::string api_version;
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;
};

struct RestConfig {
  std::string server;  // https://host:port
  std::string ca_pem;  // empty: the system's trust store
  bool insecure_skip_tls_verify = false;
  std::string tls_server_name;
  std::string client_cert_pem;
  std::string client_key_pem;
  std::string token;       // a static bearer token
  std::string token_file;  // read again when it changes (bound service-account tokens rotate)
  std::optional<ExecPlugin> exec;
  std::string namespace_name = "default";
  std::string source;  // where this came from, for messages
  // What is allowed but unsafe (insecure-skip-tls-verify), for the caller to log at start.
  std::vector<std::string> warnings;
};

// Reads a kubeconfig; `context` empty means its current-context. Errors name the file, the
// entry and the field.
absl::StatusOr<RestConfig> LoadKubeconfig(const std::string& path, const std::string& context);
// The same, of a kubeconfig's text: `path` names it in errors, and the files it names are
// read relative to its folder.
absl::StatusOr<RestConfig> ParseKubeconfig(absl::string_view text, const std::string& path,
                                           const std::string& context);

// The in-cluster configuration: KUBERNETES_SERVICE_HOST/PORT and the service account under
// `account_dir` (normally /var/run/secrets/kubernetes.io/serviceaccount).
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
absl::StatusOr<RestConfig> InClusterConfig(
    const EnvLookup& env,
    const std::string& account_dir = "/var/run/secrets/kubernetes.io/serviceaccount");

// client-go's order: flag, KUBECONFIG's first file, ~/.kube/config if it exists, in-cluster.
absl::StatusOr<RestConfig> ResolveRestConfig(const std::string& kubeconfig_flag,
                                             const std::string& context, const EnvLookup& env);

// The process environment, for EnvLookup.
std::optional<std::string> ProcessEnv(const std::string& name);

}  // namespace gpua::kube

#endif  // GPUA_AUTOSCALER_KUBE_REST_CONFIG_H_
