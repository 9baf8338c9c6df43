#include "autoscaler/cli/plugin_check_command.h"

#include <functional>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/log.h"
#include "cloudproviders/externalgrpc/externalgrpc_provider.h"

namespace gpua {
namespace {

// What the check saw, line by line, and what is wrong.
class Report {
 public:
  Report(std::ostream& out, const Clock& clock) : out_(out), clock_(clock) {}

  // Runs `call` and reports it with the time it took.
  template <typename T, typename Describe>
  absl::StatusOr<T> Timed(absl::string_view rpc, absl::string_view subject,
                          const std::function<absl::StatusOr<T>()>& call, Describe describe) {
    const absl::Time start = clock_.Now();
    absl::StatusOr<T> result = call();
    const std::string detail = result.ok() ? describe(*result) : "";
    Call(rpc, subject, result.status(), detail, clock_.Now() - start);
    return result;
  }
  void TimedStatus(absl::string_view rpc, absl::string_view subject,
                   const std::function<absl::Status()>& call, absl::string_view detail = "") {
    const absl::Time start = clock_.Now();
    const absl::Status status = call();
    Call(rpc, subject, status, detail, clock_.Now() - start);
  }
  // A call whose answer is only reported.
  template <typename T, typename Describe>
  void Probe(absl::string_view rpc, absl::string_view subject,
             const std::function<absl::StatusOr<T>()>& call, Describe describe) {
    (void)Timed<T>(rpc, subject, call, describe);
  }
  const Clock& clock() const { return clock_; }

  // Prints one call's outcome; a failure (other than "not implemented") is a problem.
  void Call(absl::string_view rpc, absl::string_view subject, const absl::Status& status,
            absl::string_view detail, absl::Duration took) {
    std::string outcome = status.ok()                ? "ok"
                          : IsNotImplemented(status) ? "not implemented"
                                                     : "FAILED";
    out_ << absl::StrFormat("%-28s %-22s %-16s %s (%d ms)\n", rpc, subject, outcome,
                            status.ok() || IsNotImplemented(status) ? std::string(detail)
                                                                    : std::string(status.message()),
                            absl::ToInt64Milliseconds(took));
    if (!status.ok() && !IsNotImplemented(status)) Problem(status.message());
  }
  void Detail(absl::string_view line) { out_ << "    " << line << "\n"; }
  void Problem(absl::string_view what) { problems_.emplace_back(what); }

  int Finish() {
    if (problems_.empty()) {
      out_ << "\nno problems found\n";
      return 0;
    }
    out_ << "\n" << problems_.size() << " problem(s):\n";
    for (const std::string& p : problems_) out_ << "  - " << p << "\n";
    return kExitFailure;
  }

