// Nominations on their own: which node on its way each promised pod's node is this loop, and
// when a promise ends.
#include "autoscaler/controller/scaleup/nominations.h"

#include <catch2/catch.hpp>

#include "absl/strings/str_join.h"
#include "autoscaler/controller/model/cluster_state.h"
#include "tests/unit/controller/controller_test_util.h"

namespace gpua {
namespace {

using testing::Group;
using testing::H100Template;
using testing::kNow;
using testing::NodeOf;
using testing::PendingPod;

std::string Text(const MemoryLogSink& log) { return absl::StrJoin(log.lines(), "\n"); }

struct Fixture {
  ProviderSnapshot provider;
  ClusterView view;
  ClusterStateOptions options;
  NodeGroupBackoff backoff{BackoffOptions{}};
  ClusterState state;
  MemoryLogSink log;
  Nominations book;
  PodPtr a = PendingPod("a", testing::Res({{"nvidia.com/gpu", "8"}}), kNow);
  PodPtr b = PendingPod("b", testing::Res({{"nvidia.com/gpu", "8"}}), kNow);

  Fixture() {
    provider.gpu_label = "nvidia.com/gpu.product";
    ProviderGroup g = Group("h100", H100Template(), /*target=*/0);
    g.options.max_node_provision_time = absl::Minutes(15);
    provider.groups.push_back(std::move(g));
    log.set_verbosity(1);
  }
  // The group's target grows by `n`, as an increase does.
  void Increase(int n) { provider.groups[0].target_size += n; }
  // An increase of two nodes, one for a and one for b, seen by the next loop.
  void IncreaseForBoth() {
    Increase(2);
    book.Increase("h100", {{a}, {b}}, kNow);
    Update(kNow + absl::Seconds(10));
  }
  void Register(const std::string& name, absl::Time at, bool gpus) {
    auto n = NodeOf(name, H100Template(), at, true, gpus);
    provider.groups[0].instances.push_back({n->provider_id, InstanceState::kRunning, {}});
    provider.IndexInstances();
    view.nodes.push_back(std::move(n));
  }
  // One loop's look, with `pending` still unschedulable (both pods when not given).
  void Update(absl::Time now, std::optional<std::vector<PodPtr>> pending = std::nullopt) {
    ClusterStateBuilder builder(options);
    state = builder.Build(view, provider, backoff, now);
    book.Update(state, pending.value_or(std::vector<PodPtr>{a, b}), now, log);
  }
};

TEST_CASE("the pods of an increase keep their node from upcoming to registered to started",
          "[controller][nominations]") {
  Fixture f;
  f.IncreaseForBoth();
  REQUIRE(f.book.SlotOf("uid-a") != nullptr);
  CHECK(f.book.SlotOf("uid-a")->upcoming == 0);
  CHECK(f.book.SlotOf("uid-b")->upcoming == 1);
  CHECK(f.book.OnItsWay("uid-a", f.state));
  // One node registers, its GPUs not yet advertised: the older promise takes it.
  f.Register("h100-x", kNow + absl::Minutes(2), /*gpus=*/false);
  f.Update(kNow + absl::Minutes(2));
  REQUIRE(f.book.SlotOf("uid-a") != nullptr);
  CHECK(f.state.nodes[f.book.SlotOf("uid-a")->state_node].node->node.name == "h100-x");
  CHECK(f.book.SlotOf("uid-b")->upcoming == 0);
  CHECK(f.book.OnItsWay("uid-a", f.state));
  // Its GPUs come: it is no longer on its way, and the promise holds until the pod binds.
  f.view.nodes[0] = NodeOf("h100-x", H100Template(), kNow + absl::Minutes(2));
  f.Update(kNow + absl::Minutes(4));
  REQUIRE(f.book.SlotOf("uid-a") != nullptr);
  CHECK_FALSE(f.book.OnItsWay("uid-a", f.state));
  f.Update(kNow + absl::Minutes(5), std::vector<PodPtr>{f.b});
  CHECK(f.book.SlotOf("uid-a") == nullptr);
  CHECK(f.book.size() == 1);
}

TEST_CASE("a promise ends when its node is no longer on its way, or took too long",
          "[controller][nominations]") {
  Fixture f;
  f.IncreaseForBoth();
  // One instance failed and was given up: only one node is on its way now.
  f.provider.groups[0].target_size = 1;
  f.Update(kNow + absl::Minutes(1));
  CHECK(f.book.SlotOf("uid-a") != nullptr);
  CHECK(f.book.SlotOf("uid-b") == nullptr);
  CHECK_THAT(Text(f.log),
             Catch::Contains("Pod ml/b: its nomination to a node of group h100 ended: no node of "
                             "group h100 is on its way for it any more"));
  f.Update(kNow + absl::Minutes(16));
  CHECK(f.book.SlotOf("uid-a") == nullptr);
  CHECK_THAT(Text(f.log), Catch::Contains("no node of group h100 took it within 15m"));
}

TEST_CASE("pods placed on a node on its way are nominated to it, and share it",
          "[controller][nominations]") {
  Fixture f;
  f.Increase(1);
  f.Update(kNow);
  const NodeSlot upcoming{0, -1, 0};
  f.book.Place(f.a->spec, upcoming, f.state, kNow);
  f.book.Place(f.b->spec, upcoming, f.state, kNow);
  f.Update(kNow + absl::Seconds(10));
  REQUIRE(f.book.SlotOf("uid-a") != nullptr);
  CHECK(*f.book.SlotOf("uid-a") == upcoming);
  CHECK(*f.book.SlotOf("uid-b") == upcoming);
  f.book.Miss(f.b->spec, "Insufficient nvidia.com/gpu", f.log);
  CHECK(f.book.SlotOf("uid-b") == nullptr);
  CHECK_THAT(Text(f.log), Catch::Contains("Pod ml/b no longer fits the node of group h100 it was "
                                          "nominated to: Insufficient nvidia.com/gpu"));
}

TEST_CASE(
    "after a restart, pods whose nominatedNodeName names a starting node of a group are "
    "nominated to it again, and a preemption's nomination to a running node is left alone",
    "[controller][nominations]") {
  Fixture f;
  f.Increase(1);
  f.Register("h100-x", kNow, /*gpus=*/false);
  f.Register("h100-y", kNow - absl::Hours(1), /*gpus=*/true);
  auto nominated = std::make_shared<PodObject>(*f.a);
  nominated->nominated_node = "h100-x";
  auto preempting = std::make_shared<PodObject>(*f.b);
  preempting->nominated_node = "h100-y";
  f.Update(kNow + absl::Minutes(1), std::vector<PodPtr>{nominated, preempting});
  REQUIRE(f.book.SlotOf("uid-a") != nullptr);
  CHECK(f.state.nodes[f.book.SlotOf("uid-a")->state_node].node->node.name == "h100-x");
  CHECK(f.book.OnItsWay("uid-a", f.state));
  CHECK(f.book.SlotOf("uid-b") == nullptr);
  // Its node is gone: the nomination ends, and what was written is to be cleared.
  f.view.nodes.erase(f.view.nodes.begin());
  f.provider.groups[0].instances.erase(f.provider.groups[0].instances.begin());
  f.provider.groups[0].target_size = 1;
  f.provider.IndexInstances();
  f.Update(kNow + absl::Minutes(2), std::vector<PodPtr>{nominated, preempting});
  CHECK(f.book.SlotOf("uid-a") == nullptr);
  const std::vector<Nominations::Released> released = f.book.TakeReleased();
  REQUIRE(released.size() == 1);
  CHECK(released[0].name == "a");
  CHECK(released[0].node == "h100-x");
}

}  // namespace
}  // namespace gpua
