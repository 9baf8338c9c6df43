// Fuzzes the priority expander's ConfigMap (its `priorities` key, which anyone who may edit
// ConfigMaps in the namespace writes): any text is read or refused with an error naming the
// ConfigMap, the same as YAML and as JSON.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "autoscaler/controller/scaleup/priority_config.h"
#include "tests/fuzz/same_as_json.h"

namespace {

const char kSource[] = "ConfigMap kube-system/cluster-autoscaler-priority-expander";

std::string Read(const std::string& text) {
  return gpua::fuzz::Described(
      gpua::ParsePriorityConfig(text, kSource), kSource, [](const gpua::PriorityConfig& c) {
        std::string out;
        for (const auto& [priority, patterns] : c) {
          absl::StrAppend(&out, priority, ":[", absl::StrJoin(patterns, ","), "] ");
        }
        return out;
      });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gpua::fuzz::SameAsJson(std::string(reinterpret_cast<const char*>(data), size), Read);
  return 0;
}