 private:
  std::ostream& out_;
  const Clock& clock_;
  std::vector<std::string> problems_;
};

std::string DescribeTemplate(const NodeTemplate& t) {
  std::vector<std::string> taints;
  for (const Taint& taint : t.taints) taints.push_back(taint.ToString());
  return absl::StrCat(t.labels.size(), " label(s); taints [", absl::StrJoin(taints, ", "),
                      "]; allocatable ", t.allocatable.ToString());
}

void CheckGroup(NodeGroup& g, CloudProvider& provider, Report& report) {
  const std::string subject = g.Id();
  if (g.MinSize() > g.MaxSize()) {
    report.Problem(absl::StrCat("node group ", subject, ": minSize ", g.MinSize(),
                                " exceeds maxSize ", g.MaxSize()));
  }
  auto target = report.Timed<int>(
      "NodeGroupTargetSize", subject, [&] { return g.TargetSize(); },
      [](int n) { return absl::StrCat("target ", n); });
  if (target.ok() && (*target < g.MinSize() || *target > g.MaxSize())) {
    report.Problem(absl::StrCat("node group ", subject, ": target size ", *target, " is outside ",
                                g.MinSize(), "..", g.MaxSize()));
  }
  auto t = report.Timed<NodeTemplate>(
      "NodeGroupTemplateNodeInfo", subject, [&] { return g.TemplateNode(); }, DescribeTemplate);
  if (t.ok() && !t->labels.empty()) {
    for (const auto& [k, v] : t->labels) report.Detail(absl::StrCat(k, "=", v));
  }
  report.Probe<AutoscalingOptions>(
      "NodeGroupGetOptions", subject, [&] { return g.GetOptions(AutoscalingOptions{}); },
      [](const AutoscalingOptions& o) {
        return absl::StrCat("idle timeout ", absl::FormatDuration(o.scale_down_unneeded_time));
      });
  auto instances = report.Timed<std::vector<Instance>>(
      "NodeGroupNodes", subject, [&] { return g.Nodes(); },
      [](const std::vector<Instance>& list) { return absl::StrCat(list.size(), " instance(s)"); });
  if (!instances.ok()) return;
  for (const Instance& i : *instances) {
    report.Detail(absl::StrCat(
        i.id, " ", InstanceStateName(i.state),
        i.error ? absl::StrCat(" error ", i.error->code, ": ", i.error->message) : ""));
    NodeRef node{i.id, "", {}, {}};
    auto owner = report.Timed<std::shared_ptr<NodeGroup>>(
        "NodeGroupForNode", i.id, [&] { return provider.NodeGroupForNode(node); },
        [](const std::shared_ptr<NodeGroup>& o) { return o ? o->Id() : "(not autoscaled)"; });
    if (owner.ok() && (*owner == nullptr || (*owner)->Id() != g.Id())) {
      report.Problem(absl::StrCat("instance ", i.id, " is listed by node group ", g.Id(),
                                  " but NodeGroupForNode answers ",
                                  *owner ? (*owner)->Id() : "no group"));
    }
  }
}

// With --mutate: one more node asked for, then the target lowered back.
void CheckResize(NodeGroup& g, Report& report) {
  auto before = g.TargetSize();
  if (!before.ok() || *before >= g.MaxSize()) {
    report.Detail(absl::StrCat("node group ", g.Id(), " has no room to try a resize"));
    return;
  }
  report.TimedStatus(
      "NodeGroupIncreaseSize", g.Id(), [&] { return g.IncreaseSize(1); }, "delta 1");
  auto after = g.TargetSize();
  if (after.ok() && *after != *before + 1) {
    report.Problem(absl::StrCat("node group ", g.Id(), ": target ", *after, " after increasing ",
                                *before, " by 1"));
  }
  const absl::Time start = report.clock().Now();
  absl::Status lowered = g.DecreaseTargetSize(-1);
  if (lowered.code() == absl::StatusCode::kFailedPrecondition) {
    // The node came up before the target could be lowered: right of the plugin to refuse.
    report.Call("NodeGroupDecreaseTargetSize", g.Id(), absl::OkStatus(),
                absl::StrCat("refused, the new node is already up: ", lowered.message()),
                report.clock().Now() - start);
    return;
  }
  report.Call("NodeGroupDecreaseTargetSize", g.Id(), lowered, "delta -1",
              report.clock().Now() - start);
}

// Calls every RPC the planner uses, group by group, then the optional ones.
void CheckProvider(ExternalGrpcProvider& provider, bool mutate, Report& report) {
  CloudProvider& p = provider;
  report.TimedStatus("Refresh", "", [&] { return p.Refresh(); });
  auto groups = report.Timed<std::vector<std::shared_ptr<NodeGroup>>>(
      "NodeGroups", "", [&] { return p.NodeGroups(); },
      [](const auto& list) { return absl::StrCat(list.size(), " group(s)"); });
  if (groups.ok() && groups->empty()) report.Problem("the plugin offers no node groups");
  for (const std::string& ignored : provider.IgnoredGroups()) report.Problem(ignored);
  if (groups.ok()) {
    for (const auto& g : *groups) CheckGroup(*g, p, report);
    if (mutate && !groups->empty()) CheckResize(*groups->front(), report);
  }
  report.Probe<std::string>(
      "GPULabel", "", [&] { return p.GpuLabel(); }, [](const std::string& l) { return l; });
  report.Probe<std::vector<std::string>>(
      "GetAvailableGPUTypes", "", [&] { return p.AvailableGpuTypes(); },
      [](const auto& t) { return absl::StrJoin(t, ", "); });
  const absl::Time now = report.clock().Now();
  NodeRef some_node{"", "plugin-check-node", {}, {}};
  if (groups.ok() && !groups->empty()) {
    auto instances = (*groups)[0]->Nodes();
    if (instances.ok() && !instances->empty()) some_node.provider_id = (*instances)[0].id;
  }
  if (!some_node.provider_id.empty()) {
    report.Probe<double>(
        "PricingNodePrice", some_node.provider_id,
        [&] { return p.NodePrice(some_node, now - absl::Hours(1), now); },
        [](double price) { return absl::StrCat(price, " for the last hour"); });
  }
  PodSpec pod;
  pod.namespace_name = "default";
  pod.name = "plugin-check";
  report.Probe<double>(
      "PricingPodPrice", "default/plugin-check",
      [&] { return p.PodPrice(pod, now - absl::Hours(1), now); },
      [](double price) { return absl::StrCat(price, " for the last hour"); });
  report.TimedStatus("Cleanup", "", [&] { return p.Cleanup(); });
}

}  // namespace

int RunPluginCheckCommand(const CommandArgs& args, const CommandIo& io) {
  std::string config_file;
  bool mutate = false;
  FlagSet flags("gpu-autoscaler plugin-check");
  flags.AddString("cloud-config", &config_file,
                  "the externalgrpc cloud-config file: address, cert, key, cacert, grpc_timeout");
  flags.AddBool("mutate", &mutate,
                "also increase one group's target by one and lower it back (changes the cluster)");
  if (auto exit = ParseFlagsOrExit(
          flags, args, "Usage: gpu-autoscaler plugin-check --cloud-config FILE [--mutate]", io)) {
    return *exit;
  }
  if (config_file.empty()) {
    io.err << "gpu-autoscaler plugin-check: --cloud-config FILE is required\n";
    return kExitUsage;
  }
  absl::StatusOr<ExternalGrpcConfig> config = LoadExternalGrpcConfig(config_file);
  if (!config.ok()) {
    io.err << "gpu-autoscaler plugin-check: " << config.status().message() << "\n";
    return kExitUsage;
  }
  StreamLogSink notes(io.out, "note: ");
  auto provider = ExternalGrpcProvider::Create(*config, notes);
  if (!provider.ok()) {
    io.err << "gpu-autoscaler plugin-check: " << provider.status().message() << "\n";
    return kExitUsage;
  }
  io.out << "plugin at " << config->address << (config->UsesTls() ? " (TLS)" : " (plaintext)")
         << ", deadline " << absl::FormatDuration(config->timeout) << "\n\n";
  Report report(io.out, io.clock);
  CheckProvider(**provider, mutate, report);
  return report.Finish();
}

}  // namespace gpua
