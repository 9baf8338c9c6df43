#include "autoscaler/cli/simulated_node_registrar.h"

#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cloudproviders/simulated/simulated_node.h"
#include "estimator/gpu/gpu_inventory.h"
#include "kubeobjects/json_text.h"

namespace gpua::kube {

SimulatedNodeRegistrar::SimulatedNodeRegistrar(ApiClient& client, SimulatedCloud& cloud,
                                               std::vector<NodeGroupConfig> groups, Clock& clock,
                                               LogSink& log)
    : client_(client), cloud_(cloud), groups_(std::move(groups)), clock_(clock), log_(log) {}

absl::Status SimulatedNodeRegistrar::Expect(absl::string_view what,
                                            absl::StatusOr<HttpResponse> res,
                                            std::initializer_list<long> ok) {
  if (!res.ok()) return res.status();
  for (long status : ok) {
    if (res->status == status) return absl::OkStatus();
  }
  return HttpStatusError(what, *res);
}

absl::StatusOr<std::map<std::string, nlohmann::json>> SimulatedNodeRegistrar::OurNodes() {
  absl::StatusOr<HttpResponse> res = client_.Request(
      "GET", absl::StrCat("/api/v1/nodes?labelSelector=",
                          QueryEscape(absl::StrCat(kSimulatedInstanceLabel, "=true"))));
  if (absl::Status s = Expect("listing nodes", res, {200}); !s.ok()) return s;
  const nlohmann::json list = ParseJson(res->body, "listing nodes").value_or(nlohmann::json());
  if (!list.is_object() || !list.contains("items") || !list["items"].is_array()) {
    return absl::DataLossError("listing nodes: the answer is not a NodeList");
  }
  std::map<std::string, nlohmann::json> out;
  for (const nlohmann::json& n : list["items"]) {
    if (n.contains("metadata") && n["metadata"].is_object()) {
      out[n["metadata"].value("name", "")] = n;
    }
  }
  return out;
}

void SimulatedNodeRegistrar::Register(const NodeGroupConfig& g, const Machine& m,
                                      const nlohmann::json* existing) {
  const NodeTemplate& t = g.spec.node_template;
  const std::string name = SimulatedNodeName(m.provider_id);
  const bool gpus_ready = clock_.Now() >= m.gpu_ready_at;
  std::string mig_layout;
  if (existing != nullptr) {
    const nlohmann::json labels = existing->value("metadata", nlohmann::json::object())
                                      .value("labels", nlohmann::json::object());
    mig_layout = labels.is_object() ? labels.value(kMigConfigLabel, "") : "";
  }
  const nlohmann::json status = NodeStatusFor(t, mig_layout, gpus_ready);
  std::string uid = existing != nullptr ? UidOf(*existing) : "";
  if (existing == nullptr) {
    nlohmann::json node = NewNodeFor(t, name, m.provider_id);
    node["metadata"]["labels"][kSimulatedInstanceLabel] = "true";
    node["status"] = status;
    absl::StatusOr<HttpResponse> res = client_.Request("POST", "/api/v1/nodes", node.dump());
    const absl::Status created = Expect(absl::StrCat("creating node ", name), res, {201, 409});
    if (!created.ok()) {
      log_.Warning(std::string(created.message()));
      return;
    }
    if (res->status == 201) uid = UidOf(ParseJson(res->body, "").value_or(nlohmann::json()));
    log_.Info(absl::StrCat("Registered node ", name, " for instance ", m.provider_id));
  }
  // Its DRA driver publishes once the GPUs are up, after the Node exists to own the slices.
  if (gpus_ready) PublishSlices(t, name, uid);
  if (existing != nullptr &&
      existing->value("status", nlohmann::json::object()).value("allocatable", nlohmann::json()) ==
          status["allocatable"]) {
    return;  // as it should be
  }
  // The API server keeps a Node's status apart: it is written through /status.
  const absl::Status patched = Expect(
      absl::StrCat("updating the status of node ", name),
      client_.Request("PATCH", absl::StrCat("/api/v1/nodes/", name, "/status"),
                      nlohmann::json{{"status", status}}.dump(), "application/merge-patch+json"),
      {200});
  if (!patched.ok()) log_.Warning(std::string(patched.message()));
}

void SimulatedNodeRegistrar::PublishSlices(const NodeTemplate& t, const std::string& node,
                                           const std::string& node_uid) {
  if (t.resource_slices.empty() || published_.contains(node)) return;
  for (nlohmann::json& slice : SlicesFor(t, node)) {
    // As a kubelet plugin publishes them: owned by the Node, so the garbage collector deletes
    // them with it even when this process did not see it go (it restarted meanwhile).
    if (!node_uid.empty()) {
      slice["metadata"]["ownerReferences"] = {{{"apiVersion", "v1"},
                                               {"kind", "Node"},
                                               {"name", node},
                                               {"uid", node_uid},
                                               {"controller", true}}};
    }
    const absl::Status created =
        Expect(absl::StrCat("publishing ResourceSlice ", slice["metadata"].value("name", "")),
               client_.Request("POST", "/apis/resource.k8s.io/v1/resourceslices", slice.dump()),
               {201, 409});
    if (!created.ok()) {
      log_.Warning(std::string(created.message()));
      return;  // tried again on the next pass
    }
  }
  published_.insert(node);
  log_.Info(absl::StrCat("Published the DRA devices of node ", node));
}

void SimulatedNodeRegistrar::UnpublishSlices(const std::string& node) {
  // A driver's slices go with their node (the kubelet plugin owns them through the Node).
  const absl::Status deleted =
      Expect(absl::StrCat("deleting the ResourceSlices of node ", node),
             client_.Request("DELETE",
                             absl::StrCat("/apis/resource.k8s.io/v1/resourceslices?fieldSelector=",
                                          QueryEscape(absl::StrCat("spec.nodeName=", node)))),
             {200, 404});
  if (!deleted.ok()) log_.Warning(std::string(deleted.message()));
  published_.erase(node);
}

const NodeGroupConfig* SimulatedNodeRegistrar::GroupOf(const nlohmann::json& node) const {
  const nlohmann::json spec = node.value("spec", nlohmann::json::object());
  const nlohmann::json id = spec.is_object() ? spec.value("providerID", nlohmann::json()) : nullptr;
  if (!id.is_string()) return nullptr;
  for (const NodeGroupConfig& g : groups_) {
    if (absl::StartsWith(id.get<std::string>(), absl::StrCat("sim://", g.spec.id, "/"))) {
      return &g;
    }
  }
  return nullptr;
}

bool SimulatedNodeRegistrar::OfOurGroups(const nlohmann::json& node) const {
  return GroupOf(node) != nullptr;
}

bool SimulatedNodeRegistrar::PublishesSlices(const nlohmann::json& node) const {
  const NodeGroupConfig* g = GroupOf(node);
  return g != nullptr && !g->spec.node_template.resource_slices.empty();
}

std::string SimulatedNodeRegistrar::UidOf(const nlohmann::json& object) {
  if (!object.is_object()) return "";
  const nlohmann::json meta = object.value("metadata", nlohmann::json::object());
  const nlohmann::json uid = meta.is_object() ? meta.value("uid", nlohmann::json()) : nullptr;
  return uid.is_string() ? uid.get<std::string>() : "";
}

void SimulatedNodeRegistrar::Sync() {
  absl::StatusOr<std::map<std::string, nlohmann::json>> ours = OurNodes();
  if (!ours.ok()) {
    log_.Warning(std::string(ours.status().message()));
    return;
  }
  std::set<std::string> alive;
  for (const Machine& m : cloud_.Machines()) {
    for (const NodeGroupConfig& g : groups_) {
      if (g.spec.id != m.group) continue;
      const std::string name = SimulatedNodeName(m.provider_id);
      alive.insert(name);
      auto it = ours->find(name);
      Register(g, m, it == ours->end() ? nullptr : &it->second);
    }
  }
  for (const auto& [name, node] : *ours) {
    if (alive.contains(name) || !OfOurGroups(node)) continue;
    const absl::Status deleted =
        Expect(absl::StrCat("deleting node ", name),
               client_.Request("DELETE", absl::StrCat("/api/v1/nodes/", name)), {200, 202, 404});
    if (deleted.ok()) {
      log_.Info(absl::StrCat("Deleted node ", name, ": its instance is gone"));
      // Whether or not this process published them: an earlier run of it may have.
      if (PublishesSlices(node)) UnpublishSlices(name);
    } else {
      log_.Warning(std::string(deleted.message()));
    }
  }
}

}  // namespace gpua::kube
