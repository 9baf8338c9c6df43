#include "base/memo.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <string>
#include <thread>
#include <vector>

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

}  // namespace
}  // namespace gpua
