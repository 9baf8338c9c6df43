// The running nodes' rooms kept from loop to loop: shared while nothing on the node changed,
// worked out again when it did, and the same snapshot either way.
#include "autoscaler/controller/planning/running_node_cache.h"

#include <catch2/catch.hpp>

#include "autoscaler/controller/planning/planning_cluster.h"
#include "estimator/cluster_snapshot.h"
#include "tests/unit/controller/controller_test_util.h"

namespace gpua {
namespace {

using testing::H100Template;
using testing::kNow;
using testing::NodeOf;
using testing::Res;

PodPtr BoundPod(const std::string& name, const std::string& node, ResourceList requests,
                const std::string& phase = "Running") {
  auto p = std::make_shared<PodObject>();
  p->spec.namespace_name = "ml";
  p->spec.name = name;
  p->spec.node_name = node;
  p->spec.requests = std::move(requests);
  p->phase = phase;
  return p;
}

ClusterView ViewOf(NodePtr node, std::vector<PodPtr> pods) {
  ClusterView view;
  view.nodes.push_back(std::move(node));
  for (PodPtr& p : pods) view.AddPod(std::move(p));
  return view;
}

TEST_CASE("a node's room is shared while its node object and pods stay the same") {
  const NodePtr node = NodeOf("h100-0", H100Template(), kNow);
  const PodPtr a = BoundPod("a", "h100-0", Res({{"cpu", "10"}, {"nvidia.com/gpu", "2"}}));
  const PodPtr done = BoundPod("done", "h100-0", Res({{"cpu", "50"}}), "Succeeded");
  RunningNodeCache rooms;
  const std::shared_ptr<const NodeRoom> first = rooms.RoomOf(node, ViewOf(node, {a, done}));
  REQUIRE(first != nullptr);
  CHECK(rooms.RoomOf(node, ViewOf(node, {a, done})) == first);
  // A finished pod takes no room; the one running takes its requests and one pod slot.
  CHECK(first->pods.size() == 1);
  CHECK(first->free[ResourceCatalog::kCpu] == 180'000);
  CHECK(first->free[ResourceCatalog::kNvidiaGpu] == 6);
  CHECK(first->free[ResourceCatalog::kPods] == 109);
}

TEST_CASE("a node's room is worked out again when a pod comes, goes or is replaced") {
  const NodePtr node = NodeOf("h100-0", H100Template(), kNow);
  const PodPtr a = BoundPod("a", "h100-0", Res({{"nvidia.com/gpu", "2"}}));
  RunningNodeCache rooms;
  const auto before = rooms.RoomOf(node, ViewOf(node, {a}));
  // The same pod as a new object (its status changed): the cache does not look inside.
  const PodPtr a2 = BoundPod("a", "h100-0", Res({{"nvidia.com/gpu", "3"}}));
  const auto replaced = rooms.RoomOf(node, ViewOf(node, {a2}));
  CHECK(replaced != before);
  CHECK(replaced->free[ResourceCatalog::kNvidiaGpu] == 5);
  const auto emptied = rooms.RoomOf(node, ViewOf(node, {}));
  CHECK(emptied->free[ResourceCatalog::kNvidiaGpu] == 8);
  // A new Node object (its allocatable changed) is worked out again too.
  auto grown = std::make_shared<NodeObject>(*node);
  grown->node.allocatable.Set("nvidia.com/gpu", Quantity::FromUnits(16));
  CHECK(rooms.RoomOf(grown, ViewOf(grown, {}))->free[ResourceCatalog::kNvidiaGpu] == 16);
}

TEST_CASE("a node's utilization is kept while nothing on it and none of its key changes") {
  const NodePtr node = NodeOf("h100-0", H100Template(), kNow);
  const PodPtr a = BoundPod("a", "h100-0", Res({{"nvidia.com/gpu", "2"}}));
  RunningNodeCache cache;
  int computed = 0;
  const auto compute = [&] {
    ++computed;
    NodeUtilization u;
    u.gpu_node = true;
    u.gpu = 0.25 * computed;
    return u;
  };
  const UtilizationKey key{nullptr, "", false};
  CHECK(cache.UtilizationOf(node, ViewOf(node, {a}), key, compute).gpu == 0.25);
  CHECK(cache.UtilizationOf(node, ViewOf(node, {a}), key, compute).gpu == 0.25);
  CHECK(computed == 1);
  // Counting DaemonSets or not is another question, and so is another MIG layout.
  cache.UtilizationOf(node, ViewOf(node, {a}), {nullptr, "", true}, compute);
  cache.UtilizationOf(node, ViewOf(node, {a}), {nullptr, "all-1g.10gb", true}, compute);
  CHECK(computed == 3);
  // A pod gone: worked out again, and the room with it.
  const auto room = cache.RoomOf(node, ViewOf(node, {a}));
  CHECK(cache.UtilizationOf(node, ViewOf(node, {}), key, compute).gpu == 1.0);
  CHECK(cache.RoomOf(node, ViewOf(node, {})) != room);
}

TEST_CASE("a node's planning props outlive its pods' changes but not its object, group or taints") {
  const NodePtr node = NodeOf("h100-0", H100Template(), kNow);
  const PodPtr a = BoundPod("a", "h100-0", Res({{"nvidia.com/gpu", "2"}}));
  RunningNodeCache cache;
  const Node first = ExistingNode(node, ViewOf(node, {}), "h100", {}, cache);
  REQUIRE(first.props != nullptr);
  CHECK(first.props->group_id == "h100");
  // A pod came: a new room, the same props.
  const Node busy = ExistingNode(node, ViewOf(node, {a}), "h100", {}, cache);
  CHECK(busy.props == first.props);
  CHECK(busy.room != first.room);
  // Another group or other ignored taints are another question.
  CHECK(ExistingNode(node, ViewOf(node, {a}), "h100-spot", {}, cache).props->group_id ==
        "h100-spot");
  auto tainted = std::make_shared<NodeObject>(*node);
  tainted->node.taints.push_back({"example.com/warming", "", TaintEffect::kNoSchedule});
  const Node kept = ExistingNode(tainted, ViewOf(tainted, {a}), "h100", {}, cache);
  CHECK(kept.props != first.props);  // a new object is read afresh
  CHECK(kept.props->taints.size() == tainted->node.taints.size());
  const Node ignoring =
      ExistingNode(tainted, ViewOf(tainted, {a}), "h100", {"example.com/warming"}, cache);
  CHECK(ignoring.props->taints.size() == tainted->node.taints.size() - 1);
}

TEST_CASE("within one loop a node's pods are compared once, and the next loop compares again") {
  const NodePtr node = NodeOf("h100-0", H100Template(), kNow);
  const PodPtr a = BoundPod("a", "h100-0", Res({{"nvidia.com/gpu", "2"}}));
  RunningNodeCache cache;
  const ClusterView first = ViewOf(node, {a});
  cache.BeginLoop(first);
  const auto room = cache.RoomOf(node, first);
  CHECK(cache.RoomOf(node, first) == room);
  cache.ForgetUnused();
  // Next loop, the pod is gone: the loop's first question finds it so.
  const ClusterView second = ViewOf(node, {});
  cache.BeginLoop(second);
  const auto emptied = cache.RoomOf(node, second);
  CHECK(emptied != room);
  CHECK(emptied->free[ResourceCatalog::kNvidiaGpu] == 8);
  // A view other than the loop's own is compared as before.
  const ClusterView other = ViewOf(node, {a});
  CHECK(cache.RoomOf(node, other)->free[ResourceCatalog::kNvidiaGpu] == 6);
  CHECK(cache.RoomOf(node, second)->free[ResourceCatalog::kNvidiaGpu] == 8);
  cache.ForgetUnused();
}

TEST_CASE("a node's usage against the limits is kept while the node object is the same") {
  const NodePtr node = NodeOf("h100-0", H100Template(), kNow);
  RunningNodeCache cache;
  const NodeUsage usage = cache.UsageOf(node, "nvidia.com/gpu.product");
  CHECK(usage.cores == 190);
  CHECK(usage.gpus == 8);
  CHECK(usage.gpu_type == "NVIDIA-H100-80GB-HBM3");
  CHECK(cache.UsageOf(node, "").gpu_type.empty());  // another label is another question
  // A new object for the node (it was resized) is read afresh, and its room with it.
  const auto room = cache.RoomOf(node, ViewOf(node, {}));
  auto resized = std::make_shared<NodeObject>(*node);
  resized->node.allocatable.Set("cpu", *Quantity::Parse("94"));
  resized->capacity = resized->node.allocatable;
  CHECK(cache.UsageOf(resized, "").cores == 94);
  CHECK(cache.RoomOf(resized, ViewOf(resized, {}))->free[ResourceCatalog::kCpu] == 94'000);
  CHECK(room->free[ResourceCatalog::kCpu] == 190'000);
}

TEST_CASE("within a loop an old and a new object of one node each get their own answer") {
  const NodePtr node = NodeOf("h100-0", H100Template(), kNow);
  auto resized = std::make_shared<NodeObject>(*node);
  resized->node.allocatable.Set("cpu", *Quantity::Parse("94"));
  resized->capacity = resized->node.allocatable;
  RunningNodeCache cache;
  const ClusterView view = ViewOf(node, {});
  cache.BeginLoop(view);
  CHECK(cache.UsageOf(node, "").cores == 190);
  CHECK(cache.UsageOf(resized, "").cores == 94);  // the entry now holds the new object
  CHECK(cache.UsageOf(node, "").cores == 190);    // the old one, asked again, is not taken for it
  CHECK(cache.UsageOf(node, "").cores == 190);
  cache.ForgetUnused();
  CHECK(cache.size() == 1);
}

TEST_CASE("nodes not asked for in a loop are forgotten") {
  RunningNodeCache rooms;
  const NodePtr n0 = NodeOf("n0", H100Template(), kNow);
  const NodePtr n1 = NodeOf("n1", H100Template(), kNow);
  rooms.RoomOf(n0, ViewOf(n0, {}));
  rooms.RoomOf(n1, ViewOf(n1, {}));
  rooms.ForgetUnused();
  CHECK(rooms.size() == 2);
  rooms.RoomOf(n0, ViewOf(n0, {}));
  rooms.ForgetUnused();
  CHECK(rooms.size() == 1);
}

TEST_CASE("a resource without a fixed slot leaves the node to the snapshot, with the same room") {
  NodeTemplate t = H100Template();
  t.allocatable.Set("example.com/fpga", Quantity::FromUnits(2));
  const NodePtr node = NodeOf("fpga-0", t, kNow);
  const PodPtr p = BoundPod("p", "fpga-0", Res({{"example.com/fpga", "1"}, {"cpu", "1"}}));
  const ClusterView view = ViewOf(node, {p});
  RunningNodeCache rooms;
  CHECK(rooms.RoomOf(node, view) == nullptr);
  const Node planned = ExistingNode(node, view, "fpga", {}, rooms);
  CHECK(planned.room == nullptr);
  ClusterSnapshot snapshot({planned});
  const int fpga = snapshot.catalog().Intern("example.com/fpga");
  CHECK(At(snapshot.node(0).free, static_cast<size_t>(fpga)) == 1);
  CHECK(snapshot.node(0).pods.size() == 1);
}

TEST_CASE("a snapshot from a kept room equals one worked out from the node's own fields") {
  const NodePtr node = NodeOf("h100-0", H100Template(), kNow);
  PodPtr p = BoundPod("p", "h100-0", Res({{"cpu", "4"}, {"memory", "8Gi"}}));
  auto ported = std::make_shared<PodObject>(*BoundPod("q", "h100-0", Res({{"cpu", "1"}})));
  ported->spec.host_ports.push_back({"TCP", "", 8080});
  const ClusterView view = ViewOf(node, {p, ported});
  RunningNodeCache rooms;
  Node kept = ExistingNode(node, view, "h100", {}, rooms);
  REQUIRE(kept.room != nullptr);
  Node fields = kept;
  fields.room = nullptr;
  fields.allocatable = node->node.allocatable;
  fields.pods = PodsTakingRoom(view, "h100-0");
  ClusterSnapshot from_room({kept});
  ClusterSnapshot from_fields({fields});
  CHECK(from_room.node(0).free == from_fields.node(0).free);
  CHECK(from_room.node(0).allocatable == from_fields.node(0).allocatable);
  CHECK(from_room.node(0).pods == from_fields.node(0).pods);
  CHECK(from_room.node(0).ports.size() == 1);
  CHECK(from_fields.node(0).ports.size() == 1);
}

}  // namespace
}  // namespace gpua
