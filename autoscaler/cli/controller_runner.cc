#include "autoscaler/cli/controller_runner.h"

#include <unistd.h>

#include <algorithm>
#include <memory>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "autoscaler/cli/http_endpoints.h"
#include "autoscaler/cli/management_cluster_connector.h"
#include "autoscaler/controller/controller.h"
#include "autoscaler/controller/loop_schedule.h"
#include "autoscaler/controller/model/dry_run_kube_writer.h"
#include "autoscaler/kube/api_kube_writer.h"
#include "autoscaler/kube/cluster_watch.h"
#include "autoscaler/kube/leader_election.h"
#include "base/status_macros.h"
#include "cloudproviders/provider_registry.h"

namespace gpua {
namespace {

absl::StatusOr<std::unique_ptr<CloudProvider>> MakeProvider(const ControllerConfig& c, Clock& clock,
                                                            LogSink& log) {
  ProviderContext context;
  context.cloud_config = c.cloud_config;
  context.auto_discovery = c.auto_discovery;
  context.clock = &clock;
  context.log = &log;
  ManagementClusterSettings management;
  management.workload_kubeconfig = c.kubeconfig;
  management.in_cluster_when_unset = c.clusterapi_cloud_config_authoritative;
  management.client.qps = c.kube_api_qps;
  management.client.burst = c.kube_api_burst;
  management.client.user_agent = c.user_agent;
  context.connect_management_cluster =
      ManagementClusterConnector(std::move(management), clock, log);
  return ProviderRegistry::Builtin().Create(c.cloud_provider, context);
}

// --nodes against the groups of a provider that has them all at start (the node-group file's).
absl::Status CheckGroupsNamed(const ControllerConfig& c, CloudProvider& provider) {
  const ProviderFactory* factory = ProviderRegistry::Builtin().Find(c.cloud_provider);
  if (factory == nullptr || !factory->groups_fixed_at_start) return absl::OkStatus();
  GPUA_ASSIGN_OR_RETURN(const std::vector<std::shared_ptr<NodeGroup>> groups,
                        provider.NodeGroups());
  for (const NodeGroupLimits& limits : c.controller.node_groups) {
    const auto named = [&](const auto& g) { return g->Id() == limits.id; };
    if (std::none_of(groups.begin(), groups.end(), named)) {
      std::vector<std::string> ids;
      ids.reserve(groups.size());
      for (const auto& g : groups) ids.push_back(g->Id());
      return absl::InvalidArgumentError(absl::StrCat("names node group ", limits.id, ", which ",
                                                     c.cloud_config, " does not have (",
                                                     absl::StrJoin(ids, ", "), ")"));
    }
  }
  return absl::OkStatus();
}

// client-go's identity for a candidate: the host's name and something unique.
std::string Identity() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return absl::StrFormat("%s_%016x", host, std::random_device{}() * 0x9e3779b97f4a7c15ULL);
}

// When the loop runs next, moved sooner (from informer threads) by new unschedulable pods, by
// pods leaving their nodes (an idle timeout starts when the last pod goes, not at the next
// scan) and by nodes registering.
class Wakeups {
 public:
  explicit Wakeups(absl::Duration scan_interval) : schedule_(scan_interval) {}
  void Arrived(absl::Time now) {
    absl::MutexLock lock(&mu_);
    schedule_.PodArrived(now);
  }
  // A loop a second from now: registrations in the same second share it, and they do not
  // stretch a burst of pods' quiet window (a cluster scaling up registers nodes all the time).
  void NodeRegistered(absl::Time now) {
    absl::MutexLock lock(&mu_);
    schedule_.WakeAt(now + absl::Seconds(1));
  }
  void WakeAt(absl::Time at) {
    absl::MutexLock lock(&mu_);
    schedule_.WakeAt(at);
  }
  void LoopStarted(absl::Time now) {
    absl::MutexLock lock(&mu_);
    schedule_.LoopStarted(now);
  }
  // Waits until a loop is due, or `stop`; true when one is due.
  bool Wait(Clock& clock, const std::function<bool()>& stop) {
    while (!stop()) {
      absl::Duration left;
      {
        absl::MutexLock lock(&mu_);
        left = schedule_.Next() - clock.Now();
      }
      if (left <= absl::ZeroDuration()) return true;
      clock.SleepFor(std::min(left, absl::Milliseconds(50)));
    }
    return false;
  }

