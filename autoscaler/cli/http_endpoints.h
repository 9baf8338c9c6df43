// What the controller serves on --address: /metrics (Prometheus text format) and
// /health-check (200 while the loop keeps completing, 500 with the reason otherwise), as
// cluster-autoscaler does, on cpp-httplib.
#ifndef GPUA_AUTOSCALER_CLI_HTTP_ENDPOINTS_H_
#define GPUA_AUTOSCALER_CLI_HTTP_ENDPOINTS_H_

#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"

namespace httplib {
class Server;
}

namespace gpua {

class HttpEndpoints {
 public:
  struct Handlers {
    std::function<std::string()> metrics;
    // Empty when healthy; otherwise why not.
    std::function<std::string()> unhealthy;
  };

  // Listens on "host:port" (":8085" is every address; port 0 picks a free one).
  static absl::StatusOr<std::unique_ptr<HttpEndpoints>> Start(const std::string& address,
                                                              const Handlers& handlers);
  HttpEndpoints() = default;  // use Start
  ~HttpEndpoints();
  int port() const { return port_; }

 private:
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CLI_HTTP_ENDPOINTS_H_
