#pragma once
// Pippenger's buckets in affine coordinates, filled by batch-affine addition: the bucket
// accumulation of the CPU MSM (pippenger.hpp) for windows of batch_affine_min_window_bits
// (cpu_tuning.hpp) and more.
//
// Method. Additions into buckets are gathered into a batch of independent additions (no
// bucket twice), the slope denominators of the whole batch are inverted at once
// (batch_inversion.hpp), and the batch is applied (ec/affine_addition.hpp). An addition then
// costs 5M + 1S of the coordinate field (3M as its share of Montgomery's trick, 2M + 1S for
// the chord), against 8M + 2S for the XYZZ mixed addition, and a bucket takes two coordinates
// instead of four. On CPUs with AVX-512 IFMA a batch runs eight additions at a time
// (affine_batch_simd.hpp). A point whose bucket already has an addition in the open batch
// waits in a queue and enters a later batch; one for an empty bucket is stored there and costs
// nothing.
//
// Inputs concentrated on a few buckets (equal scalars on repeated bases, or few distinct
// digits) would leave batches nearly empty, each still paying a whole inversion. So when the
// queue is full while the open batch is too small to be worth its inversion
// (min_batch_size), and at the end for the last small batches, the waiting points go to a
// second set of buckets in XYZZ coordinates (mixed additions) instead. Before the reduction
// those are converted to affine (one batch inversion) and added into the affine buckets (one
// batch), so one reduction covers both: reducing the XYZZ set on its own costs two XYZZ
// additions per bucket, however few points it holds (random scalars spill some twenty points
// of 130 000 per window at 2^17 points; their own reduction of 2^12 buckets took 4-5% of
// the MSM on BN254 G1 and G2).
//
// Determinism: affine coordinates are unique, so an affine bucket's value does not depend on
// the order in which its points arrived, and everything else (the queue, the XYZZ buckets, the
// reduction) runs in the order of the calls. The same calls give the same coordinates.
//
// Thread-safety: one object per tile, used by one thread.

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "ec/affine.hpp"
#include "ec/affine_addition.hpp"
#include "ec/xyzz.hpp"
#include "msm/affine_batch_simd.hpp"
#include "msm/batch_inversion.hpp"

namespace cuzk::msm {

// Where the additions of an AffineBuckets went: for tests (every path exercised) and tuning
// (how full the batches are).
struct AffineBucketStats {
  size_t stored = 0;   // into an empty bucket, free
  size_t batched = 0;  // batch-affine additions
  size_t batches = 0;  // inversions
  size_t spilled = 0;  // mixed additions into the XYZZ buckets
};

template <class Curve>
class AffineBuckets {
 public:
  using Field = typename Curve::Base;
  using AffinePoint = ec::Affine<Curve>;
  using Xyzz = ec::Xyzz<Curve>;

  // `buckets` empty buckets; batches of at most batch_size additions, and batches smaller than
  // min_batch_size not worth their inversion (both taken as at least 1, the minimum as at most
  // the batch size).
  AffineBuckets(size_t buckets, size_t batch_size, size_t min_batch_size)
      : affine_(buckets, AffinePoint::infinity()),
        busy_(buckets, 0),
        batch_size_(std::max<size_t>(batch_size, 1)),
        min_batch_size_(std::clamp<size_t>(min_batch_size, 1, batch_size_)) {
    batch_.reserve(batch_size);
    queue_.reserve(batch_size);
    denominators_.reserve(batch_size);
  }

  // Bucket `bucket` += p, or −p if `negate`. p must not be the point at infinity, and must
  // stay where it is until finish() (the batch and the queue refer to it).
  void add(size_t bucket, const AffinePoint& p, bool negate) {
    const Pending op = {uint32_t(bucket), negate, &p};
    if (busy_[bucket]) {
      queue_.push_back(op);
      if (queue_.size() >= batch_size_) {
        if (batch_.size() >= min_batch_size_) {
          flush();
        } else {
          spill_queue();
        }
      }
      return;
    }
    AffinePoint& slot = affine_[bucket];
    if (slot.is_infinity()) {
      slot = point(op);
      ++stats_.stored;
      return;
    }
    push_to_batch(op);
    if (batch_.size() == batch_size_) flush();
  }

  // Completes every pending addition.
  void finish() {
    for (;;) {
      if (batch_.size() >= min_batch_size_) {
        apply_batch();
      } else {
        spill_batch();
      }
      refill_from_queue();
      if (batch_.empty()) break;  // no bucket busy, so refilling took the whole queue
    }
  }

