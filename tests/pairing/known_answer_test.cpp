// e(G1, G2) for the standard generators of both curves, against @noble/curves 1.9.7.
//
// How the values were obtained (node, @noble/curves 1.9.7 installed with npm outside the
// repository): f = c.pairing(G1, G2, false) is noble's Miller loop output (its tower is this
// one: Fp6 = Fp2[v]/(v³ − ξ), Fp12 = Fp6[w]/(w² − v), coefficients named c0, c1, c2 alike), and
// the exact pairing is c.fields.Fp12.pow(f, (p¹² − 1)/r). noble's own c.pairing(G1, G2) returns
// a fixed power of it, because its final exponentiations use shorter addition chains: the cube
// for BLS12-381 and the power 2x(6x² + 3x + 1) for BN254. Both relations are checked below,
// so results can be matched with libraries of either convention.

#include <gtest/gtest.h>

#include <array>

#include "tests/pairing/gmp_exponents.hpp"
#include "tests/pairing/pairing_curves.hpp"

namespace cuzk::test {
namespace {

// Fp12 from 12 hex coefficients in the order c0.c0.c0, c0.c0.c1, c0.c1.c0, ..., c1.c2.c1.
template <class Fp12>
Fp12 fp12_from_hex(const std::array<const char*, 12>& hex) {
  using Fp = typename Fp12::Fp2::Base;
  auto fp = [&](size_t i) {
    return Fp::from_int(Integer::from_hex(hex[i]).template limbs<Fp::kLimbs>());
  };
  auto fp2 = [&](size_t i) { return typename Fp12::Fp2{fp(i), fp(i + 1)}; };
  return {{fp2(0), fp2(2), fp2(4)}, {fp2(6), fp2(8), fp2(10)}};
}

TEST(PairingKnownAnswer, Bls12381Generators) {
  using namespace bls12_381;
  // noble: Fp12.pow(pairing(G1, G2, false), (p¹² − 1)/r).
  const Fp12 exact = fp12_from_hex<Fp12>({
      "11619b45f61edfe3b47a15fac19442526ff489dcda25e59121d9931438907dfd448299a87dde3a649bdba96e84d5"
      "4558",
      "153ce14a76a53e205ba8f275ef1137c56a566f638b52d34ba3bf3bf22f277d70f76316218c0dfd583a394b8448d2"
      "be7f",
      "095668fb4a02fe930ed44767834c915b283b1c6ca98c047bd4c272e9ac3f3ba6ff0b05a93e59c71fba77bce995f0"
      "4692",
      "16deedaa683124fe7260085184d88f7d036b86f53bb5b7f1fc5e248814782065413e7d958d17960109ea006b2afd"
      "eb5f",
      "09c92cf02f3cd3d2f9d34bc44eee0dd50314ed44ca5d30ce6a9ec0539be7a86b121edc61839ccc908c4bdde256cd"
      "6048",
      "111061f398efc2a97ff825b04d21089e24fd8b93a47e41e60eae7e9b2a38d54fa4dedced0811c34ce528781ab9e9"
      "29c7",
      "01ecfcf31c86257ab00b4709c33f1c9c4e007659dd5ffc4a735192167ce197058cfb4c94225e7f1b6c26ad9ba68f"
      "63bc",
      "08890726743a1f94a8193a166800b7787744a8ad8e2f9365db76863e894b7a11d83f90d873567e9d645ccf725b32"
      "d26f",
      "0e61c752414ca5dfd258e9606bac08daec29b3e2c57062669556954fb227d3f1260eedf25446a086b0844bcd4364"
      "6c10",
      "0fe63f185f56dd29150fc498bbeea78969e7e783043620db33f75a05a0a2ce5c442beaff9da195ff15164c00ab66"
      "bdde",
      "10900338a92ed0b47af211636f7cfdec717b7ee43900eee9b5fc24f0000c5874d4801372db478987691c566a8c47"
      "4978",
      "1454814f3085f0e6602247671bc408bbce2007201536818c901dbd4d2095dd86c1ec8b888e59611f60a301af7776"
      "be3d",
  });
  // noble: pairing(G1, G2).
  const Fp12 noble_pairing = fp12_from_hex<Fp12>({
      "1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca17"
      "89b6",
      "089a1c5b46e5110b86750ec6a532348868a84045483c92b7af5af689452eafabf1a8943e50439f1d59882a98eaa0"
      "170f",
      "1368bb445c7c2d209703f239689ce34c0378a68e72a6b3b216da0e22a5031b54ddff57309396b38c881c4c849ec2"
      "3e87",
      "193502b86edb8857c273fa075a50512937e0794e1e65a7617c90d8bd66065b1fffe51d7a579973b1315021ec3c19"
      "934f",
      "01b2f522473d171391125ba84dc4007cfbf2f8da752f7c74185203fcca589ac719c34dffbbaad8431dad1c1fb597"
      "aaa5",
      "018107154f25a764bd3c79937a45b84546da634b8f6be14a8061e55cceba478b23f7dacaa35c8ca78beae9624045"
      "b4b6",
      "19f26337d205fb469cd6bd15c3d5a04dc88784fbb3d0b2dbdea54d43b2b73f2cbb12d58386a8703e0f948226e47e"
      "e89d",
      "06fba23eb7c5af0d9f80940ca771b6ffd5857baaf222eb95a7d2809d61bfe02e1bfd1b68ff02f0b8102ae1c2d5d5"
      "ab1a",
      "11b8b424cd48bf38fcef68083b0b0ec5c81a93b330ee1a677d0d15ff7b984e8978ef48881e32fac91b93b47333e2"
      "ba57",
      "03350f55a7aefcd3c31b4fcb6ce5771cc6a0e9786ab5973320c806ad360829107ba810c5a09ffdd9be2291a0c25a"
      "99a2",
      "04c581234d086a9902249b64728ffd21a189e87935a954051c7cdba7b3872629a4fafc05066245cb9108f0242d0f"
      "e3ef",
      "0f41e58663bf08cf068672cbd01a7ec73baca4d72ca93544deff686bfd6df543d48eaa24afe47e1efde449383b67"
      "6631",
  });
  Fp12 e = bls12_381::pairing(G1Affine::generator(), G2Affine::generator());
  EXPECT_EQ(e, exact);
  EXPECT_EQ(e * e * e, noble_pairing);
}

TEST(PairingKnownAnswer, Bn254Generators) {
  using namespace bn254;
  // noble: Fp12.pow(pairing(G1, G2, false), (p¹² − 1)/r).
  const Fp12 exact = fp12_from_hex<Fp12>({
      "12c70e90e12b7874510cd1707e8856f71bf7f61d72631e268fca81000db9a1f5",
      "084f330485b09e866bc2f2ea2b897394deaf3f12aa31f28cb0552990967d4704",
      "0e841c2ac18a4003ac9326b9558380e0bc27fdd375e3605f96b819a358d34bde",
      "2067586885c3318eeffa1938c754fe3c60224ee5ae15e66af6b5104c47c8c5d8",
      "01676555de427abc409c4a394bc5426886302996919d4bf4bdd02236e14b3636",
      "2b03614464f04dd772d86df88674c270ffc8747ea13e72da95e3594468f222c4",
      "2c53748bcd21a7c038fb30ddc8ac3bf0af25d7859cfbc12c30c866276c565909",
      "27ed208e7a0b55ae6e710bbfbd2fd922669c026360e37cc5b2ab862411536104",
      "1ad9db1937fd72f4ac462173d31d3d6117411fa48dba8d499d762b47edb3b54a",
      "279db296f9d479292532c7c493d8e0722b6efae42158387564889c79fc038ee3",
      "0dc26f240656bbe2029bd441d77c221f0ba4c70c94b29b5f17f0f6d08745a069",
      "108c19d15f9446f744d0f110405d3856d6cc3bda6c4d537663729f5257628417",
  });
  // noble: pairing(G1, G2).
  const Fp12 noble_pairing = fp12_from_hex<Fp12>({
      "262b253feda94cfe0da01bde280a3ed6f87e5feb898578b55e1f63739d870e95",
      "02e02d2cc795a2000a1b1f823879abbd397c4dea0918ed66b49d34b48efb8a4a",
      "13a9f2d6e29b128da5b1ad44b31977935fd2957387ecb1fc4e135402fdbd1de0",
      "040ba9fa500f1a5c4b31984a74e68659c4b420bd699ce630b130b08a6ea1162b",
      "0afc2f3fd870678fbe359d7f9873f052478f590b211ce30bf5e3eeaef89eafdb",
      "1c54a530398c9064bdc662d929e645cadda9a712cc5a8243f9cddbd2d98dd1f0",
      "095c0fbf5d5a1ac023794a0d856f92591ba990ecfd4b7aef5c0d58c5dc2429fe",
      "14d3d6ca72d8a950a31dc10f7b4053c9e9ad9ebb590cb4a60f8215d4b99f2b4a",
      "1dc0e7bbc3d70e6689dc206b4b91c85759dc1a23043c585fdfaf545838ca7429",
      "0b53320e5a6488cb98a855ffc837d2a75ab90d61ac16cc1b7ab2cd3ed5e22b97",
      "13a8afd3085dae4c6c91476ef36cd1d318ce07bac42a9c0f9bd7fddaf5ebd723",
      "00f97b5221474526b601f3730a3afa965ceee1b343940c383e5314859e762c97",
  });
  Fp12 e = bn254::pairing(G1Affine::generator(), G2Affine::generator());
  EXPECT_EQ(e, exact);
  // m = 2x(6x² + 3x + 1), computed with GMP.
  const Integer x{ff::BigInt<1>{{kParamX}}};
  const Integer m = (x + x) * ((Integer(ff::BigInt<1>{{6}}) * x + 3) * x + 1);
  EXPECT_EQ(e.pow(m.limbs<4>()), noble_pairing);
}

}  // namespace
}  // namespace cuzk::test
