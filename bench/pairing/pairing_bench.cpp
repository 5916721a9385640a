// Host pairing costs per curve. The four-pair product is the shape of a Groth16 verification
// (e(A, B)·e(−α, β)·e(−L, γ)·e(−C, δ) = 1): one shared Miller loop and one final
// exponentiation.

#include <benchmark/benchmark.h>

#include <array>

#include "pairing/bls12_381_pairing.hpp"
#include "pairing/bn254_pairing.hpp"

namespace {

using namespace cuzk;

// Fixed, distinct group elements: k·G for small k.
template <class Data>
struct Inputs {
  using Pairing = pairing::OptimalAte<Data>;
  using Fr = typename Data::G1Curve::Scalar;
  std::array<typename Pairing::Pair, 4> pairs;
  Inputs() {
    for (size_t i = 0; i < pairs.size(); ++i) {
      Fr k = Fr::from_u64(7 + 3 * i);
      pairs[i] = {ec::scalar_mul(Pairing::G1Affine::generator(), k).to_affine(),
                  ec::scalar_mul(Pairing::G2Affine::generator(), k).to_affine()};
    }
  }
};

template <class Data>
void BM_MillerLoop(benchmark::State& state) {
  Inputs<Data> in;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        pairing::OptimalAte<Data>::miller_loop(in.pairs[0].first, in.pairs[0].second));
  }
}

template <class Data>
void BM_FinalExponentiation(benchmark::State& state) {
  Inputs<Data> in;
  auto f = pairing::OptimalAte<Data>::miller_loop(in.pairs[0].first, in.pairs[0].second);
  for (auto _ : state) benchmark::DoNotOptimize(pairing::OptimalAte<Data>::final_exponentiation(f));
}

template <class Data>
void BM_Pairing(benchmark::State& state) {
  Inputs<Data> in;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        pairing::OptimalAte<Data>::pairing(in.pairs[0].first, in.pairs[0].second));
  }
}

template <class Data>
void BM_FourPairProduct(benchmark::State& state) {
  Inputs<Data> in;
  for (auto _ : state) benchmark::DoNotOptimize(pairing::OptimalAte<Data>::multi_pairing(in.pairs));
}

BENCHMARK(BM_MillerLoop<bls12_381::PairingData>)
    ->Name("miller_loop/bls12_381")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MillerLoop<bn254::PairingData>)
    ->Name("miller_loop/bn254")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FinalExponentiation<bls12_381::PairingData>)
    ->Name("final_exponentiation/bls12_381")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FinalExponentiation<bn254::PairingData>)
    ->Name("final_exponentiation/bn254")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Pairing<bls12_381::PairingData>)
    ->Name("pairing/bls12_381")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Pairing<bn254::PairingData>)->Name("pairing/bn254")->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FourPairProduct<bls12_381::PairingData>)
    ->Name("four_pair_product/bls12_381")
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_FourPairProduct<bn254::PairingData>)
    ->Name("four_pair_product/bn254")
    ->Unit(benchmark::kMicrosecond);

}  // namespace