  // Σ_j (j + 1)·B_j over the buckets, after finish().
  //
  // lanes ≤ 1: running sums R_j = B_top + ... + B_j and Σ_j R_j, a mixed and a full XYZZ
  // addition per bucket (12M + 2S and 8M + 2S).
  //
  // lanes = S ≥ 2: the buckets are cut into S segments of L = ⌈m/S⌉, and the running sums of
  // all segments advance together, so that each step is a batch of S independent affine
  // additions with one inversion (two steps per bucket: R_s += B_j, then T_s += R_s). Segment s
  // then holds R_s = Σ B_j and T_s = Σ (j − sL + 1)·B_j over its buckets, and
  //   Σ_j (j + 1)·B_j = Σ_s T_s + L·Σ_s s·R_s,
  // the last sum by running sums over the segments (XYZZ) and L by double-and-add. Per bucket
  // 2·(5M + 1S) plus 2 inversions per L buckets, against 20M + 4S for XYZZ: on G2, whose
  // inversion costs few multiplications of Fp2, that halves the reduction.
  //
  // The XYZZ buckets, if any were used, are reduced by running sums and added.
  Xyzz weighted_sum(size_t lanes = 0) {
    merge_spilled();
    return lanes >= 2 && affine_.size() >= 2 * lanes ? lane_weighted_sum(lanes)
                                                     : running_weighted_sum(affine_);
  }

  const AffineBucketStats& stats() const { return stats_; }

 private:
  using Pending = simd::BatchAddition<Curve>;  // bucket += ±point

  static AffinePoint point(const Pending& op) { return op.negate ? -*op.point : *op.point; }

  void push_to_batch(const Pending& op) {
    busy_[op.bucket] = 1;
    batch_.push_back(op);
  }

  // All pending additions of the batch into the buckets.
  void apply_batch() {
    stats_.batched += batch_.size();
    ++stats_.batches;
    for (const Pending& op : batch_) busy_[op.bucket] = 0;
    apply_open_batch(affine_);
  }

  // targets[op.bucket] += ±*op.point for every op of the batch (the targets are the buckets or
  // the reduction's lanes): denominators, one batch inversion, the sums; then the batch is
  // empty.
  void apply_open_batch(std::vector<AffinePoint>& targets) {
    if constexpr (simd::kHasAddBatch<Curve>) {
      if (simd::enabled()) {
        simd::add_batch<Curve>(targets, batch_);
        batch_.clear();
        return;
      }
    }
    const size_t size = batch_.size();
    points_.resize(size);
    denominators_.resize(size);
    for (size_t k = 0; k < size; ++k) {
      points_[k] = point(batch_[k]);
      denominators_[k] = ec::affine_sum_denominator(targets[batch_[k].bucket], points_[k]);
    }
    inverter_.for_each_inverse(
        denominators_,
        [&](size_t k, const Field& inverse) {
          AffinePoint& target = targets[batch_[k].bucket];
          target = ec::affine_sum(target, points_[k], inverse);
        },
        [&](size_t k, const Field& inverse_k, size_t l, const Field& inverse_l) {
          ec::affine_sum_two(targets[batch_[k].bucket], points_[k], inverse_k,
                             targets[batch_[l].bucket], points_[l], inverse_l);
        });
    batch_.clear();
  }

  // Moves waiting points, in order, into the batch while it has room and their bucket is free.
  void refill_from_queue() {
    size_t kept = 0;
    for (const Pending& op : queue_) {
      if (batch_.size() == batch_size_ || busy_[op.bucket]) {
        queue_[kept++] = op;
        continue;
      }
      AffinePoint& slot = affine_[op.bucket];
      if (slot.is_infinity()) {
        slot = point(op);
        ++stats_.stored;
      } else {
        push_to_batch(op);
      }
    }
    queue_.resize(kept);
  }

  // Applies full batches until the queue no longer fills one; then, if the queue is still
  // full, every point in it waits on a busy bucket: those go to the XYZZ buckets.
  void flush() {
    do {
      apply_batch();
      refill_from_queue();
    } while (batch_.size() == batch_size_);
    if (queue_.size() >= batch_size_) spill_queue();
  }

  // Mixed additions into the XYZZ buckets, in place of batch-affine ones.
  Xyzz& spilled(uint32_t bucket) {
    if (spilled_.empty()) spilled_.assign(affine_.size(), Xyzz::infinity());
    return spilled_[bucket];
  }
  void spill_queue() {
    for (const Pending& op : queue_) spilled(op.bucket) += point(op);
    stats_.spilled += queue_.size();
    queue_.clear();
  }
  void spill_batch() {
    for (const Pending& op : batch_) {
      spilled(op.bucket) += point(op);
      busy_[op.bucket] = 0;
    }
    stats_.spilled += batch_.size();
    batch_.clear();
  }

