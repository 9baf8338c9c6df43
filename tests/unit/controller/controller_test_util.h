// Building blocks for the controller's unit tests: nodes, pods and provider groups as the
// informers and the provider reader would hand them over.
#ifndef GPUA_TESTS_UNIT_CONTROLLER_CONTROLLER_TEST_UTIL_H_
#define GPUA_TESTS_UNIT_CONTROLLER_CONTROLLER_TEST_UTIL_H_

#include <memory>
#include <string>

#include "absl/time/time.h"
#include "autoscaler/controller/model/cluster_view.h"
#include "autoscaler/controller/model/provider_snapshot.h"
#include "estimator/gpu/gpu_inventory_reader.h"

namespace gpua::testing {

// The instant the controller's unit tests take as now.
inline const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

inline ResourceList Res(std::initializer_list<std::pair<std::string, std::string>> items) {
  ResourceList out;
  for (const auto& [name, q] : items) out.Set(name, *Quantity::Parse(q));
  return out;
}

inline NodeTemplate H100Template() {
  NodeTemplate t;
  t.name = "h100";
  t.labels = {{"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"}, {"nvidia.com/gpu.count", "8"}};
  t.allocatable =
      Res({{"cpu", "190"}, {"memory", "1900Gi"}, {"pods", "110"}, {"nvidia.com/gpu", "8"}});
  return t;
}

inline NodeTemplate A100Template() {
  NodeTemplate t;
  t.name = "a100";
  t.labels = {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-80GB"}, {"nvidia.com/gpu.count", "8"}};
  t.allocatable =
      Res({{"cpu", "95"}, {"memory", "1100Gi"}, {"pods", "110"}, {"nvidia.com/gpu", "8"}});
  return t;
}

inline ProviderGroup Group(const std::string& id, NodeTemplate t, int target = 0, int max = 10) {
  ProviderGroup g;
  g.id = id;
  g.max_size = max;
  g.target_size = target;
  auto gpus = ReadGpuInventory(t.labels, t.annotations, t.allocatable, id);
  if (gpus.ok() && gpus->has_value()) g.gpus = std::make_shared<const GpuInventory>(**gpus);
  g.node_template = std::move(t);
  return g;
}

// A registered node of the group `group`'s template, created at `created`.
inline NodePtr NodeOf(const std::string& name, const NodeTemplate& t, absl::Time created,
                      bool ready = true, bool with_gpus = true) {
  auto n = std::make_shared<NodeObject>();
  n->node.name = name;
  n->node.labels = t.labels;
  n->node.allocatable = t.allocatable;
  if (!with_gpus) n->node.allocatable.Set("nvidia.com/gpu", Quantity::FromUnits(0));
  n->provider_id = "sim://" + name;
  n->ready = ready;
  n->created = created;
  return n;
}

inline PodPtr PendingPod(const std::string& name, ResourceList requests, absl::Time created) {
  auto p = std::make_shared<PodObject>();
  p->spec.namespace_name = "ml";
  p->spec.name = name;
  p->spec.uid = "uid-" + name;
  p->spec.requests = std::move(requests);
  p->spec.tolerations = {{"", Toleration::Op::kExists, "", std::nullopt}};
  p->phase = "Pending";
  p->unschedulable = true;
  p->created = created;
  return p;
}

}  // namespace gpua::testing

#endif  // GPUA_TESTS_UNIT_CONTROLLER_CONTROLLER_TEST_UTIL_H_
