// The fake API server's own fidelity, where the client's tests lean on it: TLS with a CA
// made at run time, the status subresource, and the selector forms the client sends.
#include "tests/support/fake_api_server.h"

#include <catch2/catch.hpp>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "autoscaler/kube/reflector.h"
#include "tests/support/fake_api_client.h"
#include "tests/support/test_pki.h"

namespace gpua::testing {
namespace {

nlohmann::json Pod(const std::string& name, nlohmann::json labels, const std::string& phase) {
  return {{"metadata", {{"name", name}, {"namespace", "ml"}, {"labels", labels}}},
          {"spec", {{"containers", {{{"name", "main"}}}}}},
          {"status", {{"phase", phase}}}};
}

std::vector<std::string> Names(kube::ApiClient& client, const std::string& query) {
  absl::StatusOr<kube::HttpResponse> res =
      client.Request("GET", absl::StrCat("/api/v1/pods?", query));
  REQUIRE(res.ok());
  REQUIRE(res->status == 200);
  std::vector<std::string> names;
  const nlohmann::json list = nlohmann::json::parse(res->body);
  for (const auto& item : list["items"]) {
    names.push_back(item["metadata"]["name"]);
  }
  return names;
}

TEST_CASE("the fake API server speaks TLS with a CA the test makes", "[kube][fake-server]") {
  const TestPki pki = MakeTestPki();
  FakeApiServer server(FakeApiServer::TlsIdentity{pki.server_cert, pki.server_key});
  server.Upsert("pods", Pod("a", {{"app", "web"}}, "Running"));
  CHECK(absl::StartsWith(server.url(), "https://"));

  auto trusted = ClientFor(server, pki.ca_cert);
  CHECK(Names(*trusted, "") == std::vector<std::string>{"a"});
  // A reflector lists and watches over TLS as over plain HTTP.
  struct Count : kube::ReflectorStore {
    int listed = 0;
    void BeginList() override { listed = 0; }
    void Listed(const JsonReader&) override { ++listed; }
    void EndList() override {}
    void Add(const JsonReader&) override {}
    void Update(const JsonReader&) override {}
    void Remove(const JsonReader&) override {}
  } count;
  kube::Reflector reflector(*trusted, "/api/v1/pods", count, testing::TestClock());
  REQUIRE(reflector.ListAll().ok());
  CHECK(count.listed == 1);

  auto stranger = ClientFor(server, MakeTestPki().ca_cert);
  CHECK(stranger->Request("GET", "/api/v1/pods").status().code() == absl::StatusCode::kUnavailable);
}

TEST_CASE("status is written through its subresource and nowhere else", "[kube][fake-server]") {
  FakeApiServer server;
  server.Upsert("pods", Pod("a", {{"app", "web"}}, "Pending"));
  auto client = ClientFor(server);
  const auto get = [&] {
    return nlohmann::json::parse(client->Request("GET", "/api/v1/namespaces/ml/pods/a")->body);
  };

  // A patch of the object itself changes its labels but not its status.
  auto patched =
      client->Request("PATCH", "/api/v1/namespaces/ml/pods/a",
                      R"({"metadata":{"labels":{"tier":"gpu"}},"status":{"phase":"Failed"}})",
                      "application/merge-patch+json");
  REQUIRE(patched->status == 200);
  CHECK(get()["metadata"]["labels"]["tier"] == "gpu");
  CHECK(get()["status"]["phase"] == "Pending");

  // Through /status the status changes, and only the status.
  auto status =
      client->Request("PATCH", "/api/v1/namespaces/ml/pods/a/status",
                      R"({"metadata":{"labels":{"tier":"cpu"}},"status":{"phase":"Running"}})",
                      "application/merge-patch+json");
  REQUIRE(status->status == 200);
  CHECK(get()["status"]["phase"] == "Running");
  CHECK(get()["metadata"]["labels"]["tier"] == "gpu");

  // A PUT to /status with a stale resourceVersion conflicts.
  nlohmann::json stale = get();
  stale["metadata"]["resourceVersion"] = "1";
  CHECK(client->Request("PUT", "/api/v1/namespaces/ml/pods/a/status", stale.dump())->status == 409);
  // ConfigMaps have no status subresource.
  server.Upsert("configmaps", {{"metadata", {{"name", "c"}, {"namespace", "ml"}}}});
  CHECK(client
            ->Request("PATCH", "/api/v1/namespaces/ml/configmaps/c/status", "{}",
                      "application/merge-patch+json")
            ->status == 404);
}

TEST_CASE("label and field selectors in every form the client sends", "[kube][fake-server]") {
  FakeApiServer server;
  server.Upsert("pods", Pod("a", {{"app", "web"}, {"tier", "gpu"}}, "Running"));
  server.Upsert("pods", Pod("b", {{"app", "db"}}, "Succeeded"));
  server.Upsert("pods", Pod("c", nlohmann::json::object(), "Pending"));
  auto client = ClientFor(server);
  using V = std::vector<std::string>;
  CHECK(Names(*client, "labelSelector=app%3Dweb") == V{"a"});
  CHECK(Names(*client, "labelSelector=app%3D%3Dweb") == V{"a"});
  CHECK(Names(*client, "labelSelector=app%21%3Dweb") == V{"b", "c"});
  CHECK(Names(*client, "labelSelector=app") == V{"a", "b"});
  CHECK(Names(*client, "labelSelector=%21app") == V{"c"});
  CHECK(Names(*client, "labelSelector=app%20in%20%28web%2Cdb%29") == V{"a", "b"});
  CHECK(Names(*client, "labelSelector=app%20notin%20%28web%29%2Ctier") == V{});
  CHECK(Names(*client, "fieldSelector=status.phase%21%3DSucceeded") == V{"a", "c"});
  CHECK(Names(*client, "fieldSelector=metadata.name%3Dc") == V{"c"});
}

}  // namespace
}  // namespace gpua::testing
