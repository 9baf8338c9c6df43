// CapacityBuffers (autoscaling.x-k8s.io) and PodTemplates decoded, with a buffer whose spec
// cannot be used kept and saying which field; and the replicas schedule its annotation holds.
#include "kubeobjects/capacity_buffer.h"

#include <catch2/catch.hpp>

#include "absl/time/civil_time.h"

namespace gpua {
namespace {

nlohmann::json Parse(const char* text) { return nlohmann::json::parse(text); }

absl::Time At(int hour, int minute) {
  return absl::FromCivil(absl::CivilMinute(2027, 1, 15, hour, minute), absl::UTCTimeZone());
}

TEST_CASE("a v1beta1 CapacityBuffer reads its template, replicas, limits and schedule",
          "[kube][typed][warm]") {
  const nlohmann::json o = Parse(R"({"apiVersion":"autoscaling.x-k8s.io/v1beta1",
    "kind":"CapacityBuffer","metadata":{"name":"inference-warm","namespace":"serving",
    "uid":"u1","resourceVersion":"7","annotations":{
      "gpu-autoscaler.io/replicas-schedule":"07:00-19:00=2"}},
    "spec":{"podTemplateRef":{"name":"l4-slot"},"replicas":1,
      "limits":{"nvidia.com/gpu":"4"}}})");
  absl::StatusOr<CapacityBufferObject> b = DecodeCapacityBuffer(JsonReader(o));
  REQUIRE(b.ok());
  CHECK(b->problem.empty());
  CHECK(b->Key() == "serving/inference-warm");
  CHECK(b->provisioning_strategy == kActiveCapacityStrategy);
  CHECK(b->pod_template == "l4-slot");
  CHECK(b->replicas == 1);
  REQUIRE(b->limits.has_value());
  CHECK(b->limits->Get("nvidia.com/gpu").Value() == 4);
  REQUIRE(b->schedule.has_value());
  CHECK(b->schedule->At(At(8, 0)) == 2);
  CHECK_FALSE(b->schedule->At(At(20, 0)).has_value());
}

TEST_CASE("a CapacityBuffer that cannot be used is kept, its problem naming the field",
          "[kube][typed][warm]") {
  const auto problem = [](const char* spec, const char* annotations = "{}") {
    const nlohmann::json o = {
        {"metadata",
         {{"name", "b"}, {"namespace", "ns"}, {"annotations", nlohmann::json::parse(annotations)}}},
        {"spec", nlohmann::json::parse(spec)}};
    absl::StatusOr<CapacityBufferObject> b = DecodeCapacityBuffer(JsonReader(o));
    REQUIRE(b.ok());
    return b->problem;
  };
  CHECK_THAT(problem(R"({"podTemplateRef":{"name":"t"},"scalableRef":{"kind":"Deployment",
      "name":"d"},"replicas":1})"),
             Catch::Contains("CapacityBuffer ns/b") && Catch::Contains("both set"));
  CHECK_THAT(problem(R"({"replicas":1})"), Catch::Contains("neither podTemplateRef"));
  CHECK_THAT(problem(R"({"podTemplateRef":{"name":"t"}})"),
             Catch::Contains("none of replicas, percentage and limits"));
  CHECK_THAT(problem(R"({"podTemplateRef":{"name":"t"},"replicas":-1})"),
             Catch::Contains("spec.replicas"));
  CHECK_THAT(problem(R"({"podTemplateRef":{"name":"t"},"limits":{"cpu":"lots"}})"),
             Catch::Contains("spec.limits"));
  CHECK_THAT(problem(R"({"podTemplateRef":{"name":"t"},"replicas":1})",
                     R"({"gpu-autoscaler.io/replicas-schedule":"7-19=2"})"),
             Catch::Contains("annotation gpu-autoscaler.io/replicas-schedule") &&
                 Catch::Contains("window \"7-19=2\""));
  CHECK(problem(R"({"podTemplateRef":{"name":"t"},"replicas":0})").empty());
  // Without a name there is nothing to report on.
  CHECK_FALSE(DecodeCapacityBuffer(JsonReader(Parse(R"({"metadata":{},"spec":{}})"))).ok());
}

TEST_CASE("a PodTemplate's template reads as a pod named after it", "[kube][typed][warm]") {
  const nlohmann::json o = Parse(R"({"metadata":{"name":"l4-slot","namespace":"serving",
    "resourceVersion":"3"},"template":{"metadata":{"labels":{"app":"warm"}},"spec":{
      "nodeSelector":{"nvidia.com/gpu.product":"NVIDIA-L4"},
      "tolerations":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}],
      "containers":[{"name":"c","resources":{"requests":{"nvidia.com/gpu.shared":"1",
        "cpu":"2"}}}]}}})");
  absl::StatusOr<PodTemplateObject> t = DecodePodTemplate(JsonReader(o));
  REQUIRE(t.ok());
  CHECK(t->pod.invalid.ok());
  CHECK(t->pod.Key() == "serving/l4-slot");
  CHECK(t->pod.requests.Get("nvidia.com/gpu.shared").Value() == 1);
  CHECK(t->pod.node_selector.size() == 1);

  const nlohmann::json bad = Parse(R"({"metadata":{"name":"t","namespace":"ns"},"template":{
    "spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"x"}}}]}}})");
  absl::StatusOr<PodTemplateObject> invalid = DecodePodTemplate(JsonReader(bad));
  REQUIRE(invalid.ok());
  CHECK_THAT(std::string(invalid->pod.invalid.message()),
             Catch::Contains("ns/t") && Catch::Contains("template.spec.containers"));
}

TEST_CASE("a replicas schedule holds its windows, past midnight too, and says what is wrong",
          "[kube][warm]") {
  absl::StatusOr<ReplicaSchedule> s = ReplicaSchedule::Parse("07:00-19:00=3, 22:00-02:00=1");
  REQUIRE(s.ok());
  CHECK(s->At(At(6, 59)) == std::nullopt);
  CHECK(s->At(At(7, 0)) == 3);
  CHECK(s->At(At(18, 59)) == 3);
  CHECK(s->At(At(19, 0)) == std::nullopt);
  CHECK(s->At(At(23, 30)) == 1);
  CHECK(s->At(At(1, 59)) == 1);
  CHECK(s->At(At(2, 0)) == std::nullopt);
  CHECK(s->NextChange(At(6, 0)) == At(7, 0));
  CHECK(s->NextChange(At(19, 30)) == At(22, 0));
  CHECK(s->NextChange(At(23, 0)) == At(2, 0) + absl::Hours(24));
  CHECK(s->ToString() == "07:00-19:00=3,22:00-02:00=1");
  CHECK(s->Scaled(8).At(At(8, 0)) == 24);
  CHECK(ReplicaSchedule::Parse("00:00-24:00=1")->At(At(23, 59)) == 1);

  for (const char* bad : {"", "07:00-19:00", "7-19=2", "07:00-19:00=-1", "07:00-07:00=1",
                          "25:00-26:00=1", "07:60-08:00=1", "24:00-01:00=1", "07:00-19:00=x"}) {
    INFO(bad);
    CHECK_FALSE(ReplicaSchedule::Parse(bad).ok());
  }
  CHECK_THAT(std::string(ReplicaSchedule::Parse("07:00-19:00=2,8-9=1").status().message()),
             Catch::Contains("window \"8-9=1\""));
}

}  // namespace
}  // namespace gpua
