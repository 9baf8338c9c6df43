// The CEL evaluator against the cel-spec conformance cases that apply to device selectors
// (basic literals, comparisons, logic, integer and floating-point math, strings, macros),
// Kubernetes' quantity and semver libraries, and host objects.
#include <catch2/catch.hpp>
#include <memory>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "estimator/cel/cel_program.h"

namespace gpua::cel {
namespace {

// A host object with fixed fields, as a device's attributes are.
class FakeObject : public Object {
 public:
  explicit FakeObject(absl::flat_hash_map<std::string, Value> fields)
      : fields_(std::move(fields)) {}
  std::optional<Value> Field(absl::string_view name) const override {
    auto it = fields_.find(name);
    if (it == fields_.end()) return std::nullopt;
    return it->second;
  }
  std::string TypeName() const override { return "fake"; }

 private:
  absl::flat_hash_map<std::string, Value> fields_;
};

Bindings Device() {
  auto attrs = std::make_shared<FakeObject>(absl::flat_hash_map<std::string, Value>{
      {"productName", Value::String("NVIDIA H100 80GB HBM3")},
      {"driverVersion", Value::MakeSemver(*Semver::Parse("550.54.15"))},
      {"index", Value::Int(3)},
      {"migCapable", Value::Bool(true)}});
  auto domains = std::make_shared<FakeObject>(
      absl::flat_hash_map<std::string, Value>{{"gpu.nvidia.com", Value::MakeObject(attrs)}});
  auto capacity = std::make_shared<FakeObject>(absl::flat_hash_map<std::string, Value>{
      {"memory", Value::MakeQuantity(*Quantity::Parse("80Gi"))}});
  auto capacities = std::make_shared<FakeObject>(
      absl::flat_hash_map<std::string, Value>{{"gpu.nvidia.com", Value::MakeObject(capacity)}});
  auto device = std::make_shared<FakeObject>(
      absl::flat_hash_map<std::string, Value>{{"driver", Value::String("gpu.nvidia.com")},
                                              {"attributes", Value::MakeObject(domains)},
                                              {"capacity", Value::MakeObject(capacities)}});
  return {{"device", Value::MakeObject(device)}};
}

absl::StatusOr<Value> Eval(const std::string& text, const Bindings& vars = {}) {
  absl::StatusOr<Program> p = Program::Compile(text);
  if (!p.ok()) return p.status();
  return p->Evaluate(vars);
}

bool IsTrue(const std::string& text, const Bindings& vars = {}) {
  absl::StatusOr<Value> v = Eval(text, vars);
  INFO(text << " -> " << (v.ok() ? v->DebugString() : std::string(v.status().message())));
  return v.ok() && v->As<bool>() != nullptr && *v->As<bool>();
}

std::string ErrorOf(const std::string& text, const Bindings& vars = {}) {
  absl::StatusOr<Value> v = Eval(text, vars);
  INFO(text << " -> " << (v.ok() ? v->DebugString() : ""));
  REQUIRE_FALSE(v.ok());
  return std::string(v.status().message());
}

TEST_CASE("CEL literals read as the spec writes them") {
  CHECK(IsTrue("1 == 1"));
  CHECK(IsTrue("0x1F == 31"));
  CHECK(IsTrue("-9223372036854775808 < 0"));
  CHECK(IsTrue("18446744073709551615u == 18446744073709551615u"));
  CHECK(IsTrue("1.5e3 == 1500.0"));
  CHECK(IsTrue(".5 == 0.5"));
  CHECK(IsTrue("'a' == \"a\""));
  CHECK(IsTrue("'''x'y''' == \"x'y\""));
  CHECK(IsTrue("r'\\n' == '\\\\n'"));
  CHECK(IsTrue("'\\x41\\u00e9\\101' == 'A\u00e9A'"));
  CHECK(IsTrue("null == null"));
  CHECK(IsTrue("[1, 2, 3,] == [1, 2, 3]"));
  CHECK(IsTrue("true // a comment"));
  CHECK(ErrorOf("9223372036854775808").find("out of range") != std::string::npos);
}

TEST_CASE("CEL syntax errors name the place") {
  for (const char* bad : {"1 +", "(1", "a.", "'open", "{1: 2}", "if", "has(a)", "1 ? 2", "@",
                          "[1, 2", "x.all(1, true)"}) {
    absl::StatusOr<Program> p = Program::Compile(bad);
    INFO(bad);
    CHECK_FALSE(p.ok());
  }
  CHECK(std::string(Program::Compile("1 + )").status().message()).find("at character 5") !=
        std::string::npos);
  std::string deep(200, '(');
  CHECK_FALSE(Program::Compile(deep + "1" + std::string(200, ')')).ok());
  std::string chain = "a";
  for (int i = 0; i < 2000; ++i) chain += ".b";
  CHECK_FALSE(Program::Compile(chain).ok());
  CHECK_FALSE(Program::Compile(std::string(20000, '1')).ok());
}

TEST_CASE("CEL comparisons cross numeric types and refuse the rest") {
  CHECK(IsTrue("1 == 1u"));
  CHECK(IsTrue("1 == 1.0"));
  CHECK(IsTrue("-1 < 0u"));
  CHECK(IsTrue("2u > 1.5"));
  CHECK(IsTrue("'abc' < 'abd'"));
  CHECK(IsTrue("false < true"));
  CHECK(IsTrue("1 != 'one'"));
  CHECK(IsTrue("[1, 'a'] == [1.0, 'a']"));
  CHECK(ErrorOf("1 < 'a'").find("no such overload") != std::string::npos);
  CHECK_FALSE(IsTrue("0.0/0.0 == 0.0/0.0"));
}

TEST_CASE("CEL logic absorbs an error when the other side decides") {
  CHECK(IsTrue("1/0 == 1 || true"));
  CHECK(IsTrue("true || 1/0 == 1"));
  CHECK(IsTrue("!(1/0 == 1 && false)"));
  CHECK(ErrorOf("1/0 == 1 || false").find("division by zero") != std::string::npos);
  CHECK(ErrorOf("'a' && true").find("no such overload") != std::string::npos);
  CHECK(IsTrue("true ? true : 1/0 == 1"));
  CHECK(ErrorOf("1 ? 2 : 3").find("must be a bool") != std::string::npos);
  CHECK(IsTrue("!false && !!true"));
}

TEST_CASE("CEL integer math errors on overflow and division by zero") {
  CHECK(IsTrue("7 / 2 == 3 && -7 / 2 == -3 && 7 % -3 == 1"));
  CHECK(IsTrue("2u * 3u == 6u"));
  CHECK(ErrorOf("9223372036854775807 + 1").find("overflow") != std::string::npos);
  CHECK(ErrorOf("-9223372036854775808 - 1").find("overflow") != std::string::npos);
  CHECK(ErrorOf("-(-9223372036854775808)").find("overflow") != std::string::npos);
  CHECK(ErrorOf("0u - 1u").find("overflow") != std::string::npos);
  CHECK(ErrorOf("1 % 0").find("modulus by zero") != std::string::npos);
  CHECK(ErrorOf("1 + 1u").find("no such overload") != std::string::npos);
  CHECK(IsTrue("1.0 / 0.0 > 1e308"));
  CHECK(IsTrue("int(2.9) == 2 && uint(3) == 3u && double(1) == 1.0 && int('12') == 12"));
  CHECK(ErrorOf("int(1e19)").find("range") != std::string::npos);
  CHECK(ErrorOf("uint(-1)").find("range") != std::string::npos);
}

TEST_CASE("CEL strings count code points and carry the extension functions") {
  CHECK(IsTrue("size('h\u00e9') == 2 && 'h\u00e9'.size() == 2"));
  CHECK(IsTrue("'NVIDIA H100'.startsWith('NVIDIA') && 'x.y'.endsWith('.y')"));
  CHECK(IsTrue("'abc'.contains('b') && !'abc'.contains('d')"));
  CHECK(IsTrue("'H100-SXM'.matches('^H1[0-9]+') && !'A100'.matches('^H')"));
  CHECK(IsTrue("'AbC'.lowerAscii() == 'abc' && 'AbC'.upperAscii() == 'ABC'"));
  CHECK(IsTrue("'  x '.trim() == 'x'"));
  CHECK(IsTrue("'abcabc'.indexOf('c') == 2 && 'abcabc'.lastIndexOf('c') == 5"));
  CHECK(IsTrue("'h\u00e9llo'.indexOf('l') == 2 && 'h\u00e9llo'.charAt(1) == '\u00e9'"));
  CHECK(IsTrue("'hello'.substring(1, 3) == 'el' && 'hello'.substring(3) == 'lo'"));
  CHECK(IsTrue("'a-b-c'.replace('-', '+') == 'a+b+c'"));
  CHECK(IsTrue("'a,b'.split(',') == ['a', 'b'] && ['a', 'b'].join('-') == 'a-b'"));
  CHECK(IsTrue("'ab' + 'cd' == 'abcd' && [1] + [2] == [1, 2]"));
  CHECK(IsTrue("string(12) == '12' && string(true) == 'true'"));
  CHECK(ErrorOf("'x'.matches('(')").find("invalid regular expression") != std::string::npos);
  CHECK(ErrorOf("'abc'.substring(2, 9)").find("out of range") != std::string::npos);
  CHECK(ErrorOf("'abc'.reverse()").find("no such overload: reverse") != std::string::npos);
}

TEST_CASE("CEL lists: in, index, size and the macros") {
  CHECK(IsTrue("2 in [1, 2, 3] && !(4 in [1, 2, 3])"));
  CHECK(IsTrue("[1, 2, 3][1] == 2 && size([1, 2]) == 2"));
  CHECK(ErrorOf("[1][1]").find("out of range") != std::string::npos);
  CHECK(IsTrue("[1, 2, 3].all(x, x > 0)"));
  CHECK(IsTrue("[1, 2, 3].exists(x, x == 2)"));
  CHECK(IsTrue("[1, 2, 3].exists_one(x, x > 2)"));
  CHECK(IsTrue("[1, 2, 3].map(x, x * 2) == [2, 4, 6]"));
  CHECK(IsTrue("[1, 2, 3].filter(x, x != 2) == [1, 3]"));
  CHECK(IsTrue("[0, 1].exists(x, 1 / x == 1)"));  // the error on 0 is absorbed
  CHECK(IsTrue("![0, 1].all(x, 1 / x == 0)"));
  CHECK(ErrorOf("[0].all(x, 1 / x == 1)").find("division by zero") != std::string::npos);
  CHECK(ErrorOf("[1, 2].map(y, x)").find("undeclared reference to 'x'") != std::string::npos);
}

TEST_CASE("Kubernetes quantities compare, add and convert") {
  CHECK(IsTrue("quantity('1Gi').compareTo(quantity('1024Mi')) == 0"));
  CHECK(IsTrue("quantity('80Gi').isGreaterThan(quantity('40Gi'))"));
  CHECK(IsTrue("quantity('500m').isLessThan(quantity('1'))"));
  CHECK(IsTrue("quantity('1').add(quantity('500m')) == quantity('1500m')"));
  CHECK(IsTrue("quantity('2').sub(1).asInteger() == 1"));
  CHECK(IsTrue("quantity('1500m').asApproximateFloat() == 1.5"));
  CHECK(IsTrue("!quantity('1500m').isInteger() && quantity('-1').sign() == -1"));
  CHECK(IsTrue("isQuantity('10Gi') && !isQuantity('ten')"));
  CHECK(ErrorOf("quantity('ten')").find("quantity:") != std::string::npos);
  CHECK(ErrorOf("quantity('1500m').asInteger()").find("not a whole number") != std::string::npos);
}

TEST_CASE("Kubernetes semver orders versions as semver.org does") {
  CHECK(IsTrue("semver('1.2.3').isLessThan(semver('1.10.0'))"));
  CHECK(IsTrue("semver('1.0.0-alpha').isLessThan(semver('1.0.0'))"));
  CHECK(IsTrue("semver('1.0.0-alpha.1').isLessThan(semver('1.0.0-alpha.beta'))"));
  CHECK(IsTrue("semver('1.0.0-2').isLessThan(semver('1.0.0-11'))"));
  CHECK(IsTrue("semver('1.0.0+build').compareTo(semver('1.0.0')) == 0"));
  CHECK(IsTrue("semver('12.4.1').major() == 12 && semver('12.4.1').minor() == 4"));
  CHECK(IsTrue("semver('v1.2', true) == semver('1.2.0')"));
  CHECK(IsTrue("isSemver('1.2.3') && !isSemver('1.2') && !isSemver('01.2.3')"));
  CHECK(ErrorOf("semver('1.2')").find("semver") != std::string::npos);
}

TEST_CASE("Host objects: selection, indexing, has and in") {
  const Bindings d = Device();
  CHECK(IsTrue("device.driver == 'gpu.nvidia.com'", d));
  CHECK(IsTrue("device.attributes['gpu.nvidia.com'].productName.startsWith('NVIDIA H100')", d));
  CHECK(IsTrue("device.attributes['gpu.nvidia.com']['index'] == 3", d));
  CHECK(IsTrue("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0", d));
  CHECK(IsTrue("device.attributes['gpu.nvidia.com'].driverVersion.isGreaterThan(semver('535.0.0'))",
               d));
  CHECK(IsTrue("has(device.attributes['gpu.nvidia.com'].migCapable)", d));
  CHECK(IsTrue("!has(device.attributes['gpu.nvidia.com'].uuid)", d));
  CHECK(IsTrue("'gpu.nvidia.com' in device.attributes", d));
  CHECK(IsTrue("cel.bind(nv, device.attributes['gpu.nvidia.com'], nv.migCapable && nv.index == 3)",
               d));
  CHECK_FALSE(Program::Compile("cel.bind(1, 2, 3)").ok());
  CHECK(ErrorOf("device.attributes['gpu.nvidia.com'].uuid == 'x'", d).find("no such key: uuid") !=
        std::string::npos);
  CHECK(
      ErrorOf("device.attributes['gpu.nvidia.com'].productName > 1", d).find("no such overload") !=
      std::string::npos);
  CHECK(ErrorOf("undefined.x", d).find("undeclared reference") != std::string::npos);
  absl::StatusOr<Program> p = Program::Compile("device.driver");
  REQUIRE(p.ok());
  CHECK(std::string(p->EvaluateBool(d).status().message()).find("must return a bool") !=
        std::string::npos);
}

TEST_CASE("A hostile expression stops at the step budget") {
  // 100 nested comprehensions over 100 items would take 100^100 steps.
  std::string expr = "[";
  for (int i = 0; i < 100; ++i) expr += std::to_string(i) + (i < 99 ? "," : "]");
  std::string nested = "true";
  for (int i = 0; i < 5; ++i) nested = expr + ".all(x" + std::to_string(i) + ", " + nested + ")";
  CHECK(ErrorOf(nested).find("too many steps") != std::string::npos);
}

}  // namespace
}  // namespace gpua::cel
