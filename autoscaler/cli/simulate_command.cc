#include "autoscaler/cli/simulate_command.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "autoscaler/cli/controller_flags.h"
#include "autoscaler/cli/embedded_example.h"
#include "autoscaler/cli/progress_bar.h"
#include "autoscaler/sim/html_report.h"
#include "autoscaler/sim/result_json.h"
#include "autoscaler/sim/result_table.h"
#include "autoscaler/sim/sweep.h"
#include "autoscaler/sim/sweep_runner.h"
#include "base/file.h"
#include "base/status_macros.h"
#include "cloudproviders/node_group_file.h"

namespace gpua {
namespace {

constexpr char kCommand[] = "gpu-autoscaler simulate";
constexpr char kUsage[] =
    "Usage: gpu-autoscaler simulate [--trace FILE --node-groups FILE] [flags]\n\n"
    "Runs the controller, with the controller flags given here, over a workload trace on a\n"
    "virtual clock, against the simulated cloud of the node-group file, and reports the cost,\n"
    "the GPU-hours billed, used and idle, how long pods waited, and the lower bound.\n"
    "With no --trace and --node-groups: the bundled example week, with a sweep of idle\n"
    "timeouts unless --sweep says otherwise.\n\n"
    "  --sweep scale-down-unneeded-time=0s,5m,30m     one controller flag, several values\n"
    "  --sweep group/h100/scaleDownUnneededTime=5m,1h  one group's option";
constexpr char kExampleSweepFlag[] = "scale-down-unneeded-time";
constexpr char kExampleSweep[] = "scale-down-unneeded-time=0s,2m,10m,30m,1h";

// The command's own flags; the controller's are DecisionFlags.
struct SimulateFlags {
  std::string trace;
  std::string node_groups;
  std::string output = "text";
  std::string sweep;
  std::string report;
  std::string scoring = "least-allocated";
  std::string gpu_sharing = "as-configured";
  int64_t seed = 1;
  absl::Duration until = absl::ZeroDuration();
  int64_t parallelism = 0;
  int64_t verbosity = 0;
  std::string faults;
};

// Flags that say what to read and where to write: a sweep over them means nothing.
constexpr const char* kNotSweepable[] = {"trace",  "node-groups", "output", "sweep",
                                         "report", "parallelism", "v",      "faults"};

void AddSimulateFlags(FlagSet& flags, SimulateFlags& f) {
  flags.AddString("trace", &f.trace, "the workload trace, JSON Lines (see README)");
  flags.AddString("node-groups", &f.node_groups,
                  "the node-group file, with each group's simulation section");
  flags.AddString("output", &f.output, "text or json");
  flags.AddString("sweep", &f.sweep,
                  "<flag>=<v1>,<v2>,... or group/<id>/<option>=<v1>,...: one run per value");
  flags.AddString("report", &f.report, "write a self-contained HTML report to this file");
  flags.AddString("scheduler-scoring", &f.scoring,
                  "how the simulated scheduler picks among nodes that fit: least-allocated "
                  "(kube-scheduler's default) or most-allocated");
  flags.AddString("gpu-sharing", &f.gpu_sharing,
                  "as-configured, or whole-gpus: no pool shares its GPUs and every share or MIG "
                  "device a pod asks for is a whole GPU (sweep both to see what sharing saves)");
  flags.AddString("faults", &f.faults,
                  "a fault soak: inject the faults a profile file names, or the built-in "
                  "\"default\" profile, and check the controller's invariants on every loop "
                  "(the run fails when any is broken)");
  flags.AddInt("seed", &f.seed, "seed of the simulated cloud's delays and preemptions");
  flags.AddDuration("until", &f.until,
                    "simulate this long (default: until the trace's last pod ends, plus 2h)");
  flags.AddInt("parallelism", &f.parallelism,
               "runs of a sweep at once (default: the machine's cores)");
  flags.AddInt("v", &f.verbosity,
               "print the controller's log on stderr, at virtual times, with info lines up to "
               "this verbosity (warnings at any)");
}

struct Parsed {
  SimulateFlags sim;
  ControllerOptions controller;
  std::vector<std::string> given;  // the flags on the command line
};

// Parses the arguments with `extra` appended (a sweep's --flag=value), as a fresh command
// line, so a swept value passes every check the flag's own value would.
absl::StatusOr<Parsed> ParseWith(const CommandArgs& args, const std::string& extra) {
  Parsed p;
  FlagSet flags(kCommand);
  AddSimulateFlags(flags, p.sim);
  DecisionFlags decision(flags);
  CommandArgs all = args;
  if (!extra.empty()) all.push_back(extra);
  GPUA_RETURN_IF_ERROR(flags.Parse(all).status());
  GPUA_ASSIGN_OR_RETURN(p.controller, decision.Finish(flags));
  return p;
}

absl::StatusOr<sim::Scoring> ParseScoring(const std::string& s) {
  if (s == "least-allocated") return sim::Scoring::kLeastAllocated;
  if (s == "most-allocated") return sim::Scoring::kMostAllocated;
  return absl::InvalidArgumentError(absl::StrCat("invalid value \"", s,
                                                 "\" for flag --scheduler-scoring: expected "
                                                 "least-allocated or most-allocated"));
}

// The flags each run of a sweep takes its own value of (a sweep may set any of them): checked
// on the command line before anything is read, and again for each swept value.
absl::Status CheckRunFlags(const SimulateFlags& f) {
  GPUA_RETURN_IF_ERROR(ParseScoring(f.scoring).status());
  if (f.gpu_sharing != "as-configured" && f.gpu_sharing != "whole-gpus") {
    return absl::InvalidArgumentError(absl::StrCat("invalid value \"", f.gpu_sharing,
                                                   "\" for flag --gpu-sharing: expected "
                                                   "as-configured or whole-gpus"));
  }
  if (f.seed < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid value \"", f.seed, "\" for flag --seed: expected 0 or more"));
  }
  return absl::OkStatus();
}

