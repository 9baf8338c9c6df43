#include "autoscaler/cli/plugin_cluster_check.h"

#include <algorithm>
#include <map>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
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

}  // namespace

absl::StatusOr<std::vector<NodeObject>> ListNodes(kube::ApiClient& client) {
  std::vector<NodeObject> nodes;
  std::string next;
  do {
    const std::string path = absl::StrCat(
        "/api/v1/nodes?limit=500", next.empty() ? "" : "&continue=" + kube::QueryEscape(next));
    GPUA_ASSIGN_OR_RETURN(kube::HttpResponse res, client.Request("GET", path));
    if (res.status != 200) {
      return absl::UnavailableError(
          absl::StrCat("listing nodes: HTTP ", res.status, ": ", res.body.substr(0, 200)));
    }
    const nlohmann::json list = nlohmann::json::parse(res.body, nullptr, false);
    if (!list.is_object() || !list.contains("items") || !list["items"].is_array()) {
      return absl::DataLossError("listing nodes: the answer is not a NodeList");
    }
    for (const nlohmann::json& item : list["items"]) {
      GPUA_ASSIGN_OR_RETURN(NodeObject node, DecodeNode(item));
      nodes.push_back(std::move(node));
    }
    const nlohmann::json& meta = list.value("metadata", nlohmann::json::object());
    next = meta.is_object() ? meta.value("continue", "") : "";
  } while (!next.empty());
  return nodes;
}

void CheckInstancesListedOnce(const std::vector<GroupListing>& groups, PluginCheckReport& report) {
  for (const auto& [instance, listers] : Listers(groups)) {
    if (listers.size() < 2) continue;
    report.Problem(instance, absl::StrCat("instance ", instance, " is listed by node groups ",
                                          absl::StrJoin(listers, " and "),
                                          " (NodeGroupNodes): an instance belongs to one group"));
  }
}

void CheckAgainstCluster(const std::vector<NodeObject>& nodes,
                         const std::vector<GroupListing>& groups, CloudProvider& provider,
                         PluginCheckReport& report) {
  const auto listers = Listers(groups);
  absl::flat_hash_map<std::string, std::string> node_of_instance;
  int asked = 0, failed = 0;
  const absl::Time start = report.clock().Now();
  for (const NodeObject& n : nodes) {
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
  report.Call("NodeGroupForNode", absl::StrCat(asked, " cluster node(s)"), absl::OkStatus(),
              absl::StrCat(asked - failed, " answered, ", nodes.size() - asked,
                           " node(s) without a provider ID"),
              "", report.clock().Now() - start);
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
