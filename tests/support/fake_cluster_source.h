// The one fake ClusterSource every unit test uses: the cluster a test builds (nodes, pods,
// PDBs, workloads, ConfigMaps), handed to the controller as one view per loop. Each View()
// is a copy, so a test may change the cluster between loops without touching a view a loop
// still holds.
#ifndef GPUA_TESTS_SUPPORT_FAKE_CLUSTER_SOURCE_H_
#define GPUA_TESTS_SUPPORT_FAKE_CLUSTER_SOURCE_H_

#include <algorithm>
#include <memory>
#include <string>

#include "autoscaler/controller/model/cluster_source.h"

namespace gpua::testing {

class FakeClusterSource : public ClusterSource {
 public:
  std::shared_ptr<const ClusterView> View() const override {
    return std::make_shared<const ClusterView>(view);
  }
  bool Synced() const override { return synced; }

  void AddNode(NodePtr node) { view.nodes.push_back(std::move(node)); }
  // Bound pods must be added in namespace/name order per node, as informers file them.
  void AddPod(PodPtr pod) { view.AddPod(std::move(pod)); }
  // A ReplicaSet in `namespace_name` whose pods may move (uid: the name and "-uid").
  void AddReplicaSet(const std::string& namespace_name, const std::string& name, int replicas) {
    auto rs = std::make_shared<WorkloadObject>();
    rs->kind = "ReplicaSet";
    rs->namespace_name = namespace_name;
    rs->name = name;
    rs->uid = name + "-uid";
    rs->replicas = replicas;
    view.AddWorkload(std::move(rs));
  }
  void RemoveNode(const std::string& name) {
    std::erase_if(view.nodes, [&](const NodePtr& n) { return n->node.name == name; });
    view.pods_by_node.erase(name);
  }
  // Replaces the node of the same name (a label or taint the cluster now shows, say).
  void ReplaceNode(NodePtr node) {
    for (NodePtr& n : view.nodes) {
      if (n->node.name == node->node.name) n = node;
    }
  }

  ClusterView view;
  bool synced = true;
};

}  // namespace gpua::testing

#endif  // GPUA_TESTS_SUPPORT_FAKE_CLUSTER_SOURCE_H_
