// Prometheus metrics as the controller keeps them: families of counters, gauges and
// histograms, each sample keyed by its label values, rendered in the text exposition format
// (version 0.0.4) that /metrics serves. Thread-safe: the loop writes, the HTTP server reads.
#ifndef GPUA_AUTOSCALER_CONTROLLER_METRICS_METRICS_REGISTRY_H_
#define GPUA_AUTOSCALER_CONTROLLER_METRICS_METRICS_REGISTRY_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace gpua {

enum class MetricType {
  kCounter,
  kGauge,
  kHistogram,
  // A gauge exposed without a type: cluster-autoscaler's names that end in _count
  // (nodes_count, node_group_min_count) read as histogram parts to Prometheus's linter when
  // typed as gauges; untyped, they keep their names and pass `promtool check metrics`.
  kUntyped,
};

class MetricsRegistry;

class MetricFamily {
 public:
  using LabelValues = std::vector<std::string>;
  // Only the registry makes families.
  class Key {
    friend class MetricsRegistry;
    Key() = default;
  };
  MetricFamily(Key, MetricType type, std::string name, std::string help,
               std::vector<std::string> label_names, std::vector<double> bounds, absl::Mutex* mu)
      : type_(type),
        name_(std::move(name)),
        help_(std::move(help)),
        label_names_(std::move(label_names)),
        bounds_(std::move(bounds)),
        mu_(mu) {}

  void Set(const LabelValues& labels, double value);      // gauges
  void Add(const LabelValues& labels, double delta);      // counters (and gauges)
  void Observe(const LabelValues& labels, double value);  // histograms
  // Drops every sample: for gauges whose label sets come and go (one per node group).
  void Clear();
  double Value(const LabelValues& labels) const;  // 0 when absent (tests, the health check)

  const std::string& name() const { return name_; }

 private:
  friend class MetricsRegistry;
  struct Sample {
    double value = 0;
    std::vector<uint64_t> buckets;  // histogram: observations <= each bound
    uint64_t count = 0;
    double sum = 0;
  };
  void Render(std::string& out) const;
  std::string Labels(const LabelValues& values, const std::string& extra = "") const;

  const MetricType type_;
  const std::string name_;
  const std::string help_;
  const std::vector<std::string> label_names_;
  const std::vector<double> bounds_;
  absl::Mutex* mu_;
  std::map<LabelValues, Sample> samples_;
};

class MetricsRegistry {
 public:
  MetricFamily& Counter(std::string name, std::string help, std::vector<std::string> labels = {});
  MetricFamily& Gauge(std::string name, std::string help, std::vector<std::string> labels = {});
  MetricFamily& Untyped(std::string name, std::string help, std::vector<std::string> labels = {});
  MetricFamily& Histogram(std::string name, std::string help, std::vector<std::string> labels,
                          std::vector<double> bounds);

  // Every family, in the order registered.
  std::string Render() const;

 private:
  MetricFamily& Register(MetricType type, std::string name, std::string help,
                         std::vector<std::string> labels, std::vector<double> bounds);

  mutable absl::Mutex mu_;
  std::vector<std::unique_ptr<MetricFamily>> families_;
};

}  // namespace gpua

#endif  // GPUA_AUTOSCALER_CONTROLLER_METRICS_METRICS_REGISTRY_H_
