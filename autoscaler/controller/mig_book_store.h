// Where the MigLayoutBook is kept in the cluster, so a restart does not lose it: an
// annotation of the status ConfigMap (--status-config-map-name), whether or not the status
// itself is written there. The steps write the book ahead of each increase that adds to it,
// as a removal writes its taint before it drains: a controller that restarts between the
// provider's answer and the end of its loop still knows which layout each new node needs.
// Only a changed book is written, and a ConfigMap is never created for an empty one.
#ifndef GPUA_AUTOSCALER_CONTROLLER_MIG_BOOK_STORE_H_
#define GPUA_AUTOSCALER_CONTROLLER_MIG_BOOK_STORE_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "autoscaler/controller/cluster_view.h"
#include "autoscaler/controller/controller_options.h"
#include "autoscaler/controller/kube_writer.h"
#include "autoscaler/controller/mig_layout_book.h"
#include "base/log.h"

namespace gpua {

class MigBookStore {
 public:
  MigBookStore(KubeWriter& writer, const StatusOptions& options, LogSink& log)
      : writer_(writer), options_(options), log_(log) {}

  // The book as the cluster keeps it, read on the first call only (later calls, and a
  // missing or unreadable annotation, give an empty book: nothing to add).
  MigLayoutBook Recall(const ClusterView& view);
  // Writes `book` unless the cluster holds it already. A failed write is logged (once for
  // each new error) and tried again by the next Keep.
  absl::Status Keep(const MigLayoutBook& book);

 private:
  KubeWriter& writer_;
  const StatusOptions& options_;
  LogSink& log_;
  bool recalled_ = false;
  // What the cluster holds: none at first; unknown (nullopt) when it could not be read.
  std::optional<MigLayoutBook> kept_ = MigLayoutBook();
  std::string last_error_;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_MIG_BOOK_STORE_H_
