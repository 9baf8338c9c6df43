#include "autoscaler/kube/rest_config.h"

#include <cstdlib>
#include <filesystem>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/file.h"
#include "base/status_macros.h"
#include "kubeobjects/documents.h"
#include "kubeobjects/json_reader.h"

namespace gpua::kube {
namespace {

// The entry of a named list (clusters, users, contexts) with this name.
absl::StatusOr<JsonReader> Named(const JsonReader& root, absl::string_view list,
                                 absl::string_view name) {
  std::optional<JsonReader> found;
  const JsonReader items = root.Field(list);
  if (items.type() == JsonReader::Type::kArray) {
    GPUA_RETURN_IF_ERROR(items.ForEach([&](const JsonReader& item) -> absl::Status {
      if (!found.has_value() && item.IsObject() &&
          item.Field("name").StringView().value_or("") == name) {
        found.emplace(item);
      }
      return absl::OkStatus();
    }));
  }
  if (found.has_value()) return *std::move(found);
  return root.Field(list).Error(absl::StrCat("no entry named \"", name, "\""));
}

// A file path relative to the kubeconfig's folder, or inline base64 data.
class Material {
 public:
  explicit Material(std::string dir) : dir_(std::move(dir)) {}

  absl::StatusOr<std::string> Read(const JsonReader& entry, absl::string_view file_key,
                                   absl::string_view data_key) const {
    GPUA_ASSIGN_OR_RETURN(std::string data, entry.Field(data_key).String());
    if (!data.empty()) {
      std::string decoded;
      if (!absl::Base64Unescape(data, &decoded)) return entry.Field(data_key).Error("not base64");
      return decoded;
    }
    GPUA_ASSIGN_OR_RETURN(std::string path, entry.Field(file_key).String());
    if (path.empty()) return std::string();
    absl::StatusOr<std::string> text = ReadFile(Resolve(path));
    if (!text.ok()) return entry.Field(file_key).Error(text.status().message());
    return text;
  }

  std::string Resolve(const std::string& path) const {
    if (path.empty() || path[0] == '/') return path;
    return (std::filesystem::path(dir_) / path).string();
  }

 private:
  std::string dir_;
};

absl::StatusOr<ExecPlugin> ReadExec(const JsonReader& exec) {
  ExecPlugin plugin;
  GPUA_ASSIGN_OR_RETURN(plugin.api_version, exec.Field("apiVersion").String());
  GPUA_ASSIGN_OR_RETURN(plugin.command, exec.Field("command").String());
  if (plugin.command.empty()) return exec.Field("command").Error("required");
  GPUA_ASSIGN_OR_RETURN(plugin.args, exec.Field("args").Strings());
  GPUA_RETURN_IF_ERROR(exec.Field("env").ForEach([&](const JsonReader& e) -> absl::Status {
    GPUA_ASSIGN_OR_RETURN(std::string name, e.Field("name").String());
    GPUA_ASSIGN_OR_RETURN(std::string value, e.Field("value").String());
    plugin.env.emplace_back(std::move(name), std::move(value));
    return absl::OkStatus();
  }));
  return plugin;
}

absl::StatusOr<RestConfig> ReadKubeconfig(const JsonReader& root, const Material& files,
                                          const std::string& context_flag) {
  RestConfig c;
  GPUA_ASSIGN_OR_RETURN(std::string context_name, root.Field("current-context").String());
  if (!context_flag.empty()) context_name = context_flag;
  if (context_name.empty()) return root.Field("current-context").Error("not set (use --context)");
  GPUA_ASSIGN_OR_RETURN(JsonReader context, Named(root, "contexts", context_name));
  const JsonReader ctx = context.Field("context");
  GPUA_ASSIGN_OR_RETURN(std::string cluster_name, ctx.Field("cluster").String());
  GPUA_ASSIGN_OR_RETURN(std::string user_name, ctx.Field("user").String());
  GPUA_ASSIGN_OR_RETURN(c.namespace_name, ctx.Field("namespace").String("default"));

  GPUA_ASSIGN_OR_RETURN(JsonReader cluster_entry, Named(root, "clusters", cluster_name));
  const JsonReader cluster = cluster_entry.Field("cluster");
  GPUA_ASSIGN_OR_RETURN(c.server, cluster.Field("server").String());
  if (c.server.empty()) return cluster.Field("server").Error("required");
  GPUA_ASSIGN_OR_RETURN(c.ca_pem,
                        files.Read(cluster, "certificate-authority", "certificate-authority-data"));
  GPUA_ASSIGN_OR_RETURN(c.insecure_skip_tls_verify,
                        cluster.Field("insecure-skip-tls-verify").Bool());
  GPUA_ASSIGN_OR_RETURN(c.tls_server_name, cluster.Field("tls-server-name").String());
  if (c.insecure_skip_tls_verify) {
    c.warnings.push_back(absl::StrCat(
        "cluster ", cluster_name,
        ": insecure-skip-tls-verify is set: the API server's certificate is not checked, so "
        "anyone on the path can read and answer as the cluster"));
  }

  if (!user_name.empty()) {
    GPUA_ASSIGN_OR_RETURN(JsonReader user_entry, Named(root, "users", user_name));
    const JsonReader user = user_entry.Field("user");
    GPUA_ASSIGN_OR_RETURN(c.token, user.Field("token").String());
    GPUA_ASSIGN_OR_RETURN(std::string token_file, user.Field("tokenFile").String());
    c.token_file = files.Resolve(token_file);
    // Read once now: a missing file would otherwise be a request without a token, and every
    // answer a 401 that names nothing.
    if (!c.token_file.empty()) {
      absl::StatusOr<std::string> token = ReadFile(c.token_file);
      if (!token.ok()) return user.Field("tokenFile").Error(token.status().message());
      if (absl::StripAsciiWhitespace(*token).empty()) {
        return user.Field("tokenFile").Error(absl::StrCat(c.token_file, ": empty"));
      }
    }
    GPUA_ASSIGN_OR_RETURN(c.client_cert_pem,
                          files.Read(user, "client-certificate", "client-certificate-data"));
    GPUA_ASSIGN_OR_RETURN(c.client_key_pem, files.Read(user, "client-key", "client-key-data"));
    if (c.client_cert_pem.empty() != c.client_key_pem.empty()) {
      return user.Error("client-certificate and client-key go together");
    }
    if (!user.Field("exec").IsNull()) {
      GPUA_ASSIGN_OR_RETURN(c.exec, ReadExec(user.Field("exec")));
    }
  }
  return c;
}

}  // namespace

absl::StatusOr<RestConfig> LoadKubeconfig(const std::string& path, const std::string& context) {
  GPUA_ASSIGN_OR_RETURN(std::string text, ReadFile(path, kMaxConfigFileBytes));
  return ParseKubeconfig(text, path, context);
}

absl::StatusOr<RestConfig> ParseKubeconfig(absl::string_view text, const std::string& path,
                                           const std::string& context) {
  GPUA_ASSIGN_OR_RETURN(nlohmann::json doc, YamlToJson(text, path));
  const Material files(std::filesystem::path(path).parent_path().string());
  absl::StatusOr<RestConfig> config = ReadKubeconfig(JsonReader(doc, ""), files, context);
  if (!config.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("kubeconfig ", path, ": ", config.status().message()));
  }
  config->source = absl::StrCat("kubeconfig ", path);
  for (std::string& w : config->warnings) w = absl::StrCat(config->source, ": ", w);
  return config;
}

