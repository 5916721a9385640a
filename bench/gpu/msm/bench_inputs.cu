// Device generation of benchmark bases and scalars (see bench_inputs.cuh).

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "bench_inputs.cuh"
#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "ec/jacobian.hpp"
#include "ec/scalar_mul.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_memory.hpp"
#include "util/error.hpp"

namespace cuzk::bench {
namespace {

constexpr size_t kStarts = 64;
constexpr size_t kSteps = 16;
constexpr size_t kWalk = 64;  // points per thread: one inversion each
constexpr unsigned kThreads = 128;

template <class Curve>
__global__ void walk_and_normalize(const ec::Jacobian<Curve>* starts,
                                   const ec::Jacobian<Curve>* steps, size_t n,
                                   ec::Jacobian<Curve>* scratch, ec::Affine<Curve>* out) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t first = t * kWalk;
  if (first >= n) return;
  const size_t count = first + kWalk < n ? kWalk : n - first;
  ec::Jacobian<Curve> acc = starts[t % kStarts];
  for (size_t j = 0; j < count; ++j) {
    acc = acc + steps[(first + j) % kSteps];
    scratch[first + j] = acc;
  }
  ec::batch_to_affine(scratch + first, out + first, count);
}

__device__ uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

template <class Fr>
__global__ void hash_scalars(Fr* out, size_t n, bool porep, uint64_t seed) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const uint64_t h = splitmix64(seed ^ (i * 0x2545f4914f6cdd1dull));
  if (porep && h % 10 < 4) {
    out[i] = Fr::zero();
    return;
  }
  if (porep && h % 10 < 8) {
    out[i] = Fr::one();
    return;
  }
  Fr s;
  for (size_t k = 0; k < Fr::kLimbs; ++k) s.mont[k] = splitmix64(h + k);
  // Below 2^(bits−1) < r: a valid Montgomery representative.
  const unsigned top_bits = unsigned(Fr::kBits - 1 - 64 * (Fr::kLimbs - 1));
  s.mont[Fr::kLimbs - 1] &= (uint64_t(1) << top_bits) - 1;
  out[i] = s;
}

}  // namespace

template <class Curve>
void make_device_bases(ec::Affine<Curve>* bases, size_t n, uint64_t seed, cudaStream_t stream) {
  using Jac = ec::Jacobian<Curve>;
  std::mt19937_64 rng(seed);
  std::vector<Jac> host(kStarts + kSteps);
  for (Jac& p : host) p = ec::mul_generator<Curve>(Curve::Scalar::random(rng));
  auto points = gpu::DeviceBuffer<Jac>::allocate_blocking(host.size());
  points.upload(host, stream);
  auto scratch = gpu::DeviceBuffer<Jac>::allocate_blocking(n);
  const size_t threads = (n + kWalk - 1) / kWalk;
  walk_and_normalize<Curve><<<unsigned((threads + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      points.data(), points.data() + kStarts, n, scratch.data(), bases);
  CUZK_CHECK_LAUNCH();
  // Spot check of the normalization: a few points, the first and last of their threads' runs
  // among them, must be on the curve (a broken conversion would still give timings).
  if (n == 0) return;
  for (const size_t i : {size_t(0), std::min(n, kWalk) - 1, n / 2, n - 1}) {
    ec::Affine<Curve> p;
    CUDA_CHECK(cudaMemcpyAsync(&p, bases + i, sizeof(p), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    if (!p.is_on_curve() || p.is_infinity()) {
      CUZK_THROW(ErrorKind::kInternal,
                 "benchmark bases: point " + std::to_string(i) + " is not a finite curve point");
    }
  }
}

template <class Curve>
void make_device_scalars(typename Curve::Scalar* scalars, size_t n, ScalarShape shape,
                         uint64_t seed, cudaStream_t stream) {
  hash_scalars<typename Curve::Scalar>
      <<<unsigned((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
          scalars, n, shape == ScalarShape::kPorep, seed);
  CUZK_CHECK_LAUNCH();
}

#define CUZK_BENCH_INPUTS(Curve)                                                                   \
  template void make_device_bases<Curve>(ec::Affine<Curve>*, size_t, uint64_t, cudaStream_t);      \
  template void make_device_scalars<Curve>(typename Curve::Scalar*, size_t, ScalarShape, uint64_t, \
                                           cudaStream_t);
CUZK_BENCH_INPUTS(bls12_381::G1Curve)
CUZK_BENCH_INPUTS(bls12_381::G2Curve)
CUZK_BENCH_INPUTS(bn254::G1Curve)
CUZK_BENCH_INPUTS(bn254::G2Curve)

}  // namespace cuzk::bench
