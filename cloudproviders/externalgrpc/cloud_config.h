// The externalgrpc cloud-config file, as cluster-autoscaler reads it (--cloud-config):
//
//   address: plugin.example:8086   # required
//   cert: /etc/ssl/client.crt      # client certificate and key: mTLS, with cacert
//   key: /etc/ssl/client.key
//   cacert: /etc/ssl/ca.crt        # verifies the plugin; the TLS name is address's host
//   grpc_timeout: 5s               # each call's deadline (default 5s)
#ifndef GPUA_CLOUDPROVIDERS_EXTERNALGRPC_CLOUD_CONFIG_H_
#define GPUA_CLOUDPROVIDERS_EXTERNALGRPC_CLOUD_CONFIG_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace gpua {

struct ExternalGrpcConfig {
  std::string address;
  // PEM contents, read from the files the config names.
  std::string cert_pem;
  std::string key_pem;
  std::string ca_pem;
  absl::Duration timeout = absl::Seconds(5);

  bool UsesTls() const { return !ca_pem.empty(); }
  // The host part of the address, which the plugin's certificate must name.
  std::string TlsServerName() const;
};

// Parses the YAML text; `source` names it in errors, which also name the key. Certificate
// files are read relative to the working directory.
absl::StatusOr<ExternalGrpcConfig> ParseExternalGrpcConfig(absl::string_view text,
                                                           absl::string_view source);
absl::StatusOr<ExternalGrpcConfig> LoadExternalGrpcConfig(const std::string& path);

}  // namespace gpua

#endif  // GPUA_CLOUDPROVIDERS_EXTERNALGRPC_CLOUD_CONFIG_H_
