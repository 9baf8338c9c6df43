// The MIG layouts of nodes on their way: the book (and its JSON, kept in the cluster), the
// state giving new nodes their layouts, the assigner writing them, and the store keeping the
// book in the cluster ahead of the increases that add to it.
#include "autoscaler/controller/mig/mig_layout_assigner.h"

#include <catch2/catch.hpp>

#include "autoscaler/controller/mig/mig_book_store.h"
#include "autoscaler/controller/model/pending_pods.h"
#include "autoscaler/controller/scaleup/scale_up_step.h"
#include "tests/support/fake_cluster.h"
#include "tests/support/fake_kube_writer.h"
#include "tests/unit/controller/controller_test_util.h"

namespace gpua::testing {
namespace {

NodeTemplate A100MigTemplate() {
  NodeTemplate t;
  t.name = "a100-mig";
  t.labels = {{"nvidia.com/gpu.product", "NVIDIA-A100-SXM4-40GB"},
              {"nvidia.com/gpu.count", "8"},
              {"nvidia.com/mig.strategy", "mixed"}};
  t.annotations = {{"gpu-autoscaler.io/mig-layouts", "all-1g.5gb,all-3g.20gb"}};
  t.allocatable = Res({{"cpu", "95"}, {"memory", "1100Gi"}, {"pods", "110"}});
  return t;
}

TEST_CASE("the book reads back what it wrote, and names the annotation when it cannot",
          "[controller][mig]") {
  MigLayoutBook book;
  book.Expect("a100-mig", {"all-3g.20gb", "all-1g.5gb"});
  CHECK(book.ToJson() == R"({"a100-mig":["all-3g.20gb","all-1g.5gb"]})");
  auto back = MigLayoutBook::FromJson(book.ToJson(), "x");
  REQUIRE(back.ok());
  CHECK(*back == book);
  CHECK(MigLayoutBook().ToJson() == "{}");
  const std::string what = "ConfigMap kube-system/cluster-autoscaler-status annotation a";
  for (const std::string bad :
       {"not json", "[1]", R"({"g":"all-1g"})", R"({"g":[""]})", R"({"g":[3]})"}) {
    INFO(bad);
    auto read = MigLayoutBook::FromJson(bad, what);
    REQUIRE_FALSE(read.ok());
    CHECK_THAT(std::string(read.status().message()), Catch::StartsWith(what + ": "));
  }
}

TEST_CASE("a layout taken by a node leaves the book, and the book is cut to what is on its way",
          "[controller][mig]") {
  MigLayoutBook book;
  book.Expect("g", {"all-1g", "all-3g", "all-1g"});
  book.Registered("g", "all-3g");
  CHECK(book.Of("g") == std::vector<std::string>{"all-1g", "all-1g"});
  book.CutTo("g", 1);
  CHECK(book.Of("g") == std::vector<std::string>{"all-1g"});
  book.CutTo("g", 0);
  CHECK(book.empty());
}

struct MigFixture {
  MigFixture() : group(cloud.AddGroup("a100-mig", 0, 4, A100MigTemplate())) {}
  LoopInputs Inputs() { return BuildLoopInputs(source, cloud, options, backoff, kNow, book); }
  ControllerOptions options;
  FakeCloudProvider cloud;
  FakeNodeGroup& group;
  FakeClusterSource source;
  NodeGroupBackoff backoff{BackoffOptions{}};
  MigLayoutBook book;
  FakeKubeWriter writer;
  MemoryLogSink log;
};

TEST_CASE("a new MIG node gets the next layout of its group's book, label first, then our mark",
          "[controller][mig]") {
  MigFixture f;
  REQUIRE(f.group.IncreaseSize(2).ok());
  f.book.Expect("a100-mig", {"all-3g.20gb", "all-1g.5gb"});
  // The first instance registers; the second is still on its way.
  auto n = std::make_shared<NodeObject>();
  n->node.name = "a100-mig-0";
  n->node.labels = f.group.node_template.labels;
  n->provider_id = f.group.instances[0].id;
  n->created = kNow;
  f.source.AddNode(n);
  LoopInputs in = f.Inputs();
  REQUIRE(in.state.mig_assignments.size() == 1);
  CHECK(in.state.nodes[in.state.mig_assignments[0].node].mig_layout == "all-3g.20gb");
  const GroupState* g = in.state.FindGroup("a100-mig");
  CHECK(g->upcoming == 1);
  CHECK(g->upcoming_mig_layouts == std::vector<std::string>{"all-1g.5gb"});

  MigLayoutAssigner assigner(f.writer, f.log);
  CHECK(assigner.Write(in.state, f.book) == 1);
  CHECK(f.writer.calls ==
        std::vector<std::string>{
            "Label a100-mig-0 nvidia.com/mig.config=all-3g.20gb",
            "Annotate a100-mig-0 gpu-autoscaler.io/mig-layout-assigned=all-3g.20gb"});
  CHECK(f.book.Of("a100-mig") == std::vector<std::string>{"all-1g.5gb"});
}

TEST_CASE("a layout whose label could not be written is given again next loop",
          "[controller][mig]") {
  MigFixture f;
  REQUIRE(f.group.IncreaseSize(1).ok());
  f.book.Expect("a100-mig", {"all-1g.5gb"});
  auto n = std::make_shared<NodeObject>();
  n->node.name = "a100-mig-0";
  n->provider_id = f.group.instances[0].id;
  n->created = kNow;
  f.source.AddNode(n);
  f.writer.failing["Label"] = absl::UnavailableError("API server down");
  MigLayoutAssigner assigner(f.writer, f.log);
  LoopInputs in = f.Inputs();
  CHECK(assigner.Write(in.state, f.book) == 0);
  CHECK(f.book.Of("a100-mig") == std::vector<std::string>{"all-1g.5gb"});  // kept
  f.writer.failing.clear();
  LoopInputs again = f.Inputs();
  CHECK(assigner.Write(again.state, f.book) == 1);
  CHECK(f.writer.labels["a100-mig-0"]["nvidia.com/mig.config"] == "all-1g.5gb");
  CHECK(f.book.empty());
}

TEST_CASE("a node that had its layout from us is never relabelled, after a restart too",
          "[controller][mig]") {
  MigFixture f;
  REQUIRE(f.group.IncreaseSize(1).ok());
  f.book.Expect("a100-mig", {"all-1g.5gb"});  // read back, but for a node not yet come
  auto done = std::make_shared<NodeObject>();
  done->node.name = "a100-mig-0";
  done->node.labels = {{"nvidia.com/mig.config", "all-3g.20gb"}};
  done->annotations = {{"gpu-autoscaler.io/mig-layout-assigned", "all-3g.20gb"}};
  done->provider_id = f.group.AddRunning();
  done->created = kNow - absl::Hours(1);
  f.source.AddNode(done);
  LoopInputs in = f.Inputs();
  CHECK(in.state.mig_assignments.empty());
  CHECK(in.state.FindGroup("a100-mig")->upcoming_mig_layouts ==
        std::vector<std::string>{"all-1g.5gb"});
}

TEST_CASE("layouts for instances that are gone are dropped from the book", "[controller][mig]") {
  MigFixture f;
  REQUIRE(f.group.IncreaseSize(1).ok());
  f.book.Expect("a100-mig", {"all-1g.5gb", "all-3g.20gb", "all-3g.20gb"});  // 2 failed, deleted
  LoopInputs in = f.Inputs();
  CHECK(in.state.FindGroup("a100-mig")->upcoming_mig_layouts ==
        std::vector<std::string>{"all-1g.5gb"});
  MigLayoutAssigner assigner(f.writer, f.log);
  assigner.Write(in.state, f.book);
  CHECK(f.book.Of("a100-mig") == std::vector<std::string>{"all-1g.5gb"});
}

constexpr char kBook[] = "gpu-autoscaler.io/mig-layouts-on-their-way";

// The status ConfigMap as a cluster holds it, with this book.
ConfigMapPtr StatusWithBook(const std::string& book) {
  auto cm = std::make_shared<ConfigMapObject>();
  cm->namespace_name = "kube-system";
  cm->name = "cluster-autoscaler-status";
  cm->annotations = {{kBook, book}};
  return cm;
}

int LinesWith(const MemoryLogSink& log, const std::string& text) {
  int n = 0;
  for (const std::string& line : log.lines()) n += line.find(text) != std::string::npos;
  return n;
}
constexpr char kStatus[] = "kube-system/cluster-autoscaler-status";

TEST_CASE("the store writes a book only when it changed, and never an empty one to no ConfigMap",
          "[controller][mig][store]") {
  MigFixture f;
  MigBookStore store(f.writer, f.options.status, f.log);
  CHECK(store.Recall(*f.source.View()).empty());
  CHECK(store.Keep(MigLayoutBook()).ok());
  CHECK(f.writer.calls.empty());  // a cluster without MIG pools gets no ConfigMap from this
  f.book.Expect("a100-mig", {"all-1g.5gb"});
  CHECK(store.Keep(f.book).ok());
  CHECK(store.Keep(f.book).ok());
  CHECK(f.writer.calls == std::vector<std::string>{std::string("AnnotateConfigMap ") + kStatus});
  CHECK(f.writer.config_maps.at(kStatus).annotations.at(kBook) == R"({"a100-mig":["all-1g.5gb"]})");

  // A failed write is said once and tried again until it lands.
  f.writer.failing["AnnotateConfigMap"] = absl::PermissionDeniedError("configmaps is forbidden");
  for (int i = 0; i < 3; ++i) CHECK_FALSE(store.Keep(MigLayoutBook()).ok());
  CHECK(LinesWith(f.log, "configmaps is forbidden") == 1);
  f.writer.failing.clear();
  CHECK(store.Keep(MigLayoutBook()).ok());
  CHECK(f.writer.config_maps.at(kStatus).annotations.at(kBook) == "{}");
}

TEST_CASE("the status written over the ConfigMap leaves the book there",
          "[controller][mig][store]") {
  MigFixture f;
  MigBookStore store(f.writer, f.options.status, f.log);
  f.book.Expect("a100-mig", {"all-3g.20gb"});
  REQUIRE(store.Keep(f.book).ok());
  REQUIRE(f.writer
              .WriteConfigMap("kube-system", "cluster-autoscaler-status", {{"status", "x"}},
                              {{"last-updated", "now"}})
              .ok());
  const FakeKubeWriter::ConfigMapWrite& cm = f.writer.config_maps.at(kStatus);
  CHECK(cm.data.at("status") == "x");
  CHECK(cm.annotations.at(kBook) == R"({"a100-mig":["all-3g.20gb"]})");
}

TEST_CASE("an unreadable book is read back as none, said, and written over by the next Keep",
          "[controller][mig][store]") {
  MigFixture f;
  f.source.view.config_maps.push_back(StatusWithBook("not json"));
  MigBookStore store(f.writer, f.options.status, f.log);
  CHECK(store.Recall(*f.source.View()).empty());
  CHECK(LinesWith(f.log, "ConfigMap kube-system/cluster-autoscaler-status annotation") == 1);
  CHECK(store.Keep(MigLayoutBook()).ok());
  CHECK(f.writer.config_maps.at(kStatus).annotations.at(kBook) == "{}");
}

TEST_CASE("a book read back once is not read again: a later loop adds nothing twice",
          "[controller][mig][store]") {
  MigFixture f;
  const ConfigMapPtr cm = StatusWithBook(R"({"a100-mig":["all-1g.5gb"]})");
  f.source.view.config_maps.push_back(cm);
  MigBookStore store(f.writer, f.options.status, f.log);
  CHECK(store.Recall(*f.source.View()).Of("a100-mig") == std::vector<std::string>{"all-1g.5gb"});
  CHECK(store.Recall(*f.source.View()).empty());
  CHECK(store.Keep(*MigLayoutBook::FromJson(cm->annotations.at(kBook), "x")).ok());
  CHECK(f.writer.calls.empty());  // the cluster holds it already
}

TEST_CASE("a MIG increase's layouts are in the cluster before the group is asked for its nodes",
          "[controller][mig][store][scale-up]") {
  MigFixture f;
  f.source.AddPod(PendingPod("infer-0", Res({{"nvidia.com/mig-3g.20gb", "1"}}), kNow));
  // The group fails the call: whatever the cluster holds was written before it.
  f.group.failing["IncreaseSize"] = absl::UnavailableError("stockout");
  LoopMemory kept(f.writer, f.options, f.log);
  ScaleUpStep step(f.writer, f.log, f.options);
  LoopInputs in = BuildLoopInputs(f.source, f.cloud, f.options, kept.backoff, kNow);
  const PendingPods pending = SelectPendingPods(*in.view, f.options.scale_up, kNow);
  const ScaleUpResult r = step.Run(PlanningInputOf(in, kept, kNow), {pending, {}, {}});
  REQUIRE(r.outcomes.size() == 1);
  CHECK_FALSE(r.outcomes[0].status.ok());
  CHECK(f.writer.config_maps.at(kStatus).annotations.at(kBook) ==
        R"({"a100-mig":["all-3g.20gb"]})");
  CHECK(kept.mig.book().empty());  // not on its way: the loop's end writes the book back as it is
  kept.mig.Keep();
  CHECK(f.writer.config_maps.at(kStatus).annotations.at(kBook) == "{}");
}

}  // namespace
}  // namespace gpua::testing
