#pragma once
// The optimal ate pairing e: G1 × G2 → GT ⊂ Fp12 for BLS12 and BN curves with a sextic twist,
// one template for both families (host code, for verification).
//
//   e(P, Q) = f^((p¹² − 1)/r),  f = miller_loop(P, Q),
//
// exactly: the final exponentiation computes the exponent (p¹² − 1)/r itself, not a multiple
// of it (several libraries return a fixed power of this value, e.g. @noble/curves: the cube
// for BLS12-381 and the power 2x(6x² + 3x + 1) for BN254; the tests pin both relations).
//
// A pairing record is data; the rest is derived here:
//
//   struct PairingData {
//     using G1Curve = ...;  using G2Curve = ...;  // ec/affine.hpp curve records
//     using Tower = ...;                          // ff/fp6.hpp tower record
//     static constexpr pairing::Family kFamily = ...;
//     static constexpr pairing::Twist kTwist = ...;
//     static constexpr uint64_t kAbsX = ...;  static constexpr bool kXIsNegative = ...;
//   };
//
// Miller loop (Vercauteren, "Optimal pairings", 2010):
//   BLS12: f = f_{x,Q}(P), the loop over the bits of |x|, conjugated when x < 0 (f_{−n,Q} =
//          1/(f_{n,Q}·v), and after the easy part 1/f is the conjugate; v dies there).
//   BN:    f = f_{6x+2,Q}(P)·l_{T,π(Q)}(P)·l_{T+π(Q),−π²(Q)}(P), T = [6x + 2]Q, the loop over
//          the signed NAF of 6x + 2.
// The point T runs in homogeneous projective coordinates on the twist E'(Fp2); the line
// through it, evaluated at P and mapped into Fp12 by the untwisting, has three nonzero Fp2
// coefficients (Costello, Lange, Naehrig, "Faster pairing computations on curves with
// high-degree twists", PKC 2010; Aranha, Karabina, Longa, Gebotys, López, "Faster explicit
// formulas for computing pairings over ordinary curves", Eurocrypt 2011, §4).
//
// Inputs: points on the curves (checked; kInvalidInput otherwise) and in the prime-order
// subgroups G1, G2 (not checked here: decoders check subgroup membership, ec/subgroup.hpp;
// points outside the subgroups give meaningless values but no undefined behaviour). A pair
// with a point at infinity contributes the factor 1.
//
// Thread-safety: pure functions of their arguments.

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "ec/affine.hpp"
#include "ff/bigint.hpp"
#include "ff/fp12.hpp"
#include "util/error.hpp"

namespace cuzk::pairing {

enum class Family { kBn, kBls12 };

// Where the twist E': y² = x³ + b' sends its points into E(Fp12), w⁶ = ξ:
//   D-type (divisive):       b' = b/ξ, (x, y) ↦ (x·w², y·w³)   (BN254)
//   M-type (multiplicative): b' = b·ξ, (x, y) ↦ (x/w², y/w³)   (BLS12-381)
enum class Twist { kDType, kMType };

// Signed binary digits of a Miller loop count, most significant first.
struct LoopDigits {
  int8_t digit[130];
  size_t count;
};

// Plain binary: bit_length(n) digits in {0, 1}.
constexpr LoopDigits binary_digits(unsigned __int128 n) {
  LoopDigits d{};
  size_t bits = 0;
  for (unsigned __int128 m = n; m != 0; m >>= 1) ++bits;
  for (size_t i = 0; i < bits; ++i) d.digit[i] = int8_t((n >> (bits - 1 - i)) & 1);
  d.count = bits;
  return d;
}

// Non-adjacent form: digits in {−1, 0, 1}, no two adjacent nonzero, the fewest nonzero digits
// of any signed binary form (at most one digit longer than binary).
constexpr LoopDigits naf_digits(unsigned __int128 n) {
  int8_t low_first[130] = {};
  size_t count = 0;
  while (n != 0) {
    int8_t digit = 0;
    if (n & 1) {
      digit = (n & 3) == 1 ? 1 : -1;  // makes n − digit divisible by 4
      n = digit == 1 ? n - 1 : n + 1;
    }
    low_first[count++] = digit;
    n >>= 1;
  }
  LoopDigits d{};
  for (size_t i = 0; i < count; ++i) d.digit[i] = low_first[count - 1 - i];
  d.count = count;
  return d;
}

template <class Data>
class OptimalAte {
 public:
  using G1Affine = ec::Affine<typename Data::G1Curve>;
  using G2Affine = ec::Affine<typename Data::G2Curve>;
  using Fp = typename G1Affine::Field;
  using Fp2 = typename G2Affine::Field;
  using Fp12 = ff::Fp12<typename Data::Tower>;
  using Constants = ff::TowerConstants<typename Data::Tower>;
  using Pair = std::pair<G1Affine, G2Affine>;

