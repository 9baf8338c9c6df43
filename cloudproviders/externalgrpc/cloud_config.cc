#include "cloudproviders/externalgrpc/cloud_config.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "base/file.h"
#include "base/status_macros.h"
#include "kubeobjects/documents.h"
#include "kubeobjects/json_reader.h"

namespace gpua {
namespace {

absl::StatusOr<std::string> ReadPem(const JsonReader& r) {
  GPUA_ASSIGN_OR_RETURN(std::string path, r.String());
  if (path.empty()) return std::string();
  absl::StatusOr<std::string> pem = ReadFile(path);
  if (!pem.ok()) return r.Error(pem.status().message());
  if (pem->find("-----BEGIN") == std::string::npos) {
    return r.Error(absl::StrCat(path, " is not a PEM file"));
  }
  return pem;
}

// gRPC reads a port it cannot hold modulo 65536 (99999 dials 34463): refused here instead.
absl::Status CheckPort(absl::string_view address, const JsonReader& field) {
  if (absl::StartsWith(address, "unix:")) return absl::OkStatus();
  absl::ConsumePrefix(&address, "dns:///");
  absl::ConsumePrefix(&address, "ipv4:");
  absl::ConsumePrefix(&address, "ipv6:");
  const size_t bracket = address.rfind(']');
  const size_t colon = address.rfind(':');
  if (colon == absl::string_view::npos || (bracket != absl::string_view::npos && colon < bracket)) {
    return field.Error("needs a port (host:port)");
  }
  int port = 0;
  if (!absl::SimpleAtoi(address.substr(colon + 1), &port) || port < 1 || port > 65535) {
    return field.Error(absl::StrCat("port \"", address.substr(colon + 1),
                                    "\" is not a port: expected 1 to 65535"));
  }
  return absl::OkStatus();
}

absl::StatusOr<ExternalGrpcConfig> ReadConfig(const JsonReader& root) {
  GPUA_RETURN_IF_ERROR(root.RejectUnknown({"address", "cert", "key", "cacert", "grpc_timeout"}));
  ExternalGrpcConfig c;
  GPUA_ASSIGN_OR_RETURN(c.address, root.Field("address").String());
  if (c.address.empty()) return root.Field("address").Error("required (host:port)");
  GPUA_RETURN_IF_ERROR(CheckPort(c.address, root.Field("address")));
  GPUA_ASSIGN_OR_RETURN(c.cert_pem, ReadPem(root.Field("cert")));
  GPUA_ASSIGN_OR_RETURN(c.key_pem, ReadPem(root.Field("key")));
  GPUA_ASSIGN_OR_RETURN(c.ca_pem, ReadPem(root.Field("cacert")));
  if (c.cert_pem.empty() != c.key_pem.empty()) {
    return root.Field(c.cert_pem.empty() ? "cert" : "key")
        .Error("cert and key go together (mTLS needs both)");
  }
  if (!c.cert_pem.empty() && c.ca_pem.empty()) {
    return root.Field("cacert").Error("required with cert and key, to verify the plugin");
  }
  GPUA_ASSIGN_OR_RETURN(std::optional<absl::Duration> timeout,
                        root.Field("grpc_timeout").Duration());
  if (timeout.has_value()) {
    if (*timeout <= absl::ZeroDuration()) {
      return root.Field("grpc_timeout").Error("must be above zero");
    }
    c.timeout = *timeout;
  }
  return c;
}

}  // namespace

std::string ExternalGrpcConfig::TlsServerName() const {
  absl::string_view host = address;
  absl::ConsumePrefix(&host, "dns:///");
  if (absl::ConsumePrefix(&host, "[")) return std::string(host.substr(0, host.find(']')));
  return std::string(host.substr(0, host.rfind(':')));
}

absl::StatusOr<ExternalGrpcConfig> ParseExternalGrpcConfig(absl::string_view text,
                                                           absl::string_view source) {
  absl::StatusOr<nlohmann::json> doc = YamlToJson(text, source);
  if (!doc.ok()) return doc.status();
  if (!doc->is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": expected a mapping of keys"));
  }
  absl::StatusOr<ExternalGrpcConfig> config = ReadConfig(JsonReader(*doc, ""));
  if (!config.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": ", config.status().message()));
  }
  return config;
}

absl::StatusOr<ExternalGrpcConfig> LoadExternalGrpcConfig(const std::string& path) {
  GPUA_ASSIGN_OR_RETURN(std::string text, ReadFile(path, kMaxConfigFileBytes));
  return ParseExternalGrpcConfig(text, path);
}

}  // namespace gpua
