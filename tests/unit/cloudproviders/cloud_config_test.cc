// The externalgrpc cloud-config file: keys as cluster-autoscaler reads them, and errors that
// name the file and the key.
#include "cloudproviders/externalgrpc/cloud_config.h"

#include <catch2/catch.hpp>

#include "tests/support/temp_file.h"

namespace gpua {
namespace {

using testing::WriteTempFile;

TEST_CASE("a plaintext cloud-config needs only the address, the deadline defaults to 5s",
          "[cloud-config]") {
  auto c = ParseExternalGrpcConfig("address: 127.0.0.1:8086\n", "cc.yaml");
  REQUIRE(c.ok());
  CHECK(c->address == "127.0.0.1:8086");
  CHECK(!c->UsesTls());
  CHECK(c->timeout == absl::Seconds(5));
  CHECK(c->TlsServerName() == "127.0.0.1");
}

TEST_CASE("cert, key and cacert are read from their files, grpc_timeout is a duration",
          "[cloud-config]") {
  const std::string pem = "-----BEGIN CERTIFICATE-----\nMA==\n-----END CERTIFICATE-----\n";
  const std::string cert = WriteTempFile("cert.pem", pem), key = WriteTempFile("key.pem", pem),
                    ca = WriteTempFile("ca.pem", pem);
  auto c =
      ParseExternalGrpcConfig("address: plugin.kube-system.svc:8086\ncert: " + cert +
                                  "\nkey: " + key + "\ncacert: " + ca + "\ngrpc_timeout: 750ms\n",
                              "cc.yaml");
  REQUIRE(c.ok());
  CHECK(c->UsesTls());
  CHECK(c->cert_pem == pem);
  CHECK(c->timeout == absl::Milliseconds(750));
  CHECK(c->TlsServerName() == "plugin.kube-system.svc");
}

TEST_CASE("a bad cloud-config names the file and the key", "[cloud-config]") {
  const auto error = [](const std::string& text) {
    auto c = ParseExternalGrpcConfig(text, "cc.yaml");
    REQUIRE(!c.ok());
    return std::string(c.status().message());
  };
  CHECK_THAT(error("cert: x\n"), Catch::Contains("cc.yaml: address: required"));
  CHECK_THAT(error("address: a:1\nadress: b:2\n"), Catch::Contains("adress"));
  CHECK_THAT(error("address: a:1\ngrpc_timeout: soon\n"),
             Catch::Contains("grpc_timeout: invalid duration \"soon\""));
  CHECK_THAT(error("address: a:1\ncacert: /nonexistent/ca.pem\n"),
             Catch::Contains("cacert: ") && Catch::Contains("/nonexistent/ca.pem"));
  const std::string not_pem = WriteTempFile("notpem", "hello");
  CHECK_THAT(error("address: a:1\ncacert: " + not_pem + "\n"), Catch::Contains("not a PEM file"));
  const std::string pem = WriteTempFile("pem", "-----BEGIN X-----\n");
  CHECK_THAT(error("address: a:1\ncert: " + pem + "\ncacert: " + pem + "\n"),
             Catch::Contains("key: cert and key go together"));
  CHECK_THAT(error("address: a:1\ngrpc_timeout: 0s\n"), Catch::Contains("must be above zero"));
}

}  // namespace
}  // namespace gpua
