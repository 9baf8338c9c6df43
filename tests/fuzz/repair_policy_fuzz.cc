// Fuzzes the repair policy file (--gpu-repair-policy): any text is read or refused with an
// error naming the file, the same as YAML and as JSON.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "autoscaler/controller/model/repair_policy.h"
#include "tests/fuzz/same_as_json.h"

namespace {

std::string Describe(const std::vector<gpua::RepairPolicy>& list) {
  std::string out;
  for (const gpua::RepairPolicy& p : list) {
    absl::StrAppend(&out, p.Reason(), "@", absl::FormatDuration(p.toleration), " ");
  }
  return out;
}

std::string Read(const std::string& text) {
  return gpua::fuzz::Described(gpua::RepairPolicies::Parse(text, "policy.yaml"),
                               "repair policy policy.yaml", [](const gpua::RepairPolicies& p) {
                                 return absl::StrCat(Describe(p.cluster()), "| ",
                                                     Describe(p.For("a")), "| ",
                                                     Describe(p.For("b")));
                               });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  gpua::fuzz::SameAsJson(std::string(reinterpret_cast<const char*>(data), size), Read);
  return 0;
}
