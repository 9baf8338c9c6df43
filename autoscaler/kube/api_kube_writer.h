// KubeWriter on the API server, through ApiClient. Events are sent by a thread of their own,
// as client-go's event broadcaster does, so a loop that has a thousand pods to tell is not
// held up by a thousand requests; a queue longer than `max_queued_events` drops the newest
// and says how many it dropped.
#ifndef GPUA_AUTOSCALER_KUBE_API_KUBE_WRITER_H_
#define GPUA_AUTOSCALER_KUBE_API_KUBE_WRITER_H_

#include <deque>
#include <functional>
#include <nlohmann/json.hpp>
#include <thread>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "autoscaler/controller/model/kube_writer.h"
#include "autoscaler/kube/api_client.h"
#include "base/clock.h"
#include "base/log.h"

namespace gpua::kube {

class ApiKubeWriter : public KubeWriter {
 public:
  ApiKubeWriter(ApiClient& client, Clock& clock, std::string component = "gpu-autoscaler",
                LogSink& log = StderrLog(), size_t max_queued_events = 1000);
  ~ApiKubeWriter() override;  // sends what is queued (within a few seconds), then stops

  absl::Status AddTaint(const std::string& node, const Taint& taint) override;
  absl::Status RemoveTaint(const std::string& node, const std::string& key) override;
  absl::Status SetUnschedulable(const std::string& node, bool unschedulable) override;
  absl::Status Annotate(const std::string& node, const std::string& key,
                        std::optional<std::string> value) override;
  absl::Status Label(const std::string& node, const std::string& key,
                     std::optional<std::string> value) override;
  absl::Status DeleteNode(const std::string& node) override;
  absl::StatusOr<EvictionResult> Evict(const std::string& namespace_name, const std::string& pod,
                                       std::optional<absl::Duration> grace) override;
  absl::Status Nominate(const std::string& namespace_name, const std::string& pod,
                        std::optional<std::string> node) override;
  absl::Status RecordEvent(const EventRecord& event) override;
  absl::Status WriteConfigMap(const std::string& namespace_name, const std::string& name,
                              const std::map<std::string, std::string>& data,
                              const std::map<std::string, std::string>& annotations) override;
  absl::Status AnnotateConfigMap(const std::string& namespace_name, const std::string& name,
                                 const std::map<std::string, std::string>& annotations) override;

  // Waits until every event queued so far has been sent (or failed).
  void Flush();

 private:
  // Creates the ConfigMap or updates it: its data replaced when `data` is given, these
  // annotations set.
  absl::Status UpsertConfigMap(const std::string& namespace_name, const std::string& name,
                               const std::map<std::string, std::string>* data,
                               const std::map<std::string, std::string>& annotations);
  // GET, change, PUT with the resourceVersion read; on 409, again (a few times).
  absl::Status ReadModifyWrite(const std::string& path, absl::string_view what,
                               const std::function<bool(nlohmann::json&)>& change);
  // The answer to a merge patch of `path`, whatever its status.
  absl::StatusOr<HttpResponse> SendMergePatch(const std::string& path, const nlohmann::json& patch);
  absl::Status MergePatch(const std::string& path, absl::string_view what,
                          const nlohmann::json& patch);

  // An Event's timestamps, as metav1.Time.
  std::string Now() const;
  absl::Status SendEvent(const EventRecord& event);
  void SendEvents();

  ApiClient& client_;
  Clock& clock_;
  const std::string component_;
  LogSink& log_;
  const size_t max_queued_;
  absl::Mutex queue_mu_;
  std::deque<EventRecord> queue_ ABSL_GUARDED_BY(queue_mu_);
  size_t sending_ ABSL_GUARDED_BY(queue_mu_) = 0;  // taken off the queue, not yet sent
  size_t dropped_ ABSL_GUARDED_BY(queue_mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(queue_mu_) = false;
  absl::Mutex mu_;
  // event key -> (Event name, count) for aggregation
  absl::flat_hash_map<std::string, std::pair<std::string, int>> events_ ABSL_GUARDED_BY(mu_);
  std::thread sender_;  // last: it starts once everything it uses is built
};

}  // namespace gpua::kube

#endif  // GPUA_AUTOSCALER_KUBE_API_KUBE_WRITER_H_
