#include "autoscaler/controller/repair/stale_instances.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "autoscaler/controller/model/events.h"

namespace gpua {
namespace {

std::string Ids(const std::vector<Instance>& instances) {
  return absl::StrJoin(instances, ", ",
                       [](std::string* out, const Instance& i) { absl::StrAppend(out, i.id); });
}

}  // namespace

bool StaleInstanceCleaner::Delete(const GroupState& g, const std::vector<Instance>& instances,
                                  absl::string_view why, GroupResizer& groups) {
  std::vector<NodeRef> refs;
  refs.reserve(instances.size());
  for (const Instance& i : instances) refs.push_back({i.id, "", {}, {}});
  const absl::Status s = groups.DeleteNodes(g.id(), refs);
  if (s.ok()) {
    log_.Info(absl::StrCat("Deleted ", instances.size(), " instance(s) of node group ", g.id(),
                           " (", why, "): ", Ids(instances)));
    return true;
  }
  log_.Warning(absl::StrCat("Could not delete ", why, " instance(s) of node group ", g.id(), " (",
                            Ids(instances), "): ", s.message()));
  (void)writer_.RecordEvent(
      StatusEvent(status_.namespace_name, status_.configmap_name, "Warning",
                  event_reason::kDeleteUnregisteredFailed,
                  absl::StrCat("Failed to remove ", why, " instance(s) of node group ", g.id(),
                               ": ", s.message())));
  return false;
}

StaleInstanceReport StaleInstanceCleaner::Clean(const ClusterState& state, GroupResizer& groups) {
  StaleInstanceReport report;
  for (const GroupState& g : state.groups) {
    if (!g.failed.empty()) {
      const InstanceError& e = *g.failed.front().error;
      (void)writer_.RecordEvent(StatusEvent(
          status_.namespace_name, status_.configmap_name, "Warning",
          event_reason::kFailedToScaleUpGroup,
          absl::StrCat("Scale-up failed for group ", g.id(), ": ", g.failed.size(),
                       " instance(s) failed to start: ", InstanceErrorCode(e), ": ", e.message)));
      if (Delete(g, g.failed, "failed", groups)) {
        report.failed_deleted += static_cast<int>(g.failed.size());
      } else {
        ++report.delete_errors;
      }
    }
    if (!g.long_unregistered.empty()) {
      const std::string message =
          absl::StrCat(g.long_unregistered.size(), " node(s) did not register within ",
                       absl::FormatDuration(g.provider->options.max_node_provision_time));
      (void)writer_.RecordEvent(StatusEvent(
          status_.namespace_name, status_.configmap_name, "Warning", event_reason::kScaleUpTimedOut,
          absl::StrCat("Nodes of group ", g.id(), ": ", message)));
      if (Delete(g, g.long_unregistered, "unregistered", groups)) {
        report.unregistered_deleted += static_cast<int>(g.long_unregistered.size());
        (void)writer_.RecordEvent(
            StatusEvent(status_.namespace_name, status_.configmap_name, "Normal",
                        event_reason::kDeleteUnregistered,
                        absl::StrCat("Removed unregistered instance(s) of group ", g.id(), ": ",
                                     Ids(g.long_unregistered))));
      } else {
        ++report.delete_errors;
      }
    }
  }
  return report;
}

}  // namespace gpua
