// Writes reference vectors computed by @noble/curves for cuzk's cross-check test
// (tests/interop/noble_crosscheck_test.cpp), for BLS12-381 and BN254:
//   a·G1 and b·G2 as affine coordinates (hex, big-endian, fixed width; infinity is (0, 0)),
//   BLS12-381's zcash encodings of those points (compressed and uncompressed),
//   the pairing e(a·G1, b·G2) as 12 Fp coefficients.
// Scalars are drawn deterministically from the seed (SHA-512 of seed, curve and index, reduced
// mod r), followed by the edge scalars 0, 1 and r − 1.
//
// Usage: node make_vectors.mjs --seed <integer> --count <random cases per curve> --out <file>
//
// Pairing values. noble's pairing() does not return the reduced pairing f^((p¹²−1)/r) itself
// but a fixed power of it, because its final exponentiations use shortened hard parts:
//   BLS12-381: e_noble = e³ (Hayashida–Hayasaka–Teruya, eprint 2020/875),
//   BN254:     e_noble = e^(2x(6x²+3x+1)), x = 4965661367192848881 (Fuentes-Castañeda, Knapp,
//              Rodríguez-Henríquez, "Faster hashing to G2", 2011).
// Both exponents are coprime to r, so e = e_noble^(k⁻¹ mod r). This script writes noble's raw
// value ("pairing_noble", with "noble_pairing_exponent" k) and the reduced pairing
// ("pairing"), and checks the relation once per curve per run against a direct exponentiation
// of noble's Miller loop output by (p¹²−1)/r, so the vectors cannot silently drift if a
// future noble release changes its final exponentiation.
//
// Fp12 coefficient order (noble's tower: Fp2 = Fp[u]/(u² + 1), Fp6 = Fp2[v]/(v³ − ξ),
// Fp12 = Fp6[w]/(w² − v), with ξ = 1 + u for BLS12-381 and 9 + u for BN254):
//   c0.c0.c0, c0.c0.c1, c0.c1.c0, c0.c1.c1, c0.c2.c0, c0.c2.c1, c1.c0.c0, ..., c1.c2.c1
// i.e. the coefficients of 1, u, v, uv, v², uv², w, uw, vw, uvw, v²w, uv²w.

import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { bls12_381 } from '@noble/curves/bls12-381';
import { bn254 } from '@noble/curves/bn254';

const { values: args } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    count: { type: 'string', default: '16' },
    out: { type: 'string' },
  },
});
if (!args.out) {
  console.error('usage: node make_vectors.mjs --seed <integer> --count <n> --out <file>');
  process.exit(2);
}
if (!/^[0-9]+$/.test(args.seed) || !/^[0-9]+$/.test(args.count)) {
  console.error('make_vectors: --seed and --count must be non-negative integers');
  process.exit(2);
}
const count = Number(args.count);

const BN_X = 4965661367192848881n;
const curves = {
  bls12_381: { curve: bls12_381, fpBytes: 48, nobleExponent: 3n, zcash: true },
  bn254: {
    curve: bn254,
    fpBytes: 32,
    nobleExponent: 2n * BN_X * (6n * BN_X * BN_X + 3n * BN_X + 1n),
    zcash: false,
  },
};

const hex = (value, bytes) => value.toString(16).padStart(2 * bytes, '0');
const bytesHex = (bytes) => Buffer.from(bytes).toString('hex');

function mod(a, m) {
  const r = a % m;
  return r < 0n ? r + m : r;
}

// Inverse modulo a prime by Fermat.
function invMod(a, m) {
  let result = 1n, base = mod(a, m), e = m - 2n;
  while (e > 0n) {
    if (e & 1n) result = (result * base) % m;
    base = (base * base) % m;
    e >>= 1n;
  }
  return result;
}

function drawScalar(curveName, index, role, r) {
  const digest = createHash('sha512')
    .update(`cuzk noble vectors|${args.seed}|${curveName}|${index}|${role}`)
    .digest('hex');
  return BigInt('0x' + digest) % r;
}

