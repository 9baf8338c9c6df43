#include "autoscaler/sim/sim_jobs.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "autoscaler/sim/trace.h"

namespace gpua::sim {
namespace {

std::string JobKey(const PodSpec& pod) {
  return absl::StrCat(pod.namespace_name, "/", pod.owner.has_value() ? pod.owner->name : "");
}

}  // namespace

void SimJobs::PodCreated(const PodSpec& pod, int replicas, std::optional<int> min_available) {
  const std::string key = JobKey(pod);
  Job& job = jobs_[key];
  if (job.workload == nullptr) {
    auto w = std::make_shared<WorkloadObject>();
    w->kind = "Job";
    w->namespace_name = pod.namespace_name;
    w->name = pod.owner->name;
    w->uid = pod.owner->uid;
    w->replicas = replicas;
    changed_jobs_[key] = WorkloadRef(w->kind, w->namespace_name, w->name);
    job.workload = std::move(w);
    job.min_available = min_available;
    budgets_changed_ |= job.min_available.has_value();
  }
  ++job.alive;
}

void SimJobs::PodGone(const PodSpec& pod, bool was_healthy) {
  if (was_healthy) CountHealthy(pod, -1);
  auto job = jobs_.find(JobKey(pod));
  if (job == jobs_.end() || --job->second.alive > 0) return;
  const WorkloadObject& w = *job->second.workload;
  changed_jobs_[job->first] = WorkloadRef(w.kind, w.namespace_name, w.name);
  budgets_changed_ |= job->second.min_available.has_value();
  jobs_.erase(job);
}

void SimJobs::CountHealthy(const PodSpec& pod, int delta) {
  auto job = jobs_.find(JobKey(pod));
  if (job == jobs_.end()) return;
  job->second.healthy += delta;
  if (!job->second.min_available.has_value()) return;
  job->second.budget = nullptr;
  budgets_changed_ = true;
}

std::shared_ptr<const PdbObject> SimJobs::BudgetOf(const PodSpec& pod) const {
  const std::string key = JobKey(pod);
  auto job = jobs_.find(key);
  if (job == jobs_.end() || !job->second.min_available.has_value()) return nullptr;
  return Budget(key, job->second);
}

std::shared_ptr<const PdbObject> SimJobs::Budget(const std::string& job_key, const Job& job) {
  if (job.budget == nullptr) {
    auto pdb = std::make_shared<PdbObject>();
    pdb->namespace_name = job.workload->namespace_name;
    pdb->name = job.workload->name;
    pdb->selector = LabelSelector{{Requirement{kJobNameLabel, SelectorOp::kIn, {pdb->name}}}};
    pdb->disruptions_allowed = std::max(0, job.healthy - *job.min_available);
    pdb->resource_version = absl::StrCat(job_key, "@", job.healthy);
    job.budget = std::move(pdb);
  }
  return job.budget;
}

void SimJobs::PatchView(ClusterView& view) const {
  for (const auto& [key, ref] : changed_jobs_) {
    auto job = jobs_.find(key);
    if (job == jobs_.end()) {
      view.workloads.erase(ref);
    } else {
      view.workloads[ref] = job->second.workload;
    }
  }
  changed_jobs_.clear();
  if (!budgets_changed_) return;
  view.pdbs.clear();
  for (const auto& [key, job] : jobs_) {
    if (job.min_available.has_value()) view.pdbs.push_back(Budget(key, job));
  }
  budgets_changed_ = false;
}

}  // namespace gpua::sim
