// `gpu-autoscaler inspect` against the fake API server through a kubeconfig.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "autoscaler/cli/inspect_command.h"
#include "tests/support/config_files.h"
#include "tests/support/eventually.h"
#include "tests/support/fake_api_server.h"
#include "tests/support/run_command.h"

namespace gpua {
namespace {

using testing::FakeApiServer;

using testing::KubeconfigFor;

void Populate(FakeApiServer& server) {
  server.Upsert("nodes", {{"metadata",
                           {{"name", "l4-a"},
                            {"labels",
                             {{"node.kubernetes.io/instance-type", "g6.12xlarge"},
                              {"nvidia.com/gpu.product", "NVIDIA-L4"},
                              {"nvidia.com/gpu.count", "4"},
                              {"nvidia.com/gpu.sharing-strategy", "time-slicing"},
                              {"nvidia.com/gpu.replicas", "4"}}}}},
                          {"status",
                           {{"allocatable", {{"cpu", "47"}, {"nvidia.com/gpu", "16"}}},
                            {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}});
  server.Upsert("nodes", {{"metadata",
                           {{"name", "h100-new"},
                            {"labels",
                             {{"node.kubernetes.io/instance-type", "p5.48xlarge"},
                              {"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"}}}}},
                          {"status",
                           {{"allocatable", {{"cpu", "190"}}},
                            {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}});
  server.Upsert("pods",
                {{"metadata", {{"name", "nb-0"}, {"namespace", "lab"}}},
                 {"spec",
                  {{"nodeName", "l4-a"},
                   {"containers",
                    {{{"name", "c"}, {"resources", {{"requests", {{"nvidia.com/gpu", "4"}}}}}}}}}},
                 {"status", {{"phase", "Running"}}}});
  server.Upsert(
      "pods",
      {{"metadata", {{"name", "train-0"}, {"namespace", "ml"}}},
       {"spec",
        {{"containers",
          {{{"name", "c"}, {"resources", {{"requests", {{"nvidia.com/gpu", "8"}}}}}}}}}},
       {"status",
        {{"phase", "Pending"},
         {"conditions",
          {{{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"}}}}}}});
}

TEST_CASE("inspect prints nodes with GPU capacity and use, and the unschedulable pods",
          "[kube][inspect]") {
  FakeApiServer server;
  Populate(server);
  std::ostringstream out, err;
  const int rc = testing::RunCommand(
      RunInspectCommand,
      {"--kubeconfig", KubeconfigFor(server.url(), "gpua-inspect-1"), "--output", "json"}, out,
      err);
  INFO(err.str());
  REQUIRE(rc == 0);
  const nlohmann::json report = nlohmann::json::parse(out.str());
  REQUIRE(report["nodes"].size() == 2);
  const nlohmann::json& h100 = report["nodes"][0];
  CHECK(h100["name"] == "h100-new");
  CHECK(h100["state"] == "gpus not advertised");
  const nlohmann::json& l4 = report["nodes"][1];
  CHECK(l4["group"] == "g6.12xlarge");
  CHECK(l4["gpu_capacity"]["nvidia.com/gpu"] == "16");
  CHECK(l4["gpu_used"]["nvidia.com/gpu"] == "4");
  CHECK(l4["gpu_sharing"] == "time-slicing");
  CHECK(l4["physical_gpu_utilization"] == Approx(0.25));
  REQUIRE(report["unschedulable_pods"].size() == 1);
  CHECK(report["unschedulable_pods"][0]["name"] == "ml/train-0");
  CHECK(report["unschedulable_pods"][0]["requests"]["nvidia.com/gpu"] == "8");

  std::ostringstream table, err2;
  REQUIRE(testing::RunCommand(RunInspectCommand,
                              {"--kubeconfig", KubeconfigFor(server.url(), "gpua-inspect-2")},
                              table, err2) == 0);
  CHECK_THAT(table.str(),
             Catch::Contains("gpus not advertised") && Catch::Contains("1 unschedulable pod(s)"));
  CHECK(report["autoscaler_status_error"] ==
        "ConfigMap kube-system/cluster-autoscaler-status not found");
}

TEST_CASE("inspect shows the node groups as the controller's status ConfigMap has them",
          "[kube][inspect]") {
  FakeApiServer server;
  Populate(server);
  server.Upsert(
      "configmaps",
      {{"metadata", {{"name", "cluster-autoscaler-status"}, {"namespace", "kube-system"}}},
       {"data",
        {{"status",
          "time: \"2026-12-01 10:00:00.000000000 +0000 UTC\"\n"
          "autoscalerStatus: \"Running\"\n"
          "clusterWide:\n  health:\n    status: \"Healthy\"\n"
          "nodeGroups:\n"
          "- name: \"h100-spot\"\n"
          "  health:\n    status: \"Healthy\"\n    cloudProviderTarget: 0\n"
          "    nodeCounts:\n      registered: {ready: 0, notStarted: 0, unready: {total: 0}}\n"
          "      unregistered: 0\n"
          "  scaleUp:\n    status: \"Backoff\"\n"
          "    backoffInfo: {errorCode: \"OutOfCapacity\", errorMessage: \"no p5\"}\n"}}}});
  std::ostringstream table, err;
  REQUIRE(testing::RunCommand(RunInspectCommand,
                              {"--kubeconfig", KubeconfigFor(server.url(), "gpua-inspect-status")},
                              table, err) == 0);
  CHECK_THAT(table.str(), Catch::Contains("autoscaler status at 2026-12-01 10:00:00"));
  CHECK_THAT(table.str(), Catch::Contains("h100-spot") && Catch::Contains("Backoff") &&
                              Catch::Contains("backed off: OutOfCapacity: no p5"));
}

// An output another thread may read while inspect writes it: no put area, so every write
// comes through one of the two calls below, each under the lock.
class LockedBuffer : public std::streambuf {
 public:
  std::string Text() {
    absl::MutexLock lock(&mu_);
    return text_;
  }

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    absl::MutexLock lock(&mu_);
    text_.push_back(traits_type::to_char_type(c));
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    absl::MutexLock lock(&mu_);
    text_.append(s, static_cast<size_t>(n));
    return n;
  }

 private:
  absl::Mutex mu_;
  std::string text_;
};

TEST_CASE("inspect --watch prints each change as it arrives", "[kube][inspect]") {
  FakeApiServer server;
  Populate(server);
  LockedBuffer buffer;
  std::ostream out(&buffer);
  std::ostringstream err;
  std::thread run([&] {
    testing::RunCommand(
        RunInspectCommand,
        {"--kubeconfig", KubeconfigFor(server.url(), "gpua-inspect-3"), "--watch", "3s"}, out, err);
  });
  // The new pod comes once the table is out: a pod that came before it would be in the table,
  // which is what the first view shows, not a change.
  const bool table_printed = testing::Eventually(
      [&] { return buffer.Text().find("unschedulable pod(s)") != std::string::npos; },
      absl::Seconds(10));
  server.Upsert(
      "pods",
      {{"metadata", {{"name", "late"}, {"namespace", "ml"}}},
       {"spec", {{"containers", {{{"name", "c"}}}}}},
       {"status",
        {{"conditions",
          {{{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"}}}}}}});
  run.join();
  REQUIRE(table_printed);
  const std::string text = buffer.Text();
  const size_t table_end = text.find("unschedulable pod(s)");
  const size_t change = text.find("pod added ml/late (unschedulable)");
  REQUIRE(change != std::string::npos);
  CHECK(change > table_end);
}

TEST_CASE("inspect says which server it could not reach", "[kube][inspect]") {
  std::ostringstream out, err;
  CHECK(testing::RunCommand(RunInspectCommand,
                            {"--kubeconfig", KubeconfigFor("http://127.0.0.1:1", "gpua-inspect-4"),
                             "--sync-timeout", "1s"},
                            out, err) == 1);
  CHECK_THAT(err.str(), Catch::Contains("could not list nodes and pods from http://127.0.0.1:1"));
}

}  // namespace
}  // namespace gpua
