#include "kubeobjects/replica_schedule.h"

#include <algorithm>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace gpua {
namespace {

constexpr int kMinutesPerDay = 24 * 60;

// "HH:MM", 00:00 to 24:00.
std::optional<int> ReadClock(absl::string_view s) {
  s = absl::StripAsciiWhitespace(s);
  const std::vector<absl::string_view> parts = absl::StrSplit(s, ':');
  int h = 0, m = 0;
  if (parts.size() != 2 || parts[0].empty() || parts[0].size() > 2 || parts[1].size() != 2 ||
      !absl::SimpleAtoi(parts[0], &h) || !absl::SimpleAtoi(parts[1], &m) || h < 0 || h > 24 ||
      m < 0 || m > 59 || (h == 24 && m != 0)) {
    return std::nullopt;
  }
  return h * 60 + m;
}

int MinuteOfDay(absl::Time t) {
  const absl::CivilMinute c = absl::ToCivilMinute(t, absl::UTCTimeZone());
  return c.hour() * 60 + c.minute();
}

bool Holds(const ReplicaSchedule::Window& w, int minute) {
  if (w.start_minute < w.end_minute) return minute >= w.start_minute && minute < w.end_minute;
  return minute >= w.start_minute || minute < w.end_minute;  // runs past midnight
}

std::string Clock(int minute) { return absl::StrFormat("%02d:%02d", minute / 60, minute % 60); }

}  // namespace

absl::StatusOr<ReplicaSchedule> ReplicaSchedule::Parse(absl::string_view text) {
  ReplicaSchedule out;
  for (absl::string_view part :
       absl::StrSplit(text, absl::ByAnyChar(",;"), absl::SkipWhitespace())) {
    part = absl::StripAsciiWhitespace(part);
    const auto bad = [&](absl::string_view why) {
      return absl::InvalidArgumentError(
          absl::StrCat("window \"", part, "\": ", why, " (expected HH:MM-HH:MM=<count>, in UTC)"));
    };
    const size_t eq = part.find('=');
    if (eq == absl::string_view::npos) return bad("no =<count>");
    const std::vector<absl::string_view> ends = absl::StrSplit(part.substr(0, eq), '-');
    if (ends.size() != 2) return bad("not one start and one end");
    const std::optional<int> start = ReadClock(ends[0]);
    const std::optional<int> end = ReadClock(ends[1]);
    if (!start || *start == kMinutesPerDay) return bad("the start is not a time of day");
    if (!end) return bad("the end is not a time of day");
    int64_t replicas = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(part.substr(eq + 1)), &replicas) ||
        replicas < 0 || replicas > INT32_MAX) {
      return bad("the count is not a whole number from 0");
    }
    if (*start == *end) return bad("it is empty (use 00:00-24:00 for all day)");
    out.windows_.push_back({*start, *end, static_cast<int32_t>(replicas)});
  }
  if (out.windows_.empty()) return absl::InvalidArgumentError("no window");
  return out;
}

std::optional<int32_t> ReplicaSchedule::At(absl::Time t) const {
  const int minute = MinuteOfDay(t);
  for (const Window& w : windows_) {
    if (Holds(w, minute)) return w.replicas;
  }
  return std::nullopt;
}

absl::Time ReplicaSchedule::NextChange(absl::Time t) const {
  if (windows_.empty()) return absl::InfiniteFuture();
  const absl::Time day = absl::FromCivil(absl::CivilDay(absl::ToCivilDay(t, absl::UTCTimeZone())),
                                         absl::UTCTimeZone());
  absl::Time next = absl::InfiniteFuture();
  for (const Window& w : windows_) {
    for (int edge : {w.start_minute, w.end_minute % kMinutesPerDay}) {
      absl::Time at = day + absl::Minutes(edge);
      if (at <= t) at += absl::Hours(24);
      next = std::min(next, at);
    }
  }
  return next;
}

ReplicaSchedule ReplicaSchedule::Scaled(int32_t factor) const {
  ReplicaSchedule out = *this;
  for (Window& w : out.windows_) {
    w.replicas = static_cast<int32_t>(std::min<int64_t>(int64_t{w.replicas} * factor, INT32_MAX));
  }
  return out;
}

std::string ReplicaSchedule::ToString() const {
  std::vector<std::string> parts;
  for (const Window& w : windows_) {
    parts.push_back(absl::StrCat(Clock(w.start_minute), "-", Clock(w.end_minute), "=", w.replicas));
  }
  return absl::StrJoin(parts, ",");
}

}  // namespace gpua
