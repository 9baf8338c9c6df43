#include "cloudproviders/node_proto.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kubeobjects/nodes.h"

namespace gpua {
namespace {

using QuantityMap =
    google::protobuf::Map<std::string, k8s::io::apimachinery::pkg::api::resource::Quantity>;

void PutResources(const ResourceList& list, QuantityMap* into) {
  for (const auto& [name, q] : list) (*into)[name].set_string(q.ToString());
}

absl::StatusOr<ResourceList> GetResources(const QuantityMap& from, absl::string_view field) {
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto& [name, q] : from) entries.emplace_back(name, q.string());
  return ResourceList::Parse(entries, field);
}

Labels ToLabels(const google::protobuf::Map<std::string, std::string>& map) {
  return Labels(map.begin(), map.end());
}

}  // namespace

corev1::Node NodeTemplateToProto(const NodeTemplate& t) {
  corev1::Node node;
  auto* meta = node.mutable_metadata();
  meta->set_name(t.name);
  for (const auto& [k, v] : t.labels) (*meta->mutable_labels())[k] = v;
  for (const auto& [k, v] : t.annotations) (*meta->mutable_annotations())[k] = v;
  for (const Taint& taint : t.taints) {
    corev1::Taint* out = node.mutable_spec()->add_taints();
    out->set_key(taint.key);
    out->set_value(taint.value);
    out->set_effect(std::string(TaintEffectName(taint.effect)));
  }
  PutResources(t.allocatable, node.mutable_status()->mutable_allocatable());
  PutResources(t.allocatable, node.mutable_status()->mutable_capacity());
  return node;
}

absl::StatusOr<NodeTemplate> NodeTemplateFromProto(const corev1::Node& node,
                                                   absl::string_view what) {
  NodeTemplate t;
  t.name = node.metadata().name();
  t.labels = ToLabels(node.metadata().labels());
  t.annotations = ToLabels(node.metadata().annotations());
  for (int i = 0; i < node.spec().taints_size(); ++i) {
    const corev1::Taint& in = node.spec().taints(i);
    const std::string field = absl::StrCat(what, ": spec.taints[", i, "]");
    if (in.key().empty()) return absl::InvalidArgumentError(absl::StrCat(field, ".key: empty"));
    absl::StatusOr<TaintEffect> effect = ParseTaintEffect(in.effect());
    if (!effect.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ".effect: ", effect.status().message()));
    }
    t.taints.push_back({in.key(), in.value(), *effect});
  }
  const std::string prefix = absl::StrCat(what, ": ");
  GPUA_ASSIGN_OR_RETURN(t.allocatable, GetResources(node.status().allocatable(),
                                                    absl::StrCat(prefix, "status.allocatable")));
  GPUA_ASSIGN_OR_RETURN(
      ResourceList capacity,
      GetResources(node.status().capacity(), absl::StrCat(prefix, "status.capacity")));
  GPUA_RETURN_IF_ERROR(CheckNodeTemplate(t, capacity, prefix));
  return t;
}

absl::StatusOr<NodeTemplate> NodeTemplateFromBytes(const std::string& bytes,
                                                   absl::string_view what) {
  corev1::Node node;
  if (bytes.empty() || !node.ParseFromString(bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ",
                                                   bytes.empty() ? "empty, expected" : "not",
                                                   " a serialized k8s.io.api.core.v1.Node"));
  }
  return NodeTemplateFromProto(node, what);
}

corev1::Pod PodToProto(const PodSpec& pod) {
  corev1::Pod out;
  auto* meta = out.mutable_metadata();
  meta->set_name(pod.name);
  meta->set_namespace_(pod.namespace_name);
  meta->set_uid(pod.uid);
  for (const auto& [k, v] : pod.labels) (*meta->mutable_labels())[k] = v;
  corev1::Container* c = out.mutable_spec()->add_containers();
  c->set_name("requests");
  PutResources(pod.requests, c->mutable_resources()->mutable_requests());
  for (const auto& [k, v] : pod.node_selector) (*out.mutable_spec()->mutable_nodeselector())[k] = v;
  if (!pod.node_name.empty()) out.mutable_spec()->set_nodename(pod.node_name);
  return out;
}

absl::StatusOr<PodSpec> PodFromProto(const corev1::Pod& pod) {
  PodSpec out;
  out.name = pod.metadata().name();
  out.namespace_name = pod.metadata().namespace_();
  out.uid = pod.metadata().uid();
  out.labels = ToLabels(pod.metadata().labels());
  out.node_selector = ToLabels(pod.spec().nodeselector());
  out.node_name = pod.spec().nodename();
  for (int i = 0; i < pod.spec().containers_size(); ++i) {
    GPUA_ASSIGN_OR_RETURN(ResourceList requests,
                          GetResources(pod.spec().containers(i).resources().requests(),
                                       absl::StrCat("pod ", out.Key(), ": spec.containers[", i,
                                                    "].resources.requests")));
    out.requests += requests;
  }
  return out;
}

}  // namespace gpua
