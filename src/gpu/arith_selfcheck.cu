// Kernels of `cuzk selftest` (see arith_selfcheck.hpp): each check maps a CUZK_HD functor over
// random inputs on both sides and counts the elements whose bytes differ.

#include "gpu/arith_selfcheck.hpp"

#include <algorithm>
#include <cstring>
#include <random>

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "gpu/device_info.hpp"
#include "gpu/elementwise.cuh"

namespace cuzk::gpu {
namespace {

struct Mul {
  template <class F>
  CUZK_HD F operator()(const F& a, const F& b) const {
    return a * b;
  }
};
struct Add {
  template <class F>
  CUZK_HD F operator()(const F& a, const F& b) const {
    return a + b;
  }
};
// P + Q with Q affine (the MSM bucket operation), returned affine-free as Jacobian.
struct MixedAdd {
  template <class Jacobian, class Affine>
  CUZK_HD Jacobian operator()(const Jacobian& p, const Affine& q) const {
    return p + q;
  }
};

template <class Op, class... In>
ArithCheck compare(const std::string& what, Op op, const std::vector<In>&... in) {
  auto expected = map_on_host(op, in...);
  auto actual = map_on_device(op, in...);
  ArithCheck check{what, expected.size(), 0};
  for (size_t i = 0; i < expected.size(); ++i) {
    if (std::memcmp(&expected[i], &actual[i], sizeof(expected[i])) != 0) ++check.mismatches;
  }
  return check;
}

template <class F>
std::vector<F> random_elements(size_t n, std::mt19937_64& rng) {
  std::vector<F> v(n);
  for (auto& x : v) x = F::random(rng);
  return v;
}

// Random multiples of the generator, made cheaply: a short random walk G, G+R1, ... in
// Jacobian form (the check needs varied points, not independent ones).
template <class Fr, class Jacobian, class Affine>
void random_points(size_t n, std::mt19937_64& rng, std::vector<Jacobian>& jac,
                   std::vector<Affine>& aff) {
  Jacobian step = ec::scalar_mul(Affine::generator(), Fr::random(rng));
  Jacobian p = ec::scalar_mul(Affine::generator(), Fr::random(rng));
  jac.resize(n);
  for (auto& x : jac) x = (p = p + step);
  aff.resize(n);
  ec::batch_to_affine(std::span<const Jacobian>(jac), std::span<Affine>(aff));
  std::shuffle(aff.begin(), aff.end(), rng);
}

template <class Fp, class Fr, class Fp2, class G1J, class G1A, class G2J, class G2A>
void check_curve(const std::string& curve, size_t cases, std::mt19937_64& rng,
                 std::vector<ArithCheck>& out) {
  out.push_back(compare(curve + ".Fp mul", Mul{}, random_elements<Fp>(cases, rng),
                        random_elements<Fp>(cases, rng)));
  out.push_back(compare(curve + ".Fp add", Add{}, random_elements<Fp>(cases, rng),
                        random_elements<Fp>(cases, rng)));
  out.push_back(compare(curve + ".Fr mul", Mul{}, random_elements<Fr>(cases, rng),
                        random_elements<Fr>(cases, rng)));
  out.push_back(compare(curve + ".Fp2 mul", Mul{}, random_elements<Fp2>(cases, rng),
                        random_elements<Fp2>(cases, rng)));
  const size_t points = std::max<size_t>(1, cases / 16);
  std::vector<G1J> g1j;
  std::vector<G1A> g1a;
  random_points<Fr>(points, rng, g1j, g1a);
  out.push_back(compare(curve + ".G1 mixed add", MixedAdd{}, g1j, g1a));
  std::vector<G2J> g2j;
  std::vector<G2A> g2a;
  random_points<Fr>(points, rng, g2j, g2a);
  out.push_back(compare(curve + ".G2 mixed add", MixedAdd{}, g2j, g2a));
}

}  // namespace

ArithSelfcheck arith_selfcheck(size_t cases, uint64_t seed) {
  ArithSelfcheck result;
  if (device_count() == 0) {
    result.device = "no CUDA device or driver";
    return result;
  }
  result.device_present = true;
  result.device = describe(device_info(0));
  std::mt19937_64 rng(seed);
  {
    using namespace bls12_381;
    check_curve<Fp, Fr, Fp2, G1Jacobian, G1Affine, G2Jacobian, G2Affine>("bls12_381", cases, rng,
                                                                         result.checks);
  }
  {
    using namespace bn254;
    check_curve<Fp, Fr, Fp2, G1Jacobian, G1Affine, G2Jacobian, G2Affine>("bn254", cases, rng,
                                                                         result.checks);
  }
  return result;
}

}  // namespace cuzk::gpu
