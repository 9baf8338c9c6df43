#include "autoscaler/controller/scaledown/pending_replacement.h"

#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "kubeobjects/json_text.h"

namespace gpua {
namespace {

constexpr absl::Duration kLongestReplacement = absl::Hours(24 * 7);

std::string TimeText(absl::Time t) {
  return absl::FormatTime(absl::RFC3339_full, t, absl::UTCTimeZone());
}

absl::Status Invalid(const std::string& what, absl::string_view field, absl::string_view wrong) {
  return absl::InvalidArgumentError(absl::StrCat(what, ": ", field, ": ", wrong));
}

absl::StatusOr<absl::Time> TimeAt(const nlohmann::json& j, const char* field,
                                  const std::string& what) {
  auto it = j.find(field);
  absl::Time t;
  std::string error;
  if (it == j.end() || !it->is_string() ||
      !absl::ParseTime(absl::RFC3339_full, it->get<std::string>(), &t, &error) ||
      t == absl::InfiniteFuture() || t == absl::InfinitePast()) {  // absl reads "infinite-future"
    return Invalid(what, field, "expected an RFC 3339 time");
  }
  return t;
}

}  // namespace

std::string KeptReplacement::ToJson() const {
  if (!pending.has_value()) return "{}";
  nlohmann::json out = {{"group", pending->group},
                        {"replaced", pending->replaced},
                        {"askedAt", TimeText(pending->asked_at)},
                        {"until", TimeText(pending->until)}};
  return out.dump();
}

absl::StatusOr<KeptReplacement> KeptReplacement::FromJson(const std::string& text,
                                                          const std::string& what) {
  absl::StatusOr<nlohmann::json> read = ParseJson(text, what);
  if (!read.ok()) return read.status();
  const nlohmann::json& j = *read;
  if (!j.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": expected a JSON object"));
  }
  if (j.empty()) return KeptReplacement();
  PendingReplacement p;
  auto group = j.find("group");
  if (group == j.end() || !group->is_string() || group->get<std::string>().empty()) {
    return Invalid(what, "group", "expected a node group's id");
  }
  p.group = group->get<std::string>();
  auto replaced = j.find("replaced");
  if (replaced == j.end() || !replaced->is_array() || replaced->empty()) {
    return Invalid(what, "replaced", "expected a list of node names");
  }
  for (const nlohmann::json& n : *replaced) {
    if (!n.is_string() || n.get<std::string>().empty()) {
      return Invalid(what, "replaced", "every node name must be a non-empty string");
    }
    p.replaced.push_back(n.get<std::string>());
  }
  absl::StatusOr<absl::Time> asked = TimeAt(j, "askedAt", what);
  if (!asked.ok()) return asked.status();
  absl::StatusOr<absl::Time> until = TimeAt(j, "until", what);
  if (!until.ok()) return until.status();
  if (*until < *asked) return Invalid(what, "until", "is before askedAt");
  // Its span is also how long no replacement follows one given up: a week is past any
  // provisioning and unneeded time a replacement waits for.
  if (*until - *asked > kLongestReplacement) {
    return Invalid(what, "until", "is more than 7 days after askedAt");
  }
  p.asked_at = *asked;
  p.until = *until;
  return KeptReplacement{std::move(p)};
}

}  // namespace gpua