  // A point of the twist in homogeneous projective coordinates: (X : Y : Z) ↦ (X/Z, Y/Z).
  struct TwistPoint {
    Fp2 X, Y, Z;
  };

  // A line l(P) = y_coeff·y_P + x_coeff·x_P + constant, each term at the Fp12 position that
  // the twist type gives it (mul_by_line).
  struct Line {
    Fp2 y_coeff, x_coeff, constant;
  };

  // The Miller loop value of one pair (1 if either point is infinity).
  static Fp12 miller_loop(const G1Affine& p, const G2Affine& q);
  // The product of the Miller loop values of all pairs, computed in one loop that shares the
  // squarings of f (one Fp12 squaring per step for all pairs, not one per pair).
  static Fp12 miller_loop(std::span<const Pair> pairs);
  // f^((p¹² − 1)/r); f must be nonzero (every Miller loop value is).
  static Fp12 final_exponentiation(const Fp12& f);

  static Fp12 pairing(const G1Affine& p, const G2Affine& q) {
    return final_exponentiation(miller_loop(p, q));
  }
  // Π e(P_i, Q_i) with one final exponentiation.
  static Fp12 multi_pairing(std::span<const Pair> pairs) {
    return final_exponentiation(miller_loop(pairs));
  }
  // Π e(P_i, Q_i) = 1, the check of pairing-based verifiers.
  static bool pairing_product_is_one(std::span<const Pair> pairs) {
    return multi_pairing(pairs).is_one();
  }

  // The loop steps, public for the tests: T ← 2T and T ← T + Q, each returning the line
  // through the points it combined (tangent or chord) before they are mapped by the untwisting.
  static Line double_step(TwistPoint& t);
  static Line add_step(TwistPoint& t, const G2Affine& q);
  // The p- and p²-power Frobenius endomorphisms of E carried to the twist (π = untwist⁻¹ ∘
  // Frobenius ∘ untwist); on G2 they act as multiplication by p and p² (mod r).
  static G2Affine frobenius(const G2Affine& q);
  static G2Affine frobenius2(const G2Affine& q);

  // The Miller loop count: |x| for BLS12, 6x + 2 for BN.
  static constexpr LoopDigits kLoopDigits =
      Data::kFamily == Family::kBls12 ? binary_digits(Data::kAbsX)
                                      : naf_digits(6 * (unsigned __int128)Data::kAbsX + 2);

 private:
  static_assert(Data::kFamily == Family::kBls12 ||
                    (Data::kTwist == Twist::kDType && !Data::kXIsNegative),
                "the BN branch is written for a D-type twist and 6x + 2 > 0 (BN254)");

  // 3b' for the doubling step, with b' checked against E's b and ξ for the declared twist type.
  static constexpr Fp2 kThreeTwistB = [] {
    constexpr Fp2 b{Data::G1Curve::b(), Fp::zero()};
    constexpr Fp2 twist_b = Data::G2Curve::b();
    static_assert(Data::kTwist == Twist::kMType ? twist_b == b * Constants::kXi
                                                : twist_b * Constants::kXi == b,
                  "G2's curve constant does not match the twist type");
    return twist_b + twist_b + twist_b;
  }();

