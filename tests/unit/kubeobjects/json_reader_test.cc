// The JSON reader reads nlohmann and simdjson documents alike: the same values, the same
// errors with the same field paths, so the informers (simdjson) and the file-reading tools
// (nlohmann) decode a pod identically.
#include "kubeobjects/json_reader.h"

#include <catch2/catch.hpp>
#include <string>

#include "kubeobjects/nodes.h"
#include "kubeobjects/pods.h"
#include "kubeobjects/policy.h"

namespace gpua {
namespace {

// Decodes `text` as a pod both ways and checks the two agree.
PodSpec DecodeBothWays(const std::string& text) {
  const nlohmann::json tree = nlohmann::json::parse(text);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(text).get(doc) == simdjson::SUCCESS);
  const PodSpec from_tree = DecodePod(tree);
  const PodSpec from_simd = DecodePod(JsonReader(doc));
  CHECK(from_tree.invalid == from_simd.invalid);
  CHECK(from_tree.requests == from_simd.requests);
  CHECK(from_tree.labels == from_simd.labels);
  if (from_tree.invalid.ok()) CHECK(EquivalenceKey(from_tree) == EquivalenceKey(from_simd));
  return from_simd;
}

TEST_CASE("a pod decodes the same from simdjson as from nlohmann", "[json]") {
  const PodSpec pod = DecodeBothWays(R"({"metadata":{"name":"t-0","namespace":"ml",
    "labels":{"app":"train","job":"j7"},"annotations":{"gpu-autoscaler.io/cuda-version":"12.4"}},
    "spec":{"priority":1000,"nodeSelector":{"nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3"},
      "tolerations":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}],
      "containers":[{"name":"a","resources":{"requests":{"cpu":"8","memory":"64Gi"},
                                             "limits":{"nvidia.com/gpu":2}}},
                    {"name":"b","resources":{"requests":{"cpu":0.5}}}]}})");
  REQUIRE(pod.invalid.ok());
  CHECK(pod.requests.Get("cpu") == Quantity::Parse("8500m").value());
  CHECK(pod.requests.Get("nvidia.com/gpu") == Quantity::FromUnits(2));
  CHECK(pod.largest_container_request.Get("nvidia.com/gpu") == Quantity::FromUnits(2));
  CHECK_FALSE(pod.largest_container_request.Has("cpu"));  // only extended resources
  CHECK(pod.cuda_version == "12.4");
  CHECK(pod.priority == 1000);
}

TEST_CASE("a value lent by simdjson is kept as the same nlohmann document", "[json]") {
  const std::string text =
      R"({"metadata": {"name": "p", "labels": {"a": "1"}}, "n": [1, 2.5, true, null]})";
  simdjson::dom::parser parser;
  const simdjson::dom::element root = parser.parse(text);
  CHECK(JsonReader(root).ToJson() == nlohmann::json::parse(text));
  CHECK(JsonReader(root).Field("metadata").ToJson() == nlohmann::json::parse(text)["metadata"]);
  CHECK(JsonReader(root).Field("absent").ToJson().is_null());
  CHECK(JsonReader(nlohmann::json::parse(text)).ToJson() == nlohmann::json::parse(text));
}

TEST_CASE("errors name the same field from either document", "[json]") {
  const PodSpec quantity = DecodeBothWays(R"({"metadata":{"name":"p"},"spec":{"containers":[
    {"name":"a"},{"name":"b","resources":{"requests":{"memory":"10KB"}}}]}})");
  CHECK_THAT(std::string(quantity.invalid.message()),
             Catch::StartsWith("Pod default/p: spec.containers[1].resources.requests[memory]: "));

  const PodSpec label = DecodeBothWays(
      R"({"metadata":{"name":"p","labels":{"app":7}},"spec":{"containers":[{"name":"a"}]}})");
  CHECK(std::string(label.invalid.message()) ==
        "Pod default/p: metadata.labels[app]: expected a string, found number");

  const PodSpec toleration = DecodeBothWays(
      R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"a"}],"tolerations":[{"operator":"Equals"}]}})");
  CHECK_THAT(std::string(toleration.invalid.message()),
             Catch::Contains("spec.tolerations[0].operator: unknown operator \"Equals\""));

  // Too big for 64 signed bits: an error both ways, never a wrapped number.
  const PodSpec priority = DecodeBothWays(
      R"({"metadata":{"name":"p"},"spec":{"priority":18446744073709551615,"containers":[{"name":"a"}]}})");
  CHECK_THAT(std::string(priority.invalid.message()),
             Catch::Contains("spec.priority: expected an integer within 64 bits"));
  const PodSpec huge = DecodeBothWays(
      R"({"metadata":{"name":"p"},"spec":{"priority":1e300,"containers":[{"name":"a"}]}})");
  CHECK_THAT(std::string(huge.invalid.message()),
             Catch::Contains("spec.priority: expected an integer, found number"));

  // Two bad labels: both readers name the first in key order.
  const PodSpec labels = DecodeBothWays(
      R"({"metadata":{"name":"p","labels":{"zone":1,"app":2}},"spec":{"containers":[{"name":"a"}]}})");
  CHECK_THAT(std::string(labels.invalid.message()), Catch::Contains("metadata.labels[app]"));

  const PodSpec kind = DecodeBothWays(R"({"kind":"Service","metadata":{"name":"p"}})");
  CHECK_THAT(std::string(kind.invalid.message()), Catch::Contains("kind is \"Service\""));
}

TEST_CASE("a reader rooted at a list item names paths from the item", "[json]") {
  const std::string text = R"({"items":[{"spec":{"replicas":"three"}}]})";
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  REQUIRE(parser.parse(text).get(doc) == simdjson::SUCCESS);
  const JsonReader item = JsonReader(doc).Field("items");
  absl::Status seen;
  REQUIRE(item.ForEach([&](const JsonReader& i) {
                seen =
                    i.Rooted("Deployment ml/web: ").Field("spec").Field("replicas").Int().status();
                return absl::OkStatus();
              })
              .ok());
  CHECK(std::string(seen.message()) ==
        "Deployment ml/web: spec.replicas: expected an integer, found string");
  CHECK(JsonReader(doc).Field("items").Size() == 1);
  CHECK(JsonReader(doc).Field("missing").Field("deeper").IsNull());
}

}  // namespace
}  // namespace gpua
