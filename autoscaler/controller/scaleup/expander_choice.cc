#include "autoscaler/controller/scaleup/expander_choice.h"

#include "absl/strings/str_cat.h"
#include "autoscaler/controller/scaleup/priority_config.h"

namespace gpua {

std::unique_ptr<Expander> ExpanderChoice::For(const ClusterView& view) {
  ExpanderConfig config;
  config.random_seed = options_.random_seed;
  if (ConfigMapPtr cm = view.FindConfigMap(namespace_name_, kPriorityExpanderConfigMap)) {
    auto text = cm->data.find("priorities");
    const std::string yaml = text == cm->data.end() ? "" : std::string(text->second);
    absl::StatusOr<PriorityConfig> priorities = ParsePriorityConfig(
        yaml, absl::StrCat("ConfigMap ", cm->namespace_name, "/", cm->name, " key priorities"));
    if (priorities.ok()) {
      config.priorities = *std::move(priorities);
    } else if (yaml != priority_config_seen_) {
      log_.Error(std::string(priorities.status().message()));
    }
    priority_config_seen_ = yaml;
  }
  absl::StatusOr<std::unique_ptr<Expander>> chain = MakeExpanderChain(options_.expander, config);
  if (chain.ok()) return *std::move(chain);
  // A priority regex that does not compile: plan with the rest of the chain's judgement.
  log_.Error(absl::StrCat("--expander ", options_.expander, ": ", chain.status().message(),
                          "; using ", kDefaultExpanderChain, " this loop"));
  return *MakeExpanderChain(kDefaultExpanderChain, {});
}

}  // namespace gpua
