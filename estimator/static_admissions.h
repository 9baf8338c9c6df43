// Whether nodes' labels, taints and cordon let pods on (CheckNodeStatic), remembered by the
// pods' NodeSelectionKey: pods of one selection are admitted or refused alike, and with many
// pods over many nodes that verdict is most of a placement's work. For one pass over a
// snapshot whose first nodes do not change under it (a node added after is asked afresh).
#ifndef GPUA_ESTIMATOR_STATIC_ADMISSIONS_H_
#define GPUA_ESTIMATOR_STATIC_ADMISSIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "estimator/cluster_snapshot.h"

namespace gpua {

class StaticAdmissions {
 public:
  enum class Verdict : int8_t { kUnknown, kAdmitted, kRefused };

  explicit StaticAdmissions(const ClusterSnapshot& snapshot) : snapshot_(snapshot) {}

  // The verdicts for pods of `pod`'s selection, one per node of the snapshot: ask once per
  // pod, then index by node.
  std::vector<Verdict>& For(const PodSpec& pod);

  // Whether node `n` admits `pod`, from `verdicts` (For(pod)) or worked out into it.
  bool Admits(const PodSpec& pod, std::vector<Verdict>& verdicts, size_t n) const;

 private:
  const ClusterSnapshot& snapshot_;
  absl::flat_hash_map<std::string, std::vector<Verdict>> by_selection_;
};

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_STATIC_ADMISSIONS_H_
