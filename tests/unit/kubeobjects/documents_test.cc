// Reading YAML and JSON documents from outside: kubeconfigs, cloud-configs, node-group files,
// the priority ConfigMap, `kubectl get -o yaml` dumps.
#include "kubeobjects/documents.h"

#include <catch2/catch.hpp>
#include <string>

#include "absl/strings/str_cat.h"

namespace gpua {
namespace {

TEST_CASE("YAML whose aliases would expand to billions of values is refused, naming the file",
          "[kubeobjects][yaml]") {
  // Nine levels of nine aliases each: under 1 KB of text, 387 million values expanded; a file
  // without aliases holds fewer values than bytes.
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 9; ++i) {
    absl::StrAppend(&text, "a", i, ": &a", i, " [");
    for (int j = 0; j < 9; ++j) absl::StrAppend(&text, j == 0 ? "" : ", ", "*a", i - 1);
    absl::StrAppend(&text, "]\n");
  }
  const absl::StatusOr<nlohmann::json> read = YamlToJson(text, "cloud-config /etc/laughs.yaml");
  REQUIRE_FALSE(read.ok());
  CHECK_THAT(std::string(read.status().message()),
             Catch::StartsWith("cloud-config /etc/laughs.yaml: more than 10000 values in "));
}

TEST_CASE("a few aliases, as people write them, read as the values they name",
          "[kubeobjects][yaml]") {
  const absl::StatusOr<nlohmann::json> read =
      YamlToJson("base: &labels {team: ml}\ngroup:\n  labels: *labels\n", "node-group file");
  REQUIRE(read.ok());
  CHECK((*read)["group"]["labels"]["team"] == "ml");
}

TEST_CASE("plain scalars read as YAML's core schema: integers, floats, booleans, null, strings",
          "[kubeobjects][yaml]") {
  const absl::StatusOr<nlohmann::json> read = YamlToJson(
      "[7, -3, +4, 010, 1.5, .5, 5., 1e3, -2.5E-2, 1e, ., +, 99999999999999999999, 0x10, "
      "true, False, ~, null, 10m, '7']",
      "x");
  REQUIRE(read.ok());
  const nlohmann::json expected = nlohmann::json::parse(
      R"([7, -3, 4, 10, 1.5, 0.5, 5.0, 1000.0, -0.025, "1e", ".", "+", 1e20, "0x10",
          true, false, null, null, "10m", "7"])");
  CHECK(*read == expected);
}

TEST_CASE("a stray comma, on which yaml-cpp 0.7 would loop for ever, is refused",
          "[kubeobjects][yaml]") {
  for (const std::string text : {",\"", ", x", "a: 1\n---\n,"}) {
    INFO(text);
    const absl::StatusOr<nlohmann::json> read = YamlToJson(text, "ConfigMap kube-system/p");
    REQUIRE_FALSE(read.ok());
    CHECK_THAT(std::string(read.status().message()),
               Catch::StartsWith("ConfigMap kube-system/p: "));
  }
}

TEST_CASE("YAML nested past yaml-cpp's depth guard is an error, not a crash",
          "[kubeobjects][yaml]") {
  const std::string text = std::string(5000, '[') + std::string(5000, ']');
  const absl::StatusOr<nlohmann::json> read = YamlToJson(text, "kubeconfig deep.yaml");
  REQUIRE_FALSE(read.ok());
  CHECK_THAT(std::string(read.status().message()), Catch::StartsWith("kubeconfig deep.yaml: "));
}

TEST_CASE("JSON documents with a number too large for a double are an error, not a crash",
          "[kubeobjects][json]") {
  // Not one document, so the documents are read one by one, where nlohmann throws.
  const std::string text = "{\"minSize\": 55555555e55555555555} {\"a\": 1}";
  const absl::StatusOr<std::vector<nlohmann::json>> read =
      ParseObjects(text, "node-group file groups.json");
  REQUIRE_FALSE(read.ok());
  CHECK_THAT(std::string(read.status().message()),
             Catch::StartsWith("node-group file groups.json: invalid JSON: "));
}

}  // namespace
}  // namespace gpua
