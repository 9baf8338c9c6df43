#include "tests/support/fake_kube_writer.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace gpua::testing {

absl::Status FakeKubeWriter::Call(const std::string& method, const std::string& what) {
  calls.push_back(absl::StrCat(method, " ", what));
  auto it = failing.find(method);
  return it == failing.end() ? absl::OkStatus() : it->second;
}

absl::Status FakeKubeWriter::AddTaint(const std::string& node, const Taint& taint) {
  const std::string effect(TaintEffectName(taint.effect));
  absl::Status s =
      Call("AddTaint", absl::StrCat(node, " ", taint.key, "=", taint.value, ":", effect));
  if (s.ok()) taints[node][taint.key] = taint;
  return s;
}

absl::Status FakeKubeWriter::RemoveTaint(const std::string& node, const std::string& key) {
  absl::Status s = Call("RemoveTaint", absl::StrCat(node, " ", key));
  if (s.ok()) taints[node].erase(key);
  return s;
}

absl::Status FakeKubeWriter::SetUnschedulable(const std::string& node, bool value) {
  absl::Status s = Call("SetUnschedulable", absl::StrCat(node, " ", value ? "true" : "false"));
  if (s.ok()) unschedulable[node] = value;
  return s;
}

absl::Status FakeKubeWriter::Annotate(const std::string& node, const std::string& key,
                                      std::optional<std::string> value) {
  const bool remove = !value.has_value() || value->empty();
  absl::Status s = Call("Annotate", absl::StrCat(node, " ", key, "=", remove ? "" : *value));
  if (!s.ok()) return s;
  if (remove) {
    annotations[node].erase(key);
  } else {
    annotations[node][key] = *value;
  }
  return s;
}

absl::Status FakeKubeWriter::Label(const std::string& node, const std::string& key,
                                   std::optional<std::string> value) {
  const bool remove = !value.has_value() || value->empty();
  absl::Status s = Call("Label", absl::StrCat(node, " ", key, "=", remove ? "" : *value));
  if (!s.ok()) return s;
  if (remove) {
    labels[node].erase(key);
  } else {
    labels[node][key] = *value;
  }
  return s;
}

absl::Status FakeKubeWriter::DeleteNode(const std::string& node) {
  absl::Status s = Call("DeleteNode", node);
  if (s.ok()) deleted_nodes.push_back(node);
  return s;
}

absl::StatusOr<EvictionResult> FakeKubeWriter::Evict(const std::string& namespace_name,
                                                     const std::string& pod,
                                                     std::optional<absl::Duration> grace) {
  const std::string key = absl::StrCat(namespace_name, "/", pod);
  if (absl::Status s = Call("Evict", key); !s.ok()) return s;
  auto it = eviction_results.find(key);
  const EvictionResult result =
      it == eviction_results.end() ? EvictionResult::kEvicted : it->second;
  if (result == EvictionResult::kEvicted) {
    evicted.push_back(key);
    eviction_grace[key] = grace;
  }
  return result;
}

absl::Status FakeKubeWriter::Nominate(const std::string& namespace_name, const std::string& pod,
                                      std::optional<std::string> node) {
  const std::string key = absl::StrCat(namespace_name, "/", pod);
  absl::Status s = Call("Nominate", absl::StrCat(key, " ", node.value_or("")));
  if (!s.ok()) return s;
  if (node.has_value() && !node->empty()) {
    nominated[key] = *node;
  } else {
    nominated.erase(key);
  }
  return s;
}

absl::Status FakeKubeWriter::RecordEvent(const EventRecord& event) {
  absl::Status s =
      Call("RecordEvent", absl::StrCat(event.object.kind, " ", event.object.namespace_name, "/",
                                       event.object.name, " ", event.reason));
  if (s.ok()) events.push_back(event);
  return s;
}

absl::Status FakeKubeWriter::WriteConfigMap(const std::string& namespace_name,
                                            const std::string& name,
                                            const std::map<std::string, std::string>& data,
                                            const std::map<std::string, std::string>& notes) {
  const std::string key = absl::StrCat(namespace_name, "/", name);
  absl::Status s = Call("WriteConfigMap", key);
  if (!s.ok()) return s;
  // As the API writer: the data replaced, the annotations merged.
  ConfigMapWrite& cm = config_maps[key];
  cm.data = data;
  for (const auto& [k, v] : notes) cm.annotations[k] = v;
  return s;
}

absl::Status FakeKubeWriter::AnnotateConfigMap(const std::string& namespace_name,
                                               const std::string& name,
                                               const std::map<std::string, std::string>& notes) {
  const std::string key = absl::StrCat(namespace_name, "/", name);
  absl::Status s = Call("AnnotateConfigMap", key);
  if (!s.ok()) return s;
  for (const auto& [k, v] : notes) config_maps[key].annotations[k] = v;
  return s;
}

int FakeKubeWriter::CallsTo(const std::string& method) const {
  return static_cast<int>(std::count_if(calls.begin(), calls.end(), [&](const std::string& c) {
    return c.rfind(method + " ", 0) == 0;
  }));
}

std::vector<EventRecord> FakeKubeWriter::EventsWithReason(const std::string& reason) const {
  std::vector<EventRecord> out;
  for (const EventRecord& e : events) {
    if (e.reason == reason) out.push_back(e);
  }
  return out;
}

bool FakeKubeWriter::HasTaint(const std::string& node, const std::string& key) const {
  auto it = taints.find(node);
  return it != taints.end() && it->second.contains(key);
}

}  // namespace gpua::testing
