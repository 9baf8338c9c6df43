#include "kubeobjects/api_time.h"

#include "absl/time/civil_time.h"

namespace gpua {
namespace {

// Reads `n` digits at `at`; false on anything else.
bool Digits(absl::string_view text, size_t at, size_t n, int* out) {
  int v = 0;
  for (size_t i = at; i < at + n; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    v = v * 10 + (text[i] - '0');
  }
  *out = v;
  return true;
}

// "YYYY-MM-DDTHH:MM:SSZ" exactly.
bool ParseWholeSecondsUtc(absl::string_view s, absl::Time* t) {
  if (s.size() != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' ||
      s[16] != ':' || s[19] != 'Z') {
    return false;
  }
  int y, mo, d, h, mi, sec;
  if (!Digits(s, 0, 4, &y) || !Digits(s, 5, 2, &mo) || !Digits(s, 8, 2, &d) ||
      !Digits(s, 11, 2, &h) || !Digits(s, 14, 2, &mi) || !Digits(s, 17, 2, &sec)) {
    return false;
  }
  const absl::CivilSecond civil(y, mo, d, h, mi, sec);
  // CivilSecond normalises (month 13 is next January): a field out of range is no time.
  if (civil.year() != y || civil.month() != mo || civil.day() != d || civil.hour() != h ||
      civil.minute() != mi || civil.second() != sec) {
    return false;
  }
  *t = absl::FromCivil(civil, absl::UTCTimeZone());
  return true;
}

}  // namespace

bool ParseApiTime(absl::string_view text, absl::Time* t) {
  if (ParseWholeSecondsUtc(text, t)) return true;
  std::string err;
  return absl::ParseTime(absl::RFC3339_full, text, t, &err);
}

std::string FormatMicroTime(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", t, absl::UTCTimeZone());
}

}  // namespace gpua