absl::StatusOr<sim::SimulationOptions> OptionsOf(const Parsed& p,
                                                 std::vector<NodeGroupConfig> groups) {
  GPUA_RETURN_IF_ERROR(CheckRunFlags(p.sim));
  sim::SimulationOptions o;
  o.controller = p.controller;
  o.groups = std::move(groups);
  o.seed = static_cast<uint64_t>(p.sim.seed);
  o.scoring = *ParseScoring(p.sim.scoring);
  o.whole_gpus = p.sim.gpu_sharing == "whole-gpus";
  o.until = p.sim.until;  // FlagSet takes no negative duration
  o.verbosity = static_cast<int>(p.sim.verbosity);
  if (!p.sim.faults.empty()) {
    absl::StatusOr<sim::FaultProfile> faults = sim::LoadFaultProfile(p.sim.faults);
    if (!faults.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--faults: ", faults.status().message()));
    }
    o.faults = *std::move(faults);
  }
  return o;
}

// A swept value's error, said as the sweep's.
absl::Status SweepError(const absl::Status& s) {
  absl::string_view message = s.message();
  absl::ConsumePrefix(&message, absl::StrCat(kCommand, ": "));
  return absl::InvalidArgumentError(absl::StrCat("--sweep: ", message));
}

// One setting per value of the sweep; one unlabelled setting without a sweep.
absl::StatusOr<std::vector<sim::Setting>> Settings(const CommandArgs& args, const Parsed& base,
                                                   const std::string& sweep_spec,
                                                   const std::vector<NodeGroupConfig>& groups) {
  std::vector<sim::Setting> settings;
  if (sweep_spec.empty()) {
    GPUA_ASSIGN_OR_RETURN(sim::SimulationOptions o, OptionsOf(base, groups));
    settings.push_back({"", std::move(o)});
    return settings;
  }
  GPUA_ASSIGN_OR_RETURN(const sim::Sweep sweep, sim::ParseSweep(sweep_spec));
  for (const char* name : kNotSweepable) {
    if (sweep.name == name) {
      return absl::InvalidArgumentError(absl::StrCat("--sweep: --", name, " cannot be swept"));
    }
  }
  if (std::find(base.given.begin(), base.given.end(), sweep.name) != base.given.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--sweep ", sweep.name, " and --", sweep.name,
                     " are both given: sweep its values, or set one"));
  }
  for (const std::string& value : sweep.values) {
    const std::string label = absl::StrCat(sweep.name, "=", value);
    absl::StatusOr<sim::SimulationOptions> o;
    if (sweep.group_option()) {
      GPUA_ASSIGN_OR_RETURN(std::vector<NodeGroupConfig> changed,
                            sim::WithGroupOption(groups, sweep, value));
      o = OptionsOf(base, std::move(changed));
    } else {
      absl::StatusOr<Parsed> p = ParseWith(args, absl::StrCat("--", sweep.name, "=", value));
      if (!p.ok()) return SweepError(p.status());
      o = OptionsOf(*p, groups);
    }
    if (!o.ok()) return SweepError(o.status());
    settings.push_back({label, *std::move(o)});
  }
  return settings;
}

