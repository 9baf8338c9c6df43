// Small builders that keep the estimator tests about behaviour, not boilerplate.
#ifndef GPUA_TESTS_UNIT_ESTIMATOR_TEST_UTIL_H_
#define GPUA_TESTS_UNIT_ESTIMATOR_TEST_UTIL_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "estimator/estimate.h"

namespace gpua::testing {

inline ResourceList Res(std::vector<std::pair<std::string, std::string>> entries) {
  return *ResourceList::Parse(entries, "test");
}

inline PodSpec Pod(const std::string& name, ResourceList requests, const std::string& owner = "") {
  PodSpec p;
  p.namespace_name = "default";
  p.name = name;
  p.requests = std::move(requests);
  if (!owner.empty()) p.owner = OwnerReference{"ReplicaSet", owner, owner + "-uid", true};
  return p;
}

// A 4-core node running one pod of `used_cpu` cores (named after the node).
inline Node CpuNode(const std::string& name, const std::string& used_cpu) {
  Node n;
  n.name = name;
  n.allocatable = Res({{"cpu", "4"}, {"memory", "16Gi"}, {"pods", "110"}});
  n.pods.push_back(std::make_shared<PodSpec>(Pod(name + "-app", Res({{"cpu", used_cpu}}), "app")));
  return n;
}

inline Toleration TolerateGpu() {
  return {"nvidia.com/gpu", Toleration::Op::kExists, "", TaintEffect::kNoSchedule};
}

inline NodeGroupSpec Group(const std::string& id, ResourceList allocatable, int max_size = 10,
                           double price = 1.0) {
  NodeGroupSpec g;
  g.id = id;
  g.max_size = max_size;
  g.price_per_hour = price;
  g.node_template.allocatable = std::move(allocatable);
  return g;
}

inline NodeGroupSpec GpuGroup(const std::string& id, int gpus, int max_size = 10,
                              double price = 10.0) {
  NodeGroupSpec g = Group(id,
                          Res({{"cpu", "96"},
                               {"memory", "1Ti"},
                               {"pods", "110"},
                               {"nvidia.com/gpu", std::to_string(gpus)}}),
                          max_size, price);
  g.node_template.taints = {{"nvidia.com/gpu", "present", TaintEffect::kNoSchedule}};
  return g;
}

inline ScaleUpPlan Plan(const std::vector<PodSpec>& pods, const std::vector<NodeGroupSpec>& groups,
                        std::vector<Node> nodes = {}, const std::string& expander = "least-waste",
                        EstimateOptions options = {}) {
  ClusterSnapshot snapshot(std::move(nodes));
  auto chain = MakeExpanderChain(expander, {});
  return Estimate(pods, groups, snapshot, **chain, options);
}

}  // namespace gpua::testing

#endif  // GPUA_TESTS_UNIT_ESTIMATOR_TEST_UTIL_H_
