#include "estimator/quantity.h"

#include <array>
#include <limits>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace gpua {
namespace {

using U128 = unsigned __int128;

// Kubernetes' limit on significant digits is not ours to mimic: 38 decimal digits fit in
// 128 bits, and for any value within range they reach far below 1n, so digits past them
// can only decide the final round-up.
constexpr int kMaxKeptDigits = 38;

constexpr std::array<U128, 39> MakePowersOf10() {
  std::array<U128, 39> p{};
  p[0] = 1;
  for (size_t i = 1; i < p.size(); ++i) p[i] = p[i - 1] * 10;
  return p;
}
constexpr std::array<U128, 39> kPow10 = MakePowersOf10();
constexpr U128 kMaxMagnitude = static_cast<U128>(Quantity::kMaxNanos);
constexpr U128 kNanosPerUnit = static_cast<U128>(Quantity::kNanosPerUnit);
// numeric_limits knows no 128-bit types in strict C++20 mode.
constexpr Quantity::Nanos kNanosMax = static_cast<Quantity::Nanos>(~U128{0} >> 1);
constexpr Quantity::Nanos kNanosMin = -kNanosMax - 1;

absl::Status ParseError(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("quantity \"", text, "\": ", why));
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The digits of the number part: value = mantissa * 10^exp10, plus a non-zero tail
// below the kept digits when `sticky`.
struct DecimalDigits {
  U128 mantissa = 0;
  int64_t exp10 = 0;
  int kept = 0;
  bool sticky = false;
  bool any = false;

  void Push(char c, bool fractional) {
    const int digit = c - '0';
    any = true;
    if (mantissa == 0 && digit == 0) {
      if (fractional) --exp10;  // leading zeros after the point only scale
      return;
    }
    if (kept < kMaxKeptDigits) {
      mantissa = mantissa * 10 + static_cast<unsigned>(digit);
      ++kept;
      if (fractional) --exp10;
      return;
    }
    if (!fractional) ++exp10;
    sticky = sticky || digit != 0;
  }
};

struct Suffix {
  int64_t exp10 = 0;    // decimal scale of the suffix
  int binary_bits = 0;  // 10 * n for the n-th binary suffix
  QuantityFormat format = QuantityFormat::kDecimalSI;
};

absl::StatusOr<Suffix> ParseSuffix(absl::string_view text, absl::string_view suffix) {
  if (suffix.empty()) return Suffix{};
  if (suffix.size() == 1) {
    static constexpr absl::string_view kDecimal = "num kMGTPE";
    const size_t i = kDecimal.find(suffix[0]);
    if (i != absl::string_view::npos && suffix[0] != ' ') {
      return Suffix{static_cast<int64_t>(i) * 3 - 9, 0, QuantityFormat::kDecimalSI};
    }
  }
  if (suffix.size() == 2 && suffix[1] == 'i') {
    static constexpr absl::string_view kBinary = "KMGTPE";
    const size_t i = kBinary.find(suffix[0]);
    if (i != absl::string_view::npos) {
      return Suffix{0, static_cast<int>(i + 1) * 10, QuantityFormat::kBinarySI};
    }
  }
  if (suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    size_t pos = 1;
    const bool negative = suffix[pos] == '-';
    if (suffix[pos] == '-' || suffix[pos] == '+') ++pos;
    if (pos == suffix.size()) return ParseError(text, "exponent has no digits");
    int64_t exponent = 0;
    for (; pos < suffix.size(); ++pos) {
      if (!IsDigit(suffix[pos])) {
        return ParseError(
            text, absl::StrCat("unexpected character '", suffix.substr(pos, 1), "' in exponent"));
      }
      exponent = exponent * 10 + (suffix[pos] - '0');
      if (exponent > std::numeric_limits<int32_t>::max()) {
        return ParseError(text, "exponent out of range");
      }
    }
    return Suffix{negative ? -exponent : exponent, 0, QuantityFormat::kDecimalExponent};
  }
  return ParseError(text, absl::StrCat("unknown suffix \"", suffix,
                                       "\" (expected one of n u m k M G T P E, Ki Mi Gi Ti "
                                       "Pi Ei, or an exponent such as e3)"));
}

// 192 bits, for the rare value that has both a binary suffix and digits below 1n.
struct U192 {
  std::array<uint64_t, 3> limb{};  // little-endian

