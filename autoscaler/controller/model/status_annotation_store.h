// A value the controller keeps in an annotation of its status ConfigMap
// (--status-config-map-name), whether or not the status itself is written there, so that a
// restart or a new leader carries on what was begun. Steps write the value ahead of the cloud
// call it records, as a removal writes its taint before it drains. Only a changed value is
// written, and a ConfigMap is never created for an empty one.
#ifndef GPUA_AUTOSCALER_CONTROLLER_MODEL_STATUS_ANNOTATION_STORE_H_
#define GPUA_AUTOSCALER_CONTROLLER_MODEL_STATUS_ANNOTATION_STORE_H_

#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "autoscaler/controller/model/cluster_view.h"
#include "autoscaler/controller/model/controller_options.h"
#include "autoscaler/controller/model/kube_writer.h"
#include "base/log.h"

namespace gpua {

// What a store's log lines call its value and what losing it costs.
struct KeptValueWords {
  const char* annotation;    // gpu-autoscaler.io/...
  const char* what;          // "the MIG layouts of nodes on their way"
  const char* read_back;     // the Info line's start when a value is read back
  const char* if_unread;     // what an unreadable annotation costs
  const char* if_unwritten;  // what a restart before the write costs
};

// T: a value with ToJson(), static FromJson(text, what) -> StatusOr<T>, ==, and empty(),
// default-constructed empty.
template <typename T>
class StatusAnnotationStore {
 public:
  StatusAnnotationStore(KubeWriter& writer, const StatusOptions& options, LogSink& log,
                        KeptValueWords words)
      : writer_(writer), options_(options), log_(log), words_(words) {}

  // The value as the cluster keeps it, read on the first call only (later calls, and a
  // missing or unreadable annotation, give an empty value: nothing to carry on).
  T Recall(const ClusterView& view) {
    if (recalled_) return T();
    recalled_ = true;
    ConfigMapPtr cm = view.FindConfigMap(options_.namespace_name, options_.configmap_name);
    if (cm == nullptr) return T();
    auto text = cm->annotations.find(words_.annotation);
    if (text == cm->annotations.end()) return T();
    absl::StatusOr<T> value =
        T::FromJson(text->second, absl::StrCat("ConfigMap ", cm->namespace_name, "/", cm->name,
                                               " annotation ", words_.annotation));
    if (!value.ok()) {
      // Starting empty loses less than acting on a misread value; the next Keep writes a
      // readable one over it.
      log_.Error(absl::StrCat(value.status().message(), "; ", words_.if_unread));
      kept_.reset();
      return T();
    }
    kept_ = *value;
    if (!value->empty()) {
      log_.Info(absl::StrCat(words_.read_back, ", read back: ", value->ToJson()));
    }
    return *std::move(value);
  }

  // Writes `value` unless the cluster holds it already. A failed write is logged (once for
  // each new error) and tried again by the next Keep.
  absl::Status Keep(const T& value) {
    if (kept_.has_value() && value == *kept_) return absl::OkStatus();
    absl::Status s = writer_.AnnotateConfigMap(options_.namespace_name, options_.configmap_name,
                                               {{words_.annotation, value.ToJson()}});
    if (s.ok()) {
      kept_ = value;
      last_error_.clear();
      return s;
    }
    const std::string message =
        absl::StrCat("Keeping ", words_.what, " in ConfigMap ", options_.namespace_name, "/",
                     options_.configmap_name, " failed: ", s.message(), "; ", words_.if_unwritten);
    if (message != last_error_) log_.Warning(message);
    last_error_ = message;
    return s;
  }

 private:
  KubeWriter& writer_;
  const StatusOptions& options_;
  LogSink& log_;
  const KeptValueWords words_;
  bool recalled_ = false;
  // What the cluster holds: empty at first; unknown (nullopt) when it could not be read.
  std::optional<T> kept_ = T();
  std::string last_error_;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_MODEL_STATUS_ANNOTATION_STORE_H_
