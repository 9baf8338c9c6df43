#include "autoscaler/controller/mig/mig_layouts.h"

namespace gpua {

void MigLayouts::Recall(const ClusterView& view) {
  const MigLayoutBook recalled = store_.Recall(view);
  for (const auto& [group, layouts] : recalled.groups()) book_.Expect(group, layouts);
}

void MigLayouts::KeepAhead(const std::vector<GroupLayouts>& added) {
  MigLayoutBook ahead = book_;
  for (const GroupLayouts& g : added) ahead.Expect(g.group, g.layouts);
  if (ahead == book_) return;  // nothing to add: the loop's end writes what changed
  (void)store_.Keep(ahead);
}

void MigLayouts::Expect(const std::string& group, const std::vector<std::string>& layouts) {
  book_.Expect(group, layouts);
}

void MigLayouts::Keep() { (void)store_.Keep(book_); }  // a failure is logged, tried again

}  // namespace gpua
