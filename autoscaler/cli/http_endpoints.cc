#include "autoscaler/cli/http_endpoints.h"

#include <httplib.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "autoscaler/cli/listen_address.h"
#include "base/status_macros.h"

namespace gpua {

absl::StatusOr<std::unique_ptr<HttpEndpoints>> HttpEndpoints::Start(const std::string& address,
                                                                    const Handlers& handlers) {
  GPUA_ASSIGN_OR_RETURN(const int port, ListenPort(address));
  std::string host = address.substr(0, address.rfind(':'));
  if (host.empty()) host = "0.0.0.0";
  auto endpoints = std::make_unique<HttpEndpoints>();
  endpoints->server_ = std::make_unique<httplib::Server>();
  httplib::Server& server = *endpoints->server_;
  server.Get("/metrics", [h = handlers](const httplib::Request&, httplib::Response& res) {
    res.set_content(h.metrics(), "text/plain; version=0.0.4; charset=utf-8");
  });
  server.Get("/health-check", [h = handlers](const httplib::Request&, httplib::Response& res) {
    const std::string why = h.unhealthy();
    res.status = why.empty() ? 200 : 500;
    res.set_content(why.empty() ? "OK" : why, "text/plain");
  });
  endpoints->port_ =
      port == 0 ? server.bind_to_any_port(host) : (server.bind_to_port(host, port) ? port : -1);
  if (endpoints->port_ < 0) {
    return absl::UnavailableError(absl::StrCat("--address ", address, ": cannot listen there"));
  }
  endpoints->thread_ = std::thread([&server] { server.listen_after_bind(); });
  return endpoints;
}

HttpEndpoints::~HttpEndpoints() {
  if (server_ != nullptr) server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace gpua