  static U192 From(U128 v) {
    return U192{{static_cast<uint64_t>(v), static_cast<uint64_t>(v >> 64), 0}};
  }
  void ShiftLeft(int bits) {  // bits < 64, and the caller keeps the top free
    if (bits == 0) return;
    limb[2] = (limb[2] << bits) | (limb[1] >> (64 - bits));
    limb[1] = (limb[1] << bits) | (limb[0] >> (64 - bits));
    limb[0] <<= bits;
  }
  uint64_t DivideBy10() {  // returns the remainder
    U128 rem = 0;
    for (int i = 2; i >= 0; --i) {
      const U128 cur = (rem << 64) | limb[i];
      limb[i] = static_cast<uint64_t>(cur / 10);
      rem = cur % 10;
    }
    return static_cast<uint64_t>(rem);
  }
  bool IsZero() const { return (limb[0] | limb[1] | limb[2]) == 0; }
  bool FitsIn128() const { return limb[2] == 0; }
  U128 Low128() const { return (static_cast<U128>(limb[1]) << 64) | limb[0]; }
};

// ceil(mantissa * 2^bits / 10^k), or nullopt past the range; k > 0.
std::optional<U128> DivideRoundingUp(U128 mantissa, int bits, int64_t k, bool sticky) {
  if (bits == 0) {
    if (k >= static_cast<int64_t>(kPow10.size())) return U128{1};  // non-zero, below 1n
    const U128 q = mantissa / kPow10[k];
    return q + ((mantissa % kPow10[k]) != 0 || sticky ? 1 : 0);
  }
  U192 x = U192::From(mantissa);
  for (int left = bits; left > 0; left -= 32) x.ShiftLeft(left > 32 ? 32 : left);
  for (int64_t i = 0; i < k && !x.IsZero(); ++i) sticky = (x.DivideBy10() != 0) || sticky;
  if (!x.FitsIn128()) return std::nullopt;
  return x.Low128() + (sticky ? 1 : 0);
}

std::string U128ToString(U128 v) {
  char buf[40];
  char* end = buf + sizeof(buf);
  char* p = end;
  do {
    *--p = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  } while (v != 0);
  return std::string(p, end);
}

}  // namespace

absl::StatusOr<Quantity> Quantity::Parse(absl::string_view text) {
  if (text.empty()) return ParseError(text, "empty");
  size_t pos = 0;
  const bool negative = text[0] == '-';
  if (text[0] == '-' || text[0] == '+') ++pos;

  DecimalDigits digits;
  for (; pos < text.size() && IsDigit(text[pos]); ++pos) digits.Push(text[pos], false);
  if (pos < text.size() && text[pos] == '.') {
    for (++pos; pos < text.size() && IsDigit(text[pos]); ++pos) digits.Push(text[pos], true);
  }
  if (!digits.any) return ParseError(text, "no digits");

  absl::StatusOr<Suffix> suffix = ParseSuffix(text, text.substr(pos));
  if (!suffix.ok()) return suffix.status();

  const int64_t shift = digits.exp10 + suffix->exp10 + 9;  // to nano-units
  U128 magnitude = digits.mantissa;
  if (magnitude != 0) {  // zero needs no scaling
    const auto out_of_range = [&] {
      return ParseError(
          text, absl::StrCat("out of range (magnitudes above ", kMaxUnits, " are not allowed)"));
    };
    if (shift >= 0) {
      if (digits.sticky || shift > 28 || magnitude > kMaxMagnitude / kPow10[shift]) {
        return out_of_range();
      }
      magnitude *= kPow10[shift];
      if (magnitude > (kMaxMagnitude >> suffix->binary_bits)) return out_of_range();
      magnitude <<= suffix->binary_bits;
    } else {
      std::optional<U128> rounded =
          DivideRoundingUp(magnitude, suffix->binary_bits, -shift, digits.sticky);
      if (!rounded.has_value() || *rounded > kMaxMagnitude) return out_of_range();
      magnitude = *rounded;
    }
  }
  const Nanos nanos = static_cast<Nanos>(magnitude);
  return Quantity(negative ? -nanos : nanos, suffix->format);
}

