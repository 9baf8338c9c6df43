// Fuzzes what the clusterapi provider reads of Cluster API's objects: any bytes as a
// MachineDeployment, MachineSet, MachinePool or Machine, decoded from simdjson's DOM (as the
// informers do) and from nlohmann's tree (as a node-group file's clusterAPI: group is), and
// each scalable resource's annotations read into a group's sizes, template and options.
// Nothing may crash, and both readings must give the same group, or the same error.
#include <simdjson.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "cloudproviders/clusterapi/group_annotations.h"
#include "kubeobjects/cluster_api.h"
#include "kubeobjects/json_text.h"
#include "tests/fuzz/repeated_keys.h"

namespace {

// The group an object makes, or why it makes none.
std::string GroupOf(const absl::StatusOr<gpua::CapiScalable>& s) {
  if (!s.ok()) return std::string(s.status().message());
  const absl::StatusOr<gpua::CapiGroupConfig> c = gpua::ReadGroupConfig(*s, gpua::CapiNames{});
  if (!c.ok()) return std::string(c.status().message());
  std::string out = absl::StrCat(c->min_size, "..", c->max_size);
  if (c->scale_from_zero.has_value()) {
    absl::StrAppend(&out, " ", c->scale_from_zero->allocatable.ToString(), " ",
                    c->scale_from_zero->labels.size(), " labels ",
                    c->scale_from_zero->taints.size(), " taints");
  }
  const gpua::AutoscalingOptions o = c->options.Over({});
  absl::StrAppend(&out, " ", absl::FormatDuration(o.scale_down_unneeded_time), " ",
                  o.scale_down_gpu_utilization_threshold);
  return out;
}

std::string MachineOf(const absl::StatusOr<gpua::CapiMachine>& m) {
  if (!m.ok()) return std::string(m.status().message());
  return absl::StrCat(m->Key(), " ", m->provider_id, " ", m->failed(), " ", m->deleting, " ",
                      m->controller.has_value() ? m->controller->name : "");
}

void Same(const char* what, const std::string& simd, const std::string& tree) {
  if (simd == tree) return;
  std::cerr << what << " differs:\n  simdjson: " << simd << "\n  nlohmann: " << tree << "\n";
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(text).get(doc) != simdjson::SUCCESS || gpua::fuzz::HasRepeatedKeys(doc))
    return 0;
  const absl::StatusOr<nlohmann::json> read = gpua::ParseJson(text, "fuzz.json");
  if (!read.ok()) return 0;
  const nlohmann::json& tree = *read;
  const gpua::JsonReader simd(doc);
  const gpua::JsonReader nl(tree);
  for (gpua::CapiKind kind : gpua::kCapiScalableKinds) {
    Same(std::string(gpua::CapiKindName(kind)).c_str(),
         GroupOf(gpua::DecodeCapiScalable(simd, kind)),
         GroupOf(gpua::DecodeCapiScalable(nl, kind)));
  }
  Same("Machine", MachineOf(gpua::DecodeCapiMachine(simd)), MachineOf(gpua::DecodeCapiMachine(nl)));
  return 0;
}
