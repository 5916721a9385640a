// Writes the seed corpus of the fuzz targets: small valid files of each format for both
// curves, made by the formats' own writers from a fixed seed (so runs are reproducible).
//
//   cuzk_fuzz_seeds <dir>   creates <dir>/{container,r1cs,wtns,zkey,params}/ and fills them

#include <array>
#include <bit>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "ec/jacobian.hpp"
#include "ec/scalar_mul.hpp"
#include "formats/params.hpp"
#include "formats/r1cs.hpp"
#include "formats/wtns.hpp"
#include "formats/zkey.hpp"

namespace {

using namespace cuzk::formats;

void save(const std::filesystem::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

template <class Curve>
R1cs<Curve> make_r1cs(std::mt19937_64& rng, uint32_t n_constraints, uint32_t n_wires) {
  using Fr = typename Curve::Fr;
  R1cs<Curve> r{};
  r.header = {Curve::kId, n_wires, 1, 1, 0, n_wires, n_constraints};
  for (SparseMatrix<Fr>* m : {&r.a, &r.b, &r.c}) {
    m->row_start.push_back(0);
    for (uint32_t row = 0; row < n_constraints; ++row) {
      for (uint32_t t = rng() % 3; t > 0; --t) {
        m->column.push_back(uint32_t(rng() % n_wires));
        m->value.push_back(rng() % 2 ? Fr::one() : Fr::random(rng));
      }
      m->row_start.push_back(m->column.size());
    }
  }
  return r;
}

// Consecutive multiples of a random point: cheap valid subgroup points. Every fourth is the
// point at infinity unless with_infinity is false (bellman's files never hold it).
template <class Point>
std::vector<Point> make_points(std::mt19937_64& rng, size_t n, bool with_infinity = true) {
  using Curve = typename cuzk::io::CurveOf<Point>::type;
  using Fr = typename Curve::Scalar;
  cuzk::ec::Jacobian<Curve> step =
      cuzk::ec::scalar_mul(Point::generator(), Fr::random(rng).to_int());
  cuzk::ec::Jacobian<Curve> acc = step;
  std::vector<Point> out;
  for (size_t i = 0; i < n; ++i, acc += step) {
    out.push_back(with_infinity && i % 4 == 3 ? Point::infinity() : acc.to_affine());
  }
  return out;
}

template <class Curve>
Groth16Zkey<Curve> make_zkey(std::mt19937_64& rng, uint32_t n_vars, uint32_t n_public,
                             uint32_t domain) {
  using Fr = typename Curve::Fr;
  using G1 = typename Curve::G1;
  using G2 = typename Curve::G2;
  Groth16Zkey<Curve> key{};
  auto g1 = make_points<G1>(rng, 3);
  auto g2 = make_points<G2>(rng, 3);
  key.header = {n_vars, n_public, domain, g1[0], g1[1], g2[0], G2::generator(), g1[2], g2[1]};
  key.ic = make_points<G1>(rng, n_public + 1);
  key.a = make_points<G1>(rng, n_vars);
  key.b1 = make_points<G1>(rng, n_vars);
  key.b2 = make_points<G2>(rng, n_vars);
  key.c = make_points<G1>(rng, n_vars - n_public - 1);
  key.h = make_points<G1>(rng, domain);
  for (int i = 0; i < 6; ++i) {
    key.coefficients.push_back(
        {uint32_t(rng() % 2), uint32_t(rng() % domain), uint32_t(rng() % n_vars), Fr::random(rng)});
  }
  return key;
}

template <class Curve>
void write_seeds(const std::filesystem::path& dir, std::mt19937_64& rng) {
  using Fr = typename Curve::Fr;
  const std::string curve(snarkjs_curve_name(Curve::kId));
  for (uint32_t n : {1u, 3u, 8u}) {
    std::string tag = curve + "_" + std::to_string(n);
    std::vector<uint8_t> r1cs = r1cs_to_bytes(make_r1cs<Curve>(rng, n, n + 3));
    std::vector<Fr> witness(n + 3);
    witness[0] = Fr::one();
    for (size_t i = 1; i < witness.size(); ++i) witness[i] = Fr::random(rng);
    std::vector<uint8_t> wtns = wtns_to_bytes<Curve>(witness);
    std::vector<uint8_t> zkey =
        zkey_to_bytes(make_zkey<Curve>(rng, n + 2, 1, std::bit_ceil(2 * n)));
    save(dir / "r1cs" / (tag + ".r1cs"), r1cs);
    save(dir / "wtns" / (tag + ".wtns"), wtns);
    save(dir / "zkey" / (tag + ".zkey"), zkey);
    save(dir / "container" / (tag + ".r1cs"), r1cs);
    save(dir / "container" / (tag + ".wtns"), wtns);
    save(dir / "container" / (tag + ".zkey"), zkey);
  }
}

// bellman's BLS12-381 files for fuzz_params, which tries every input as a .params, a .vk and
// a batch of proofs: so the seeds are one of each, at a few sizes.
void write_params_seeds(const std::filesystem::path& dir, std::mt19937_64& rng) {
  using G1 = BellmanParams::G1;
  using G2 = BellmanParams::G2;
  for (uint32_t log_domain : {1u, 2u, 3u}) {
    const uint32_t n_public = log_domain;  // IC holds n_public + 1 points
    const uint32_t n_private = 2 * log_domain;
    BellmanParams params;
    auto g1 = make_points<G1>(rng, 3, false);
    auto g2 = make_points<G2>(rng, 3, false);
    params.vk = {
        g1[0], g1[1], g2[0], g2[1], g1[2], g2[2], make_points<G1>(rng, n_public + 1, false)};
    params.h = make_points<G1>(rng, (1u << log_domain) - 1, false);
    params.l = make_points<G1>(rng, n_private, false);
    params.a = make_points<G1>(rng, n_public + n_private, false);
    params.b_g1 = make_points<G1>(rng, n_private, false);
    params.b_g2 = make_points<G2>(rng, n_private, false);
    const std::string tag = "bls12_381_" + std::to_string(log_domain);
    save(dir / "params" / (tag + ".params"), bellman_params_to_bytes(params));
    save(dir / "params" / (tag + ".vk"), bellman_verifying_key_to_bytes(params.vk));

    std::vector<BellmanProof> proofs;
    for (uint32_t i = 0; i < log_domain; ++i) {
      auto a_c = make_points<G1>(rng, 2, false);
      proofs.push_back({a_c[0], make_points<G2>(rng, 1, false)[0], a_c[1]});
    }
    save(dir / "params" / (tag + ".proofs"), encode_bellman_proofs(proofs));
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <corpus directory>\n", argv[0]);
    return 2;
  }
  std::filesystem::path dir = argv[1];
  for (const char* sub : {"container", "r1cs", "wtns", "zkey", "params"}) {
    std::filesystem::create_directories(dir / sub);
  }
  std::mt19937_64 rng(20261129);
  write_seeds<Bn254>(dir, rng);
  write_seeds<Bls12_381>(dir, rng);
  write_params_seeds(dir, rng);
  return 0;
}