int64_t Quantity::ScaledValue(int scale) const {
  const int divisor_exp = scale + 9;
  if (divisor_exp < 0 || divisor_exp >= static_cast<int>(kPow10.size())) return 0;
  const U128 divisor = kPow10[divisor_exp];
  const U128 magnitude = nanos_ < 0 ? -static_cast<U128>(nanos_) : static_cast<U128>(nanos_);
  U128 q = magnitude / divisor + (magnitude % divisor != 0 ? 1 : 0);
  if (q > static_cast<U128>(std::numeric_limits<int64_t>::max())) {
    q = std::numeric_limits<int64_t>::max();
  }
  const int64_t v = static_cast<int64_t>(q);
  return nanos_ < 0 ? -v : v;
}

std::string Quantity::ToString() const {
  if (nanos_ == 0) return "0";
  const bool negative = nanos_ < 0;
  U128 magnitude = negative ? -static_cast<U128>(nanos_) : static_cast<U128>(nanos_);
  const absl::string_view sign = negative ? "-" : "";

  QuantityFormat format = format_;
  // Small or fractional binary values print as decimal, so nothing is rounded.
  if (format == QuantityFormat::kBinarySI &&
      (magnitude < U128{1024} * kNanosPerUnit || magnitude % kNanosPerUnit != 0)) {
    format = QuantityFormat::kDecimalSI;
  }
  if (format == QuantityFormat::kBinarySI) {
    static constexpr std::array<absl::string_view, 7> kBinary = {"",   "Ki", "Mi", "Gi",
                                                                 "Ti", "Pi", "Ei"};
    U128 units = magnitude / kNanosPerUnit;
    size_t exponent = 0;
    while (units % 1024 == 0 && exponent + 1 < kBinary.size()) {
      units /= 1024;
      ++exponent;
    }
    return absl::StrCat(sign, U128ToString(units), kBinary[exponent]);
  }

  int exponent = -9;
  while (magnitude % 10 == 0) {
    magnitude /= 10;
    ++exponent;
  }
  // The largest exponent that is a multiple of three and keeps the mantissa whole.
  const int excess = ((exponent % 3) + 3) % 3;
  magnitude *= kPow10[excess];
  exponent -= excess;
  // Only sums beyond what one object may hold get here; E is the largest suffix.
  for (; exponent > 18; exponent -= 3) magnitude *= 1000;

  if (format == QuantityFormat::kDecimalExponent) {
    return absl::StrCat(sign, U128ToString(magnitude),
                        exponent == 0 ? "" : absl::StrCat("e", exponent));
  }
  static constexpr std::array<absl::string_view, 10> kDecimal = {"n", "u", "m", "",  "k",
                                                                 "M", "G", "T", "P", "E"};
  return absl::StrCat(sign, U128ToString(magnitude), kDecimal[(exponent + 9) / 3]);
}

Quantity& Quantity::operator+=(const Quantity& other) {
  if (nanos_ == 0) format_ = other.format_;
  if (__builtin_add_overflow(nanos_, other.nanos_, &nanos_)) {
    nanos_ = other.nanos_ > 0 ? kNanosMax : kNanosMin;
  }
  return *this;
}

Quantity& Quantity::operator-=(const Quantity& other) {
  if (nanos_ == 0) format_ = other.format_;
  if (__builtin_sub_overflow(nanos_, other.nanos_, &nanos_)) {
    nanos_ = other.nanos_ < 0 ? kNanosMax : kNanosMin;
  }
  return *this;
}

}  // namespace gpua
