// A CapacityBuffer's placeholders: as many as its replicas (or its schedule now, or its
// limits) say, of its PodTemplate's shape, the same objects loop after loop; and a buffer that
// holds none says why, naming itself and the field.
#include "autoscaler/controller/planning/buffer_pods.h"

#include <catch2/catch.hpp>

#include "absl/time/civil_time.h"

namespace gpua {
namespace {

absl::Time At(int hour) {
  return absl::FromCivil(absl::CivilHour(2027, 1, 15, hour), absl::UTCTimeZone());
}

PodTemplatePtr Slot(const std::string& name, int64_t gpus) {
  auto t = std::make_shared<PodTemplateObject>();
  t->namespace_name = "serving";
  t->name = name;
  t->resource_version = "1";
  t->pod.namespace_name = "serving";
  t->pod.name = name;
  t->pod.requests.Set("nvidia.com/gpu", Quantity::FromUnits(gpus));
  return t;
}

std::shared_ptr<CapacityBufferObject> Buffer(const std::string& name, const std::string& slot) {
  auto b = std::make_shared<CapacityBufferObject>();
  b->namespace_name = "serving";
  b->name = name;
  b->resource_version = "1";
  b->provisioning_strategy = std::string(kActiveCapacityStrategy);
  b->pod_template = slot;
  return b;
}

TEST_CASE("a buffer of 3 replicas is 3 placeholders of its template, the same each loop",
          "[controller][warm]") {
  ClusterView view;
  view.pod_templates = {Slot("h100-slot", 8)};
  auto b = Buffer("training-warm", "h100-slot");
  b->replicas = 3;
  view.capacity_buffers = {b};
  CapacityBufferPods buffers;
  const BufferPods first = buffers.Resolve(view, At(10));
  REQUIRE(first.pods.size() == 3);
  CHECK(first.problems.empty());
  for (const PodPtr& p : first.pods) {
    CHECK(IsPlaceholder(*p));
    CHECK(p->capacity_buffer == "serving/training-warm");
    CHECK(p->spec.requests.Get("nvidia.com/gpu").Value() == 8);
    CHECK(p->spec.node_name.empty());
  }
  CHECK(first.pods[0]->spec.uid != first.pods[1]->spec.uid);
  const BufferPods again = buffers.Resolve(view, At(11));
  REQUIRE(again.pods.size() == 3);
  CHECK(again.pods[2] == first.pods[2]);  // kept: nominations of it hold
}

TEST_CASE("a buffer's schedule sets its count by the hour, replicas outside its windows",
          "[controller][warm]") {
  ClusterView view;
  view.pod_templates = {Slot("slot", 1)};
  auto b = Buffer("day", "slot");
  b->replicas = 0;
  b->schedule = *ReplicaSchedule::Parse("07:00-19:00=2");
  view.capacity_buffers = {b};
  CapacityBufferPods buffers;
  CHECK(buffers.Resolve(view, At(6)).pods.empty());
  const BufferPods day = buffers.Resolve(view, At(8));
  CHECK(day.pods.size() == 2);
  CHECK(day.next_change == At(19));
  CHECK(buffers.Resolve(view, At(20)).pods.empty());
}

TEST_CASE("limits cap a buffer's chunks, and alone set them", "[controller][warm]") {
  ClusterView view;
  view.pod_templates = {Slot("slot", 2)};
  auto capped = Buffer("capped", "slot");
  capped->replicas = 10;
  capped->limits = ResourceList{};
  capped->limits->Set("nvidia.com/gpu", Quantity::FromUnits(7));
  auto only = Buffer("only-limits", "slot");
  only->limits = ResourceList{};
  only->limits->Set("nvidia.com/gpu", Quantity::FromUnits(4));
  view.capacity_buffers = {capped, only};
  CapacityBufferPods buffers;
  const BufferPods warm = buffers.Resolve(view, At(8));
  CHECK(warm.problems.empty());
  CHECK(warm.pods.size() == 3 + 2);
}

TEST_CASE("a buffer that holds nothing says why, and the others still hold theirs",
          "[controller][warm]") {
  ClusterView view;
  PodTemplatePtr broken = Slot("broken", 1);
  auto invalid = std::make_shared<PodTemplateObject>(*broken);
  invalid->pod.invalid = absl::InvalidArgumentError("Pod serving/broken: spec.containers: bad");
  view.pod_templates = {Slot("slot", 1), invalid};
  auto missing = Buffer("missing", "no-such-template");
  missing->replicas = 1;
  auto scalable = Buffer("scalable", "");
  scalable->scalable_kind = "Deployment";
  scalable->replicas = 1;
  auto bad_template = Buffer("bad-template", "broken");
  bad_template->replicas = 1;
  auto percentage = Buffer("percentage", "slot");
  percentage->percentage = 20;
  auto decoded_badly = Buffer("typo", "slot");
  decoded_badly->problem = "CapacityBuffer serving/typo: spec.replicas: not an integer";
  auto other = Buffer("standby", "slot");
  other->provisioning_strategy = "buffer.gke.io/standby-capacity";
  other->replicas = 5;
  auto good = Buffer("good", "slot");
  good->replicas = 1;
  view.capacity_buffers = {missing, scalable, bad_template, percentage, decoded_badly, other, good};
  CapacityBufferPods buffers;
  const BufferPods warm = buffers.Resolve(view, At(8));
  REQUIRE(warm.pods.size() == 1);
  CHECK(warm.pods[0]->capacity_buffer == "serving/good");
  REQUIRE(warm.problems.size() == 5);  // another provisioner's buffer is not ours to judge
  CHECK_THAT(warm.problems[0].message, Catch::Contains("serving/missing") &&
                                           Catch::Contains("spec.podTemplateRef") &&
                                           Catch::Contains("not found"));
  CHECK_THAT(warm.problems[1].message, Catch::Contains("spec.scalableRef is not supported"));
  CHECK_THAT(warm.problems[2].message, Catch::Contains("spec.containers: bad"));
  CHECK_THAT(warm.problems[3].message, Catch::Contains("spec.percentage"));
  CHECK_THAT(warm.problems[4].message, Catch::Contains("spec.replicas: not an integer"));
}

TEST_CASE("a buffer asking for a fleet holds the most one buffer may", "[controller][warm]") {
  ClusterView view;
  view.pod_templates = {Slot("slot", 1)};
  auto b = Buffer("typo", "slot");
  b->replicas = 100000;
  view.capacity_buffers = {b};
  CapacityBufferPods buffers(50);
  const BufferPods warm = buffers.Resolve(view, At(8));
  CHECK(warm.pods.size() == 50);
  REQUIRE(warm.problems.size() == 1);
  CHECK_THAT(warm.problems[0].message, Catch::Contains("100000 chunks"));
}

}  // namespace
}  // namespace gpua
