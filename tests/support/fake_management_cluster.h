// The one fake ManagementCluster (the Cluster API provider's seam): objects a test puts in,
// decoded from the JSON a real API server sends, and every write recorded and applied to
// them, with the calls a test names failing.
#ifndef GPUA_TESTS_SUPPORT_FAKE_MANAGEMENT_CLUSTER_H_
#define GPUA_TESTS_SUPPORT_FAKE_MANAGEMENT_CLUSTER_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cloudproviders/clusterapi/management_cluster.h"
#include "nlohmann/json.hpp"

namespace gpua::testing {

class FakeManagementCluster final : public ManagementCluster {
 public:
  struct Warning {
    std::string object;  // "MachineDeployment/ns/name"
    std::string reason;
    std::string message;
  };

  // Adds or replaces an object of `kind` from its JSON; a decoding error fails the test's
  // setup loudly rather than leave the object out.
  void PutScalable(CapiKind kind, const nlohmann::json& object) {
    absl::StatusOr<CapiScalable> s = DecodeCapiScalable(JsonReader(object), kind);
    if (!s.ok()) throw std::runtime_error(std::string(s.status().message()));
    const std::string key = absl::StrCat(CapiKindName(kind), "/", s->Key());
    scalables_[key] = std::make_shared<CapiScalable>(*std::move(s));
  }
  void PutMachine(const nlohmann::json& object) {
    absl::StatusOr<CapiMachine> m = DecodeCapiMachine(JsonReader(object));
    if (!m.ok()) throw std::runtime_error(std::string(m.status().message()));
    const std::string key = m->Key();
    machines_[key] = std::make_shared<CapiMachine>(*std::move(m));
  }
  std::shared_ptr<const CapiScalable> Scalable(CapiKind kind, const std::string& key) const {
    auto it = scalables_.find(absl::StrCat(CapiKindName(kind), "/", key));
    return it == scalables_.end() ? nullptr : it->second;
  }
  std::shared_ptr<const CapiMachine> Machine(const std::string& key) const {
    auto it = machines_.find(key);
    return it == machines_.end() ? nullptr : it->second;
  }

  // The status.capacity of an infrastructure machine template.
  void PutInfrastructureCapacity(const std::string& ns, const std::string& kind,
                                 const std::string& name, ResourceList capacity) {
    infra_[absl::StrCat(ns, "/", kind, "/", name)] =
        std::make_shared<const ResourceList>(std::move(capacity));
  }
  std::shared_ptr<const ResourceList> InfrastructureCapacity(const std::string& ns,
                                                             const CapiInfraRef& ref) override {
    auto it = infra_.find(absl::StrCat(ns, "/", ref.kind, "/", ref.name));
    return it == infra_.end() ? nullptr : it->second;
  }

  bool Synced() const override { return synced; }
  CapiObjects Objects() const override {
    CapiObjects out;
    for (const auto& [key, s] : scalables_) out.scalables.push_back(s);
    for (const auto& [key, m] : machines_) out.machines.push_back(m);
    return out;
  }
  absl::Status SetReplicas(const CapiScalable& s, int32_t replicas) override {
    calls.push_back(absl::StrCat("scale ", CapiKindName(s.kind), "/", s.Key(), " ", replicas));
    if (auto f = failing.find("SetReplicas"); f != failing.end()) return f->second;
    auto it = scalables_.find(absl::StrCat(CapiKindName(s.kind), "/", s.Key()));
    if (it == scalables_.end()) return absl::NotFoundError(s.Key());
    auto changed = std::make_shared<CapiScalable>(*it->second);
    changed->replicas = replicas;
    it->second = std::move(changed);
    return absl::OkStatus();
  }
  absl::Status AnnotateMachine(const CapiMachine& m, const std::string& key,
                               const std::string& value) override {
    calls.push_back(absl::StrCat("annotate Machine/", m.Key(), " ", key));
    if (auto f = failing.find("AnnotateMachine"); f != failing.end()) return f->second;
    auto it = machines_.find(m.Key());
    if (it == machines_.end()) return absl::NotFoundError(m.Key());
    auto changed = std::make_shared<CapiMachine>(*it->second);
    changed->annotations[key] = value;
    it->second = std::move(changed);
    return absl::OkStatus();
  }
  void Warn(const CapiObjectRef& object, const std::string& reason,
            const std::string& message) override {
    warnings.push_back(
        {absl::StrCat(CapiKindName(object.kind), "/", object.namespace_name, "/", object.name),
         reason, message});
  }

  bool synced = true;
  std::map<std::string, absl::Status> failing;  // method name -> what it returns
  std::vector<std::string> calls;               // every write, in order
  std::vector<Warning> warnings;

 private:
  std::map<std::string, std::shared_ptr<const CapiScalable>> scalables_;
  std::map<std::string, std::shared_ptr<const CapiMachine>> machines_;
  std::map<std::string, std::shared_ptr<const ResourceList>> infra_;
};

}  // namespace gpua::testing

#endif  // GPUA_TESTS_SUPPORT_FAKE_MANAGEMENT_CLUSTER_H_
