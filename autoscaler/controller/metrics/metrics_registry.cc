#include "autoscaler/controller/metrics/metrics_registry.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace gpua {
namespace {

std::string Escape(absl::string_view s, bool quote) {
  std::string out;
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (quote && c == '"') {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) return absl::StrFormat("%.0f", v);
  return absl::StrFormat("%.15g", v);  // 98.32, not 98.319999999999993
}

absl::string_view TypeName(MetricType t) {
  switch (t) {
    case MetricType::kCounter:
      return "counter";
    case MetricType::kGauge:
      return "gauge";
    case MetricType::kHistogram:
      return "histogram";
    case MetricType::kUntyped:
      return "untyped";
  }
  return "untyped";
}

}  // namespace

void MetricFamily::Set(const LabelValues& labels, double value) {
  absl::MutexLock lock(mu_);
  samples_[labels].value = value;
}

void MetricFamily::Add(const LabelValues& labels, double delta) {
  absl::MutexLock lock(mu_);
  samples_[labels].value += delta;
}

void MetricFamily::Observe(const LabelValues& labels, double value) {
  absl::MutexLock lock(mu_);
  Sample& s = samples_[labels];
  if (s.buckets.empty()) s.buckets.assign(bounds_.size(), 0);
  for (size_t i = 0; i < bounds_.size(); ++i) s.buckets[i] += value <= bounds_[i];
  ++s.count;
  s.sum += value;
}

void MetricFamily::Clear() {
  absl::MutexLock lock(mu_);
  samples_.clear();
}

double MetricFamily::Value(const LabelValues& labels) const {
  absl::MutexLock lock(mu_);
  auto it = samples_.find(labels);
  return it == samples_.end() ? 0 : it->second.value;
}

std::string MetricFamily::Labels(const LabelValues& values, const std::string& extra) const {
  std::string out;
  for (size_t i = 0; i < label_names_.size() && i < values.size(); ++i) {
    absl::StrAppend(&out, out.empty() ? "" : ",", label_names_[i], "=\"", Escape(values[i], true),
                    "\"");
  }
  if (!extra.empty()) absl::StrAppend(&out, out.empty() ? "" : ",", extra);
  return out.empty() ? "" : absl::StrCat("{", out, "}");
}

void MetricFamily::Render(std::string& out) const {
  absl::StrAppend(&out, "# HELP ", name_, " ", Escape(help_, false), "\n");
  absl::StrAppend(&out, "# TYPE ", name_, " ", TypeName(type_), "\n");
  for (const auto& [labels, s] : samples_) {
    if (type_ != MetricType::kHistogram) {
      absl::StrAppend(&out, name_, Labels(labels), " ", Number(s.value), "\n");
      continue;
    }
    for (size_t i = 0; i < bounds_.size(); ++i) {
      absl::StrAppend(&out, name_, "_bucket",
                      Labels(labels, absl::StrCat("le=\"", Number(bounds_[i]), "\"")), " ",
                      s.buckets[i], "\n");
    }
    absl::StrAppend(&out, name_, "_bucket", Labels(labels, "le=\"+Inf\""), " ", s.count, "\n");
    absl::StrAppend(&out, name_, "_sum", Labels(labels), " ", Number(s.sum), "\n");
    absl::StrAppend(&out, name_, "_count", Labels(labels), " ", s.count, "\n");
  }
}

MetricFamily& MetricsRegistry::Register(MetricType type, std::string name, std::string help,
                                        std::vector<std::string> labels,
                                        std::vector<double> bounds) {
  absl::MutexLock lock(&mu_);
  families_.push_back(std::make_unique<MetricFamily>(MetricFamily::Key(), type, std::move(name),
                                                     std::move(help), std::move(labels),
                                                     std::move(bounds), &mu_));
  return *families_.back();
}

MetricFamily& MetricsRegistry::Counter(std::string name, std::string help,
                                       std::vector<std::string> labels) {
  return Register(MetricType::kCounter, std::move(name), std::move(help), std::move(labels), {});
}

MetricFamily& MetricsRegistry::Gauge(std::string name, std::string help,
                                     std::vector<std::string> labels) {
  return Register(MetricType::kGauge, std::move(name), std::move(help), std::move(labels), {});
}

MetricFamily& MetricsRegistry::Untyped(std::string name, std::string help,
                                       std::vector<std::string> labels) {
  return Register(MetricType::kUntyped, std::move(name), std::move(help), std::move(labels), {});
}

MetricFamily& MetricsRegistry::Histogram(std::string name, std::string help,
                                         std::vector<std::string> labels,
                                         std::vector<double> bounds) {
  return Register(MetricType::kHistogram, std::move(name), std::move(help), std::move(labels),
                  std::move(bounds));
}

std::string MetricsRegistry::Render() const {
  absl::MutexLock lock(&mu_);
  std::string out;
  for (const auto& f : families_) f->Render(out);
  return out;
}

}  // namespace gpua
