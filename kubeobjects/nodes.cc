#include "kubeobjects/nodes.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "estimator/gpu/gpu_inventory_reader.h"
#include "kubeobjects/object_meta.h"

namespace gpua {

absl::StatusOr<std::vector<Taint>> DecodeTaints(const JsonReader& r) {
  std::vector<Taint> out;
  GPUA_RETURN_IF_ERROR(r.ForEach([&](const JsonReader& t) -> absl::Status {
    Taint taint;
    GPUA_ASSIGN_OR_RETURN(taint.key, t.Field("key").String());
    if (taint.key.empty()) return t.Field("key").Error("must not be empty");
    GPUA_ASSIGN_OR_RETURN(taint.value, t.Field("value").String());
    GPUA_ASSIGN_OR_RETURN(std::string effect, t.Field("effect").String());
    absl::StatusOr<TaintEffect> e = ParseTaintEffect(effect);
    if (!e.ok()) return t.Field("effect").Error(e.status().message());
    taint.effect = *e;
    out.push_back(std::move(taint));
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<NodeObject> DecodeNode(const nlohmann::json& object) {
  return DecodeNode(JsonReader(object));
}

const absl::StatusOr<std::shared_ptr<const GpuInventory>>& NodeObject::Gpus() const {
  return gpus_read.Get([this]() -> absl::StatusOr<std::shared_ptr<const GpuInventory>> {
    absl::StatusOr<std::optional<GpuInventory>> read =
        ReadGpuInventory(node.labels, annotations, node.allocatable, node.name);
    if (!read.ok()) return read.status();
    if (!read->has_value()) return nullptr;
    return std::make_shared<const GpuInventory>(**std::move(read));
  });
}

const NodeMarks& NodeObject::Marks() const {
  return marks_read.Get([this] { return ReadNodeMarks(node, annotations); });
}

const NodeConditionStatus* NodeObject::Condition(absl::string_view type) const {
  for (const NodeConditionStatus& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

absl::StatusOr<NodeObject> DecodeNode(const JsonReader& obj) {
  NodeObject out;
  const JsonReader meta = obj.Field("metadata");
  const auto fail = [&](const absl::Status& s) {
    return absl::InvalidArgumentError(absl::StrCat("Node ", out.node.name, ": ", s.message()));
  };
  out.node.name = meta.Field("name").String().value_or("");
  if (!obj.IsObject() || out.node.name.empty()) {
    return fail(meta.Field("name").Error("missing"));
  }
  const auto read = [&]() -> absl::Status {
    GPUA_ASSIGN_OR_RETURN(out.node.labels, meta.Field("labels").StringMap());
    GPUA_ASSIGN_OR_RETURN(out.annotations, meta.Field("annotations").StringMap());
    // A node whose creation time cannot be read is taken as old, never dropped for it.
    out.created = ReadApiTime(meta.Field("creationTimestamp")).value_or(absl::InfinitePast());
    GPUA_ASSIGN_OR_RETURN(out.resource_version, meta.Field("resourceVersion").String());
    const JsonReader spec = obj.Field("spec");
    GPUA_ASSIGN_OR_RETURN(out.node.taints, DecodeTaints(spec.Field("taints")));
    GPUA_ASSIGN_OR_RETURN(out.node.unschedulable, spec.Field("unschedulable").Bool());
    GPUA_ASSIGN_OR_RETURN(out.provider_id, spec.Field("providerID").String());
    const JsonReader status = obj.Field("status");
    GPUA_ASSIGN_OR_RETURN(out.node.allocatable, status.Field("allocatable").Resources());
    GPUA_ASSIGN_OR_RETURN(out.capacity, status.Field("capacity").Resources());
    return status.Field("conditions").ForEach([&](const JsonReader& c) -> absl::Status {
      NodeConditionStatus cond;
      GPUA_ASSIGN_OR_RETURN(cond.type, c.Field("type").String());
      if (cond.type.empty()) return c.Field("type").Error("missing");
      GPUA_ASSIGN_OR_RETURN(cond.status, c.Field("status").String());
      GPUA_ASSIGN_OR_RETURN(cond.reason, c.Field("reason").String());
      GPUA_ASSIGN_OR_RETURN(cond.message, c.Field("message").String());
      // A time that cannot be read is not known: the judge then counts from when it saw it.
      if (absl::StatusOr<absl::Time> t = ReadApiTime(c.Field("lastTransitionTime"));
          t.ok() && *t != absl::InfinitePast()) {
        cond.last_transition = *t;
      }
      if (cond.type == "Ready") out.ready = cond.status == "True";
      out.conditions.push_back(std::move(cond));
      return absl::OkStatus();
    });
  };
  if (absl::Status s = read(); !s.ok()) return fail(s);
  return out;
}

absl::Status CheckNodeTemplate(NodeTemplate& t, const ResourceList& capacity,
                               absl::string_view field_prefix) {
  if (t.allocatable.empty()) t.allocatable = capacity;
  if (t.allocatable.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(field_prefix, "status.allocatable: missing (and no capacity either)"));
  }
  for (const auto& [name, q] : t.allocatable) {
    if (q.Sign() < 0) {
      return absl::InvalidArgumentError(absl::StrCat(field_prefix, "status.allocatable[", name,
                                                     "]: negative (", q.ToString(), ")"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<NodeTemplate> DecodeNodeTemplate(const JsonReader& node) {
  NodeTemplate t;
  const JsonReader meta = node.Field("metadata");
  GPUA_ASSIGN_OR_RETURN(t.name, meta.Field("name").String());
  GPUA_ASSIGN_OR_RETURN(t.labels, meta.Field("labels").StringMap());
  GPUA_ASSIGN_OR_RETURN(t.annotations, meta.Field("annotations").StringMap());
  GPUA_ASSIGN_OR_RETURN(t.taints, DecodeTaints(node.Field("spec").Field("taints")));
  const JsonReader status = node.Field("status");
  GPUA_ASSIGN_OR_RETURN(t.allocatable, status.Field("allocatable").Resources());
  GPUA_ASSIGN_OR_RETURN(ResourceList capacity, status.Field("capacity").Resources());
  // The check names fields after the node's own path ("nodeGroups[0].template.").
  std::string prefix = node.path();
  if (!prefix.empty() && prefix.back() != ' ') prefix += ".";
  GPUA_RETURN_IF_ERROR(CheckNodeTemplate(t, capacity, prefix));
  return t;
}

}  // namespace gpua