struct Input {
  std::string trace_name;
  sim::Trace trace;
  std::vector<NodeGroupConfig> groups;
  std::string sweep;
};

absl::StatusOr<Input> LoadInput(const Parsed& p) {
  const SimulateFlags& f = p.sim;
  Input in;
  in.sweep = f.sweep;
  if (f.trace.empty() && f.node_groups.empty()) {
    const EmbeddedExample& example = SimulateExample();
    in.trace_name = std::string(example.trace_name);
    GPUA_ASSIGN_OR_RETURN(in.trace, sim::ParseTrace(example.trace, example.trace_name, "."));
    GPUA_ASSIGN_OR_RETURN(in.groups,
                          ParseNodeGroupFile(example.node_groups, example.node_groups_name));
    // The bundled sweep is of idle timeouts: one given on the command line is run alone.
    const bool timeout_given =
        std::find(p.given.begin(), p.given.end(), kExampleSweepFlag) != p.given.end();
    if (in.sweep.empty() && !timeout_given) in.sweep = kExampleSweep;
    return in;
  }
  in.trace_name = f.trace;
  GPUA_ASSIGN_OR_RETURN(in.trace, sim::ReadTraceFile(f.trace));
  GPUA_ASSIGN_OR_RETURN(in.groups, LoadNodeGroupFile(f.node_groups));
  return in;
}

absl::Status CheckFlags(const SimulateFlags& f) {
  if (f.trace.empty() != f.node_groups.empty()) {
    return absl::InvalidArgumentError(
        "--trace and --node-groups go together (neither: the bundled example)");
  }
  if (!f.faults.empty()) {  // said once, before any setting is run
    if (absl::Status s = sim::LoadFaultProfile(f.faults).status(); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--faults: ", s.message()));
    }
  }
  if (f.output != "text" && f.output != "json") {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid value \"", f.output, "\" for flag --output: expected text or json"));
  }
  if (f.parallelism < 0) {
    return absl::InvalidArgumentError("invalid value for flag --parallelism: expected 0 or more");
  }
  return CheckRunFlags(f);  // said before the trace is read, not after
}

// --nodes names groups of the node-group file: here every group is known, so a name that is
// not one is a mistake, not a group that has yet to appear.
absl::Status CheckGroupsNamed(const ControllerOptions& o,
                              const std::vector<NodeGroupConfig>& groups) {
  for (const NodeGroupLimits& limits : o.node_groups) {
    const auto named = [&](const NodeGroupConfig& g) { return g.spec.id == limits.id; };
    const bool known = std::any_of(groups.begin(), groups.end(), named);
    if (!known) {
      std::vector<std::string> ids;
      for (const NodeGroupConfig& g : groups) ids.push_back(g.spec.id);
      return absl::InvalidArgumentError(absl::StrCat("--nodes names node group ", limits.id,
                                                     ", which the node-group file does not have (",
                                                     absl::StrJoin(ids, ", "), ")"));
    }
  }
  return absl::OkStatus();
}

// Says which groups' nodes come up at once: a node-group file written for `estimate` has no
// simulation sections, and waits of zero would look like good news.
void NoteInstantGroups(const std::vector<NodeGroupConfig>& groups, std::ostream& err) {
  std::vector<std::string> ids;
  for (const NodeGroupConfig& g : groups) {
    if (g.simulation.provisioning_delay.p50 <= absl::ZeroDuration()) ids.push_back(g.spec.id);
  }
  if (ids.empty()) return;
  err << kCommand << ": note: group(s) " << absl::StrJoin(ids, ", ")
      << " have no simulation.provisioningDelay: their nodes come up at once\n";
}

// Says when a group's own option makes a swept flag change nothing for it.
void NoteOverrides(const std::string& sweep_spec, const std::vector<NodeGroupConfig>& groups,
                   std::ostream& err) {
  absl::StatusOr<sim::Sweep> sweep = sim::ParseSweep(sweep_spec);
  if (!sweep.ok()) return;
  std::string option;
  const std::vector<std::string> ids = sim::GroupsOverridingFlag(groups, *sweep, &option);
  if (ids.empty()) return;
  err << kCommand << ": note: group(s) " << absl::StrJoin(ids, ", ") << " set " << option
      << " themselves, so --sweep " << sweep->name << " does not change them (sweep group/"
      << ids.front() << "/" << option << " for one group)\n";
}

