// What moving a node's pods loses, the figure --consolidation-payback is weighed against.
#include "autoscaler/controller/scaledown/disruption.h"

#include <catch2/catch.hpp>

#include "estimator/gpu/gpu_inventory_reader.h"
#include "tests/unit/controller/controller_test_util.h"

namespace gpua {
namespace {

using testing::kNow;
using testing::Res;

PodPtr RunningPod(const char* owner_kind, ResourceList requests, absl::Duration ran) {
  auto p = std::make_shared<PodObject>();
  p->spec.namespace_name = "ml";
  p->spec.name = "p";
  p->spec.requests = std::move(requests);
  if (owner_kind != nullptr) p->spec.owner = OwnerReference{owner_kind, "o", "o-uid", true};
  p->phase = "Running";
  p->created = kNow - ran - absl::Minutes(5);  // it waited five minutes for its node
  p->started = kNow - ran;
  return p;
}

TEST_CASE("a Job's pod loses the time it ran, a served pod only its restart",
          "[controller][scale-down]") {
  const ResourceList one_gpu = Res({{"nvidia.com/gpu", "1"}});
  CHECK(WorkLost(*RunningPod("Job", one_gpu, absl::Hours(3)), kNow) == absl::Hours(3));
  CHECK(WorkLost(*RunningPod(nullptr, one_gpu, absl::Hours(3)), kNow) == absl::Hours(3));
  CHECK(WorkLost(*RunningPod("ReplicaSet", one_gpu, absl::Hours(3)), kNow) == kServiceRestart);
  CHECK(WorkLost(*RunningPod("StatefulSet", one_gpu, absl::Hours(3)), kNow) == kServiceRestart);

  auto not_started = std::make_shared<PodObject>(*RunningPod("Job", one_gpu, absl::Hours(1)));
  not_started->started = absl::InfinitePast();
  CHECK(WorkLost(*not_started, kNow) == absl::ZeroDuration());
}

TEST_CASE("a gang member's move restarts its whole gang", "[controller][scale-down]") {
  auto member = std::make_shared<PodObject>(
      *RunningPod("ReplicaSet", Res({{"nvidia.com/gpu", "8"}}), absl::Minutes(20)));
  member->spec.gang = GangRef{"ml/train", 4, ""};
  CHECK(WorkLost(*member, kNow) == absl::Minutes(80));
}

TEST_CASE("the node-time lost is each pod's share of the node times what it loses",
          "[controller][scale-down]") {
  const NodeTemplate h100 = testing::H100Template();
  auto gpus = ReadGpuInventory(h100.labels, h100.annotations, h100.allocatable, "h100");
  REQUIRE(gpus.ok());
  REQUIRE(gpus->has_value());
  const DrainedNode node{&h100.allocatable, &**gpus, nullptr};
  // Two of eight GPUs for an hour, and a cpu pod holding half the node's memory for 40m.
  const std::vector<PodPtr> moving = {
      RunningPod("Job", Res({{"nvidia.com/gpu", "2"}, {"cpu", "4"}}), absl::Hours(1)),
      RunningPod("Job", Res({{"memory", "950Gi"}}), absl::Minutes(40)),
      RunningPod("Deployment", Res({{"nvidia.com/gpu", "8"}}), absl::Hours(9))};
  CHECK(DisruptionNodeTime(moving, node, kNow) ==
        absl::Minutes(15) + absl::Minutes(20) + kServiceRestart);
  CHECK(DisruptionNodeTime({}, node, kNow) == absl::ZeroDuration());
}

}  // namespace
}  // namespace gpua