 private:
  absl::Mutex mu_;
  LoopSchedule schedule_ ABSL_GUARDED_BY(mu_);
};

// What /health-check answers.
class Health {
 public:
  Health(const ControllerConfig& c, Clock& clock) : config_(c), clock_(clock) {}
  void Leading(absl::Time now) {
    absl::MutexLock lock(&mu_);
    leading_ = true;
    last_end_ = last_success_ = now;
  }
  void LoopDone(const LoopReport& r) {
    absl::MutexLock lock(&mu_);
    last_end_ = r.end;
    if (r.skipped.empty()) last_success_ = r.end;
  }
  std::string Unhealthy() const {
    absl::MutexLock lock(&mu_);
    if (!leading_) return "";  // a standby replica is healthy: it waits for the lease
    const absl::Time now = clock_.Now();
    if (now - last_end_ > config_.max_inactivity) {
      return absl::StrCat("no loop completed for ", absl::FormatDuration(now - last_end_));
    }
    if (now - last_success_ > config_.max_failing_time) {
      return absl::StrCat("no loop succeeded for ", absl::FormatDuration(now - last_success_));
    }
    return "";
  }

 private:
  const ControllerConfig& config_;
  Clock& clock_;
  mutable absl::Mutex mu_;
  bool leading_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time last_end_ ABSL_GUARDED_BY(mu_);
  absl::Time last_success_ ABSL_GUARDED_BY(mu_);
};

kube::ClusterWatchOptions WatchOptions(const ControllerConfig& c, Clock& clock, LogSink& log,
                                       Wakeups& wakeups) {
  kube::ClusterWatchOptions watch;
  watch.reflector.log = &log;
  watch.config_map_namespace = c.controller.status.namespace_name;
  watch.config_map_names = ConfigMapsRead(c.controller);
  watch.capacity_buffers = c.controller.scale_up.capacity_buffers;
  watch.dra = c.controller.dynamic_resource_allocation;
  const auto pod_changed = [&clock, &wakeups](const kube::Informer<PodObject>::Ptr& p) {
    if (p->unschedulable && p->spec.node_name.empty()) wakeups.Arrived(clock.Now());
  };
  const auto finished = [](const PodObject& p) { return p.finished(); };
  // A node registering is one a plan waits for: a reconfigurable MIG node gets its layout
  // label within a second, not a scan interval later (its MIG manager waits for the label, and
  // meanwhile the node may be advertised with the pool's default layout), and the pods
  // nominated to it are matched to it.
  watch.node_handlers.on_add = [&clock, &wakeups](const kube::Informer<NodeObject>::Ptr&) {
    wakeups.NodeRegistered(clock.Now());
  };
  watch.pod_handlers.on_add = pod_changed;
  watch.pod_handlers.on_update = [=, &clock, &wakeups](const auto& before, const auto& after) {
    pod_changed(after);
    if (!after->spec.node_name.empty() && finished(*after) && !finished(*before)) {
      wakeups.Arrived(clock.Now());
    }
  };
  watch.pod_handlers.on_delete = [&clock, &wakeups](const kube::Informer<PodObject>::Ptr& p) {
    if (!p->spec.node_name.empty()) wakeups.Arrived(clock.Now());
  };
  return watch;
}

// SIGTERM ends the controller within its grace period whatever it waits on: once `stop` is
// set the clients are cancelled, which kills a hung exec credential plugin and aborts requests
// in flight. A loop cut short is as a restart mid-loop, which every step is written to survive.
class ShutdownCanceller {
 public:
  ShutdownCanceller(const std::atomic<bool>& stop, std::vector<kube::ApiClient*> clients,
                    Clock& clock)
      : thread_([this, &stop, clients = std::move(clients), &clock] {
          // A signal handler can only set a flag, so the flag is polled, as the loop polls it.
          while (!stop && !done_) clock.SleepFor(absl::Milliseconds(50));
          if (!stop) return;
          for (kube::ApiClient* c : clients) c->Cancel();
        }) {}
  ~ShutdownCanceller() {
    done_ = true;
    thread_.join();
  }

