// JSON from outside, read one way: depth, repeated keys and numbers, each named in the error.
#include "kubeobjects/json_text.h"

#include <catch2/catch.hpp>
#include <string>

#include "kubeobjects/documents.h"

namespace gpua {
namespace {

std::string Nested(int depth) { return std::string(depth, '[') + std::string(depth, ']'); }

std::string ErrorOf(const absl::Status& s) { return std::string(s.message()); }

TEST_CASE("JSON nested deeper than the limit is refused, not walked until the stack runs out",
          "[kubeobjects][json]") {
  CHECK(ParseJson(Nested(kMaxJsonDepth), "ok.json").ok());
  const absl::StatusOr<nlohmann::json> deep = ParseJson(Nested(100'000), "pods.json");
  REQUIRE_FALSE(deep.ok());
  CHECK(deep.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(ErrorOf(deep.status()),
             Catch::StartsWith("pods.json: invalid JSON: nested more than 1000 levels deep, at "
                               "[0][0][0][0][0][0][0][0]..."));
  // Through the readers every file goes through, JSON or YAML-looking.
  CHECK_FALSE(ParseObjects(Nested(100'000), "dump.json").ok());
  CHECK_FALSE(ParseJsonSequence("{}\n" + Nested(100'000), "watch.json").ok());
}

TEST_CASE("a key given twice in a JSON object is refused, naming the object",
          "[kubeobjects][json]") {
  const absl::StatusOr<nlohmann::json> read =
      ParseJson(R"({"spec": {"containers": [{"name": "a", "name": "b"}]}})", "pod.json");
  REQUIRE_FALSE(read.ok());
  CHECK(ErrorOf(read.status()) ==
        R"(pod.json: invalid JSON: key "name" appears twice in spec.containers[0])");
  CHECK_THAT(ErrorOf(ParseJson(R"({"a": 1, "a": 1})", "x.json").status()),
             Catch::Contains("appears twice in the top-level object"));
  // The same key in sibling objects is no repeat.
  CHECK(ParseJson(R"([{"a": 1}, {"a": 2}])", "x.json").ok());
}

TEST_CASE("a JSON number out of a double's range is refused, not read as infinity",
          "[kubeobjects][json]") {
  const absl::StatusOr<nlohmann::json> read = ParseJson(R"({"pricePerHour": 1e400})", "g.json");
  REQUIRE_FALSE(read.ok());
  CHECK_THAT(ErrorOf(read.status()), Catch::Contains("1e400"));
  CHECK(ParseJson("1e300", "g.json").ok());
}

TEST_CASE("a syntax error names the source, line and column", "[kubeobjects][json]") {
  const absl::StatusOr<nlohmann::json> read = ParseJson("{\n  \"a\": tru\n}", "cfg.json");
  REQUIRE_FALSE(read.ok());
  CHECK_THAT(ErrorOf(read.status()),
             Catch::StartsWith("cfg.json: invalid JSON: parse error at line ") &&
                 Catch::Contains("invalid literal"));
}

TEST_CASE("documents one after another read as a sequence, an error naming the document",
          "[kubeobjects][json]") {
  const absl::StatusOr<std::vector<nlohmann::json>> docs =
      ParseJsonSequence("{\"a\": 1}\n{\"b\": [1, 2]}\n", "watch.json");
  REQUIRE(docs.ok());
  REQUIRE(docs->size() == 2);
  CHECK((*docs)[1]["b"][1] == 2);
  const absl::StatusOr<std::vector<nlohmann::json>> bad =
      ParseJsonSequence("{\"a\": 1}\n{\"b\": 1, \"b\": 2}\n", "watch.json");
  REQUIRE_FALSE(bad.ok());
  CHECK_THAT(ErrorOf(bad.status()), Catch::StartsWith("watch.json: invalid JSON in document 2: "));
}

TEST_CASE("YAML: a key given twice and a number out of range are refused, with the line",
          "[kubeobjects][yaml]") {
  const absl::StatusOr<nlohmann::json> twice =
      YamlToJson("a: 1\nb:\n  c: 2\n  c: 3\n", "groups.yaml");
  REQUIRE_FALSE(twice.ok());
  CHECK(ErrorOf(twice.status()) ==
        R"(groups.yaml: line 4, column 3: key "c" appears twice in one mapping)");
  const absl::StatusOr<nlohmann::json> huge = YamlToJson("price: 1e400\n", "groups.yaml");
  REQUIRE_FALSE(huge.ok());
  CHECK(ErrorOf(huge.status()) == "groups.yaml: line 1, column 8: number 1e400 is out of range");
  // Quoted, it is a string, as YAML says.
  CHECK(YamlToJson("price: \"1e400\"\n", "groups.yaml").ok());
}

TEST_CASE("YAML nested too deep is refused in words, never read where its JSON would not be",
          "[kubeobjects][yaml]") {
  CHECK(YamlToJson("a: " + Nested(400) + "\n", "deep.yaml").ok());
  // Flow and block collections alike; yaml-cpp's own guard trips first, near 500 levels.
  std::string block = "a:\n";
  for (int i = 0; i < 1200; ++i) block += std::string(2 * i, ' ') + "- \n";
  for (const std::string& text : {"a: " + Nested(kMaxJsonDepth) + "\n", block}) {
    const absl::StatusOr<nlohmann::json> deep = YamlToJson(text, "deep.yaml");
    REQUIRE_FALSE(deep.ok());
    CHECK_THAT(ErrorOf(deep.status()),
               Catch::StartsWith("deep.yaml: line ") &&
                   Catch::EndsWith(": nested too deep (YAML: about 500 levels)"));
  }
}

}  // namespace
}  // namespace gpua
