// The simulated Jobs and their PodDisruptionBudgets, counted as the disruption controller
// would: what the budget allows follows the Job's healthy pods, and the view follows the Jobs.
#include "autoscaler/sim/sim_jobs.h"

#include <catch2/catch.hpp>

namespace gpua::sim {
namespace {

PodSpec PodOf(const std::string& job) {
  PodSpec pod;
  pod.namespace_name = "ml";
  pod.name = job + "-0";
  pod.owner = OwnerReference{"Job", job, job + "-uid"};
  return pod;
}

TEST_CASE("a Job's budget allows what its healthy pods have beyond minAvailable") {
  SimJobs jobs;
  const PodSpec pod = PodOf("train");
  for (int i = 0; i < 3; ++i) jobs.PodCreated(pod, 3, 2);
  REQUIRE(jobs.BudgetOf(pod) != nullptr);
  CHECK(jobs.BudgetOf(pod)->disruptions_allowed == 0);  // none bound yet

  for (int i = 0; i < 3; ++i) jobs.CountHealthy(pod, +1);
  CHECK(jobs.BudgetOf(pod)->disruptions_allowed == 1);
  CHECK(jobs.BudgetOf(pod)->name == "train");

  jobs.CountHealthy(pod, -1);  // one evicted
  CHECK(jobs.BudgetOf(pod)->disruptions_allowed == 0);
}

TEST_CASE("a Job without a budget has none, and the view lists Jobs only while they have pods") {
  SimJobs jobs;
  const PodSpec plain = PodOf("plain");
  const PodSpec guarded = PodOf("guarded");
  jobs.PodCreated(plain, 1, std::nullopt);
  jobs.PodCreated(guarded, 1, 1);
  CHECK(jobs.BudgetOf(plain) == nullptr);

  ClusterView view;
  jobs.PatchView(view);
  CHECK(view.workloads.size() == 2);
  CHECK(view.workloads.contains(WorkloadRef("Job", "ml", "plain")));
  REQUIRE(view.pdbs.size() == 1);
  CHECK(view.pdbs[0]->name == "guarded");

  jobs.CountHealthy(guarded, +1);
  jobs.PodGone(guarded, /*was_healthy=*/true);
  jobs.PatchView(view);
  CHECK(view.workloads.size() == 1);
  CHECK_FALSE(view.workloads.contains(WorkloadRef("Job", "ml", "guarded")));
  CHECK(view.pdbs.empty());
  CHECK(jobs.BudgetOf(guarded) == nullptr);
}

}  // namespace
}  // namespace gpua::sim
