// HTTP to the Kubernetes API server on libcurl: TLS verified against the config's CA
// unless it says otherwise, client certificates, bearer tokens (static, from a file read
// again when it changes, or from an exec credential plugin, cached until it expires),
// HTTP/2 when offered, reused connections, a timeout on every request, and client-side
// rate limiting so a large cluster's relists cannot flood the server.
#ifndef GPUA_AUTOSCALER_KUBE_API_CLIENT_H_
#define GPUA_AUTOSCALER_KUBE_API_CLIENT_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "autoscaler/kube/rest_config.h"
#include "base/clock.h"

namespace gpua::kube {

struct ClientOptions {
  double qps = 20;  // sustained requests per second (--kube-api-qps)
  int burst = 30;   // requests allowed at once (--kube-api-burst)
  absl::Duration timeout = absl::Seconds(30);
  std::string user_agent = "gpu-autoscaler";
};

struct HttpResponse {
  long status = 0;
  std::string body;
};

// Client-side rate limit: a token bucket of `burst` tokens refilled at `qps`.
class RateLimiter {
 public:
  RateLimiter(double qps, int burst, Clock& clock);
  // Waits for a token (never longer than the time one takes to refill per waiter).
  void Wait();

 private:
  Clock& clock_;
  absl::Mutex mu_;
  const double qps_;
  const double burst_;
  double tokens_ ABSL_GUARDED_BY(mu_);
  absl::Time last_ ABSL_GUARDED_BY(mu_);
};

// An answer that is not the one hoped for, as a Status naming `what` with the HTTP status
// and the start of the body: 404 NotFound, 409 Aborted (a conflict: read again and retry),
// 410 OutOfRange (gone: relist), 429 and 5xx Unavailable (try later), 401 and 403
// PermissionDenied, others FailedPrecondition.
absl::Status HttpStatusError(absl::string_view what, const HttpResponse& res);

// A query value made safe for a URL (selectors hold '=' and ',', continue tokens '+' and '/').
std::string QueryEscape(absl::string_view value);

class ApiClient {
 public:
  static absl::StatusOr<std::unique_ptr<ApiClient>> Create(RestConfig config, Clock& clock,
                                                           ClientOptions options = {});
  ApiClient(RestConfig config, Clock& clock, ClientOptions options);
  ~ApiClient();

  // One request; `path` includes the query ("/api/v1/pods?limit=500"). Any HTTP status is
  // a response; only transport failures (refused, TLS, timeout) are errors.
  // `timeout` zero: the client's.
  absl::StatusOr<HttpResponse> Request(absl::string_view method, absl::string_view path,
                                       absl::string_view body = "",
                                       absl::string_view content_type = "application/json",
                                       absl::Duration timeout = absl::ZeroDuration());

  // A streaming GET (a watch): calls `on_line` with each complete line as it arrives, until
  // the server ends the response, `on_line` returns false, `stop` becomes true, or
  // `timeout` passes. Returns the HTTP status; a non-200 status's body is not streamed.
  absl::StatusOr<long> Stream(absl::string_view path,
                              const std::function<bool(absl::string_view)>& on_line,
                              const std::atomic<bool>* stop, absl::Duration timeout,
                              std::string* error_body);

  const RestConfig& config() const { return config_; }

  // Ends what is under way and refuses what comes (a running exec plugin is killed, a request
  // or watch in flight is aborted), so a program that is stopping never waits on the server or
  // a credential plugin. For shutdown: there is no undoing it.
  void Cancel();

 private:
  struct Credentials;
  absl::StatusOr<std::string> BearerToken();

  RestConfig config_;
  Clock& clock_;
  ClientOptions options_;
  RateLimiter limiter_;
  std::unique_ptr<Credentials> credentials_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace gpua::kube

#endif  // GPUA_AUTOSCALER_KUBE_API_CLIENT_H_
