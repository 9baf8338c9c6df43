// The MIG layouts of nodes asked for and not yet registered, by group, in the order they
// were asked for. A reconfigurable MIG pool's new node gets the next layout of its group when
// it registers (AssignMigLayouts chooses, MigLayoutAssigner writes the label; MigLayouts
// owns the book).
//
// The book is intent that must survive a restart: the controller writes it, as JSON, in an
// annotation of its status ConfigMap every loop and reads it back when it starts. A book
// that says more than the provider shows on its way (instances that failed and were
// deleted, a target lowered by hand) is cut to what is on its way, newest first.
#ifndef GPUA_AUTOSCALER_CONTROLLER_MIG_MIG_LAYOUT_BOOK_H_
#define GPUA_AUTOSCALER_CONTROLLER_MIG_MIG_LAYOUT_BOOK_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace gpua {

inline constexpr char kMigLayoutBookAnnotation[] = "gpu-autoscaler.io/mig-layouts-on-their-way";

class MigLayoutBook {
 public:
  // Layouts for new nodes of `group`, one per node, as the plan chose them.
  void Expect(const std::string& group, const std::vector<std::string>& layouts);
  // The layouts still expected for the group's next nodes, oldest first.
  const std::vector<std::string>& Of(const std::string& group) const;
  // A node of the group registered with `layout`: the first such entry goes.
  void Registered(const std::string& group, const std::string& layout);
  // Keeps at most the oldest `on_their_way` layouts of the group.
  void CutTo(const std::string& group, int on_their_way);
  bool empty() const { return by_group_.empty(); }
  const std::map<std::string, std::vector<std::string>>& groups() const { return by_group_; }

  // {"a100-mig":["all-1g.10gb","all-3g.40gb"]}; "{}" when empty.
  std::string ToJson() const;
  // Errors name `what` (the ConfigMap and its annotation) and what is wrong.
  static absl::StatusOr<MigLayoutBook> FromJson(const std::string& text, const std::string& what);

  bool operator==(const MigLayoutBook&) const = default;

 private:
  std::map<std::string, std::vector<std::string>> by_group_;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_MIG_MIG_LAYOUT_BOOK_H_
