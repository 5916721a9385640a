#include "engine/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace cuzk::engine {
namespace {

std::string number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  std::ostringstream s;
  s.precision(12);
  s << v;
  return s.str();
}

std::string with_labels(const std::string& name, const std::string& labels,
                        const std::string& extra = "") {
  std::string all = labels;
  if (!extra.empty()) all += (all.empty() ? "" : ",") + extra;
  return all.empty() ? name : name + "{" + all + "}";
}

// Whole microseconds: a double through an ostream keeps 6 significant digits, which after an
// hour of uptime would round stage boundaries to seconds.
int64_t micros(Clock::time_point t, Clock::time_point origin) {
  if (t == Clock::time_point{}) return -1;
  return std::chrono::duration_cast<std::chrono::microseconds>(t - origin).count();
}

}  // namespace

void Metrics::describe(const std::string& name, Type type, const std::string& help,
                       std::vector<double> buckets) {
  std::lock_guard lock(mutex_);
  auto& f = families_[name];
  f.type = type;
  f.help = help;
  f.bounds = std::move(buckets);
}

void Metrics::add(const std::string& name, double value, const std::string& labels) {
  std::lock_guard lock(mutex_);
  families_[name].series[labels].value += value;
}

void Metrics::set(const std::string& name, double value, const std::string& labels) {
  std::lock_guard lock(mutex_);
  families_[name].series[labels].value = value;
}

void Metrics::observe(const std::string& name, double value, const std::string& labels) {
  std::lock_guard lock(mutex_);
  auto& f = families_[name];
  auto& s = f.series[labels];
  if (s.buckets.size() != f.bounds.size()) s.buckets.assign(f.bounds.size(), 0);
  s.value += value;
  ++s.count;
  for (size_t i = 0; i < f.bounds.size(); ++i) {
    if (value <= f.bounds[i]) {
      ++s.buckets[i];
      break;
    }
  }
}

double Metrics::value(const std::string& name, const std::string& labels) const {
  std::lock_guard lock(mutex_);
  auto f = families_.find(name);
  if (f == families_.end()) return 0;
  auto s = f->second.series.find(labels);
  return s == f->second.series.end() ? 0 : s->second.value;
}

std::string Metrics::prometheus_text() const {
  std::lock_guard lock(mutex_);
  std::ostringstream out;
  for (const auto& [name, f] : families_) {
    if (!f.help.empty()) out << "# HELP " << name << " " << f.help << "\n";
    const char* type = f.type == Type::kCounter ? "counter"
                       : f.type == Type::kGauge ? "gauge"
                                                : "histogram";
    out << "# TYPE " << name << " " << type << "\n";
    for (const auto& [labels, s] : f.series) {
      if (f.type != Type::kHistogram) {
        out << with_labels(name, labels) << " " << number(s.value) << "\n";
        continue;
      }
      uint64_t cumulative = 0;
      for (size_t i = 0; i < f.bounds.size(); ++i) {
        cumulative += i < s.buckets.size() ? s.buckets[i] : 0;
        out << with_labels(name + "_bucket", labels, "le=\"" + number(f.bounds[i]) + "\"") << " "
            << cumulative << "\n";
      }
      out << with_labels(name + "_bucket", labels, "le=\"+Inf\"") << " " << s.count << "\n";
      out << with_labels(name + "_sum", labels) << " " << number(s.value) << "\n";
      out << with_labels(name + "_count", labels) << " " << s.count << "\n";
    }
  }
  return out.str();
}

void Timeline::add(const TimelineRecord& record) {
  std::lock_guard lock(mutex_);
  records_.push_back(record);
  while (records_.size() > capacity_) records_.pop_front();
}

std::vector<TimelineRecord> Timeline::snapshot() const {
  std::lock_guard lock(mutex_);
  return {records_.begin(), records_.end()};
}

double Timeline::gpu_busy_fraction(int device, Clock::time_point from, Clock::time_point to) const {
  if (to <= from) return 0;
  std::vector<std::pair<Clock::time_point, Clock::time_point>> spans;
  {
    std::lock_guard lock(mutex_);
    for (const auto& r : records_) {
      if (r.device != device || r.compute_begin == Clock::time_point{} ||
          r.gpu_done == Clock::time_point{}) {
        continue;
      }
      auto b = std::max(r.compute_begin, from), e = std::min(r.gpu_done, to);
      if (b < e) spans.emplace_back(b, e);
    }
  }
  std::sort(spans.begin(), spans.end());
  Clock::duration busy{};
  Clock::time_point covered = from;
  for (auto [b, e] : spans) {
    b = std::max(b, covered);
    if (e > b) {
      busy += e - b;
      covered = e;
    }
  }
  return std::chrono::duration<double>(busy).count() /
         std::chrono::duration<double>(to - from).count();
}

std::string Timeline::to_json_lines(Clock::time_point origin) const {
  std::ostringstream out;
  for (const auto& r : snapshot()) {
    out << "{\"job\":" << r.job << ",\"partition\":" << r.partition << ",\"device\":" << r.device
        << ",\"worker\":" << r.worker << ",\"outcome\":\"" << job_state_name(r.outcome)
        << "\",\"taken_us\":" << micros(r.taken, origin)
        << ",\"prepared_us\":" << micros(r.prepared, origin)
        << ",\"stage_begin_us\":" << micros(r.stage_begin, origin)
        << ",\"staged_us\":" << micros(r.staged, origin)
        << ",\"compute_begin_us\":" << micros(r.compute_begin, origin)
        << ",\"gpu_done_us\":" << micros(r.gpu_done, origin)
        << ",\"finished_us\":" << micros(r.finished, origin) << "}\n";
  }
  return out.str();
}

}  // namespace cuzk::engine
