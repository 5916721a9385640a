#pragma once
// What the engine reports: Metrics (counters, gauges and histograms, rendered as Prometheus
// text) and the Timeline (per partition and worker, the time of every stage boundary: the
// source of the GPU busy fraction and of a later timeline picture).
//
// Thread-safety: every member of both classes may be called from any thread (one mutex each;
// they are touched a few times per partition, far from the kernels' critical path).

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "engine/job.hpp"

namespace cuzk::engine {

class Metrics {
 public:
  enum class Type { kCounter, kGauge, kHistogram };
  // Declares a family; `buckets` are the upper bounds of a histogram's buckets. A family
  // used before it is declared is an untyped gauge (no HELP line).
  void describe(const std::string& name, Type type, const std::string& help,
                std::vector<double> buckets = {});
  // `labels` is Prometheus label text without braces, e.g. `gpu="0"`, or empty.
  void add(const std::string& name, double value = 1, const std::string& labels = "");
  void set(const std::string& name, double value, const std::string& labels = "");
  void observe(const std::string& name, double value, const std::string& labels = "");
  double value(const std::string& name, const std::string& labels = "") const;
  // The Prometheus text exposition format (version 0.0.4).
  std::string prometheus_text() const;

 private:
  struct Series {
    double value = 0;               // counter, gauge; histogram: sum
    uint64_t count = 0;             // histogram
    std::vector<uint64_t> buckets;  // histogram, cumulative on output
  };
  struct Family {
    Type type = Type::kGauge;
    std::string help;
    std::vector<double> bounds;
    std::map<std::string, Series> series;
  };
  mutable std::mutex mutex_;
  std::map<std::string, Family> families_;
};

// One partition's passage through a worker. Times are steady_clock; a stage not reached keeps
// the default (epoch) value. cpu workers have device -1 and no stage/compute boundaries.
struct TimelineRecord {
  JobId job = 0;
  uint32_t partition = 0;
  int device = -1;
  int worker = 0;  // index within the device (or within the CPU pool)
  // stage_begin: when its worker began to stage it; after `prepared` by the time the partition
  // waited, prepared ahead, for the worker's previous partition to end.
  Clock::time_point taken{}, prepared{}, stage_begin{}, staged{}, compute_begin{}, gpu_done{},
      finished{};
  JobState outcome = JobState::kSucceeded;  // kSucceeded, kFailed or kCancelled
};

class Timeline {
 public:
  explicit Timeline(size_t capacity = 1 << 16) : capacity_(capacity) {}
  void add(const TimelineRecord& record);  // the oldest records go beyond the capacity
  std::vector<TimelineRecord> snapshot() const;
  // The fraction of [from, to) during which some partition of `device` was between
  // compute_begin and gpu_done: an upper bound of the device's busy time, since a partition's
  // kernels may wait behind another's on the compute engine inside that interval.
  double gpu_busy_fraction(int device, Clock::time_point from, Clock::time_point to) const;
  // One JSON object per line: job, partition, device, worker, outcome and the stage times in
  // microseconds since `origin`.
  std::string to_json_lines(Clock::time_point origin) const;

 private:
  size_t capacity_;
  mutable std::mutex mutex_;
  std::deque<TimelineRecord> records_;
};

}  // namespace cuzk::engine
