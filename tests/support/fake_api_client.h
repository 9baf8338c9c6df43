// A Kubernetes API client for the fake API server, with no client-side rate limit.
#ifndef GPUA_TESTS_SUPPORT_FAKE_API_CLIENT_H_
#define GPUA_TESTS_SUPPORT_FAKE_API_CLIENT_H_

#include <memory>
#include <string>

#include "autoscaler/kube/api_client.h"
#include "tests/support/fake_api_server.h"

namespace gpua::testing {

// The real clock, for clients and the parts of the kube layer tests build around them.
inline Clock& TestClock() {
  static RealClock clock;
  return clock;
}

// `ca_pem`: the CA to trust when the server speaks TLS.
inline std::unique_ptr<kube::ApiClient> ClientFor(const FakeApiServer& server,
                                                  const std::string& ca_pem = "",
                                                  absl::Duration timeout = absl::Seconds(30)) {
  kube::RestConfig config;
  config.server = server.url();
  config.ca_pem = ca_pem;
  kube::ClientOptions options;
  options.qps = 0;
  options.timeout = timeout;
  return *kube::ApiClient::Create(config, TestClock(), options);
}

}  // namespace gpua::testing

#endif  // GPUA_TESTS_SUPPORT_FAKE_API_CLIENT_H_
