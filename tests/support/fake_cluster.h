// The fakes put together the way a loop sees them: nodes registered for a fake group's
// instances, running pods, and the state a loop would build on a FakeClusterSource and a
// FakeCloudProvider (the real ProviderReader and ClusterStateBuilder over them), so a test
// of one step states everything that step sees.
#ifndef GPUA_TESTS_SUPPORT_FAKE_CLUSTER_H_
#define GPUA_TESTS_SUPPORT_FAKE_CLUSTER_H_

#include <memory>
#include <string>

#include "autoscaler/controller/mig/mig_layout_assigner.h"
#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/controller_options.h"
#include "autoscaler/controller/model/group_resizer.h"
#include "autoscaler/controller/model/provider_snapshot.h"
#include "autoscaler/controller/planning/planning_input.h"
#include "base/log.h"
#include "tests/support/fake_cloud_provider.h"
#include "tests/support/fake_cluster_source.h"
#include "tests/support/fake_kube_writer.h"

namespace gpua::testing {

// A node of `group`'s template on a new running instance of it, added to `source`.
inline NodePtr RegisterNode(FakeClusterSource& source, FakeNodeGroup& group,
                            const std::string& name, absl::Time created, bool ready = true) {
  auto n = std::make_shared<NodeObject>();
  n->node.name = name;
  n->node.labels = group.node_template.labels;
  n->node.labels["kubernetes.io/hostname"] = name;
  n->node.taints = group.node_template.taints;
  n->node.allocatable = group.node_template.allocatable;
  n->provider_id = group.AddRunning();
  n->ready = ready;
  n->created = created;
  source.AddNode(n);
  return n;
}

// A pod running on `node`, of ReplicaSet `owner` (which it adds to the view once).
inline PodPtr RunningPod(FakeClusterSource& source, const std::string& name,
                         const std::string& node, ResourceList requests,
                         const std::string& owner = "web") {
  auto p = std::make_shared<PodObject>();
  p->spec.namespace_name = "ml";
  p->spec.name = name;
  p->spec.uid = "uid-" + name;
  p->spec.node_name = node;
  p->spec.requests = std::move(requests);
  p->spec.tolerations = {{"", Toleration::Op::kExists, "", std::nullopt}};
  p->spec.owner = OwnerReference{"ReplicaSet", owner, owner + "-uid", true};
  p->phase = "Running";
  source.AddPod(p);
  if (!source.view.workloads.contains(WorkloadRef("ReplicaSet", "ml", owner))) {
    source.AddReplicaSet("ml", owner, 1);
  }
  return p;
}

// What one loop builds before it acts: the view, the provider read once, the state on both,
// and the actuators' way to the groups read. The state and `groups` point into the provider
// snapshot; keep them together.
struct LoopInputs {
  std::shared_ptr<const ClusterView> view;
  std::unique_ptr<ProviderSnapshot> provider;
  ClusterState state;
  std::unique_ptr<SnapshotGroupResizer> groups;
};

inline LoopInputs BuildLoopInputs(const FakeClusterSource& source, FakeCloudProvider& cloud,
                                  const ControllerOptions& options, NodeGroupBackoff& backoff,
                                  absl::Time now, const MigLayoutBook& mig_layouts = {}) {
  LoopInputs in;
  in.view = source.View();
  MemoryLogSink log;
  ProviderReader reader(cloud, options, log);
  in.provider = std::make_unique<ProviderSnapshot>(reader.Read(in.view->nodes, now));
  ClusterStateBuilder builder(options.cluster_state);
  in.state = builder.Build(*in.view, *in.provider, backoff, now);
  AssignMigLayouts(mig_layouts, in.state);
  in.groups = std::make_unique<SnapshotGroupResizer>(*in.provider);
  return in;
}

// What a step's test builds the step on: the options, a fake for each seam, and the memory a
// loop keeps. Declared before the step a fixture adds, so the step is built on them.
struct LoopFakes {
  ControllerOptions options;
  FakeCloudProvider cloud;
  FakeClusterSource source;
  FakeKubeWriter writer;
  MemoryLogSink log;
  LoopMemory kept{writer, options, log};
};

// The input each step of the loop at `now` reads, on `in` and `kept`.
inline PlanningInput PlanningInputOf(LoopInputs& in, LoopMemory& kept, absl::Time now) {
  return {*in.view, in.state, *in.groups, kept, now};
}

}  // namespace gpua::testing

#endif  // GPUA_TESTS_SUPPORT_FAKE_CLUSTER_H_
