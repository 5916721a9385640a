// Prints the known-answer vectors of snarkjs_vectors.hpp: the H scalars that snarkjs 0.7.6
// computes for fixed small inputs, by the same calls as its groth16_prove.js (Fr.ifft,
// Fr.batchApplyKey with inc = Fr.w[power + 1], Fr.fft, then a·b − c as qap_joinABC does),
// plus one plain Fr.fft. Run from a scratch folder outside the repository:
//   npm install snarkjs@0.7.6 && node make_snarkjs_vectors.mjs
import { buildBn128, buildBls12381 } from "ffjavascript";

function inputs(Fr, n) {
  const a = [], b = [], c = [];
  for (let i = 0; i < n; i++) {
    a.push(Fr.e(i * i + 2));
    b.push(Fr.e(3 * i + 5));
    c.push(Fr.e(7 * i + 11));
  }
  return [a, b, c];
}

function toBuffer(Fr, values) {
  const buff = new Uint8Array(values.length * Fr.n8);
  values.forEach((v, i) => buff.set(v, i * Fr.n8));
  return buff;
}

function fromBuffer(Fr, buff) {
  const out = [];
  for (let i = 0; i < buff.byteLength / Fr.n8; i++) {
    out.push(Fr.toString(buff.slice(i * Fr.n8, (i + 1) * Fr.n8)));
  }
  return out;
}

async function oddPoints(Fr, values, power) {
  const inc = power == Fr.s ? Fr.shift : Fr.w[power + 1];
  const coeffs = await Fr.ifft(toBuffer(Fr, values));
  const shifted = await Fr.batchApplyKey(coeffs, Fr.e(1), inc);
  return await Fr.fft(shifted);
}

for (const [name, build] of [["bn254", buildBn128], ["bls12_381", buildBls12381]]) {
  const curve = await build(true);
  const Fr = curve.Fr;
  for (const power of [2, 3]) {
    const n = 1 << power;
    const [a, b, c] = inputs(Fr, n);
    const ao = await oddPoints(Fr, a, power);
    const bo = await oddPoints(Fr, b, power);
    const co = await oddPoints(Fr, c, power);
    const h = [];
    for (let i = 0; i < n; i++) {
      const s = (x) => x.slice(i * Fr.n8, (i + 1) * Fr.n8);
      h.push(Fr.toString(Fr.sub(Fr.mul(s(ao), s(bo)), s(co))));
    }
    console.log(`${name} h, log_n = ${power}:`, JSON.stringify(h));
  }
  const ramp = [];
  for (let i = 0; i < 8; i++) ramp.push(Fr.e(i + 1));
  console.log(`${name} fft of 1..8:`, JSON.stringify(fromBuffer(Fr, await Fr.fft(toBuffer(Fr, ramp)))));
  console.log(`${name} shift:`, Fr.toString(Fr.shift));
  await curve.terminate();
}
