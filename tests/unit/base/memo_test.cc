#include "base/memo.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"

namespace gpua {
namespace {

TEST_CASE("a memo works its value out once, the first time it is asked", "[memo]") {
  Memo<int> memo;
  int calls = 0;
  CHECK(memo.Get([&] { return ++calls * 10; }) == 10);
  CHECK(memo.Get([&] { return ++calls * 10; }) == 10);
  CHECK(calls == 1);
}

TEST_CASE("a copied or assigned memo starts empty, as its object is copied to change", "[memo]") {
  Memo<int> memo;
  memo.Get([] { return 1; });
  Memo<int> copy = memo;
  CHECK(copy.Get([] { return 2; }) == 2);
  Memo<int> assigned;
  assigned.Get([] { return 3; });
  assigned = memo;
  CHECK(assigned.Get([] { return 4; }) == 4);
  CHECK(memo.Get([] { return 5; }) == 1);
}

TEST_CASE("threads asking at once share one computation", "[memo]") {
  Memo<std::vector<int>> memo;
  std::atomic<int> calls{0};
  std::vector<std::thread> threads;
  std::vector<const std::vector<int>*> seen(8);
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      seen[i] = &memo.Get([&] {
        ++calls;
        return std::vector<int>{1, 2, 3};
      });
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(calls == 1);
  for (const std::vector<int>* v : seen) CHECK(v == seen[0]);
}

TEST_CASE("a keyed memo keeps its value while asked with the same key", "[memo]") {
  KeyedMemo<std::string, int> memo;
  int calls = 0;
  const auto compute = [&] { return ++calls; };
  CHECK(memo.Get("a", compute) == 1);
  CHECK(memo.Get("a", compute) == 1);
  CHECK(memo.Get("b", compute) == 2);
  CHECK(memo.Get("a", compute) == 3);
  KeyedMemo<std::string, int> copy = memo;
  CHECK(copy.Get("a", compute) == 4);
}

TEST_CASE("a keyed memo is asked with a key's parts without copying them", "[memo]") {
  KeyedMemo<std::tuple<std::string, std::vector<std::string>>, int> memo;
  const std::string group = "h100";
  const std::vector<std::string> ignored = {"startup"};
  int calls = 0;
  const auto compute = [&] { return ++calls; };
  CHECK(memo.Get(std::tie(group, ignored), compute) == 1);
  CHECK(memo.Get(std::tie(group, ignored), compute) == 1);
  const std::vector<std::string> none;
  CHECK(memo.Get(std::tie(group, none), compute) == 2);
}

TEST_CASE("a memo map keeps every key's value, and starts again when it is full", "[memo]") {
  MemoMap<std::string, int> memo;
  int calls = 0;
  const auto compute = [&] { return ++calls; };
  CHECK(memo.Get(absl::string_view("a"), compute) == 1);
  CHECK(memo.Get(absl::string_view("b"), compute) == 2);
  CHECK(memo.Get(absl::string_view("a"), compute) == 1);
  CHECK(calls == 2);
  MemoMap<std::string, int> copy = memo;  // a copy is of a changed object: it starts empty
  CHECK(copy.Get(absl::string_view("a"), compute) == 3);
  for (size_t i = 0; i < MemoMap<std::string, int>::kMaxKeys; ++i) {
    memo.Get(absl::StrCat("k", i), compute);
  }
  const int before = calls;
  CHECK(memo.Get(absl::string_view("a"), compute) == before + 1);  // let go with the rest
}

}  // namespace
}  // namespace gpua