  // The XYZZ buckets into the affine ones, emptying the XYZZ set (see the top of the file).
  // Called after finish(): no bucket is busy, and the spilled buckets are distinct, so they
  // form one batch, whatever its size.
  void merge_spilled() {
    if (spilled_.empty()) return;
    std::vector<uint32_t> buckets;
    std::vector<Field> zzz;
    for (size_t j = 0; j < spilled_.size(); ++j) {
      if (spilled_[j].is_infinity()) continue;
      buckets.push_back(uint32_t(j));
      zzz.push_back(spilled_[j].ZZZ);
    }
    std::vector<AffinePoint> points(buckets.size());
    const auto convert = [&](size_t k, const Field& zzz_inverse) {
      points[k] = spilled_[buckets[k]].to_affine_given(zzz_inverse);
    };
    inverter_.for_each_inverse(
        std::span<const Field>(zzz), convert,
        [&](size_t k, const Field& inverse_k, size_t l, const Field& inverse_l) {
          convert(k, inverse_k);
          convert(l, inverse_l);
        });
    for (size_t k = 0; k < buckets.size(); ++k) {
      AffinePoint& slot = affine_[buckets[k]];
      if (slot.is_infinity()) {
        slot = points[k];
      } else {
        batch_.push_back({buckets[k], false, &points[k]});
      }
    }
    apply_open_batch(affine_);
    spilled_.clear();
  }

  template <class Point>
  static Xyzz running_weighted_sum(const std::vector<Point>& buckets) {
    Xyzz running = Xyzz::infinity();
    Xyzz sum = Xyzz::infinity();
    for (size_t j = buckets.size(); j-- > 0;) {
      running += buckets[j];
      sum += running;
    }
    return sum;
  }

  // lanes[s] += *addend(s) for every s where addend(s) is not null, as one batch.
  template <class Addend>
  void add_across_lanes(std::vector<AffinePoint>& lanes, Addend&& addend) {
    for (size_t s = 0; s < lanes.size(); ++s) {
      const AffinePoint* p = addend(s);
      if (p == nullptr || p->is_infinity()) continue;
      if (lanes[s].is_infinity()) {
        lanes[s] = *p;
        continue;
      }
      batch_.push_back({uint32_t(s), false, p});
    }
    apply_open_batch(lanes);
  }

  Xyzz lane_weighted_sum(size_t lanes) {
    const size_t m = affine_.size();
    const size_t segment = (m + lanes - 1) / lanes;
    std::vector<AffinePoint> running(lanes, AffinePoint::infinity());
    std::vector<AffinePoint> weighted(lanes, AffinePoint::infinity());
    for (size_t offset = segment; offset-- > 0;) {  // top of each segment first
      add_across_lanes(running, [&](size_t s) -> const AffinePoint* {
        const size_t j = s * segment + offset;
        return j < m ? &affine_[j] : nullptr;
      });
      add_across_lanes(weighted, [&](size_t s) -> const AffinePoint* { return &running[s]; });
    }
    Xyzz sum = Xyzz::infinity();
    for (const AffinePoint& t : weighted) sum += t;
    // Σ_s s·R_s = Σ_(s ≥ 1) (R_(S−1) + ... + R_s)
    Xyzz suffix = Xyzz::infinity();
    Xyzz by_segment = Xyzz::infinity();
    for (size_t s = lanes; s-- > 1;) {
      suffix += running[s];
      by_segment += suffix;
    }
    Xyzz times_segment = Xyzz::infinity();
    for (size_t bit = std::bit_width(segment); bit-- > 0;) {
      times_segment = times_segment.dbl();
      if ((segment >> bit) & 1) times_segment += by_segment;
    }
    return sum + times_segment;
  }

  std::vector<AffinePoint> affine_;  // the point at infinity, (0, 0), when empty
  std::vector<Xyzz> spilled_;        // allocated on the first spill
  std::vector<uint8_t> busy_;        // 1 while the bucket has an addition in the open batch
  std::vector<Pending> batch_;       // the open batch
  std::vector<AffinePoint> points_;  // its points, negated where the digit was (scalar path)
  std::vector<Pending> queue_;
  std::vector<Field> denominators_;
  BatchInverter<Field> inverter_;
  size_t batch_size_;
  size_t min_batch_size_;
  AffineBucketStats stats_;
};

}  // namespace cuzk::msm
