// Fuzzes what a provider plugin answers for a group's template node (`nodeBytes`, a
// protobuf-encoded core/v1 Node): any bytes decode or are refused with an error naming the
// group, and a template decoded, encoded as we send it (plugin-check, the example plugin) and
// decoded again is the same template.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "cloudproviders/node_proto.h"

namespace {

const char kWhat[] = "node group fuzz: template";

std::string Describe(const gpua::NodeTemplate& t) {
  std::string out = absl::StrCat(t.name, " ", t.allocatable.ToString());
  for (const auto& [k, v] : t.labels) absl::StrAppend(&out, " ", k, "=", v);
  for (const auto& [k, v] : t.annotations) absl::StrAppend(&out, " @", k, "=", v);
  for (const gpua::Taint& taint : t.taints) absl::StrAppend(&out, " ", taint.ToString());
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<gpua::NodeTemplate> t = gpua::NodeTemplateFromBytes(bytes, kWhat);
  if (!t.ok()) {
    if (std::string(t.status().message()).find(kWhat) != 0) {
      std::cerr << "An error that does not start with \"" << kWhat << "\": " << t.status().message()
                << "\n";
      std::abort();
    }
    return 0;
  }
  const std::string again_bytes = gpua::NodeTemplateToProto(*t).SerializeAsString();
  const absl::StatusOr<gpua::NodeTemplate> again = gpua::NodeTemplateFromBytes(again_bytes, kWhat);
  const std::string first = Describe(*t);
  const std::string second = again.ok() ? Describe(*again) : std::string(again.status().message());
  if (first != second) {
    std::cerr << "A template sent back reads differently.\n  first:  " << first
              << "\n  second: " << second << "\n";
    std::abort();
  }
  return 0;
}