absl::StatusOr<RestConfig> InClusterConfig(const EnvLookup& env, const std::string& account_dir) {
  const std::optional<std::string> host = env("KUBERNETES_SERVICE_HOST");
  const std::optional<std::string> port = env("KUBERNETES_SERVICE_PORT");
  if (!host || !port || host->empty() || port->empty()) {
    return absl::FailedPreconditionError(
        "not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set");
  }
  RestConfig c;
  const bool ipv6 = host->find(':') != std::string::npos;
  c.server = absl::StrCat("https://", ipv6 ? "[" : "", *host, ipv6 ? "]" : "", ":", *port);
  c.token_file = absl::StrCat(account_dir, "/token");
  GPUA_ASSIGN_OR_RETURN(std::string token, ReadFile(c.token_file));
  if (absl::StripAsciiWhitespace(token).empty()) {
    return absl::FailedPreconditionError(absl::StrCat(c.token_file, ": empty token"));
  }
  GPUA_ASSIGN_OR_RETURN(c.ca_pem, ReadFile(absl::StrCat(account_dir, "/ca.crt")));
  absl::StatusOr<std::string> ns = ReadFile(absl::StrCat(account_dir, "/namespace"));
  if (ns.ok() && !absl::StripAsciiWhitespace(*ns).empty()) {
    c.namespace_name = std::string(absl::StripAsciiWhitespace(*ns));
  }
  c.source = "in-cluster service account";
  return c;
}

absl::StatusOr<RestConfig> ResolveRestConfig(const std::string& kubeconfig_flag,
                                             const std::string& context, const EnvLookup& env) {
  if (!kubeconfig_flag.empty()) return LoadKubeconfig(kubeconfig_flag, context);
  if (std::optional<std::string> list = env("KUBECONFIG"); list && !list->empty()) {
    for (absl::string_view path : absl::StrSplit(*list, ':', absl::SkipEmpty())) {
      return LoadKubeconfig(std::string(path), context);
    }
  }
  if (std::optional<std::string> home = env("HOME"); home && !home->empty()) {
    const std::string path = absl::StrCat(*home, "/.kube/config");
    if (std::filesystem::exists(path)) return LoadKubeconfig(path, context);
  }
  return InClusterConfig(env);
}

std::optional<std::string> ProcessEnv(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) return std::nullopt;
  return std::string(value);
}

}  // namespace gpua::kube
