// Exact Kubernetes resource quantities (k8s.io/apimachinery resource.Quantity).
//
// A Quantity holds its value as a signed count of nano-units in 128 bits: Kubernetes keeps
// nothing finer than 1n (it rounds smaller fractions up) and caps magnitudes at 2^63-1 whole
// units, so every value it can hold is represented exactly and sums of many of them cannot
// overflow. The format (DecimalSI, BinarySI, DecimalExponent) is kept only to print the
// canonical form Kubernetes prints.
#ifndef GPUA_ESTIMATOR_QUANTITY_H_
#define GPUA_ESTIMATOR_QUANTITY_H_

#include <compare>
#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace gpua {

enum class QuantityFormat : uint8_t {
  kDecimalSI,        // 1500m, 2k, 4
  kBinarySI,         // 1536Mi, 2Gi
  kDecimalExponent,  // 1e3, 100e-3
};

class Quantity {
 public:
  using Nanos = __int128;
  static constexpr int64_t kNanosPerUnit = 1'000'000'000;
  // The largest magnitude Kubernetes can hold, in whole units.
  static constexpr int64_t kMaxUnits = INT64_MAX;
  static constexpr Nanos kMaxNanos = Nanos{kMaxUnits} * kNanosPerUnit;

  constexpr Quantity() = default;

  // Parses every form the Kubernetes API accepts: an optional sign, a decimal number
  // ("1", "1.5", ".5", "5."), and one of the suffixes n u m k M G T P E, Ki Mi Gi Ti Pi Ei or
  // a decimal exponent e/E (1e3, 1.5E-2). Fractions finer than 1n round away from zero, as
  // Kubernetes rounds them. Where Kubernetes would silently cap a magnitude above 2^63-1
  // units, this reports it instead: a request that large is a mistake, not a request. The
  // number needs a digit, as the documented grammar says ("Gi" and "." are errors, where
  // apimachinery's parser would read them as zero).
  static absl::StatusOr<Quantity> Parse(absl::string_view text);

  static constexpr Quantity FromNanos(Nanos nanos,
                                      QuantityFormat format = QuantityFormat::kDecimalSI) {
    return Quantity(nanos, format);
  }
  static constexpr Quantity FromUnits(int64_t units,
                                      QuantityFormat format = QuantityFormat::kDecimalSI) {
    return Quantity(Nanos{units} * kNanosPerUnit, format);
  }
  static constexpr Quantity FromMilli(int64_t milli) {
    return Quantity(Nanos{milli} * 1'000'000, QuantityFormat::kDecimalSI);
  }

  constexpr Nanos nanos() const { return nanos_; }
  constexpr QuantityFormat format() const { return format_; }
  constexpr bool IsZero() const { return nanos_ == 0; }
  constexpr int Sign() const { return nanos_ > 0 ? 1 : (nanos_ < 0 ? -1 : 0); }

  // Whole units, rounded away from zero as Kubernetes' Value() does ("1.5" -> 2).
  int64_t Value() const { return ScaledValue(0); }
  // Thousandths, rounded away from zero as MilliValue() does ("0.1m" -> 1).
  int64_t MilliValue() const { return ScaledValue(-3); }
  // The value in units of 10^scale (scale in [-9, 18]), rounded away from zero and
  // saturated to the int64 range.
  int64_t ScaledValue(int scale) const;

  // The canonical form Kubernetes serializes: "1500m", "1536Mi", "2", "1e3".
  std::string ToString() const;

  // Sums saturate at the 128-bit range, far beyond any value the API can hold. As in
  // Kubernetes, a zero quantity takes the format of what is added to it.
  Quantity& operator+=(const Quantity& other);
  Quantity& operator-=(const Quantity& other);
  friend Quantity operator+(Quantity a, const Quantity& b) { return a += b; }
  friend Quantity operator-(Quantity a, const Quantity& b) { return a -= b; }
  Quantity operator-() const { return Quantity(-nanos_, format_); }

  // Equality and order are by value alone: "1Gi" == "1024Mi" == "1073741824".
  friend constexpr bool operator==(const Quantity& a, const Quantity& b) {
    return a.nanos_ == b.nanos_;
  }
  friend constexpr std::strong_ordering operator<=>(const Quantity& a, const Quantity& b) {
    return a.nanos_ <=> b.nanos_;
  }

 private:
  constexpr Quantity(Nanos nanos, QuantityFormat format) : nanos_(nanos), format_(format) {}

  Nanos nanos_ = 0;
  QuantityFormat format_ = QuantityFormat::kDecimalSI;
};

}  // namespace gpua

#endif  // GPUA_ESTIMATOR_QUANTITY_H_
