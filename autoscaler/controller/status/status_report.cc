#include "autoscaler/controller/status/status_report.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gpua {
namespace {

nlohmann::ordered_json Counts(const NodeCounts& c) {
  return {{"registered",
           {{"total", c.registered},
            {"ready", c.ready},
            {"notStarted", c.not_started},
            {"suspended", 0},
            {"beingDeleted", c.being_deleted},
            {"unready", {{"total", c.unready}, {"resourceUnready", c.resource_unready}}}}},
          {"longUnregistered", c.long_unregistered},
          {"unregistered", c.unregistered}};
}

std::string ApiTime(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", t, absl::UTCTimeZone());
}

// A word YAML reads back as the same string. cluster-autoscaler's writer (go-yaml) leaves such
// strings plain, and users grep for them ("autoscalerStatus: Running"); YAML 1.1's booleans and
// nulls would read back as something else.
bool PlainWord(const std::string& s) {
  static const absl::flat_hash_set<absl::string_view> kNotStrings = {
      "y",  "Y",    "yes",  "Yes",  "YES",   "n",     "N",     "no", "No",
      "NO", "true", "True", "TRUE", "false", "False", "FALSE", "on", "On",
      "ON", "off",  "Off",  "OFF",  "null",  "Null",  "NULL"};
  if (s.empty() || !absl::ascii_isalpha(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.' &&
        c != '/') {
      return false;
    }
  }
  return !kNotStrings.contains(s);
}

std::string Scalar(const nlohmann::ordered_json& v) {
  if (v.is_object()) return "{}";
  if (v.is_array()) return "[]";
  if (v.is_string() && PlainWord(v.get<std::string>())) return v.get<std::string>();
  return v.dump();  // other strings double-quoted and escaped: valid YAML
}

void EmitArray(const nlohmann::ordered_json& array, int indent, std::string& out);

// An object's members, one a line; as a list item, its first member follows the dash.
void EmitObject(const nlohmann::ordered_json& object, int indent, bool list_item,
                std::string& out) {
  bool first = true;
  for (const auto& [key, member] : object.items()) {
    out += list_item && first ? std::string(indent - 2, ' ') + "- " : std::string(indent, ' ');
    first = false;
    absl::StrAppend(&out, key, ":");
    if (member.is_object() && !member.empty()) {
      out += "\n";
      EmitObject(member, indent + 2, false, out);
    } else if (member.is_array() && !member.empty()) {
      out += "\n";
      EmitArray(member, indent, out);
    } else {
      absl::StrAppend(&out, " ", Scalar(member), "\n");
    }
  }
}

void EmitArray(const nlohmann::ordered_json& array, int indent, std::string& out) {
  for (const nlohmann::ordered_json& item : array) {
    if (item.is_object() && !item.empty()) {
      EmitObject(item, indent + 2, true, out);
    } else {
      absl::StrAppend(&out, std::string(indent, ' '), "- ", Scalar(item), "\n");
    }
  }
}

}  // namespace

int ScaleDownStatus::total() const {
  int n = 0;
  for (const auto& [group, count] : candidates_by_group) n += count;
  return n;
}

std::string StatusTime(absl::Time t) {
  return absl::StrCat(absl::FormatTime("%Y-%m-%d %H:%M:%E9S +0000 UTC", t, absl::UTCTimeZone()));
}

std::string ToYaml(const nlohmann::ordered_json& value) {
  std::string out;
  if (value.is_object() && !value.empty()) {
    EmitObject(value, 0, false, out);
  } else if (value.is_array() && !value.empty()) {
    EmitArray(value, 0, out);
  } else {
    out = Scalar(value) + "\n";
  }
  return out;
}

nlohmann::ordered_json StatusReporter::Condition(const std::string& key, const std::string& status,
                                                 absl::Time now) {
  auto [it, fresh] = transitions_.try_emplace(key, status, now);
  if (!fresh && it->second.first != status) it->second = {status, now};
  return {{"status", status},
          {"lastProbeTime", ApiTime(now)},
          {"lastTransitionTime", ApiTime(it->second.second)}};
}