function fp12Coefficients(Fp12value, fpBytes) {
  const out = [];
  for (const half of [Fp12value.c0, Fp12value.c1]) {
    for (const fp2 of [half.c0, half.c1, half.c2]) {
      out.push(hex(fp2.c0, fpBytes), hex(fp2.c1, fpBytes));
    }
  }
  return out;
}

function multiplyBase(Point, k) {
  return k === 0n ? Point.ZERO : Point.BASE.multiply(k);
}

function vectorsFor(curveName, { curve, fpBytes, nobleExponent, zcash }) {
  const { Fp, Fr, Fp12 } = curve.fields;
  const p = Fp.ORDER, r = Fr.ORDER;
  const G1 = curve.G1.Point, G2 = curve.G2.Point;
  const toReduced = invMod(nobleExponent, r);

  const scalarPairs = [];
  for (let i = 0; i < count; ++i) {
    scalarPairs.push([drawScalar(curveName, i, 'a', r), drawScalar(curveName, i, 'b', r)]);
  }
  const rm1 = r - 1n;
  scalarPairs.push([0n, 1n], [1n, 0n], [0n, rm1], [1n, 1n], [1n, rm1], [rm1, 1n], [rm1, rm1]);

  const cases = [];
  let checkedAgainstMillerLoop = false;
  for (const [a, b] of scalarPairs) {
    const P = multiplyBase(G1, a);
    const Q = multiplyBase(G2, b);
    const pa = P.toAffine(), qa = Q.toAffine();
    // e(O, Q) = e(P, O) = 1 by bilinearity; noble refuses the point at infinity.
    const degenerate = P.is0() || Q.is0();
    const eNoble = degenerate ? Fp12.ONE : curve.pairing(P, Q);
    const e = Fp12.pow(eNoble, toReduced);
    if (!Fp12.eql(Fp12.pow(e, mod(nobleExponent, r)), eNoble)) {
      throw new Error(`${curveName}: pairing value is not in the order-r subgroup`);
    }
    if (!degenerate && !checkedAgainstMillerLoop) {
      const direct = Fp12.pow(curve.pairing(P, Q, false), (p ** 12n - 1n) / r);
      if (!Fp12.eql(direct, e)) {
        throw new Error(
          `${curveName}: noble's pairing is no longer e^${nobleExponent}; update this script`
        );
      }
      checkedAgainstMillerLoop = true;
    }
    const entry = {
      a: hex(a, 32),
      b: hex(b, 32),
      a_g1: { x: hex(pa.x, fpBytes), y: hex(pa.y, fpBytes) },
      b_g2: {
        x: [hex(qa.x.c0, fpBytes), hex(qa.x.c1, fpBytes)],
        y: [hex(qa.y.c0, fpBytes), hex(qa.y.c1, fpBytes)],
      },
    };
    if (zcash) {
      entry.a_g1_compressed = bytesHex(P.toBytes(true));
      entry.a_g1_uncompressed = bytesHex(P.toBytes(false));
      entry.b_g2_compressed = bytesHex(Q.toBytes(true));
      entry.b_g2_uncompressed = bytesHex(Q.toBytes(false));
    }
    entry.pairing = fp12Coefficients(e, fpBytes);
    entry.pairing_noble = fp12Coefficients(eNoble, fpBytes);
    cases.push(entry);
  }
  return {
    r: hex(r, 32),
    noble_pairing_exponent: nobleExponent.toString(),
    cases,
  };
}

const nobleVersion = JSON.parse(
  readFileSync(new URL('./node_modules/@noble/curves/package.json', import.meta.url), 'utf8')
).version;

const output = {
  source: `@noble/curves ${nobleVersion}`,
  seed: args.seed,
  random_cases_per_curve: count,
  fp12_order: 'c0.c0.c0 c0.c0.c1 c0.c1.c0 c0.c1.c1 c0.c2.c0 c0.c2.c1 c1.c0.c0 ... c1.c2.c1',
};
for (const [name, spec] of Object.entries(curves)) output[name] = vectorsFor(name, spec);
writeFileSync(args.out, JSON.stringify(output, null, 1) + '\n');
