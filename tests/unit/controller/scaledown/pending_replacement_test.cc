// The replacement under way as the status ConfigMap keeps it: read back as written, and a
// broken annotation refused with the field named.
#include "autoscaler/controller/scaledown/pending_replacement.h"

#include <catch2/catch.hpp>

namespace gpua {
namespace {

const absl::Time kAsked = absl::FromUnixMillis(1796126400123);  // sub-second, as a clock gives

TEST_CASE("a kept replacement reads back as it was written, to the nanosecond",
          "[controller][replacement][store]") {
  const KeptReplacement kept{
      PendingReplacement{"l4", {"h100-3", "h100-4"}, kAsked, kAsked + absl::Minutes(30)}};
  absl::StatusOr<KeptReplacement> back = KeptReplacement::FromJson(kept.ToJson(), "cm");
  REQUIRE(back.ok());
  CHECK(*back == kept);
  CHECK(KeptReplacement().ToJson() == "{}");
  absl::StatusOr<KeptReplacement> none = KeptReplacement::FromJson("{}", "cm");
  REQUIRE(none.ok());
  CHECK(none->empty());
}

TEST_CASE("a broken kept replacement is an error naming the annotation and the field",
          "[controller][replacement][store]") {
  const std::string ok_times = R"("askedAt":"2026-12-01T10:00:00Z","until":"2026-12-01T10:30:00Z")";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[]", "expected a JSON object"},
      {"not json", "invalid JSON: parse error at line 1"},
      {R"({"group":"l4","group":"h100"})", R"(key "group" appears twice)"},
      {R"({"replaced":["a"],)" + ok_times + "}", "group: expected a node group's id"},
      {R"({"group":"l4","replaced":[],)" + ok_times + "}", "replaced: expected a list"},
      {R"({"group":"l4","replaced":[3],)" + ok_times + "}", "replaced: every node name"},
      {R"({"group":"l4","replaced":["a"],"askedAt":"soon","until":"2026-12-01T10:30:00Z"})",
       "askedAt: expected an RFC 3339 time"},
      {R"({"group":"l4","replaced":["a"],"askedAt":"2026-12-01T10:00:00Z"})",
       "until: expected an RFC 3339 time"},
      {R"({"group":"l4","replaced":["a"],"askedAt":"2026-12-01T11:00:00Z","until":"2026-12-01T10:30:00Z"})",
       "until: is before askedAt"},
      {R"({"group":"l4","replaced":["a"],"askedAt":"2026-12-01T11:00:00Z","until":"infinite-future"})",
       "until: expected an RFC 3339 time"},
      {R"({"group":"l4","replaced":["a"],"askedAt":"2026-12-01T11:00:00Z","until":"2027-12-01T10:30:00Z"})",
       "until: is more than 7 days after askedAt"},
  };
  for (const auto& [text, error] : cases) {
    INFO(text);
    absl::StatusOr<KeptReplacement> r =
        KeptReplacement::FromJson(text, "ConfigMap ns/cm annotation x");
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(std::string(r.status().message()),
               Catch::StartsWith("ConfigMap ns/cm annotation x: ") && Catch::Contains(error));
  }
}

}  // namespace
}  // namespace gpua
