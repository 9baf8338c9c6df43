// Whether nodes' labels, taints and cordon let pods on (CheckNodeStatic), remembered by the
// pods' NodeSelectionKey: pods of one selection are admitted or refused alike, and with many
// pods over many nodes that verdict is most of a placement's work. Kept across passes: a
// controller plans every few seconds over nodes that are mostly the ones it saw last time,
// so a verdict carries over to the next pass's snapshot for a node of the same name and
// props object (props are immutable and held here, so the same object means the same labels,
// taints and cordon). Within a pass, the snapshot's first nodes must not change; a node added
// after is asked afresh.
#ifndef GPUA_ESTIMATOR_STATIC_ADMISSIONS_H_
#define GPUA_ESTIMATOR_STATIC_ADMISSIONS_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/node_hash_map.h"
#include "estimator/cluster_snapshot.h"

namespace gpua {

class StaticAdmissions {
 public:
  enum class Verdict : int8_t { kUnknown, kAdmitted, kRefused };
  static constexpr int64_t kKeptPasses = 64;

  StaticAdmissions() = default;
  explicit StaticAdmissions(const ClusterSnapshot& snapshot) { Begin(snapshot); }
  StaticAdmissions(const StaticAdmissions&) = delete;
  StaticAdmissions& operator=(const StaticAdmissions&) = delete;

  // Starts a pass over `snapshot`, which must outlive it. Verdicts of the last pass carry
  // over to its nodes that are the same; a selection no pass asked about in the last
  // kKeptPasses is dropped, so what is kept stays bounded while the pods that come and go
  // between passes find their verdicts still there.
  void Begin(const ClusterSnapshot& snapshot);

  // The verdicts for pods of `pod`'s selection, one per node of the snapshot: ask once per
  // pod, then index by node.
  std::vector<Verdict>& For(const PodSpec& pod);

  // Whether node `n` admits `pod`, from `verdicts` (For(pod)) or worked out into it.
  bool Admits(const PodSpec& pod, std::vector<Verdict>& verdicts, size_t n) const;

  // The nodes that admit pods of `pod`'s selection, in the snapshot's order.
  const std::vector<uint32_t>& Admitting(const PodSpec& pod);

 private:
  struct Selection {
    std::vector<Verdict> verdicts;
    std::vector<uint32_t> admitting;
    size_t admitting_upto = 0;  // the nodes `admitting` has looked at
    int64_t asked_in_pass = 0;  // the last pass that asked
  };
  Selection& SelectionOf(const PodSpec& pod);
  // Whether `snapshot` holds just the last pass's nodes, each in the same place.
  bool SameNodes(const ClusterSnapshot& snapshot) const;
  // For each node of the new snapshot, its index in the last pass's, or -1.
  std::vector<int32_t> CarriedIndex(const ClusterSnapshot& snapshot) const;

  const ClusterSnapshot* snapshot_ = nullptr;
  int64_t pass_ = 0;
  // Node-based, so what For and Admitting hand out stays put while other selections are added.
  absl::node_hash_map<std::string, Selection> by_selection_;
  // The last pass's nodes as they were when it began: what a carried verdict was made for.
  std::vector<std::shared_ptr<const NodeProps>> props_;
  std::vector<std::string> names_;
};

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_STATIC_ADMISSIONS_H_
