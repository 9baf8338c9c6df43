#include "autoscaler/kube/leader_election.h"

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "kubeobjects/api_time.h"
#include "kubeobjects/json_text.h"
#include "kubeobjects/lease.h"

namespace gpua::kube {

LeaderElector::LeaderElector(ApiClient& client, Clock& clock, LeaderElectionConfig config)
    : client_(client), clock_(clock), config_(std::move(config)) {}

std::string LeaderElector::Path(bool with_name) const {
  std::string path =
      absl::StrCat("/apis/coordination.k8s.io/v1/namespaces/", config_.namespace_name, "/leases");
  if (with_name) absl::StrAppend(&path, "/", config_.lease_name);
  return path;
}

nlohmann::json LeaderElector::NewLease(absl::Time now, int32_t transitions,
                                       absl::Time acquired) const {
  return {{"apiVersion", "coordination.k8s.io/v1"},
          {"kind", "Lease"},
          {"metadata", {{"name", config_.lease_name}, {"namespace", config_.namespace_name}}},
          {"spec",
           {{"holderIdentity", config_.identity},
            {"leaseDurationSeconds", absl::ToInt64Seconds(config_.lease_duration)},
            {"acquireTime", FormatMicroTime(acquired)},
            {"renewTime", FormatMicroTime(now)},
            {"leaseTransitions", transitions}}}};
}

absl::StatusOr<bool> LeaderElector::TryAcquireOrRenew() {
  const absl::Time now = clock_.Now();
  GPUA_ASSIGN_OR_RETURN(HttpResponse got,
                        client_.Request("GET", Path(true), "", "application/json", CallTimeout()));
  if (got.status == 404) {
    GPUA_ASSIGN_OR_RETURN(HttpResponse created,
                          client_.Request("POST", Path(false), NewLease(now, 0, now).dump(),
                                          "application/json", CallTimeout()));
    return created.status == 201;
  }
  if (got.status != 200) {
    return absl::UnavailableError(
        absl::StrCat("get lease ", config_.lease_name, ": HTTP ", got.status));
  }
  absl::StatusOr<nlohmann::json> read =
      ParseJson(got.body, absl::StrCat("Lease ", config_.lease_name));
  if (!read.ok()) return absl::DataLossError(read.status().message());
  const nlohmann::json& body = *read;
  GPUA_ASSIGN_OR_RETURN(LeaseObject lease, DecodeLease(JsonReader(body)));
  const std::string seen =
      absl::StrCat(lease.holder, "|", FormatMicroTime(lease.renew_time), "|", lease.transitions);
  if (seen != observed_) {  // it changed: judge it from now on
    observed_ = seen;
    observed_at_ = now;
  }
  if (!lease.holder.empty() && lease.holder != config_.identity &&
      observed_at_ + lease.lease_duration > now) {
    return false;  // someone else holds it and renews it
  }
  int32_t transitions = lease.transitions;
  absl::Time acquired = lease.acquire_time;
  if (lease.holder != config_.identity) {
    ++transitions;
    acquired = now;
  }
  if (acquired == absl::InfinitePast()) acquired = now;  // a lease written without one
  nlohmann::json update = NewLease(now, transitions, acquired);
  update["metadata"]["resourceVersion"] = lease.resource_version;
  GPUA_ASSIGN_OR_RETURN(HttpResponse put, client_.Request("PUT", Path(true), update.dump(),
                                                          "application/json", CallTimeout()));
  if (put.status == 200) {
    observed_ = absl::StrCat(config_.identity, "|", FormatMicroTime(now), "|", transitions);
    observed_at_ = now;
  }
  return put.status == 200;  // 409: someone else wrote it first
}

// An attempt makes two calls; both must fit the renew deadline, or a hung API server
// would keep a leader acting after its lease could have passed on.
absl::Duration LeaderElector::CallTimeout() const { return config_.renew_deadline / 2; }

void LeaderElector::Run(const std::atomic<bool>& stop, const std::function<void()>& on_started,
                        const std::function<void()>& on_stopped) {
  while (!stop) {
    absl::StatusOr<bool> got = TryAcquireOrRenew();
    if (got.ok() && *got) break;
    if (!clock_.SleepUnlessStopped(config_.retry_period, stop)) return;
  }
  leading_ = true;
  on_started();
  absl::Time renewed = clock_.Now();
  while (clock_.SleepUnlessStopped(config_.retry_period, stop)) {
    absl::StatusOr<bool> kept = TryAcquireOrRenew();
    if (kept.ok() && *kept) {
      renewed = clock_.Now();
    } else if (clock_.Now() - renewed >= config_.renew_deadline) {
      break;  // stop acting before the lease can pass to someone else
    }
  }
  leading_ = false;
  on_stopped();
}

}  // namespace gpua::kube