absl::Status WriteReport(const std::string& path, const std::vector<sim::SettingResult>& results,
                         const sim::ReportInfo& info) {
  absl::Status written = WriteFileAtomically(path, sim::HtmlReport(results, info));
  if (!written.ok()) return absl::InternalError(absl::StrCat("--report: ", written.message()));
  return absl::OkStatus();
}

// With --v, each run's controller log goes to stderr, prefixed with its setting.
void EchoLogs(std::vector<sim::Setting>& settings, std::ostream& err) {
  auto mu = std::make_shared<absl::Mutex>();
  for (sim::Setting& s : settings) {
    const std::string prefix = s.label.empty() ? "" : absl::StrCat(s.label, " ");
    s.options.log = [mu, prefix, &err](absl::string_view line) {
      absl::MutexLock lock(mu.get());
      err << prefix << line << "\n";
    };
  }
}

int Fail(const CommandIo& io, int code, const absl::Status& s) {
  io.err << kCommand << ": " << s.message() << "\n";
  return code;
}

}  // namespace

int RunSimulateCommand(const CommandArgs& args, const CommandIo& io) {
  Parsed base;
  {
    FlagSet flags(kCommand);
    AddSimulateFlags(flags, base.sim);
    DecisionFlags decision(flags);
    if (auto exit = ParseFlagsOrExit(flags, args, kUsage, io)) return *exit;
    absl::StatusOr<ControllerOptions> controller = decision.Finish(flags);
    if (!controller.ok()) return Fail(io, kExitUsage, controller.status());
    base.controller = *std::move(controller);
    base.given = flags.given();
  }
  if (absl::Status s = CheckFlags(base.sim); !s.ok()) return Fail(io, kExitUsage, s);
  // A report that cannot be written is said before the runs, not after them.
  if (!base.sim.report.empty() && !std::ofstream(base.sim.report, std::ios::app)) {
    return Fail(
        io, kExitUsage,
        absl::InvalidArgumentError(absl::StrCat("--report: cannot write ", base.sim.report)));
  }
  absl::StatusOr<Input> in = LoadInput(base);
  if (!in.ok()) return Fail(io, kExitUsage, in.status());
  if (absl::Status s = CheckGroupsNamed(base.controller, in->groups); !s.ok()) {
    return Fail(io, kExitUsage, s);
  }
  absl::StatusOr<std::vector<sim::Setting>> settings = Settings(args, base, in->sweep, in->groups);
  if (!settings.ok()) return Fail(io, kExitUsage, settings.status());
  NoteOverrides(in->sweep, in->groups, io.err);
  NoteInstantGroups(in->groups, io.err);
  if (base.sim.verbosity > 0) EchoLogs(*settings, io.err);
  const int threads = base.sim.parallelism > 0
                          ? static_cast<int>(base.sim.parallelism)
                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  ProgressBar bar(io.err, &io.err == &std::cerr && StderrIsTerminal(), io.clock);
  absl::StatusOr<std::vector<sim::SettingResult>> results =
      sim::SimulateAll(in->trace, *settings, threads, [&bar](double share) { bar.Update(share); });
  bar.Clear();
  if (!results.ok()) return Fail(io, kExitFailure, results.status());
  if (!base.sim.report.empty()) {
    absl::Status s =
        WriteReport(base.sim.report, *results, {in->trace_name, settings->front().options.seed});
    if (!s.ok()) return Fail(io, kExitFailure, s);
  }
  if (base.sim.output == "json") {
    io.out << sim::ResultsJson(*results).dump(2) << "\n";
  } else {
    io.out << "Trace " << in->trace_name << ", seed " << base.sim.seed << ".\n\n";
    sim::PrintResults(*results, io.out);
    if (!base.sim.report.empty()) io.out << "\nReport written to " << base.sim.report << "\n";
  }
  for (const sim::SettingResult& r : *results) {
    if (r.result.soak.has_value() && r.result.soak->violations() > 0) {
      io.err << kCommand << ": the fault soak broke " << r.result.soak->violations()
             << " invariant check(s)" << (r.label.empty() ? "" : " in setting " + r.label) << "\n";
      return kExitFailure;
    }
  }
  return kExitOk;
}

}  // namespace gpua
