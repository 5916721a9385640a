#pragma once
// The four groups under test, as traits for the typed suite in point_suite.hpp: the curve
// record, the curve's own subgroup check and cofactor clearing, and known answers.
//
// Known answers were computed with @noble/curves 2.4.0 (npm), G.double() and
// G.multiply(kKnownAnswerScalar), printed as affine coordinates in hex.

#include "curves/bls12_381.hpp"
#include "curves/bn254.hpp"
#include "ec/affine.hpp"
#include "ec/jacobian.hpp"
#include "ff/bigint.hpp"

namespace cuzk::test {

inline constexpr const char* kKnownAnswerScalarHex =
    "1d3c5b7a9f2e4d6c8b0a1f3e5d7c9b2a4f6e8d0c1b3a5f7e9d2c4b6a8f0e1d3c";

template <class Fp>
consteval Fp fp_hex(const char* hex) {
  return Fp::from_int(ff::parse_hex<Fp::kLimbs>(hex));
}

struct Bls12381G1 {
  using Curve = bls12_381::G1Curve;
  using Affine = ec::Affine<Curve>;
  using Fp = bls12_381::Fp;
  static bool is_in_subgroup(const Affine& p) { return bls12_381::is_in_subgroup(p); }
  static ec::Jacobian<Curve> clear_cofactor(const Affine& p) {
    return bls12_381::clear_cofactor(p);
  }
  static Affine two_g() {
    return {
        fp_hex<Fp>("0572cbea904d67468808c8eb50a9450c9721db309128012543902d0ac358a62ae28f75bb8f1c7"
                   "c42c39a8c5529bf0f4e"),
        fp_hex<Fp>("166a9d8cabc673a322fda673779d8e3822ba3ecb8670e461f73bb9021d5fd76a4c56d9d4cd16b"
                   "d1bba86881979749d28")};
  }
  static Affine k_g() {
    return {
        fp_hex<Fp>("065e24e11f04b410ac551af56309d8b418b533f5ccf42d9aee1a90d59f3831fd6dc1f69f4d40d"
                   "a49de000c1b4ce6e420"),
        fp_hex<Fp>("0e7c488d168f5756d55b4c0e828952afd4874ee0ff2eb50bc579d47fca16fbd34e502a596dcb8"
                   "110158d4face9ea0bc9")};
  }
};

struct Bls12381G2 {
  using Curve = bls12_381::G2Curve;
  using Affine = ec::Affine<Curve>;
  using Fp = bls12_381::Fp;
  static bool is_in_subgroup(const Affine& p) { return bls12_381::is_in_subgroup(p); }
  static ec::Jacobian<Curve> clear_cofactor(const Affine& p) {
    return bls12_381::clear_cofactor(p);
  }
  static Affine two_g() {
    return {
        {fp_hex<Fp>("1638533957d540a9d2370f17cc7ed5863bc0b995b8825e0ee1ea1e1e4d00dbae81f14b0bf36"
                    "11b78c952aacab827a053"),
         fp_hex<Fp>("0a4edef9c1ed7f729f520e47730a124fd70662a904ba1074728114d1031e1572c6c886f6b57"
                    "ec72a6178288c47c33577")},
        {fp_hex<Fp>("0468fb440d82b0630aeb8dca2b5256789a66da69bf91009cbfe6bd221e47aa8ae88dece9764"
                    "bf3bd999d95d71e4c9899"),
         fp_hex<Fp>("0f6d4552fa65dd2638b361543f887136a43253d9c66c411697003f7a13c308f5422e1aa0a59"
                    "c8967acdefd8b6e36ccf3")}};
  }
  static Affine k_g() {
    return {
        {fp_hex<Fp>("104f6bfd625127d9982a95ee4fef72c1061aecfef34bd657775a9584e03bf317bb5424db07d"
                    "cdd06e21f71bdad12df60"),
         fp_hex<Fp>("18c2694cb6e041f4306cbe95ad5583a5e00233f627bf82761993a6f5df8a2de697c5345c469"
                    "443693e316b346a48bede")},
        {fp_hex<Fp>("0ea4b9ccb2b6b29301776ed845e2dbb0794638147ad8ce523e54500517774cc62f0eabd491a"
                    "abc6cfd6b16ef31406b66"),
         fp_hex<Fp>("0ddda4344fa02620756b53aa1e08f687ef91681e7adafb67d1dfe509bc7dd1b97a80016999"
                    "771f31b94cf948f128d5c0")}};
  }
};

struct Bn254G1 {
  using Curve = bn254::G1Curve;
  using Affine = ec::Affine<Curve>;
  using Fp = bn254::Fp;
  static bool is_in_subgroup(const Affine& p) { return bn254::is_in_subgroup(p); }
  static ec::Jacobian<Curve> clear_cofactor(const Affine& p) { return bn254::clear_cofactor(p); }
  static Affine two_g() {
    return {fp_hex<Fp>("030644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd3"),
            fp_hex<Fp>("15ed738c0e0a7c92e7845f96b2ae9c0a68a6a449e3538fc7ff3ebf7a5a18a2c4")};
  }
  static Affine k_g() {
    return {fp_hex<Fp>("28dcedf88f0aa9e1c57fad66f6d4918127dfea6763c2e9eb998db6a8520fdb7b"),
            fp_hex<Fp>("022771df812d28395e9e3a9c0724abf12c3bb80ce0780d7071cd6d243758b330")};
  }
};

struct Bn254G2 {
  using Curve = bn254::G2Curve;
  using Affine = ec::Affine<Curve>;
  using Fp = bn254::Fp;
  static bool is_in_subgroup(const Affine& p) { return bn254::is_in_subgroup(p); }
  static ec::Jacobian<Curve> clear_cofactor(const Affine& p) { return bn254::clear_cofactor(p); }
  static Affine two_g() {
    return {{fp_hex<Fp>("27dc7234fd11d3e8c36c59277c3e6f149d5cd3cfa9a62aee49f8130962b4b3b9"),
             fp_hex<Fp>("203e205db4f19b37b60121b83a7333706db86431c6d835849957ed8c3928ad79")},
            {fp_hex<Fp>("04bb53b8977e5f92a0bc372742c4830944a59b4fe6b1c0466e2a6dad122b5d2e"),
             fp_hex<Fp>("195e8aa5b7827463722b8c153931579d3505566b4edf48d498e185f0509de152")}};
  }
  static Affine k_g() {
    return {{fp_hex<Fp>("0139b9a9643435b0c8f9ac7f2c6189a57307c1a91755791bd6147da3f59fb657"),
             fp_hex<Fp>("15bea664912248a3dd8b26f8f3c0142e5305bde96c291b187b8c94245c6188cd")},
            {fp_hex<Fp>("2c98c4bda4e8c8fc4c42679693807b049f3f0bd5e448d9074f279b1805b1fc97"),
             fp_hex<Fp>("0155e24dc3eeebf9820f519adfc93af8c3d8e85a7cc323685268ba944f7ec661")}};
  }
};

}  // namespace cuzk::test
