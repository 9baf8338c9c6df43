// A running externalgrpc plugin server: a ProviderService on a listening port, plaintext or
// TLS (mutual when a client CA is given). The example plugin runs one; tests start them on
// 127.0.0.1 port 0 and read the port the kernel chose.
#ifndef GPUA_CLOUDPROVIDERS_EXTERNALGRPC_PLUGIN_SERVER_H_
#define GPUA_CLOUDPROVIDERS_EXTERNALGRPC_PLUGIN_SERVER_H_

#include <grpcpp/grpcpp.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "cloudproviders/cloud_provider.h"

namespace gpua::externalgrpc {

struct PluginServerOptions {
  std::string address = "127.0.0.1:0";  // host:port; port 0 picks a free one
  // PEM contents. With cert and key the server speaks TLS; with client_ca as well it
  // requires and verifies client certificates.
  std::string cert_pem;
  std::string key_pem;
  std::string client_ca_pem;
};

class PluginServer {
 public:
  // Serves `provider` (which must outlive the server) until Shutdown or destruction.
  static absl::StatusOr<std::unique_ptr<PluginServer>> Start(CloudProvider& provider,
                                                             const PluginServerOptions& options);
  // Serves any implementation of the protocol (tests use this for odd plugins).
  static absl::StatusOr<std::unique_ptr<PluginServer>> Serve(std::unique_ptr<grpc::Service> service,
                                                             const PluginServerOptions& options);
  // Use Start.
  PluginServer(std::unique_ptr<grpc::Service> service, std::unique_ptr<grpc::Server> server,
               int port);
  ~PluginServer();

  int port() const { return port_; }
  // Stops accepting calls and waits for those under way.
  void Shutdown();
  void Wait() { server_->Wait(); }

 private:
  std::unique_ptr<grpc::Service> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_;
  bool stopped_ = false;
};

}  // namespace gpua::externalgrpc

#endif  // GPUA_CLOUDPROVIDERS_EXTERNALGRPC_PLUGIN_SERVER_H_
