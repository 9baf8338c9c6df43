// The DRA objects a recorded trace carries, so `simulate` can resolve its pods' claims: every
// DeviceClass (a pod's extended resource may be served by one without any claim), and the
// ResourceClaimTemplates and ResourceClaims the written pods name, each slimmed to its kind,
// name and spec (a claim's allocation belongs to the recorded cluster, not to the replay).
// With names left out every pod is in one namespace, so objects of one name from several
// namespaces are told apart by a suffix, and the pods' references follow.
#ifndef GPUA_AUTOSCALER_SIM_RECORDED_CLAIMS_H_
#define GPUA_AUTOSCALER_SIM_RECORDED_CLAIMS_H_

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace gpua::sim {

class RecordedClaims {
 public:
  // DeviceClasses, ResourceClaimTemplates and ResourceClaims as listed; others are ignored.
  // `keep_namespaces`: the trace keeps its pods' namespaces (record --keep-names).
  RecordedClaims(const std::vector<nlohmann::json>& objects, bool keep_namespaces);

  // The first claim of the pod (in namespace `ns`) that names an object not seen, as
  // "claim gpu: ResourceClaimTemplate ml/one-h100"; empty when every one was seen.
  std::string Unseen(const std::string& ns, const nlohmann::json& pod) const;
  // Points the pod's claim references at the names the trace gives their objects, and notes
  // the objects for Lines.
  void Use(const std::string& ns, nlohmann::json& pod);
  // One {"object": ...} line per DeviceClass and per object used, in a fixed order.
  std::vector<std::string> Lines() const;

  RecordedClaims(const RecordedClaims&) = delete;
  RecordedClaims& operator=(const RecordedClaims&) = delete;

 private:
  using Key = std::pair<std::string, std::string>;  // kind, namespace/name

  // The name the trace gives the object, chosen at its first use.
  const std::string& WrittenName(const std::string& kind, const std::string& ns,
                                 const std::string& name);

  const bool keep_namespaces_;
  std::map<std::string, nlohmann::json> classes_;        // by name, slimmed
  std::map<Key, nlohmann::json> namespaced_;             // slimmed, namespace kept
  std::map<Key, std::string> written_;                   // used ones: the name in the trace
  std::set<std::pair<std::string, std::string>> taken_;  // kind, written name
};

}  // namespace gpua::sim

#endif  // GPUA_AUTOSCALER_SIM_RECORDED_CLAIMS_H_
