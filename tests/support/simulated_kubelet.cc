#include "tests/support/simulated_kubelet.h"

#include "absl/strings/str_cat.h"
#include "cloudproviders/simulated/simulated_node.h"
#include "estimator/gpu/gpu_inventory.h"

namespace gpua::testing {
namespace {

void AddSpotInterruptionTaint(nlohmann::json& node) {
  constexpr char kKey[] = "aws-node-termination-handler/spot-itn";
  nlohmann::json& taints = node["spec"]["taints"];
  if (!taints.is_array()) taints = nlohmann::json::array();
  for (const nlohmann::json& t : taints) {
    if (t.value("key", "") == kKey) return;
  }
  taints.push_back({{"key", kKey}, {"value", "true"}, {"effect", "NoSchedule"}});
}

}  // namespace

std::string SimulatedKubelet::NodeName(const std::string& provider_id) {
  return SimulatedNodeName(provider_id);
}

nlohmann::json SimulatedKubelet::NodeFor(const NodeGroupConfig& g, const std::string& provider_id,
                                         bool gpus_ready, bool under_notice) const {
  const NodeTemplate& t = g.spec.node_template;
  const std::string name = NodeName(provider_id);
  // What others wrote on the Node (the controller's labels, annotations and taints) stays, as
  // a kubelet leaves them; the kubelet owns its status.
  nlohmann::json node;
  if (auto existing = server_.Get("nodes", "", name)) {
    node = *std::move(existing);
    node["metadata"].erase("resourceVersion");
  } else {
    node = NewNodeFor(t, name, provider_id);
    node["metadata"]["creationTimestamp"] = registered_at_.at(name);
  }
  if (under_notice) AddSpotInterruptionTaint(node);
  const nlohmann::json labels = node["metadata"].value("labels", nlohmann::json::object());
  // Node agents (Node Problem Detector, EKS's monitoring agent) set conditions of their own
  // beside the kubelet's Ready; a kubelet's status update leaves them.
  nlohmann::json others = nlohmann::json::array();
  if (node.contains("status") && node["status"].contains("conditions")) {
    for (const nlohmann::json& c : node["status"]["conditions"]) {
      if (c.value("type", "") != "Ready") others.push_back(c);
    }
  }
  node["status"] = NodeStatusFor(t, labels.value(kMigConfigLabel, ""), gpus_ready);
  for (nlohmann::json& c : others) node["status"]["conditions"].push_back(std::move(c));
  if (auto lost = lost_gpus_.find(name); lost != lost_gpus_.end() && lost->second > 0) {
    for (const char* field : {"allocatable", "capacity"}) {
      nlohmann::json& list = node["status"][field];
      if (!list.contains("nvidia.com/gpu")) continue;
      const int has = std::stoi(list["nvidia.com/gpu"].get<std::string>());
      list["nvidia.com/gpu"] = std::to_string(std::max(0, has - lost->second));
    }
  }
  return node;
}

void SimulatedKubelet::FinishPods(const std::set<std::string>& nodes) {
  const absl::Time now = clock_.Now();
  for (const nlohmann::json& pod : server_.List("pods")) {
    const nlohmann::json& meta = pod["metadata"];
    const std::string key = absl::StrCat(meta.value("namespace", ""), "/", meta.value("name", ""));
    const std::string node =
        pod.contains("spec") && pod["spec"].is_object() ? pod["spec"].value("nodeName", "") : "";
    const bool orphan = !node.empty() && !nodes.contains(node) && written_.contains(node);
    bool done = orphan;
    if (meta.contains("deletionTimestamp")) {
      const absl::Time since = terminating_since_.try_emplace(key, now).first->second;
      done = done || now >= since + absl::Seconds(meta.value("deletionGracePeriodSeconds", 0));
    }
    if (!done) continue;
    server_.Delete("pods", meta.value("namespace", ""), meta.value("name", ""));
    terminating_since_.erase(key);
  }
}

void SimulatedKubelet::PublishSlices(const NodeGroupConfig& g, const std::string& node) {
  if (g.spec.node_template.resource_slices.empty() || slices_.contains(node)) return;
  std::vector<std::string>& names = slices_[node];
  for (nlohmann::json& slice : SlicesFor(g.spec.node_template, node)) {
    names.push_back(slice["metadata"]["name"]);
    server_.Upsert("resourceslices", std::move(slice));
  }
}

void SimulatedKubelet::UnpublishSlices(const std::string& node) {
  auto it = slices_.find(node);
  if (it == slices_.end()) return;
  for (const std::string& name : it->second) server_.Delete("resourceslices", "", name);
  slices_.erase(it);
}

void SimulatedKubelet::RegisteredAt(absl::Time when) {
  for (const Machine& m : cloud_.Machines()) {
    registered_at_[NodeName(m.provider_id)] =
        absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", when, absl::UTCTimeZone());
  }
}

std::map<std::string, std::string> SimulatedKubelet::Sync() {
  std::set<std::string> alive;
  std::map<std::string, std::string> versions;
  const std::vector<Machine> machines = cloud_.Machines();
  for (const NodeGroupConfig& g : groups_) {
    if (broken_.contains(g.spec.id)) continue;
    for (const Machine& m : machines) {
      if (m.group != g.spec.id) continue;
      const std::string name = NodeName(m.provider_id);
      alive.insert(name);
      registered_at_.try_emplace(
          name, absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", clock_.Now(), absl::UTCTimeZone()));
      nlohmann::json node =
          NodeFor(g, m.provider_id, clock_.Now() >= m.gpu_ready_at, m.reclaim_at.has_value());
      if (clock_.Now() >= m.gpu_ready_at) PublishSlices(g, name);
      const std::string text = node.dump();
      if (written_[name] == text) {
        versions[name] = (*server_.Get("nodes", "", name))["metadata"]["resourceVersion"];
        continue;
      }
      written_[name] = text;
      versions[name] = std::to_string(server_.Upsert("nodes", std::move(node)));
    }
  }
  FinishPods(alive);
  for (auto it = written_.begin(); it != written_.end();) {
    if (alive.contains(it->first)) {
      ++it;
      continue;
    }
    server_.Delete("nodes", "", it->first);
    UnpublishSlices(it->first);
    registered_at_.erase(it->first);
    it = written_.erase(it);
  }
  return versions;
}

}  // namespace gpua::testing
