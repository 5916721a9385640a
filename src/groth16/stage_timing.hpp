#pragma once
// What the provers and setups time their stages with: the clock, progress announcements and
// the timed MSM (used by the CPU provers of this folder and the GPU file prover).

#include <chrono>
#include <span>

#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "groth16/prover.hpp"
#include "msm/instances.hpp"

namespace cuzk::groth16::timing {

using Clock = std::chrono::steady_clock;

inline double milliseconds_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Tells options.on_stage (when set) that `stage` begins.
template <class Curve>
void announce(const ProveOptions<Curve>& options, const char* stage) {
  if (options.on_stage) options.on_stage(stage);
}

// One classified MSM (zeros skipped, ones summed, the rest Pippenger), its time into `ms`.
template <class PointCurve>
ec::Jacobian<PointCurve> timed_msm(std::span<const ec::Affine<PointCurve>> bases,
                                   std::span<const typename PointCurve::Scalar> scalars,
                                   double& ms) {
  const auto start = Clock::now();
  auto sum = msm::msm_with_classification<PointCurve>(bases, scalars);
  ms = milliseconds_since(start);
  return sum;
}

}  // namespace cuzk::groth16::timing
