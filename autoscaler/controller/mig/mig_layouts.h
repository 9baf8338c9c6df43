// The one owner of the MIG layout book for the loop: it reads the book back after a start or
// a change of leader, gives new nodes their layouts and writes the labels, keeps the book in
// the cluster ahead of every increase that adds to it, and at the loop's end. Steps that ask
// for MIG nodes (scale-up, a consolidation's replacement) go through it and never touch the
// book or its store themselves.
#ifndef GPUA_AUTOSCALER_CONTROLLER_MIG_MIG_LAYOUTS_H_
#define GPUA_AUTOSCALER_CONTROLLER_MIG_MIG_LAYOUTS_H_

#include <string>
#include <vector>

#include "autoscaler/controller/mig/mig_book_store.h"
#include "autoscaler/controller/mig/mig_layout_assigner.h"
#include "autoscaler/controller/mig/mig_layout_book.h"
#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/cluster_view.h"
#include "autoscaler/controller/model/controller_options.h"
#include "autoscaler/controller/model/kube_writer.h"
#include "base/log.h"

namespace gpua {

// Layouts for new nodes of one group, one per node, as a plan chose them.
struct GroupLayouts {
  std::string group;
  std::vector<std::string> layouts;
};

class MigLayouts {
 public:
  MigLayouts(KubeWriter& writer, const StatusOptions& status, LogSink& log)
      : store_(writer, status, log), assigner_(writer, log) {}

  // At a loop's start: adds the book the cluster keeps, read on the first call only.
  void Recall(const ClusterView& view);
  // As the state is built: chooses the new nodes' layouts, which planning then reads.
  void Assign(ClusterState& state) const { AssignMigLayouts(book_, state); }
  // When the loop acts: writes the chosen layouts as labels and cuts the book to what is on
  // its way. Returns the nodes labelled.
  int WriteLabels(const ClusterState& state) { return assigner_.Write(state, book_); }
  // Before asking for nodes with `added` layouts: the book with them is written first, so a
  // restart between the ask and the loop's end still knows them. Asked for even when this
  // write fails (the store says so): a node without its layout costs less than pods waiting
  // on a ConfigMap the controller may not write.
  void KeepAhead(const std::vector<GroupLayouts>& added);
  // The provider took an increase of `group` for nodes with `layouts`.
  void Expect(const std::string& group, const std::vector<std::string>& layouts);
  // At a loop's end: the book as it stands (a failed write is tried again next loop).
  void Keep();

  const MigLayoutBook& book() const { return book_; }

 private:
  MigLayoutBook book_;  // layouts of nodes asked for, not registered
  MigBookStore store_;  // where book_ is kept in the cluster
  MigLayoutAssigner assigner_;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_MIG_MIG_LAYOUTS_H_