 private:
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace

int RunController(const ControllerConfig& c, const CommandIo& io, LogSink& log,
                  const std::atomic<bool>& stop, const RunnerHooks& hooks) {
  const auto fail = [&](absl::string_view what, const absl::Status& s) {
    log.Error(absl::StrCat(what, ": ", s.message()));
    return ExitStatusForInput(s);
  };
  for (const std::string& note : c.notes) log.Warning(note);
  absl::StatusOr<std::unique_ptr<CloudProvider>> provider = MakeProvider(c, io.clock, log);
  if (!provider.ok()) return fail("cloud provider", provider.status());
  if (absl::Status s = CheckGroupsNamed(c, **provider); !s.ok()) return fail("--nodes", s);
  absl::StatusOr<kube::RestConfig> rest =
      kube::ResolveRestConfig(c.kubeconfig, "", kube::ProcessEnv);
  if (!rest.ok()) return fail("kubeconfig", rest.status());
  for (const std::string& warning : rest->warnings) log.Warning(warning);
  kube::ClientOptions client_options;
  client_options.qps = c.kube_api_qps;
  client_options.burst = c.kube_api_burst;
  client_options.user_agent = c.user_agent;
  absl::StatusOr<std::unique_ptr<kube::ApiClient>> client =
      kube::ApiClient::Create(*rest, io.clock, client_options);
  if (!client.ok()) return fail("Kubernetes client", client.status());
  // The lease has a client of its own: renewals must never queue behind the informers'
  // relists and the events under --kube-api-qps, or a busy leader would lose its lease.
  absl::StatusOr<std::unique_ptr<kube::ApiClient>> lease_client =
      kube::ApiClient::Create(*rest, io.clock, client_options);
  if (!lease_client.ok()) return fail("Kubernetes client", lease_client.status());
  ShutdownCanceller canceller(stop, {client->get(), lease_client->get()}, io.clock);

  Wakeups wakeups(c.controller.scan_interval);
  kube::ClusterWatch watch(**client, io.clock, WatchOptions(c, io.clock, log, wakeups));
  kube::ApiKubeWriter api_writer(**client, io.clock, "gpu-autoscaler", log);
  DryRunKubeWriter dry_run_writer(api_writer, log);
  KubeWriter& writer = c.dry_run ? static_cast<KubeWriter&>(dry_run_writer) : api_writer;
  if (c.dry_run) log.Info("Dry run: no node, pod or Event will be changed");
  MetricsRegistry registry;
  AutoscalerMetrics metrics(registry);
  Controller controller({watch, **provider, writer, io.clock, log, &metrics}, c.controller);
  Health health(c, io.clock);
  absl::StatusOr<std::unique_ptr<HttpEndpoints>> http = HttpEndpoints::Start(
      c.address,
      {[&registry] { return registry.Render(); }, [&health] { return health.Unhealthy(); }});
  if (!http.ok()) return fail("metrics endpoint", http.status());
  log.Info(absl::StrCat("Serving /metrics and /health-check on port ", (*http)->port()));
  if (hooks.serving) hooks.serving((*http)->port());

  std::atomic<bool> leading{!c.leader_elect}, lost{false}, stop_electing{false};
  std::thread election;
  std::unique_ptr<kube::LeaderElector> elector;
  if (c.leader_elect) {
    kube::LeaderElectionConfig lease = c.leader_election;
    lease.identity = Identity();
    elector = std::make_unique<kube::LeaderElector>(**lease_client, io.clock, lease);
    log.Info(absl::StrCat("Campaigning for lease ", lease.namespace_name, "/", lease.lease_name,
                          " as ", lease.identity));
    election = std::thread([&] {
      elector->Run(
          stop_electing, [&] { leading = true; },
          [&] {
            leading = false;
            if (!stop_electing) lost = true;  // renewals failed, not a shutdown
          });
    });
  }
  watch.Start();
  const auto done = [&] { return stop.load() || lost.load(); };
  while (!done() && !leading) io.clock.SleepFor(absl::Milliseconds(50));
  if (leading) log.Info("Leading: the controller acts from now on");
  health.Leading(io.clock.Now());
  while (!done() && !watch.WaitForSync(absl::Seconds(1))) {
  }
  while (wakeups.Wait(io.clock, done)) {
    const absl::Time now = io.clock.Now();
    wakeups.LoopStarted(now);
    const LoopReport report = controller.RunOnce(now);
    wakeups.WakeAt(report.next_pod_eligible);
    wakeups.WakeAt(report.next_removal_due);
    health.LoopDone(report);
    if (hooks.loop_done) hooks.loop_done(report);
  }
  stop_electing = true;
  if (election.joinable()) election.join();
  if (lost) {
    log.Error("Lost the lease: another replica acts now; stopping");
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace gpua
