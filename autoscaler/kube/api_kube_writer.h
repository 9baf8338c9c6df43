// KubeWriter on the API server, through ApiClient.
#ifndef GPUA_AUTOSCALER_KUBE_API_KUBE_WRITER_H_
#define GPUA_AUTOSCALER_KUBE_API_KUBE_WRITER_H_

#include <functional>
#include <nlohmann/json.hpp>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "autoscaler/controller/kube_writer.h"
#include "autoscaler/kube/api_client.h"
#include "base/clock.h"

namespace gpua::kube {

class ApiKubeWriter : public KubeWriter {
 public:
  ApiKubeWriter(ApiClient& client, Clock& clock, std::string component = "gpu-autoscaler");

  absl::Status AddTaint(const std::string& node, const Taint& taint) override;
  absl::Status RemoveTaint(const std::string& node, const std::string& key) override;
  absl::Status SetUnschedulable(const std::string& node, bool unschedulable) override;
  absl::Status Annotate(const std::string& node, const std::string& key,
                        std::optional<std::string> value) override;
  absl::Status DeleteNode(const std::string& node) override;
  absl::StatusOr<EvictionResult> Evict(const std::string& namespace_name,
                                       const std::string& pod) override;
  absl::Status RecordEvent(const EventRecord& event) override;
  absl::Status WriteConfigMap(const std::string& namespace_name, const std::string& name,
                              const std::map<std::string, std::string>& data) override;

 private:
  // GET, change, PUT with the resourceVersion read; on 409, again (a few times).
  absl::Status ReadModifyWrite(const std::string& path, absl::string_view what,
                               const std::function<bool(nlohmann::json&)>& change);
  absl::Status MergePatch(const std::string& path, absl::string_view what,
                          const nlohmann::json& patch);

  // An Event's timestamps, as metav1.Time.
  std::string Now() const;

  ApiClient& client_;
  Clock& clock_;
  const std::string component_;
  absl::Mutex mu_;
  // event key -> (Event name, count) for aggregation
  absl::flat_hash_map<std::string, std::pair<std::string, int>> events_ ABSL_GUARDED_BY(mu_);
};

}  // namespace gpua::kube

#endif  // GPUA_AUTOSCALER_KUBE_API_KUBE_WRITER_H_
