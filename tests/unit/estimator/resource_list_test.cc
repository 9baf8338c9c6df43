#include "estimator/resource_list.h"

#include <catch2/catch.hpp>

#include "estimator/resource_vector.h"

namespace gpua {
namespace {

Quantity Q(const char* text) {
  absl::StatusOr<Quantity> q = Quantity::Parse(text);
  REQUIRE(q.ok());
  return *q;
}

ResourceList Parse(std::vector<std::pair<std::string, std::string>> entries) {
  absl::StatusOr<ResourceList> list = ResourceList::Parse(entries, "requests");
  REQUIRE(list.ok());
  return *list;
}

TEST_CASE("a resource list keeps kube-scheduler's order: cpu, memory, storage, then names",
          "[resources]") {
  ResourceList list = Parse({{"pods", "110"},
                             {"nvidia.com/gpu", "8"},
                             {"memory", "1900Gi"},
                             {"ephemeral-storage", "100Gi"},
                             {"cpu", "190"}});
  CHECK(list.ToString() ==
        "cpu: 190, memory: 1900Gi, ephemeral-storage: 100Gi, nvidia.com/gpu: 8, pods: 110");
}

TEST_CASE("adding and subtracting resource lists works per resource", "[resources]") {
  ResourceList node = Parse({{"cpu", "8"}, {"memory", "32Gi"}, {"nvidia.com/gpu", "1"}});
  ResourceList pod = Parse({{"cpu", "1500m"}, {"memory", "512Mi"}});
  ResourceList free = node - pod;
  CHECK(free.Get("cpu") == Q("6500m"));
  CHECK(free.Get("memory").ToString() == "32256Mi");
  CHECK(free.Get("nvidia.com/gpu") == Q("1"));
  CHECK(free + pod == node);
  CHECK(node.Get("absent").IsZero());
}

TEST_CASE("MaxWith takes the larger of each resource", "[resources]") {
  ResourceList a = Parse({{"cpu", "2"}, {"memory", "1Gi"}});
  a.MaxWith(Parse({{"cpu", "500m"}, {"memory", "4Gi"}, {"nvidia.com/gpu", "1"}}));
  CHECK(a == Parse({{"cpu", "2"}, {"memory", "4Gi"}, {"nvidia.com/gpu", "1"}}));
}

TEST_CASE("the first resource that does not fit is reported with both amounts", "[resources]") {
  ResourceList free = Parse({{"cpu", "16"}, {"memory", "64Gi"}, {"nvidia.com/gpu", "4"}});
  ResourceList request = Parse({{"cpu", "4"}, {"memory", "16Gi"}, {"nvidia.com/gpu", "8"}});
  std::optional<Insufficiency> miss = request.FirstInsufficient(free);
  REQUIRE(miss.has_value());
  CHECK(miss->Message() == "Insufficient nvidia.com/gpu (requested 8, free 4)");
  CHECK_FALSE(request.FitsWithin(free));

  SECTION("cpu is checked before memory and GPUs, as kube-scheduler does") {
    ResourceList big = Parse({{"cpu", "32"}, {"memory", "128Gi"}, {"nvidia.com/gpu", "8"}});
    CHECK(big.FirstInsufficient(free)->resource == "cpu");
  }
  SECTION("a resource the node lacks has nothing free") {
    ResourceList amd = Parse({{"amd.com/gpu", "1"}});
    CHECK(amd.FirstInsufficient(free)->Message() ==
          "Insufficient amd.com/gpu (requested 1, free 0)");
  }
  SECTION("a zero request fits even where the resource is absent") {
    CHECK(Parse({{"cpu", "1"}, {"example.com/fpga", "0"}}).FitsWithin(free));
  }
  SECTION("a request equal to what is free fits") { CHECK(free.FitsWithin(free)); }
}

TEST_CASE("a bad quantity in a resource list names the field and quotes the value", "[resources]") {
  absl::StatusOr<ResourceList> list =
      ResourceList::Parse({{"cpu", "1"}, {"memory", "10KB"}}, "spec.containers[0].resources");
  REQUIRE_FALSE(list.ok());
  CHECK_THAT(std::string(list.status().message()),
             Catch::StartsWith("spec.containers[0].resources[memory]: quantity \"10KB\""));

  absl::StatusOr<ResourceList> unnamed = ResourceList::Parse({{"", "1"}}, "allocatable");
  REQUIRE_FALSE(unnamed.ok());
  CHECK_THAT(std::string(unnamed.status().message()), Catch::Contains("empty name"));
}

}  // namespace
}  // namespace gpua

namespace gpua {
namespace {

TEST_CASE("a request fits where one copy of it fits, and a slot free lacks holds nothing",
          "[resources]") {
  const ResourceVector free = {4000, 1 << 20, 0, 3};
  CHECK(Fits({4000, 1 << 20, 0, 1}, free));
  CHECK_FALSE(Fits({4001, 0, 0, 1}, free));
  CHECK_FALSE(Fits({0, 0, 0, 1, 1}, free));        // a GPU the node does not have
  CHECK(Fits({0, 0, 0, 1, 0}, free));              // asking for none of it is no claim
  CHECK_FALSE(Fits({1, 0, 0, 1}, {-5, 0, 0, 3}));  // overcommitted: nothing fits
  for (const ResourceVector& request :
       {ResourceVector{4000, 1 << 20, 0, 1}, ResourceVector{4001}, ResourceVector{0, 0, 0, 4}}) {
    CHECK(Fits(request, free) == (CopiesThatFit(request, free, 1) > 0));
  }
}

}  // namespace
}  // namespace gpua
