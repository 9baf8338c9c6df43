#include "estimator/quantity.h"

#include <catch2/catch.hpp>
#include <string>

namespace gpua {
namespace {

struct Canonical {
  const char* input;
  const char* canonical;
};

// Canonical forms as Kubernetes' resource.Quantity prints them (String()).
const Canonical kCanonical[] = {
    {"0", "0"},
    {"-0", "0"},
    {"1", "1"},
    {"-1", "-1"},
    {"+1", "1"},
    {"000123", "123"},
    {"1.5", "1500m"},
    {"-1.5", "-1500m"},
    {"0.1", "100m"},
    {".5", "500m"},
    {"5.", "5"},
    {"1.G", "1G"},
    // decimal SI suffixes
    {"1n", "1n"},
    {"1u", "1u"},
    {"100m", "100m"},
    {"1000m", "1"},
    {"1500m", "1500m"},
    {"1k", "1k"},
    {"1000", "1k"},
    {"1500", "1500"},
    {"10000", "10k"},
    {"1M", "1M"},
    {"1.1M", "1100k"},
    {"1G", "1G"},
    {"1000000000", "1G"},
    {"1T", "1T"},
    {"1P", "1P"},
    {"1E", "1E"},
    {"0.0001", "100u"},
    // binary SI suffixes
    {"1Ki", "1Ki"},
    {"1024", "1024"},
    {"1025", "1025"},
    {"1Mi", "1Mi"},
    {"100Mi", "100Mi"},
    {"1.5Gi", "1536Mi"},
    {"-1.5Gi", "-1536Mi"},
    {"1024Mi", "1Gi"},
    {"1536Mi", "1536Mi"},
    {"2048Ki", "2Mi"},
    {"1023Ki", "1023Ki"},
    {"0.5Ki", "512"},  // below 1024 a binary value prints as decimal
    {"1.5Ki", "1536"},
    {"1Ti", "1Ti"},
    {"1Pi", "1Pi"},
    {"1Ei", "1Ei"},
    {"7Ei", "7Ei"},
    // decimal exponents
    {"1e3", "1e3"},
    {"1E3", "1e3"},
    {"1e+3", "1e3"},
    {"1.5e3", "1500"},
    {"12e2", "1200"},
    {"1e6", "1e6"},
    {"1e-3", "1e-3"},
    {"100e-3", "100e-3"},
    {"1.5E-2", "15e-3"},
    {"0e1000", "0"},
    // rounding up below 1n, as Kubernetes rounds
    {"0.1m", "100u"},
    {"0.1n", "1n"},
    {"-0.1n", "-1n"},
    {"0.000000001", "1n"},
    {"1.0000000001", "1000000001n"},
    {"1e-100", "1e-9"},
    {"0.0000000000000000000000000000000000000000001Ki", "1n"},
    {"1.000000000000000000000000000000000000000001Ei", "1152921504606846976000000001n"},
    {"12345678901234567890123456789012345678901234567890e-40", "1234567890123456790e-9"},
    // the largest magnitude Kubernetes holds
    {"9223372036854775807", "9223372036854775807"},
};

TEST_CASE("quantities parse and print in Kubernetes' canonical form", "[quantity]") {
  for (const Canonical& c : kCanonical) {
    INFO("input " << c.input);
    absl::StatusOr<Quantity> q = Quantity::Parse(c.input);
    REQUIRE(q.ok());
    CHECK(q->ToString() == c.canonical);
    // The canonical form reads back as the same value.
    absl::StatusOr<Quantity> again = Quantity::Parse(q->ToString());
    REQUIRE(again.ok());
    CHECK(*again == *q);
  }
}

struct Invalid {
  const char* input;
  const char* why;
};

const Invalid kInvalid[] = {
    {"", "empty"},
    {" 1", "no digits"},
    {"1 ", "unknown suffix"},
    {"1 Gi", "unknown suffix"},
    {"\t1", "no digits"},
    {"1.5.3", "unknown suffix \".3\""},
    {"10KB", "unknown suffix \"KB\""},
    {"1kb", "unknown suffix"},
    {"1KI", "unknown suffix"},
    {"1mm", "unknown suffix"},
    {"1i", "unknown suffix"},
    {"0.1mi", "unknown suffix"},
    {"0.1am", "unknown suffix"},
    {"1Ki2", "unknown suffix"},
    {"1,5", "unknown suffix"},
    {"0x10", "unknown suffix"},
    {"1_000", "unknown suffix"},
    {"Gi", "no digits"},
    {"aoeu", "no digits"},
    {".5i", "unknown suffix"},
    {"+", "no digits"},
    {"-", "no digits"},
    {".", "no digits"},
    {"--1", "no digits"},
    {"e3", "no digits"},
    {"1e", "unknown suffix"},
    {"1e-", "exponent has no digits"},
    {"1E+", "exponent has no digits"},
    {"-3.01e-", "exponent has no digits"},
    {"1e3.5", "in exponent"},
    {"1e99999999999", "exponent out of range"},
    {"1e30", "out of range"},
    {"8Ei", "out of range"},
    {"9223372036854775808", "out of range"},
    {"-9223372036854775808", "out of range"},
    {"100000000000000000000000000000000000000000000000000", "out of range"},
};

TEST_CASE("malformed and out-of-range quantities are errors that quote the input", "[quantity]") {
  for (const Invalid& c : kInvalid) {
    INFO("input \"" << c.input << "\"");
    absl::StatusOr<Quantity> q = Quantity::Parse(c.input);
    REQUIRE_FALSE(q.ok());
    const std::string message(q.status().message());
    CHECK_THAT(message, Catch::Contains(std::string("\"") + c.input + "\""));
    CHECK_THAT(message, Catch::Contains(c.why));
  }
}

Quantity Q(const char* text) {
  absl::StatusOr<Quantity> q = Quantity::Parse(text);
  REQUIRE(q.ok());
  return *q;
}

TEST_CASE("Value and MilliValue round away from zero as Kubernetes does", "[quantity]") {
  CHECK(Q("0.1m").MilliValue() == 1);  // a tiny cpu request still asks for 1m
  CHECK(Q("100m").MilliValue() == 100);
  CHECK(Q("1.5").Value() == 2);
  CHECK(Q("-1.5").Value() == -2);
  CHECK(Q("1Gi").Value() == 1073741824);
  CHECK(Q("8").Value() == 8);
  CHECK(Q("1.5Gi").ScaledValue(6) == 1611);                   // 1610.612736 M, rounded up
  CHECK(Q("9223372036854775807").MilliValue() == INT64_MAX);  // saturates
}

TEST_CASE("arithmetic is exact and compares by value whatever the suffix", "[quantity]") {
  CHECK(Q("1Gi") == Q("1073741824"));
  CHECK(Q("1Gi") == Q("1024Mi"));
  CHECK(Q("1Gi") > Q("1G"));
  CHECK(Q("999m") < Q("1"));

  CHECK((Q("1Gi") + Q("512Mi")).ToString() == "1536Mi");
  CHECK((Q("1") - Q("1500m")).ToString() == "-500m");
  CHECK((Quantity() + Q("100m")).ToString() == "100m");  // zero takes the other's format

  Quantity sum;
  for (int i = 0; i < 10; ++i) sum += Q("0.1");
  CHECK(sum == Q("1"));  // no binary floating point drift

  Quantity many = Q("9223372036854775807");
  for (int i = 0; i < 1000; ++i) many += Q("9223372036854775807");
  CHECK(many > Q("9223372036854775807"));  // sums beyond one object's range stay exact
  CHECK((many - many).IsZero());
}

}  // namespace
}  // namespace gpua