  // [k − 1][0], [k − 1][1]: the coefficients of x and y in π_k on the twist (frobenius()).
  static constexpr Fp2 kTwistFrobenius[2][2] = {
      {Data::kTwist == Twist::kDType ? Constants::kFrobenius[1][2]
                                     : Constants::kFrobenius[1][2].inverse(),
       Data::kTwist == Twist::kDType ? Constants::kFrobenius[1][3]
                                     : Constants::kFrobenius[1][3].inverse()},
      {Data::kTwist == Twist::kDType ? Constants::kFrobenius[2][2]
                                     : Constants::kFrobenius[2][2].inverse(),
       Data::kTwist == Twist::kDType ? Constants::kFrobenius[2][3]
                                     : Constants::kFrobenius[2][3].inverse()}};

  struct PairState {
    Fp x, y;       // P
    G2Affine q;    // Q
    TwistPoint t;  // T
  };

  static Fp12 mul_by_line(const Fp12& f, const Line& l, const PairState& s);
  static Fp12 pow_x(const Fp12& g);  // g^x in the cyclotomic subgroup
  static Fp12 hard_part(const Fp12& g);
};

// ---- Miller loop --------------------------------------------------------------------------

// Tangent at T, then T ← 2T; for y² = x³ + b' in homogeneous projective coordinates.
//
// Line: with λ = 3x²/(2y) the tangent slope on E', the untwisted tangent at P, multiplied by
// 2YZ (an Fp2 factor, which the final exponentiation removes) and, for the M-type, by w³
// (also removed: (w³)^(p⁶ − 1) = ξ^((p⁶ − 1)/2) = −1 and (p⁶ + 1)/r is even), is, using
// X³ = Y²Z − b'Z³,
//   −2YZ·y_P + 3X²·x_P·w + (3b'Z² − Y²)·w³      (D-type: positions w⁰, w¹, w³)
//   (3b'Z² − Y²) + 3X²·x_P·w² − 2YZ·y_P·w³      (M-type: positions w⁰, w², w³).
// Point: Aranha et al. eq. (10), X₃ = XY/2·(Y² − 9b'Z²), Y₃ = ((Y² + 9b'Z²)/2)² − 27b'²Z⁴,
// Z₃ = 2Y³Z, here scaled by 4 (the same projective point) to avoid the halvings:
//   X₃ = 2XY·(B − F), Y₃ = (B + F)² − 12E², Z₃ = 4B·H,
// B = Y², C = Z², E = 3b'C, F = 3E, H = (Y + Z)² − B − C = 2YZ.
// 4 M2 (one by the constant 3b') + 6 S2.
template <class Data>
typename OptimalAte<Data>::Line OptimalAte<Data>::double_step(TwistPoint& t) {
  Fp2 xy = t.X * t.Y;
  Fp2 b = t.Y.sqr();
  Fp2 c = t.Z.sqr();
  Fp2 e = c * kThreeTwistB;
  Fp2 f = e.dbl() + e;
  Fp2 h = (t.Y + t.Z).sqr() - b - c;
  Fp2 j = t.X.sqr();
  Fp2 four_e2 = e.sqr().dbl().dbl();
  Line line{-h, j.dbl() + j, e - b};
  t.X = (xy * (b - f)).dbl();
  t.Y = (b + f).sqr() - (four_e2.dbl() + four_e2);
  t.Z = (b * h).dbl().dbl();
  return line;
}

// Chord through T and the affine Q, then T ← T + Q (mixed addition).
//
// With θ = Y − y_Q·Z and λ = X − x_Q·Z the slope on E' is θ/λ; the untwisted chord at P,
// multiplied by λ (and by w³ for the M-type), is
//   λ·y_P − θ·x_P·w + (θ·x_Q − λ·y_Q)·w³        (D-type)
//   (θ·x_Q − λ·y_Q) − θ·x_P·w² + λ·y_P·w³       (M-type).
// Point (Costello–Lange–Naehrig §5 / Aranha et al. §4): C = θ², D = λ², E = λ·D, F = Z·C,
// G = X·D, H = E + F − 2G, X₃ = λ·H, Y₃ = θ·(G − H) − Y·E, Z₃ = Z·E.
// 11 M2 + 2 S2.
template <class Data>
typename OptimalAte<Data>::Line OptimalAte<Data>::add_step(TwistPoint& t, const G2Affine& q) {
  Fp2 theta = t.Y - q.y * t.Z;
  Fp2 lambda = t.X - q.x * t.Z;
  Fp2 c = theta.sqr();
  Fp2 d = lambda.sqr();
  Fp2 e = lambda * d;
  Fp2 f = t.Z * c;
  Fp2 g = t.X * d;
  Fp2 h = e + f - g.dbl();
  Line line{lambda, -theta, theta * q.x - lambda * q.y};
  t.X = lambda * h;
  t.Y = theta * (g - h) - t.Y * e;
  t.Z = t.Z * e;
  return line;
}

// Evaluates the line at P (2 M2 by Fp elements = 4 M) and multiplies it into f (13 M2).
template <class Data>
typename OptimalAte<Data>::Fp12 OptimalAte<Data>::mul_by_line(const Fp12& f, const Line& l,
                                                              const PairState& s) {
  Fp2 y_term = l.y_coeff * s.y;
  Fp2 x_term = l.x_coeff * s.x;
  if constexpr (Data::kTwist == Twist::kDType) {
    return f.mul_by_034(y_term, x_term, l.constant);
  } else {
    return f.mul_by_014(l.constant, x_term, y_term);
  }
}

// The D-type untwisting sends (x, y) to (x·w², y·w³); the p^k-power Frobenius of E maps that
// to (x^(p^k)·w^(2p^k), y^(p^k)·w^(3p^k)), and w^(m·p^k) = w^m·γ[k][m] (ff/fp6.hpp), so on the
// twist π_k(x, y) = (x^(p^k)·γ[k][2], y^(p^k)·γ[k][3]), x^(p^k) being x̄ for odd k. The M-type
// untwisting divides by w², w³ instead, and the coefficients are the inverses. 2 M2.
template <class Data>
typename OptimalAte<Data>::G2Affine OptimalAte<Data>::frobenius(const G2Affine& q) {
  return {q.x.conjugate() * kTwistFrobenius[0][0], q.y.conjugate() * kTwistFrobenius[0][1]};
}
template <class Data>
typename OptimalAte<Data>::G2Affine OptimalAte<Data>::frobenius2(const G2Affine& q) {
  return {q.x * kTwistFrobenius[1][0], q.y * kTwistFrobenius[1][1]};
}

template <class Data>
typename OptimalAte<Data>::Fp12 OptimalAte<Data>::miller_loop(const G1Affine& p,
                                                              const G2Affine& q) {
  Pair pair{p, q};
  return miller_loop(std::span<const Pair>(&pair, 1));
}

template <class Data>
typename OptimalAte<Data>::Fp12 OptimalAte<Data>::miller_loop(std::span<const Pair> pairs) {
  std::vector<PairState> states;
  states.reserve(pairs.size());
  for (const auto& [p, q] : pairs) {
    if (!p.is_on_curve()) CUZK_INVALID_INPUT("pairing: a G1 point is not on the curve");
    if (!q.is_on_curve()) CUZK_INVALID_INPUT("pairing: a G2 point is not on the twist");
    if (p.is_infinity() || q.is_infinity()) continue;  // e(O, Q) = e(P, O) = 1
    states.push_back({p.x, p.y, q, {q.x, q.y, Fp2::one()}});
  }
  Fp12 f = Fp12::one();
  if (states.empty()) return f;

  // The leading digit is 1 and T starts at Q; f is still 1 at the first step, so its squaring
  // is skipped.
  for (size_t i = 1; i < kLoopDigits.count; ++i) {
    if (i > 1) f = f.sqr();
    for (auto& s : states) f = mul_by_line(f, double_step(s.t), s);
    int digit = kLoopDigits.digit[i];
    if (digit == 0) continue;
    for (auto& s : states) f = mul_by_line(f, add_step(s.t, digit > 0 ? s.q : -s.q), s);
  }

  if constexpr (Data::kFamily == Family::kBn) {
    // The two extra lines of the BN optimal ate pairing: through T = [6x + 2]Q and π(Q), then
    // through T + π(Q) and −π²(Q) (the sum is O for Q in G2, so T needs no update after it).
    for (auto& s : states) {
      f = mul_by_line(f, add_step(s.t, frobenius(s.q)), s);
      f = mul_by_line(f, add_step(s.t, -frobenius2(s.q)), s);
    }
  }
  if constexpr (Data::kXIsNegative) f = f.conjugate();
  return f;
}

// ---- Final exponentiation -----------------------------------------------------------------

// (p¹² − 1)/r = (p⁶ − 1)(p² + 1)·Φ12(p)/r with Φ12(p) = p⁴ − p² + 1.
// Easy part: f^(p⁶ − 1) = conj(f)·f⁻¹, then g^(p² + 1) = π²(g)·g: 1 inversion + 2 M12 + a
// Frobenius. The result lies in the cyclotomic subgroup, where conjugation inverts and
// cyclotomic squarings apply.
template <class Data>
typename OptimalAte<Data>::Fp12 OptimalAte<Data>::final_exponentiation(const Fp12& f) {
  Fp12 g = f.conjugate() * f.inverse();
  g = g.frobenius_map(2) * g;
  return hard_part(g);
}

template <class Data>
typename OptimalAte<Data>::Fp12 OptimalAte<Data>::pow_x(const Fp12& g) {
  Fp12 r = g.cyclotomic_pow(Data::kAbsX);
  return Data::kXIsNegative ? r.conjugate() : r;
}

// g^(Φ12(p)/r) for g in the cyclotomic subgroup, exactly.
//
// BLS12 (r = x⁴ − x² + 1, p = (x − 1)²·r/3 + x): Hayashida, Hayasaka, Teruya, "Efficient final
// exponentiation via cyclotomic structure for pairings over families of elliptic curves"
// (ePrint 2020/875) give 3·Φ12(p)/r = (x − 1)²(x + p)(x² + p² − 1) + 3. Since 3 | x − 1, the
// exponent itself is Σ μ_i·p^i with
//   μ3 = (x − 1)²/3, μ2 = μ3·x, μ1 = μ2·x − μ3, μ0 = μ1·x + 1
// (the cube of the result, which libraries that keep the "+3" form compute, is another
// pairing: e³ ≠ e). Cost: one exponentiation by (x − 1)/3 (62 cyclotomic squarings, 27 M12
// for BLS12-381), four by x (4 × (63 squarings + 5 M12)), 3 Frobenius maps, 6 M12.
//
// BN (p = 36x⁴ + 36x³ + 24x² + 6x + 1, r = 36x⁴ + 36x³ + 18x² + 6x + 1): Scott, Benger,
// Charlemagne, Dominguez Perez, Kachisa, "On the final exponentiation for calculating pairings
// on ordinary elliptic curves" (Pairing 2009, §5): Φ12(p)/r = λ0 + λ1·p + λ2·p² + λ3·p³ with
//   λ3 = 1, λ2 = 6x² + 1, λ1 = −36x³ − 18x² − 12x + 1, λ0 = −36x³ − 30x² − 18x − 2,
// which is y0·y1²·y2⁶·y3¹²·y4¹⁸·y5³⁰·y6³⁶ for
//   y0 = g^p·g^(p²)·g^(p³), y1 = 1/g, y2 = (g^(x²))^(p²), y3 = 1/(g^x)^p,
//   y4 = 1/(g^x·(g^(x²))^p), y5 = 1/g^(x²), y6 = 1/(g^(x³)·(g^(x³))^p),
// evaluated by the vectorial addition chain below (4 squarings, 6 products). Cost: three
// exponentiations by x (3 × (62 squarings + 27 M12) for BN254), 7 Frobenius maps, 13 M12.
// (Fuentes-Castañeda, Knapp, Rodríguez-Henríquez's cheaper chain computes the power
// 2x(6x² + 3x + 1) of this value, a different pairing.)
template <class Data>
typename OptimalAte<Data>::Fp12 OptimalAte<Data>::hard_part(const Fp12& g) {
  if constexpr (Data::kFamily == Family::kBls12) {
    // (x − 1)/3 as a sign and a magnitude: x − 1 = −(|x| + 1) when x < 0.
    constexpr uint64_t x_minus_1_abs = Data::kXIsNegative ? Data::kAbsX + 1 : Data::kAbsX - 1;
    static_assert(x_minus_1_abs % 3 == 0, "BLS12 needs x ≡ 1 (mod 3)");
    constexpr uint64_t third_abs = x_minus_1_abs / 3;
    Fp12 a = g.cyclotomic_pow(third_abs);
    if (Data::kXIsNegative) a = a.conjugate();  // g^((x − 1)/3)
    a = pow_x(a) * a.conjugate();               // g^μ3 = (g^((x − 1)/3))^(x − 1)
    Fp12 b = pow_x(a);                          // g^μ2
    Fp12 c = pow_x(b) * a.conjugate();          // g^μ1
    Fp12 d = pow_x(c) * g;                      // g^μ0
    return d * c.frobenius_map(1) * b.frobenius_map(2) * a.frobenius_map(3);
  } else {
    Fp12 gx = pow_x(g);
    Fp12 gx2 = pow_x(gx);
    Fp12 gx3 = pow_x(gx2);
    Fp12 y0 = g.frobenius_map(1) * g.frobenius_map(2) * g.frobenius_map(3);
    Fp12 y1 = g.conjugate();
    Fp12 y2 = gx2.frobenius_map(2);
    Fp12 y3 = gx.frobenius_map(1).conjugate();
    Fp12 y4 = (gx * gx2.frobenius_map(1)).conjugate();
    Fp12 y5 = gx2.conjugate();
    Fp12 y6 = (gx3 * gx3.frobenius_map(1)).conjugate();
    // Exponents of (y6, y5, y4, y3, y2, y1, y0) after each line:
    Fp12 t0 = y6.cyclotomic_sqr() * y4 * y5;  // t0 = (2, 1, 1, 0, 0, 0, 0)
    Fp12 t1 = t0 * y3 * y5;                   // t1 = (2, 2, 1, 1, 0, 0, 0)
    t0 = t0 * y2;                             // t0 = (2, 1, 1, 0, 1, 0, 0)
    t1 = t1.cyclotomic_sqr() * t0;            // t1 = (6, 5, 3, 2, 1, 0, 0)
    t1 = t1.cyclotomic_sqr();                 // t1 = (12, 10, 6, 4, 2, 0, 0)
    t0 = t1 * y1;                             // t0 = (12, 10, 6, 4, 2, 1, 0)
    t1 = t1 * y0;                             // t1 = (12, 10, 6, 4, 2, 0, 1)
    t0 = t0.cyclotomic_sqr();                 // t0 = (24, 20, 12, 8, 4, 2, 0)
    return t0 * t1;                           //      (36, 30, 18, 12, 6, 2, 1)
  }
}

}  // namespace cuzk::pairing
