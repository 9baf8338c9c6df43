// What the planner makes of a node group's template, for `plugin-check`: it goes through the
// estimator's own template preparation (GPU inventory and sharing mode, MIG geometry and
// layouts, AMD partitions, the CUDA driver) so each problem carries the planner's message.
#ifndef GPUA_AUTOSCALER_CLI_TEMPLATE_CHECK_H_
#define GPUA_AUTOSCALER_CLI_TEMPLATE_CHECK_H_

#include <string>
#include <vector>

#include "estimator/node.h"

namespace gpua {

struct TemplateFindings {
  std::vector<std::string> problems;  // the planner cannot use the group
  std::vector<std::string> warnings;  // usable, but something will be missed
  std::string gpus;                   // the GPUs as the planner reads them; "" for none
};

// `gpu_label` is the provider's GPULabel (or the default): a template with GPUs should carry it.
TemplateFindings CheckTemplate(const std::string& group_id, const NodeTemplate& tmpl,
                               const std::string& gpu_label);

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CLI_TEMPLATE_CHECK_H_
