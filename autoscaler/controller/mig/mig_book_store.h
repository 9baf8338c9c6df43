// Where the MigLayoutBook is kept in the cluster, so a restart does not lose it. The steps
// write the book ahead of each increase that adds to it: a controller that restarts between
// the provider's answer and the end of its loop still knows which layout each new node needs.
#ifndef GPUA_AUTOSCALER_CONTROLLER_MIG_MIG_BOOK_STORE_H_
#define GPUA_AUTOSCALER_CONTROLLER_MIG_MIG_BOOK_STORE_H_

#include "autoscaler/controller/mig/mig_layout_book.h"
#include "autoscaler/controller/model/status_annotation_store.h"

namespace gpua {

class MigBookStore : public StatusAnnotationStore<MigLayoutBook> {
 public:
  MigBookStore(KubeWriter& writer, const StatusOptions& options, LogSink& log)
      : StatusAnnotationStore(
            writer, options, log,
            {kMigLayoutBookAnnotation, "the MIG layouts of nodes on their way",
             "MIG layouts of nodes on their way", "new MIG nodes on their way get no layout",
             "a restart before it is written gives their nodes no layout"}) {}
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_MIG_MIG_BOOK_STORE_H_
