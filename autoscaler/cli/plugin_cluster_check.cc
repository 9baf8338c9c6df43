#include "autoscaler/cli/plugin_cluster_check.h"

#include <algorithm>
#include <map>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "autoscaler/kube/cluster_informers.h"
#include "autoscaler/kube/reflector.h"
#include "base/log.h"
#include "base/status_macros.h"

namespace gpua {
namespace {

// Instance ID -> the groups that list it, in listing order.
std::map<std::string, std::vector<std::string>> Listers(const std::vector<GroupListing>& groups) {
  std::map<std::string, std::vector<std::string>> out;
  for (const GroupListing& g : groups) {
    for (const Instance& i : g.instances) out[i.id].push_back(g.id);
  }
  return out;
}

// What the informer says of Nodes it cannot read, as problems of the check.
class ProblemSink : public LogSink {
 public:
  explicit ProblemSink(PluginCheckReport& report) : report_(report) {}

 protected:
  void Write(LogSeverity severity, absl::string_view line) override {
    if (severity != LogSeverity::kInfo) report_.Problem("cluster", std::string(line));
  }

 private:
  PluginCheckReport& report_;
};

}  // namespace

absl::StatusOr<std::vector<std::shared_ptr<const NodeObject>>> ListNodes(
    kube::ApiClient& client, Clock& clock, PluginCheckReport& report) {
  ProblemSink problems(report);
  kube::Informer<NodeObject> nodes(kube::NodeDecoder(), {}, problems);
  kube::ReflectorOptions options;
  options.log = &problems;
  kube::Reflector reflector(client, kube::kNodesPath, nodes, clock, options);
  GPUA_RETURN_IF_ERROR(reflector.ListAll().status());
  return nodes.List();
}

void CheckInstancesListedOnce(const std::vector<GroupListing>& groups, PluginCheckReport& report) {
  for (const auto& [instance, listers] : Listers(groups)) {
    if (listers.size() < 2) continue;
    report.Problem(instance, absl::StrCat("instance ", instance, " is listed by node groups ",
                                          absl::StrJoin(listers, " and "),
                                          " (NodeGroupNodes): an instance belongs to one group"));
  }
}

void CheckAgainstCluster(const std::vector<std::shared_ptr<const NodeObject>>& nodes,
                         const std::vector<GroupListing>& groups, CloudProvider& provider,
                         PluginCheckReport& report) {
  const auto listers = Listers(groups);
  absl::flat_hash_map<std::string, std::string> node_of_instance;
  int asked = 0, failed = 0;
  const absl::Time start = report.clock().Now();
  for (const auto& node : nodes) {
    const NodeObject& n = *node;
    if (n.provider_id.empty()) continue;
    node_of_instance[n.provider_id] = n.node.name;
    const NodeRef ref{n.provider_id, n.node.name, n.node.labels, {}};
    ++asked;
    absl::StatusOr<std::shared_ptr<NodeGroup>> owner = provider.NodeGroupForNode(ref);
    const std::string subject = absl::StrCat("node ", n.node.name);
    if (!owner.ok()) {
      ++failed;
      report.Problem(subject, absl::StrCat("NodeGroupForNode for node ", n.node.name, " (instance ",
                                           n.provider_id, "): ", owner.status().message()));
      continue;
    }
    auto listed = listers.find(n.provider_id);
    const std::string claimed = *owner ? (*owner)->Id() : "";
    const bool listed_by_claimer =
        listed != listers.end() &&
        std::count(listed->second.begin(), listed->second.end(), claimed);
    if (!claimed.empty() && !listed_by_claimer) {
      report.Problem(subject,
                     absl::StrCat("node ", n.node.name, " (instance ", n.provider_id,
                                  ") is claimed by node group ", claimed,
                                  " (NodeGroupForNode), which does not list the instance "
                                  "(NodeGroupNodes)",
                                  listed == listers.end()
                                      ? ""
                                      : absl::StrCat("; ", absl::StrJoin(listed->second, " and "),
                                                     " lists it")));
    } else if (claimed.empty() && listed != listers.end()) {
      report.Problem(subject, absl::StrCat("node ", n.node.name, " (instance ", n.provider_id,
                                           ") is listed by node group ", listed->second.front(),
                                           " but NodeGroupForNode answers no group"));
    }
  }
  report.Call("NodeGroupForNode", absl::StrCat(asked, " cluster node(s)"),
              {absl::OkStatus(),
               absl::StrCat(asked - failed, " answered, ", nodes.size() - asked,
                            " node(s) without a provider ID"),
               "", report.clock().Now() - start});
  for (const GroupListing& g : groups) {
    for (const Instance& i : g.instances) {
      if (i.state != InstanceState::kRunning || node_of_instance.contains(i.id)) continue;
      report.Warning(
          absl::StrCat("instance ", i.id),
          absl::StrCat("instance ", i.id, " of node group ", g.id,
                       " is running but no Node has it as its provider ID: if it stays so for "
                       "the group's provision time (",
                       absl::FormatDuration(g.provision_time),
                       "), the autoscaler deletes it as unregistered (its Node's "
                       "spec.providerID must be exactly the instance ID)"));
    }
  }
}

}  // namespace gpua
