#include "autoscaler/controller/model/dry_run_kube_writer.h"

#include "absl/strings/str_cat.h"

namespace gpua {
namespace {

std::string ValueOrRemoved(const std::optional<std::string>& value) {
  return value.has_value() ? absl::StrCat("=", *value) : " removed";
}

}  // namespace

absl::Status DryRunKubeWriter::Would(absl::string_view what) {
  log_.Info(absl::StrCat("Dry run: would ", what));
  return absl::OkStatus();
}

absl::Status DryRunKubeWriter::AddTaint(const std::string& node, const Taint& taint) {
  return Would(absl::StrCat("taint node ", node, " with ", taint.key, "=", taint.value, ":",
                            TaintEffectName(taint.effect)));
}

absl::Status DryRunKubeWriter::RemoveTaint(const std::string& node, const std::string& key) {
  return Would(absl::StrCat("remove taint ", key, " from node ", node));
}

absl::Status DryRunKubeWriter::SetUnschedulable(const std::string& node, bool unschedulable) {
  return Would(absl::StrCat(unschedulable ? "cordon" : "uncordon", " node ", node));
}

absl::Status DryRunKubeWriter::Annotate(const std::string& node, const std::string& key,
                                        std::optional<std::string> value) {
  return Would(absl::StrCat("annotate node ", node, ": ", key, ValueOrRemoved(value)));
}

absl::Status DryRunKubeWriter::Label(const std::string& node, const std::string& key,
                                     std::optional<std::string> value) {
  return Would(absl::StrCat("label node ", node, ": ", key, ValueOrRemoved(value)));
}

absl::Status DryRunKubeWriter::DeleteNode(const std::string& node) {
  return Would(absl::StrCat("delete node object ", node));
}

absl::StatusOr<EvictionResult> DryRunKubeWriter::Evict(const std::string& namespace_name,
                                                       const std::string& pod,
                                                       std::optional<absl::Duration> /*grace*/) {
  Would(absl::StrCat("evict pod ", namespace_name, "/", pod)).IgnoreError();
  return EvictionResult::kEvicted;
}

absl::Status DryRunKubeWriter::Nominate(const std::string& namespace_name, const std::string& pod,
                                        std::optional<std::string> node) {
  return Would(absl::StrCat("set pod ", namespace_name, "/", pod, "'s nominatedNodeName",
                            ValueOrRemoved(node)));
}

absl::Status DryRunKubeWriter::RecordEvent(const EventRecord& e) {
  return Would(absl::StrCat("record event ", e.type, " ", e.reason, " on ", e.object.kind, " ",
                            e.object.namespace_name.empty() ? "" : e.object.namespace_name + "/",
                            e.object.name, ": ", e.message));
}

absl::Status DryRunKubeWriter::WriteConfigMap(
    const std::string& namespace_name, const std::string& name,
    const std::map<std::string, std::string>& data,
    const std::map<std::string, std::string>& annotations) {
  return status_writer_.WriteConfigMap(namespace_name, name, data, annotations);
}

absl::Status DryRunKubeWriter::AnnotateConfigMap(
    const std::string& namespace_name, const std::string& name,
    const std::map<std::string, std::string>& annotations) {
  return status_writer_.AnnotateConfigMap(namespace_name, name, annotations);
}

}  // namespace gpua
