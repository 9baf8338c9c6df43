// StringMap: map semantics over a shared sorted array, copies that share until changed, and
// the interner that gives equal maps one copy.
#include "estimator/string_map.h"

#include <catch2/catch.hpp>
#include <map>
#include <stdexcept>

namespace gpua {
namespace {

TEST_CASE("a string map keeps its keys sorted and answers like std::map") {
  StringMap m = {{"zone", "a"}, {"app", "web"}, {"zone", "b"}};
  REQUIRE(m.size() == 2);
  CHECK(m.begin()->first == "app");
  CHECK(m.at("zone") == "a");  // the first of a repeated key stays, as std::map's
  CHECK(m.contains("app"));
  CHECK(m.count("tier") == 0);
  CHECK(m.find("tier") == m.end());
  CHECK_THROWS_AS(m.at("tier"), std::out_of_range);

  CHECK(m.emplace("tier", "gpu").second);
  CHECK_FALSE(m.emplace("tier", "cpu").second);
  CHECK(m.at("tier") == "gpu");
  m.insert_or_assign("tier", "cpu");
  m["team"] = "ml";
  CHECK(m.erase("app") == 1);
  CHECK(m.erase("app") == 0);
  std::vector<std::string> keys;
  for (const auto& [k, v] : m) keys.push_back(k);
  CHECK(keys == std::vector<std::string>{"team", "tier", "zone"});

  const std::map<std::string, std::string> from = {{"b", "2"}, {"a", "1"}};
  CHECK(StringMap(from.begin(), from.end()) == StringMap{{"a", "1"}, {"b", "2"}});
  StringMap emptied = {{"a", "1"}};
  emptied.erase("a");
  CHECK(emptied.empty());
  CHECK(emptied == StringMap());
}

TEST_CASE("copies of a string map share until one of them changes") {
  StringMap original = {{"app", "web"}};
  StringMap copy = original;
  CHECK(copy == original);
  copy["app"] = "api";
  CHECK(original.at("app") == "web");
  CHECK(copy.at("app") == "api");
  StringMap other = original;
  other.erase("app");
  CHECK(original.size() == 1);
}

TEST_CASE("the interner gives equal maps one copy and lets unused copies go") {
  StringMapInterner interner;
  StringMap a = interner.Intern({{"app", "web"}, {"pod-template-hash", "7d9f8c6b5"}});
  StringMap b = interner.Intern({{"pod-template-hash", "7d9f8c6b5"}, {"app", "web"}});
  CHECK(&*a.begin() == &*b.begin());  // one array between them
  CHECK(interner.size() == 1);
  b["app"] = "api";  // changing one leaves the other and the pool alone
  CHECK(a.at("app") == "web");
  CHECK(interner.Intern({{"app", "web"}, {"pod-template-hash", "7d9f8c6b5"}}) == a);
  CHECK(interner.Intern(StringMap()).empty());

  // Maps nobody holds any more are dropped once the pool has grown.
  for (int i = 0; i < 5000; ++i) interner.Intern({{"pod", std::to_string(i)}});
  CHECK(interner.size() < 1100);
  CHECK(interner.Intern({{"app", "web"}, {"pod-template-hash", "7d9f8c6b5"}}) == a);
}

}  // namespace
}  // namespace gpua
