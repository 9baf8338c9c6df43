#include "autoscaler/sim/fault_profile.h"

#include "absl/strings/str_cat.h"
#include "base/file.h"
#include "base/status_macros.h"
#include "kubeobjects/documents.h"
#include "kubeobjects/json_reader.h"

namespace gpua::sim {
namespace {

constexpr std::array<absl::string_view, kFaultKindCount> kNames = {
    "api_error_taint",    "api_error_annotate",
    "api_error_evict",    "api_error_delete",
    "api_error_status",   "watch_cut",
    "relist_gone",        "plugin_slow",
    "plugin_unavailable", "plugin_internal",
    "plugin_garbage",     "stockout",
    "never_registers",    "registers_without_gpus",
    "spot_burst",         "node_object_lingers",
    "gpu_failure",        "restart_between_loops",
    "restart_mid_action", "leader_change",
};

absl::StatusOr<FaultRate> ReadRate(FaultKind kind, const JsonReader& r) {
  FaultRate rate;
  if (IsNodeFault(kind)) {
    GPUA_RETURN_IF_ERROR(r.RejectUnknown({"gpuFailuresPerNodeHour"}));
    GPUA_ASSIGN_OR_RETURN(rate.per_node_hour, r.Field("gpuFailuresPerNodeHour").Double());
    if (!(rate.per_node_hour >= 0 && rate.per_node_hour <= 1000)) {
      return r.Field("gpuFailuresPerNodeHour").Error("must be from 0 to 1000");
    }
    return rate;
  }
  if (IsCallFault(kind)) {
    GPUA_RETURN_IF_ERROR(r.RejectUnknown({"probability"}));
    GPUA_ASSIGN_OR_RETURN(rate.probability, r.Field("probability").Double());
    if (!(rate.probability >= 0 && rate.probability <= 1)) {
      return r.Field("probability").Error("must be between 0 and 1");
    }
    return rate;
  }
  GPUA_RETURN_IF_ERROR(r.RejectUnknown({"every", "duration"}));
  GPUA_ASSIGN_OR_RETURN(std::optional<absl::Duration> every, r.Field("every").Duration());
  if (!every.has_value() || *every <= absl::ZeroDuration()) {
    return r.Field("every").Error("must be a positive duration such as \"2h\"");
  }
  rate.every = *every;
  GPUA_ASSIGN_OR_RETURN(std::optional<absl::Duration> duration, r.Field("duration").Duration());
  rate.duration = duration.value_or(absl::ZeroDuration());
  return rate;
}

absl::StatusOr<double> ReadShare(const JsonReader& r) {
  if (r.IsNull()) return 0.0;
  GPUA_RETURN_IF_ERROR(r.RejectUnknown({"share"}));
  if (!r.Has("share")) return r.Field("share").Error("missing");
  GPUA_ASSIGN_OR_RETURN(double share, r.Field("share").Double());
  if (!(share >= 0 && share <= 1)) return r.Field("share").Error("must be between 0 and 1");
  return share;
}

absl::StatusOr<SoakWorkload> ReadWorkload(const JsonReader& r) {
  SoakWorkload w;
  if (r.IsNull()) return w;
  GPUA_RETURN_IF_ERROR(r.RejectUnknown({"disruption_budgets", "not_safe_to_evict"}));
  GPUA_ASSIGN_OR_RETURN(w.disruption_budgets, ReadShare(r.Field("disruption_budgets")));
  GPUA_ASSIGN_OR_RETURN(w.not_safe_to_evict, ReadShare(r.Field("not_safe_to_evict")));
  return w;
}

}  // namespace

absl::string_view FaultKindName(FaultKind kind) { return kNames[static_cast<size_t>(kind)]; }

std::optional<FaultKind> FaultKindNamed(absl::string_view name) {
  for (size_t k = 0; k < kFaultKindCount; ++k) {
    if (kNames[k] == name) return static_cast<FaultKind>(k);
  }
  return std::nullopt;
}

bool IsCallFault(FaultKind kind) {
  switch (kind) {
    case FaultKind::kApiErrorTaint:
    case FaultKind::kApiErrorAnnotate:
    case FaultKind::kApiErrorEvict:
    case FaultKind::kApiErrorDelete:
    case FaultKind::kApiErrorStatus:
    case FaultKind::kPluginSlow:
    case FaultKind::kPluginUnavailable:
    case FaultKind::kPluginInternal:
    case FaultKind::kPluginGarbage:
    case FaultKind::kNeverRegisters:
    case FaultKind::kRegistersWithoutGpus:
    case FaultKind::kNodeObjectLingers:
      return true;
    default:
      return false;
  }
}

bool IsNodeFault(FaultKind kind) { return kind == FaultKind::kGpuFailure; }

bool FaultProfile::Any() const {
  if (workload.Any()) return true;
  for (const FaultRate& r : rates) {
    if (r.Active()) return true;
  }
  return false;
}

FaultProfile DefaultFaultProfile() {
  FaultProfile p;
  const auto call = [&](FaultKind k, double probability) { p.rate(k).probability = probability; };
  const auto timed = [&](FaultKind k, absl::Duration every, absl::Duration duration) {
    p.rate(k).every = every;
    p.rate(k).duration = duration;
  };
  call(FaultKind::kApiErrorTaint, 0.03);
  call(FaultKind::kApiErrorAnnotate, 0.03);
  call(FaultKind::kApiErrorEvict, 0.05);
  call(FaultKind::kApiErrorDelete, 0.05);
  call(FaultKind::kApiErrorStatus, 0.02);
  timed(FaultKind::kWatchCut, absl::Minutes(40), absl::Seconds(45));
  timed(FaultKind::kRelistGone, absl::Minutes(50), absl::Seconds(20));
  call(FaultKind::kPluginSlow, 0.003);
  call(FaultKind::kPluginUnavailable, 0.003);
  call(FaultKind::kPluginInternal, 0.003);
  call(FaultKind::kPluginGarbage, 0.003);
  timed(FaultKind::kStockout, absl::Minutes(45), absl::Minutes(20));
  call(FaultKind::kNeverRegisters, 0.03);
  call(FaultKind::kRegistersWithoutGpus, 0.03);
  timed(FaultKind::kSpotBurst, absl::Minutes(40), absl::ZeroDuration());
  call(FaultKind::kNodeObjectLingers, 0.5);
  p.rate(FaultKind::kGpuFailure).per_node_hour = 0.03;
  timed(FaultKind::kRestartBetweenLoops, absl::Minutes(40), absl::ZeroDuration());
  timed(FaultKind::kRestartMidAction, absl::Minutes(30), absl::ZeroDuration());
  timed(FaultKind::kLeaderChange, absl::Minutes(40), absl::Seconds(30));
  p.workload.disruption_budgets = 0.3;
  p.workload.not_safe_to_evict = 0.05;
  return p;
}

absl::StatusOr<FaultProfile> ParseFaultProfile(absl::string_view text, absl::string_view source) {
  GPUA_ASSIGN_OR_RETURN(std::vector<nlohmann::json> docs, ParseObjects(text, source));
  if (docs.size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": expected one document with faults, found ", docs.size()));
  }
  const JsonReader root(docs.front(), "");
  FaultProfile profile;
  absl::Status s = root.RejectUnknown({"faults", "workload"});
  if (s.ok()) {
    absl::StatusOr<SoakWorkload> workload = ReadWorkload(root.Field("workload"));
    if (workload.ok()) profile.workload = *workload;
    s = workload.status();
  }
  if (s.ok()) {
    s = root.Field("faults").ForEachMember(
        [&](absl::string_view name, const JsonReader& r) -> absl::Status {
          const std::optional<FaultKind> kind = FaultKindNamed(name);
          if (!kind.has_value()) {
            return r.Error(
                absl::StrCat("no such fault kind (the kinds: default's list in the README)"));
          }
          GPUA_ASSIGN_OR_RETURN(profile.rate(*kind), ReadRate(*kind, r));
          return absl::OkStatus();
        });
  }
  if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat(source, ": ", s.message()));
  return profile;
}

absl::StatusOr<FaultProfile> LoadFaultProfile(const std::string& spec) {
  if (spec == "default") return DefaultFaultProfile();
  GPUA_ASSIGN_OR_RETURN(std::string text, ReadFile(spec, kMaxConfigFileBytes));
  return ParseFaultProfile(text, spec);
}

}  // namespace gpua::sim
