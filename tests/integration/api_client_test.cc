// The Kubernetes HTTP client against a loopback server: tokens (static, rotated files, exec
// plugins), statuses, transport errors, timeouts, streamed lines and TLS.
#include "autoscaler/kube/api_client.h"

#include <httplib.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "tests/support/test_pki.h"

namespace gpua::kube {
namespace {

// An httplib server on 127.0.0.1 that runs until the test ends.
template <typename Server>
struct Running {
  Server& server;
  int port = 0;
  std::thread thread;
  explicit Running(Server& s) : server(s) {
    port = server.bind_to_any_port("127.0.0.1");
    thread = std::thread([this] { server.listen_after_bind(); });
    // stop() only stops a running loop: wait for it (bounded) so teardown cannot hang.
    for (int i = 0; i < 500 && !server.is_running(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  ~Running() {
    server.stop();
    thread.join();
  }
  std::string Url(const std::string& scheme = "http") const {
    return absl::StrCat(scheme, "://127.0.0.1:", port);
  }
};

struct Seen {
  absl::Mutex mu;
  std::vector<std::string> tokens;
  void Add(const std::string& t) {
    absl::MutexLock lock(&mu);
    tokens.push_back(t);
  }
  std::string Last() {
    absl::MutexLock lock(&mu);
    return tokens.empty() ? "" : tokens.back();
  }
};

void ServeVersion(httplib::Server& server, Seen& seen) {
  server.Get("/version", [&](const httplib::Request& req, httplib::Response& res) {
    seen.Add(req.get_header_value("Authorization"));
    res.set_content(R"({"major":"1","minor":"32"})", "application/json");
  });
  server.Post("/api/v1/namespaces/ns/configmaps",
              [&](const httplib::Request& req, httplib::Response& res) {
                res.status = req.body.find("\"name\"") != std::string::npos ? 201 : 400;
                res.set_content(req.get_header_value("Content-Type"), "text/plain");
              });
  server.Get("/conflict", [](const httplib::Request&, httplib::Response& res) {
    res.status = 409;
    res.set_content(R"({"kind":"Status","code":409})", "application/json");
  });
}

std::unique_ptr<ApiClient> Client(RestConfig config, absl::Duration timeout = absl::Seconds(5)) {
  ClientOptions options;
  options.timeout = timeout;
  options.qps = 0;  // no client-side limit in tests
  static RealClock clock;
  auto client = ApiClient::Create(std::move(config), clock, options);
  REQUIRE(client.ok());
  return *std::move(client);
}

TEST_CASE("requests carry the bearer token, every HTTP status is an answer", "[kube][http]") {
  httplib::Server server;
  Seen seen;
  ServeVersion(server, seen);
  Running running(server);
  RestConfig config;
  config.server = running.Url();
  config.token = "static-token";
  auto client = Client(config);
  auto version = client->Request("GET", "/version");
  REQUIRE(version.ok());
  CHECK(version->status == 200);
  CHECK(version->body == R"({"major":"1","minor":"32"})");
  CHECK(seen.Last() == "Bearer static-token");
  auto created = client->Request("POST", "/api/v1/namespaces/ns/configmaps",
                                 R"({"metadata":{"name":"status"}})");
  CHECK(created->status == 201);
  CHECK(created->body == "application/json");
  CHECK(client->Request("GET", "/conflict")->status == 409);
  CHECK(client->Request("GET", "/nowhere")->status == 404);
}

TEST_CASE("one client serves many threads at once, each answer its own request, connections reused",
          "[kube][http][threads]") {
  httplib::Server server;
  absl::Mutex mu;
  std::set<int> client_ports;
  server.Get(R"(/echo/(\d+)/(\d+))", [&](const httplib::Request& req, httplib::Response& res) {
    {
      absl::MutexLock lock(&mu);
      client_ports.insert(req.remote_port);
    }
    res.set_content(req.path, "text/plain");
  });
  server.set_keep_alive_max_count(1000);  // httplib closes after 5 requests by default
  Running running(server);
  RestConfig config;
  config.server = running.Url();
  auto client = Client(config);
  constexpr int kThreads = 6, kRequests = 150;
  std::atomic<int> wrong{0}, failed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRequests; ++i) {
        const std::string path = absl::StrCat("/echo/", t, "/", i);
        auto answer = client->Request("GET", path);
        if (!answer.ok()) {
          ++failed;
        } else if (answer->body != path) {
          ++wrong;
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(failed == 0);
  CHECK(wrong == 0);
  absl::MutexLock lock(&mu);
  // A connection per thread at most, give or take one the server closed: not one a request.
  CHECK(client_ports.size() <= 2 * kThreads);
}

TEST_CASE("a rotated token file is read again, a vanished one keeps the last token",
          "[kube][http]") {
  httplib::Server server;
  Seen seen;
  ServeVersion(server, seen);
  Running running(server);
  const auto path = std::filesystem::temp_directory_path() / "gpua-token-test";
  std::ofstream(path) << "first\n";
  RestConfig config;
  config.server = running.Url();
  config.token_file = path.string();
  auto client = Client(config);
  REQUIRE(client->Request("GET", "/version").ok());
  CHECK(seen.Last() == "Bearer first");
  std::ofstream(path) << "second\n";
  std::filesystem::last_write_time(
      path, std::filesystem::last_write_time(path) + std::chrono::seconds(1));
  REQUIRE(client->Request("GET", "/version").ok());
  CHECK(seen.Last() == "Bearer second");
  std::filesystem::remove(path);
  REQUIRE(client->Request("GET", "/version").ok());
  CHECK(seen.Last() == "Bearer second");
}

TEST_CASE("an exec credential plugin's token is used and cached until it expires", "[kube][http]") {
  httplib::Server server;
  Seen seen;
  ServeVersion(server, seen);
  Running running(server);
  const auto dir = std::filesystem::temp_directory_path();
  const auto count = dir / "gpua-exec-count";
  std::filesystem::remove(count);
  const auto script = dir / "gpua-exec-plugin.sh";
  std::ofstream(script) << "#!/bin/sh\necho run >> " << count.string() << "\n"
                        << "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
                           "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"from-'$WHO'\","
                           "\"expirationTimestamp\":\"2099-01-01T00:00:00Z\"}}'\n";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  RestConfig config;
  config.server = running.Url();
  config.exec =
      ExecPlugin{"client.authentication.k8s.io/v1", script.string(), {}, {{"WHO", "exec"}}};
  auto client = Client(config);
  REQUIRE(client->Request("GET", "/version").ok());
  REQUIRE(client->Request("GET", "/version").ok());
  CHECK(seen.Last() == "Bearer from-exec");
  std::ifstream runs(count);
  std::string line;
  int n = 0;
  while (std::getline(runs, line)) ++n;
  CHECK(n == 1);
  config.exec->command = (dir / "gpua-no-such-plugin").string();
  CHECK(Client(config)->Request("GET", "/version").status().code() ==
        absl::StatusCode::kUnauthenticated);

  // A credential whose token is not a string is refused with the field named, not thrown.
  const auto odd = dir / "gpua-exec-odd.sh";
  std::ofstream(odd) << "#!/bin/sh\n"
                     << R"(echo '{"kind":"ExecCredential","status":{"token":5}}')"
                     << "\n";
  std::filesystem::permissions(odd, std::filesystem::perms::owner_all);
  config.exec->command = odd.string();
  absl::StatusOr<HttpResponse> refused = Client(config)->Request("GET", "/version");
  CHECK(refused.status().code() == absl::StatusCode::kUnauthenticated);
  CHECK_THAT(std::string(refused.status().message()),
             Catch::Contains("status.token: expected a string, found number"));
}

TEST_CASE("a refused connection and a slow answer are errors naming the request", "[kube][http]") {
  RestConfig config;
  config.server = "http://127.0.0.1:1";  // nothing listens on port 1
  auto refused = Client(config)->Request("GET", "/version");
  CHECK(refused.status().code() == absl::StatusCode::kUnavailable);
  CHECK_THAT(std::string(refused.status().message()),
             Catch::Contains("GET http://127.0.0.1:1/version"));
  httplib::Server server;
  server.Get("/slow", [](const httplib::Request&, httplib::Response& res) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    res.set_content("late", "text/plain");
  });
  Running running(server);
  config.server = running.Url();
  CHECK(Client(config, absl::Milliseconds(300))->Request("GET", "/slow").status().code() ==
        absl::StatusCode::kDeadlineExceeded);
}

TEST_CASE("a stream delivers whole lines as they arrive, however the chunks cut them",
          "[kube][http]") {
  httplib::Server server;
  server.Get("/watch", [](const httplib::Request&, httplib::Response& res) {
    res.set_chunked_content_provider("application/json", [](size_t, httplib::DataSink& sink) {
      for (const char* piece : {"{\"type\":\"ADDED\"}\n{\"ty", "pe\":\"MODIF", "IED\"}\n",
                                "{\"type\":\"BOOKMARK\"}\n"}) {
        sink.write(piece, std::strlen(piece));
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      sink.done();
      return true;
    });
  });
  server.Get("/gone", [](const httplib::Request&, httplib::Response& res) {
    res.status = 410;
    res.set_content(R"({"kind":"Status","code":410})", "application/json");
  });
  Running running(server);
  RestConfig config;
  config.server = running.Url();
  auto client = Client(config);
  std::vector<std::string> lines;
  std::string error_body;
  auto status = client->Stream(
      "/watch",
      [&](absl::string_view l) {
        lines.emplace_back(l);
        return true;
      },
      nullptr, absl::Seconds(5), &error_body);
  REQUIRE(status.ok());
  CHECK(*status == 200);
  CHECK(lines == std::vector<std::string>{R"({"type":"ADDED"})", R"({"type":"MODIFIED"})",
                                          R"({"type":"BOOKMARK"})"});
  lines.clear();
  status = client->Stream(
      "/watch",
      [&](absl::string_view l) {
        lines.emplace_back(l);
        return lines.size() < 2;
      },
      nullptr, absl::Seconds(5), &error_body);
  CHECK(*status == 200);
  CHECK(lines.size() == 2);  // the caller stopped it
  status = client->Stream(
      "/gone", [&](absl::string_view) { return true; }, nullptr, absl::Seconds(5), &error_body);
  CHECK(*status == 410);
  CHECK_THAT(error_body, Catch::Contains("410"));
}

TEST_CASE("TLS: the config's CA is trusted and nothing else", "[kube][http][tls]") {
  const testing::TestPki pki = testing::MakeTestPki();
  const auto dir = std::filesystem::temp_directory_path();
  const auto cert = dir / "gpua-api-server.crt", key = dir / "gpua-api-server.key";
  std::ofstream(cert) << pki.server_cert;
  std::ofstream(key) << pki.server_key;
  httplib::SSLServer server(cert.c_str(), key.c_str());
  Seen seen;
  ServeVersion(server, seen);
  Running running(server);
  RestConfig config;
  config.server = running.Url("https");
  config.ca_pem = pki.ca_cert;
  CHECK(Client(config)->Request("GET", "/version")->status == 200);
  config.ca_pem = testing::MakeTestPki().ca_cert;
  CHECK(Client(config)->Request("GET", "/version").status().code() ==
        absl::StatusCode::kUnavailable);
  config.insecure_skip_tls_verify = true;  // only when the kubeconfig says so
  CHECK(Client(config)->Request("GET", "/version")->status == 200);
}

}  // namespace
}  // namespace gpua::kube
