// Choosing among scale-up options, as cluster-autoscaler's expanders do. Each expander keeps
// the best options; a chain (--expander=priority,least-waste) hands ties to the next.
#ifndef GPUA_ESTIMATOR_EXPANDER_H_
#define GPUA_ESTIMATOR_EXPANDER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "estimator/node.h"

namespace gpua {

// One node group's answer to the pending pods: how many nodes, and which pods they hold.
struct ScaleUpOption {
  const NodeGroupSpec* group = nullptr;
  int new_nodes = 0;
  int64_t pod_count = 0;           // pending pods the new nodes would hold
  ResourceList pods_requests;      // what those pods request in all
  ResourceList nodes_allocatable;  // what the new nodes offer in all
};

class Expander {
 public:
  virtual ~Expander() = default;
  virtual std::string name() const = 0;
  // The best among `candidates` (indices into `options`); more than one on a tie.
  virtual std::vector<size_t> Best(const std::vector<ScaleUpOption>& options,
                                   const std::vector<size_t>& candidates) = 0;
};

// The priority expander's configuration: the `priorities` key of the
// cluster-autoscaler-priority-expander ConfigMap, priority -> regexes of group ids.
using PriorityConfig = std::map<int64_t, std::vector<std::string>>;

struct ExpanderConfig {
  PriorityConfig priorities;
  uint64_t random_seed = 0;
};

// An expander by its --expander name. Adding one is its class and one line of
// ExpanderRegistry(), as a provider is one line of builtin_providers.cc.
struct ExpanderFactory {
  const char* name;
  std::function<absl::StatusOr<std::unique_ptr<Expander>>(const ExpanderConfig&)> make;
};
// Every expander this build has, in the order help and errors name them.
const std::vector<ExpanderFactory>& ExpanderRegistry();
// "cheapest-equal, least-waste, ...": the registry's names, in its order.
std::string ExpanderNames();

// Builds the chain named by a comma-separated list of the registry's names. Unknown names and
// bad regexes are errors naming them. cheapest-equal is ours: it drops an option when another
// priced one holds at least its pods for strictly less an hour, and leaves the rest to the next in
// the chain. What the controller and `estimate` use unless told: never a dearer group for the same
// pods (when groups have prices), then the least waste, GPUs first.
inline constexpr char kDefaultExpanderChain[] = "cheapest-equal,least-waste";

absl::StatusOr<std::unique_ptr<Expander>> MakeExpanderChain(absl::string_view spec,
                                                            const ExpanderConfig& config);

// Applies the chain and breaks a final tie by the options' order; -1 when none.
int ChooseOption(Expander& expander, const std::vector<ScaleUpOption>& options);

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_EXPANDER_H_
