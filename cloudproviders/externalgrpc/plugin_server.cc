#include "cloudproviders/externalgrpc/plugin_server.h"

#include "absl/strings/str_cat.h"
#include "cloudproviders/externalgrpc/provider_service.h"

namespace gpua::externalgrpc {
namespace {

std::shared_ptr<grpc::ServerCredentials> Credentials(const PluginServerOptions& options) {
  if (options.cert_pem.empty()) return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions ssl(
      options.client_ca_pem.empty() ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                                    : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  ssl.pem_root_certs = options.client_ca_pem;
  ssl.pem_key_cert_pairs.push_back({options.key_pem, options.cert_pem});
  return grpc::SslServerCredentials(ssl);
}

}  // namespace

absl::StatusOr<std::unique_ptr<PluginServer>> PluginServer::Start(
    CloudProvider& provider, const PluginServerOptions& options) {
  return Serve(std::make_unique<ProviderService>(provider), options);
}

absl::StatusOr<std::unique_ptr<PluginServer>> PluginServer::Serve(
    std::unique_ptr<grpc::Service> service, const PluginServerOptions& options) {
  if (options.cert_pem.empty() != options.key_pem.empty()) {
    return absl::InvalidArgumentError("plugin server: cert and key go together");
  }
  int port = 0;
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options.address, Credentials(options), &port);
  builder.RegisterService(service.get());
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    return absl::UnavailableError(
        absl::StrCat("plugin server: cannot listen on ", options.address));
  }
  return std::make_unique<PluginServer>(std::move(service), std::move(server), port);
}

PluginServer::PluginServer(std::unique_ptr<grpc::Service> service,
                           std::unique_ptr<grpc::Server> server, int port)
    : service_(std::move(service)), server_(std::move(server)), port_(port) {}

PluginServer::~PluginServer() { Shutdown(); }

void PluginServer::Shutdown() {
  if (stopped_) return;
  stopped_ = true;
  server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
}

}  // namespace gpua::externalgrpc
