// Fuzzes the node-group file (estimate, simulate, the simulated cloud and the example plugin
// read it): any text is read or refused with an error naming the file, the same as YAML and as
// JSON.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "cloudproviders/node_group_file.h"
#include "tests/fuzz/same_as_json.h"

namespace {

const char kSource[] = "node-group file fuzz.yaml";

std::string Optional(const std::optional<absl::Duration>& d) {
  return d.has_value() ? absl::FormatDuration(*d) : "-";
}

std::string Group(const gpua::NodeGroupConfig& g) {
  const gpua::NodeTemplate& t = g.spec.node_template;
  std::string out = absl::StrCat(g.spec.id, " ", g.spec.min_size, "..", g.spec.max_size, " @",
                                 g.spec.target_size, " $", g.spec.price_per_hour, " ",
                                 static_cast<int>(g.capacity_type), " ", t.allocatable.ToString());
  for (const auto& [k, v] : t.labels) absl::StrAppend(&out, " ", k, "=", v);
  for (const auto& [k, v] : t.annotations) absl::StrAppend(&out, " @", k, "=", v);
  for (const gpua::Taint& taint : t.taints) absl::StrAppend(&out, " ", taint.ToString());
  absl::StrAppend(&out, " ds=", t.daemonset_pods.size(),
                  " unneeded=", Optional(g.options.scale_down_unneeded_time),
                  " provision=", Optional(g.options.max_node_provision_time),
                  " spot/h=", g.simulation.spot_interruptions_per_hour,
                  " boot=", absl::FormatDuration(g.simulation.provisioning_delay.p50), "/",
                  absl::FormatDuration(g.simulation.provisioning_delay.p95), " warm=", g.warm.nodes,
                  g.warm.schedule.has_value() ? "+schedule" : "");
  return out;
}

std::string Read(const std::string& text) {
  return gpua::fuzz::Described(gpua::ParseNodeGroupFile(text, kSource), kSource,
                               [](const std::vector<gpua::NodeGroupConfig>& groups) {
                                 std::string out;
                                 for (const gpua::NodeGroupConfig& g : groups) {
                                   absl::StrAppend(&out, Group(g), "\n");
                                 }
                                 return out;
                               });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gpua::fuzz::SameAsJson(std::string(reinterpret_cast<const char*>(data), size), Read);
  return 0;
}
