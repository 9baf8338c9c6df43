#include "autoscaler/sim/faulty_kube_writer.h"

#include "absl/strings/str_cat.h"

namespace gpua::sim {

absl::Status FaultyKubeWriter::Write(FaultKind kind, const std::string& what,
                                     const std::function<absl::Status()>& write) {
  if (absl::Status s = faults_.Act(what); !s.ok()) return s;
  if (!faults_.Roll(kind)) return write();
  switch (faults_.Pick(3)) {
    case 0:
      return absl::InternalError(absl::StrCat(what, ": 500 Internal Server Error"));
    case 1:
      return absl::UnavailableError(absl::StrCat(what, ": 429 Too Many Requests (Retry-After: 1)"));
    default: {
      // The request timed out: the server may have made the change before the answer was lost.
      if (faults_.Uniform() < 0.5) write().IgnoreError();
      return absl::DeadlineExceededError(absl::StrCat(what, ": context deadline exceeded"));
    }
  }
}

absl::Status FaultyKubeWriter::AddTaint(const std::string& node, const Taint& taint) {
  return Write(FaultKind::kApiErrorTaint, absl::StrCat("taint node ", node),
               [&] { return inner_.AddTaint(node, taint); });
}

absl::Status FaultyKubeWriter::RemoveTaint(const std::string& node, const std::string& key) {
  observer_.TriedNode(node);
  return Write(FaultKind::kApiErrorTaint, absl::StrCat("untaint node ", node),
               [&] { return inner_.RemoveTaint(node, key); });
}

absl::Status FaultyKubeWriter::SetUnschedulable(const std::string& node, bool unschedulable) {
  return Write(FaultKind::kApiErrorTaint, absl::StrCat("cordon node ", node),
               [&] { return inner_.SetUnschedulable(node, unschedulable); });
}

absl::Status FaultyKubeWriter::Annotate(const std::string& node, const std::string& key,
                                        std::optional<std::string> value) {
  if (!value.has_value()) observer_.TriedNode(node);
  return Write(FaultKind::kApiErrorAnnotate, absl::StrCat("annotate node ", node),
               [&] { return inner_.Annotate(node, key, value); });
}

absl::Status FaultyKubeWriter::Label(const std::string& node, const std::string& key,
                                     std::optional<std::string> value) {
  return Write(FaultKind::kApiErrorAnnotate, absl::StrCat("label node ", node),
               [&] { return inner_.Label(node, key, value); });
}

absl::Status FaultyKubeWriter::DeleteNode(const std::string& node) {
  observer_.TriedNode(node);
  return Write(FaultKind::kApiErrorDelete, absl::StrCat("delete node ", node),
               [&] { return inner_.DeleteNode(node); });
}

absl::StatusOr<EvictionResult> FaultyKubeWriter::Evict(const std::string& namespace_name,
                                                       const std::string& pod,
                                                       std::optional<absl::Duration> grace) {
  const std::string what = absl::StrCat("evict pod ", namespace_name, "/", pod);
  if (absl::Status s = faults_.Act(what); !s.ok()) return s;
  observer_.Evicting(namespace_name, pod);
  if (!faults_.Roll(FaultKind::kApiErrorEvict)) return inner_.Evict(namespace_name, pod, grace);
  switch (faults_.Pick(3)) {
    case 0:
      return absl::InternalError(absl::StrCat(what, ": 500 Internal Server Error"));
    case 1:  // the Eviction API's 429 reads the same, budget or rate limit
      return EvictionResult::kBlockedByBudget;
    default:
      if (faults_.Uniform() < 0.5) inner_.Evict(namespace_name, pod, grace).IgnoreError();
      return absl::DeadlineExceededError(absl::StrCat(what, ": context deadline exceeded"));
  }
}

absl::Status FaultyKubeWriter::Nominate(const std::string& namespace_name, const std::string& pod,
                                        std::optional<std::string> node) {
  return Write(FaultKind::kApiErrorStatus, absl::StrCat("nominate pod ", namespace_name, "/", pod),
               [&] { return inner_.Nominate(namespace_name, pod, node); });
}

absl::Status FaultyKubeWriter::RecordEvent(const EventRecord& event) {
  return Write(FaultKind::kApiErrorStatus, absl::StrCat("event ", event.reason),
               [&] { return inner_.RecordEvent(event); });
}

absl::Status FaultyKubeWriter::WriteConfigMap(
    const std::string& namespace_name, const std::string& name,
    const std::map<std::string, std::string>& data,
    const std::map<std::string, std::string>& annotations) {
  return Write(FaultKind::kApiErrorStatus,
               absl::StrCat("write configmap ", namespace_name, "/", name),
               [&] { return inner_.WriteConfigMap(namespace_name, name, data, annotations); });
}

absl::Status FaultyKubeWriter::AnnotateConfigMap(
    const std::string& namespace_name, const std::string& name,
    const std::map<std::string, std::string>& annotations) {
  return Write(FaultKind::kApiErrorStatus,
               absl::StrCat("annotate configmap ", namespace_name, "/", name),
               [&] { return inner_.AnnotateConfigMap(namespace_name, name, annotations); });
}

}  // namespace gpua::sim
