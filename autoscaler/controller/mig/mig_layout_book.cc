#include "autoscaler/controller/mig/mig_layout_book.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "absl/strings/str_cat.h"
#include "kubeobjects/json_text.h"

namespace gpua {

void MigLayoutBook::Expect(const std::string& group, const std::vector<std::string>& layouts) {
  if (layouts.empty()) return;
  std::vector<std::string>& q = by_group_[group];
  q.insert(q.end(), layouts.begin(), layouts.end());
}

const std::vector<std::string>& MigLayoutBook::Of(const std::string& group) const {
  static const std::vector<std::string> kNone;
  auto it = by_group_.find(group);
  return it == by_group_.end() ? kNone : it->second;
}

void MigLayoutBook::Registered(const std::string& group, const std::string& layout) {
  auto it = by_group_.find(group);
  if (it == by_group_.end()) return;
  auto at = std::find(it->second.begin(), it->second.end(), layout);
  if (at != it->second.end()) it->second.erase(at);
  if (it->second.empty()) by_group_.erase(it);
}

void MigLayoutBook::CutTo(const std::string& group, int on_their_way) {
  auto it = by_group_.find(group);
  if (it == by_group_.end()) return;
  if (on_their_way <= 0) {
    by_group_.erase(it);
  } else if (static_cast<int>(it->second.size()) > on_their_way) {
    it->second.resize(on_their_way);
  }
}

std::string MigLayoutBook::ToJson() const {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [group, layouts] : by_group_) out[group] = layouts;
  return out.dump();
}

absl::StatusOr<MigLayoutBook> MigLayoutBook::FromJson(const std::string& text,
                                                      const std::string& what) {
  absl::StatusOr<nlohmann::json> read = ParseJson(text, what);
  if (!read.ok()) return read.status();
  const nlohmann::json& parsed = *read;
  if (!parsed.is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": expected a JSON object of node group -> MIG layouts"));
  }
  MigLayoutBook book;
  for (const auto& [group, layouts] : parsed.items()) {
    if (!layouts.is_array()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": node group ", group, ": expected a list of MIG layout names"));
    }
    std::vector<std::string> names;
    for (const nlohmann::json& l : layouts) {
      if (!l.is_string() || l.get<std::string>().empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            what, ": node group ", group, ": every MIG layout must be a non-empty string"));
      }
      names.push_back(l.get<std::string>());
    }
    book.Expect(group, names);
  }
  return book;
}

}  // namespace gpua
