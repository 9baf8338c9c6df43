// The drain rules, one per case, as cluster-autoscaler judges a pod on a node to be removed.
#include "estimator/drain_rules.h"

#include <catch2/catch.hpp>

#include "tests/unit/estimator/test_util.h"

namespace gpua {
namespace {

using testing::Pod;
using testing::Res;

struct Judged {
  PodFate fate;
  std::string reason;
  std::string message;
};

Judged Judge(const PodDrainFacts& f, DrainRules rules = {}, std::vector<int> budgets = {}) {
  const PodVerdict v = JudgePodForDrain(f, rules, budgets);
  return {v.fate, std::string(BlockReasonName(v.reason)), v.message};
}

PodDrainFacts ReplicatedPod(const PodSpec& pod) {
  PodDrainFacts f;
  f.pod = &pod;
  f.controller = PodDrainFacts::Controller::kExists;
  return f;
}

TEST_CASE("a pod a live controller will recreate moves", "[drain]") {
  const PodSpec pod = Pod("web-1", Res({{"cpu", "1"}}), "web");
  CHECK(Judge(ReplicatedPod(pod)).fate == PodFate::kMoves);
}

TEST_CASE("DaemonSet, mirror, finished and terminating pods stay with the node and never block",
          "[drain]") {
  const PodSpec pod = Pod("agent", Res({{"cpu", "100m"}}));
  for (bool PodDrainFacts::*mark : {&PodDrainFacts::daemonset, &PodDrainFacts::mirror,
                                    &PodDrainFacts::finished, &PodDrainFacts::terminating}) {
    PodDrainFacts f;
    f.pod = &pod;  // no controller, kube-system-like: would block if it had to move
    f.*mark = true;
    f.safe_to_evict = false;
    CHECK(Judge(f).fate == PodFate::kStays);
  }
}

TEST_CASE("a pod without a controller blocks, unless it says it is safe to evict", "[drain]") {
  const PodSpec pod = Pod("bare", Res({{"cpu", "1"}}));
  PodDrainFacts f;
  f.pod = &pod;
  const Judged j = Judge(f);
  CHECK(j.fate == PodFate::kBlocks);
  CHECK(j.reason == "NotReplicated");
  CHECK(j.message == "pod default/bare has no controller to recreate it elsewhere");
  f.safe_to_evict = true;
  CHECK(Judge(f).fate == PodFate::kMoves);
}

TEST_CASE("safe-to-evict false blocks even a replicated pod", "[drain]") {
  const PodSpec pod = Pod("web-1", Res({{"cpu", "1"}}), "web");
  PodDrainFacts f = ReplicatedPod(pod);
  f.safe_to_evict = false;
  CHECK(Judge(f).reason == "NotSafeToEvictAnnotation");
}

TEST_CASE("a controller that is gone, or of an unknown kind, blocks as the flags say", "[drain]") {
  const PodSpec pod = Pod("web-1", Res({{"cpu", "1"}}), "web");
  PodDrainFacts f = ReplicatedPod(pod);
  f.controller = PodDrainFacts::Controller::kGone;
  CHECK(Judge(f).reason == "ControllerNotFound");
  f.controller = PodDrainFacts::Controller::kCustom;
  CHECK(Judge(f).reason == "CustomController");
  DrainRules lenient;
  lenient.skip_nodes_with_custom_controller_pods = false;
  CHECK(Judge(f, lenient).fate == PodFate::kMoves);
}

TEST_CASE("a kube-system pod blocks unless a budget covers it or the flag is off", "[drain]") {
  PodSpec pod = Pod("coredns-1", Res({{"cpu", "100m"}}), "coredns");
  pod.namespace_name = "kube-system";
  PodDrainFacts f = ReplicatedPod(pod);
  CHECK(Judge(f).reason == "UnmovableKubeSystemPod");
  f.budgets = {0};
  CHECK(Judge(f, {}, {1}).fate == PodFate::kMoves);
  f.budgets.clear();
  DrainRules lenient;
  lenient.skip_nodes_with_system_pods = false;
  CHECK(Judge(f, lenient).fate == PodFate::kMoves);
}

TEST_CASE("local storage blocks unless the flag is off", "[drain]") {
  const PodSpec pod = Pod("cache-1", Res({{"cpu", "1"}}), "cache");
  PodDrainFacts f = ReplicatedPod(pod);
  f.local_storage = true;
  CHECK(Judge(f).reason == "LocalStorageRequested");
  DrainRules lenient;
  lenient.skip_nodes_with_local_storage = false;
  CHECK(Judge(f, lenient).fate == PodFate::kMoves);
}

TEST_CASE("a budget with no disruption left blocks, before any other rule", "[drain]") {
  const PodSpec pod = Pod("db-0", Res({{"cpu", "1"}}), "db");
  PodDrainFacts f = ReplicatedPod(pod);
  f.budgets = {1};
  CHECK(Judge(f, {}, {3, 0}).reason == "NotEnoughPdb");
  CHECK(Judge(f, {}, {0, 1}).fate == PodFate::kMoves);
  f.safe_to_evict = true;  // the annotation does not get past a budget
  CHECK(Judge(f, {}, {3, 0}).reason == "NotEnoughPdb");
}

TEST_CASE("a pod that could not be read blocks, naming what is wrong", "[drain]") {
  PodSpec pod = Pod("odd", Res({{"cpu", "1"}}), "web");
  pod.invalid = absl::InvalidArgumentError("spec.containers[0].resources.requests.cpu: bad");
  const Judged j = Judge(ReplicatedPod(pod));
  CHECK(j.reason == "UnreadablePod");
  CHECK_THAT(j.message, Catch::Contains("requests.cpu"));
}

}  // namespace
}  // namespace gpua
