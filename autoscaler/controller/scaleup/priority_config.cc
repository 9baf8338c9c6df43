#include "autoscaler/controller/scaleup/priority_config.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kubeobjects/documents.h"
#include "kubeobjects/json_reader.h"

namespace gpua {

absl::StatusOr<PriorityConfig> ParsePriorityConfig(absl::string_view yaml,
                                                   absl::string_view source) {
  GPUA_ASSIGN_OR_RETURN(const nlohmann::json doc, YamlToJson(yaml, source));
  const JsonReader root(doc, absl::StrCat(source, ": "));
  if (!root.IsObject()) return root.Error("expected a map of priority to group-id regexes");
  PriorityConfig out;
  GPUA_RETURN_IF_ERROR(root.ForEachMember([&](absl::string_view key, const JsonReader& value) {
    int64_t priority = 0;
    if (!absl::SimpleAtoi(key, &priority)) {
      return value.Error(absl::StrCat("\"", key, "\" is not a whole-number priority"));
    }
    GPUA_ASSIGN_OR_RETURN(out[priority], value.Strings());
    return absl::OkStatus();
  }));
  return out;
}

}  // namespace gpua
