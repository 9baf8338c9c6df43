// For a pool whose MIG manager can apply several layouts, the layout each new node needs is
// chosen when it is planned (the estimator packs the pending MIG pods into the fewest GPUs)
// and kept in the MigLayoutBook. When the group's new nodes register, each gets the next
// layout of its group (AssignMigLayouts); the assigner writes it as the label the GPU
// operator's MIG manager reads (nvidia.com/mig.config), then an annotation of ours that
// says it was given one, so a restart never relabels a node.
#ifndef GPUA_AUTOSCALER_CONTROLLER_MIG_MIG_LAYOUT_ASSIGNER_H_
#define GPUA_AUTOSCALER_CONTROLLER_MIG_MIG_LAYOUT_ASSIGNER_H_

#include "autoscaler/controller/mig/mig_layout_book.h"
#include "autoscaler/controller/model/cluster_state.h"
#include "autoscaler/controller/model/kube_writer.h"
#include "base/log.h"

namespace gpua {

// Gives each registered node of a reconfigurable MIG pool that has had no layout from us the
// next of its group's book (in state.mig_assignments), and notes what is left for the nodes
// still on their way (each group's upcoming_mig_layouts), which planning reads.
void AssignMigLayouts(const MigLayoutBook& book, ClusterState& state);

class MigLayoutAssigner {
 public:
  MigLayoutAssigner(KubeWriter& writer, LogSink& log) : writer_(writer), log_(log) {}

  // Writes the state's assignments and takes each written one off the book; a write that
  // failed is tried again next loop. Then cuts each group's book to what is on its way.
  // Returns how many nodes it labelled.
  int Write(const ClusterState& state, MigLayoutBook& book);

 private:
  KubeWriter& writer_;
  LogSink& log_;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_MIG_MIG_LAYOUT_ASSIGNER_H_