nlohmann::ordered_json StatusReporter::Build(const ClusterState& state, const ScaleDownStatus& down,
                                             absl::Time now,
                                             const std::vector<UnhealthyNodeStatus>& unhealthy) {
  nlohmann::ordered_json status;
  status["time"] = StatusTime(now);
  status["autoscalerStatus"] = "Running";
  if (!state.provider->error.ok()) {
    status["message"] = absl::StrCat("cloud provider: ", state.provider->error.message());
  } else if (!state.healthy) {
    status["message"] = state.unhealthy_reason;
  }
  bool any_upcoming = false;
  for (const GroupState& g : state.groups) any_upcoming = any_upcoming || g.upcoming > 0;

  nlohmann::ordered_json health =
      Condition("clusterWide/health", state.healthy ? "Healthy" : "Unhealthy", now);
  health["nodeCounts"] = Counts(state.totals);
  nlohmann::ordered_json wide;
  wide["health"] = std::move(health);
  wide["scaleUp"] =
      Condition("clusterWide/scaleUp", any_upcoming ? "InProgress" : "NoActivity", now);
  nlohmann::ordered_json scale_down = Condition(
      "clusterWide/scaleDown", down.total() > 0 ? "CandidatesPresent" : "NoCandidates", now);
  scale_down["candidates"] = down.total();
  wide["scaleDown"] = std::move(scale_down);
  status["clusterWide"] = std::move(wide);

  nlohmann::ordered_json groups = nlohmann::ordered_json::array();
  for (const GroupState& g : state.groups) {
    const std::string key = g.id() + "/";
    nlohmann::ordered_json group;
    group["name"] = g.id();
    nlohmann::ordered_json gh =
        Condition(key + "health", g.healthy && g.provider->usable() ? "Healthy" : "Unhealthy", now);
    gh["nodeCounts"] = Counts(g.counts);
    gh["cloudProviderTarget"] = g.provider->target_size;
    gh["minSize"] = g.provider->min_size;
    gh["maxSize"] = g.provider->max_size;
    nlohmann::ordered_json broken = nlohmann::ordered_json::array();
    for (const UnhealthyNodeStatus& u : unhealthy) {
      if (u.group != g.id()) continue;
      broken.push_back({{"node", u.node},
                        {"signal", u.signal},
                        {"detail", u.detail},
                        {"since", ApiTime(u.since)},
                        {"state", u.state}});
    }
    if (!broken.empty()) gh["unhealthyNodes"] = std::move(broken);
    group["health"] = std::move(gh);
    const std::string up = g.backoff.has_value() ? "Backoff"
                           : g.upcoming > 0      ? "InProgress"
                                                 : "NoActivity";
    nlohmann::ordered_json su = Condition(key + "scaleUp", up, now);
    if (g.backoff.has_value()) {
      su["backoffInfo"] = {{"errorCode", g.backoff->error_code},
                           {"errorMessage", g.backoff->error_message}};
    }
    group["scaleUp"] = std::move(su);
    auto c = down.candidates_by_group.find(g.id());
    const int candidates = c == down.candidates_by_group.end() ? 0 : c->second;
    nlohmann::ordered_json sd =
        Condition(key + "scaleDown", candidates > 0 ? "CandidatesPresent" : "NoCandidates", now);
    sd["candidates"] = candidates;
    group["scaleDown"] = std::move(sd);
    groups.push_back(std::move(group));
  }
  status["nodeGroups"] = std::move(groups);
  return status;
}

void StatusReporter::Write(const ClusterState& state, const ScaleDownStatus& down, absl::Time now,
                           const std::vector<UnhealthyNodeStatus>& unhealthy) {
  if (!options_.write_configmap) return;
  const nlohmann::ordered_json status = Build(state, down, now, unhealthy);
  const absl::Status s = writer_.WriteConfigMap(options_.namespace_name, options_.configmap_name,
                                                {{"status", ToYaml(status)}},
                                                {{kStatusLastUpdatedAnnotation, StatusTime(now)}});
  if (!s.ok()) log_.Warning(absl::StrCat("Writing the status ConfigMap failed: ", s.message()));
}

}  // namespace gpua
