// The expander chain a loop plans with: --expander, with the priority expander's priorities
// read from its ConfigMap (cluster-autoscaler-priority-expander) each loop, so an edit takes
// effect at once. A ConfigMap that does not parse is said once per text, and the chain plans
// without it; a chain that cannot be built falls back to least-waste for the loop.
#ifndef GPUA_AUTOSCALER_CONTROLLER_SCALEUP_EXPANDER_CHOICE_H_
#define GPUA_AUTOSCALER_CONTROLLER_SCALEUP_EXPANDER_CHOICE_H_

#include <memory>
#include <string>

#include "autoscaler/controller/model/cluster_view.h"
#include "autoscaler/controller/model/controller_options.h"
#include "base/log.h"
#include "estimator/expander.h"

namespace gpua {

class ExpanderChoice {
 public:
  // `namespace_name`: where the priority expander's ConfigMap is read.
  ExpanderChoice(const ScaleUpOptions& options, std::string namespace_name, LogSink& log)
      : options_(options), namespace_name_(std::move(namespace_name)), log_(log) {}

  std::unique_ptr<Expander> For(const ClusterView& view);

 private:
  const ScaleUpOptions& options_;
  const std::string namespace_name_;
  LogSink& log_;
  std::string priority_config_seen_;  // the priorities text last read, to report errors once
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_SCALEUP_EXPANDER_CHOICE_H_
