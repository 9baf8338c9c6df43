// Decoding a 100,000-pod list as the informer does (issue 5): pages of 500 parsed with
// simdjson by the reflector's ReadListPage, every pod decoded into the cached model (labels
// and node selectors interned), indexed by node and unschedulable. Prints pods/s and the
// heap bytes each cached pod keeps (malloc's in-use bytes after the list, over the pods;
// the pages themselves are not counted, the informer, its indexes and interner are).
// Targets: at least 60,000 pods/s on one core; at most 2 KiB per cached pod.
#include <benchmark/benchmark.h>
#include <malloc.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "autoscaler/kube/cluster_informers.h"
#include "autoscaler/kube/reflector.h"
#include "tests/bench/realistic_pod.h"

namespace gpua {
namespace {

// The list arrives as pages of 500 (the reflector's page size), each read with the
// reflector's own ReadListPage into a pod informer with its indexes.
std::vector<std::string> PodListPages(int pods, int page_size) {
  std::vector<std::string> pages;
  for (int first = 0; first < pods; first += page_size) {
    std::string page =
        R"({"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"2000000")";
    if (first + page_size < pods) absl::StrAppend(&page, R"(,"continue":"c)", first, R"(")");
    page += R"(},"items":[)";
    for (int i = first; i < std::min(pods, first + page_size); ++i) {
      if (i > first) page += ',';
      page += PodJson(i);
    }
    page += "]}";
    pages.push_back(std::move(page));
  }
  return pages;
}

void BM_DecodePodList(benchmark::State& state) {
  const int pods = static_cast<int>(state.range(0));
  const std::vector<std::string> pages = PodListPages(pods, 500);
  size_t json_bytes = 0;
  for (const std::string& p : pages) json_bytes += p.size();
  simdjson::dom::parser parser;
  double bytes_per_pod = 0;
  for (auto _ : state) {
    state.PauseTiming();  // mallinfo2 walks the heap: not part of decoding
    const size_t before = mallinfo2().uordblks;
    state.ResumeTiming();
    auto informer = std::make_unique<kube::Informer<PodObject>>(kube::PodDecoder());
    kube::AddPodIndexes(*informer);
    informer->BeginList();
    for (const std::string& page : pages) {
      absl::StatusOr<kube::ListPage> read = kube::ReadListPage(parser, page, *informer);
      if (!read.ok()) state.SkipWithError(std::string(read.status().message()).c_str());
    }
    informer->EndList();
    if (informer->size() != static_cast<size_t>(pods)) state.SkipWithError("pods lost");
    state.PauseTiming();
    bytes_per_pod = static_cast<double>(mallinfo2().uordblks - before) / pods;
    informer.reset();
    state.ResumeTiming();
  }
  state.counters["pods_per_s"] =
      benchmark::Counter(static_cast<double>(pods), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes_per_cached_pod"] = bytes_per_pod;
  state.counters["json_bytes_per_pod"] = static_cast<double>(json_bytes) / pods;
}
BENCHMARK(BM_DecodePodList)->Arg(100'000)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace
}  // namespace gpua

BENCHMARK_MAIN();
