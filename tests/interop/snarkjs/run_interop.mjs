// Interop of cuzk with snarkjs and circom2 on one curve, one step per CTest test:
//
//   node run_interop.mjs --cuzk <cuzk binary> --work <dir> --curve bn254|bls12_381 <step>
//
//   setup           powers of tau (2^POWER), circuits compiled by circom2, witnesses by
//                   `snarkjs wtns calculate`, keys by `snarkjs groth16 setup` + one zkey
//                   contribution, verification_key.json by `snarkjs zkey export
//                   verificationkey`. Cached in <work>: a rerun with the same inputs is instant.
//   cuzk-proves     `cuzk prove` with snarkjs's key: snarkjs and cuzk accept the proof and
//                   reject it tampered and with wrong public inputs.
//   snarkjs-proves  `snarkjs groth16 prove`: the same checks on snarkjs's proof.
//   cuzk-setup      `cuzk setup` from circom's .r1cs: snarkjs proves with that key and exports
//                   the same verification key as cuzk wrote; both verifiers accept snarkjs's
//                   proof and cuzk's own, and reject tampered ones.
//
// Every command that runs is printed first; a failed check names the command, its exit code
// and its output, then exits 1.

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const POWER = 9; // 512-point domains: the largest circuit has 303 rows (circuits/cube_chain.circom)

const CURVES = {
  bn254: {
    circom: "bn128",
    snarkjs: "bn128",
    r: 21888242871839275222246405745257275088548364400416034343698204186575808495617n,
  },
  bls12_381: {
    circom: "bls12381",
    snarkjs: "bls12381",
    r: 52435875175126190479447740508185965837690552500527637822603658699938581184513n,
  },
};

// The public signals each circuit must produce, computed here from its input file, in
// snarkjs's order: outputs first, then the public inputs.
const CIRCUITS = {
  multi_public: (inp, r) => {
    const [a, b, c, x, y] = ["a", "b", "c", "x", "y"].map((k) => BigInt(inp[k]));
    const m = (v) => ((v % r) + r) % r;
    return [m(b * c + x * y), m(a * x * x + c), m((a + y) * (b + 2n * x)), a, b, c];
  },
  cube_chain: (inp, r) => {
    const x = BigInt(inp.x);
    const k = BigInt(inp.k);
    let s = x % r;
    for (let i = 0n; i < 100n; i++) {
      const t = (s + k + i) % r;
      s = (((t * t) % r) * t % r) * ((s + i + 1n) % r) % r;
    }
    return [s, k];
  },
};

function fail(message) {
  console.error(`\nFAILED: ${message}`);
  process.exit(1);
}

function parseArgs(argv) {
  const args = { step: undefined };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i].startsWith("--")) {
      if (i + 1 >= argv.length) fail(`option ${argv[i]} needs a value`);
      args[argv[i].slice(2)] = argv[++i];
    } else {
      args.step = argv[i];
    }
  }
  for (const k of ["cuzk", "work", "curve", "step"]) {
    if (!args[k]) fail(`usage: node run_interop.mjs --cuzk BIN --work DIR --curve CURVE STEP (missing ${k})`);
  }
  if (!CURVES[args.curve]) fail(`unknown curve ${args.curve} (bn254 or bls12_381)`);
  return args;
}

const args = parseArgs(process.argv.slice(2));
const curve = CURVES[args.curve];
const workDir = path.resolve(args.work, args.curve);
const snarkjsCli = path.join(here, "node_modules", "snarkjs", "build", "cli.cjs");
const circomCli = path.join(here, "node_modules", "circom2", "cli.js");
for (const f of [snarkjsCli, circomCli]) {
  if (!fs.existsSync(f)) fail(`${f} is missing: run scripts/setup.sh (npm ci in ${here})`);
}
if (!fs.existsSync(args.cuzk)) fail(`cuzk binary ${args.cuzk} does not exist`);

// Runs a command; returns {status, output} with stdout and stderr interleaved as text.
function run(argv, { quiet = false } = {}) {
  const shown = argv.map((a) => (/[\s"']/.test(a) ? JSON.stringify(a) : a)).join(" ");
  console.log(`$ ${shown}`);
  const start = Date.now();
  const r = spawnSync(argv[0], argv.slice(1), { encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.error) fail(`${shown}: could not start: ${r.error.message}`);
  const output = (r.stdout || "") + (r.stderr || "");
  const status = r.status === null ? `signal ${r.signal}` : r.status;
  if (!quiet) {
    const text = output.trim();
    if (text) console.log(text.split("\n").map((l) => `  | ${l}`).join("\n"));
  }
  console.log(`  -> exit ${status} in ${((Date.now() - start) / 1000).toFixed(1)} s`);
  return { cmd: shown, status, output };
}

// Runs a command that must succeed.
function must(argv, opts) {
  const r = run(argv, opts);
  if (r.status !== 0) fail(`${r.cmd}\nexit ${r.status}; output:\n${r.output}`);
  return r;
}

const snarkjs = (...a) => [process.execPath, snarkjsCli, ...a];
const cuzk = (...a) => [args.cuzk, ...a];

function sha256(...parts) {
  const h = createHash("sha256");
  for (const p of parts) h.update(typeof p === "string" ? p : Buffer.from(p)).update("\0");
  return h.digest("hex");
}

// What decides the cached files: the locked tool versions and the curve; for a circuit also
// its source, its input and the powers of tau it was set up with.
const lockHash = sha256(fs.readFileSync(path.join(here, "package-lock.json")), args.curve,
                        String(POWER));

function cached(stampFile, key, make) {
  if (fs.existsSync(stampFile) && fs.readFileSync(stampFile, "utf8") === key) {
    console.log(`cached: ${path.dirname(stampFile)}`);
    return;
  }
  fs.rmSync(stampFile, { force: true });
  make();
  fs.writeFileSync(stampFile, key);
}

function ptauPath() {
  return path.join(workDir, "ptau", `pot${POWER}_final.ptau`);
}

function makePtau() {
  const dir = path.join(workDir, "ptau");
  fs.mkdirSync(dir, { recursive: true });
  cached(path.join(dir, "stamp"), lockHash, () => {
    const p0 = path.join(dir, `pot${POWER}_0000.ptau`);
    const p1 = path.join(dir, `pot${POWER}_0001.ptau`);
    must(snarkjs("powersoftau", "new", curve.snarkjs, String(POWER), p0));
    must(snarkjs("powersoftau", "contribute", p0, p1, "--name=cuzk interop", `-e=${Math.random()}`));
    must(snarkjs("powersoftau", "prepare", "phase2", p1, ptauPath()));
    fs.rmSync(p0);
    fs.rmSync(p1);
  });
}

function circuitFiles(name) {
  const dir = path.join(workDir, name);
  return {
    dir,
    source: path.join(here, "circuits", `${name}.circom`),
    input: path.join(here, "circuits", `${name}.input.json`),
    r1cs: path.join(dir, `${name}.r1cs`),
    wasm: path.join(dir, `${name}_js`, `${name}.wasm`),
    wtns: path.join(dir, "witness.wtns"),
    zkey: path.join(dir, "circuit_final.zkey"),
    vk: path.join(dir, "verification_key.json"),
  };
}

function makeCircuit(name) {
  const f = circuitFiles(name);
  fs.mkdirSync(f.dir, { recursive: true });
  const key = sha256(lockHash, fs.readFileSync(f.source), fs.readFileSync(f.input),
                     fs.readFileSync(ptauPath()));
  cached(path.join(f.dir, "stamp"), key, () => {
    must([process.execPath, circomCli, f.source, "--r1cs", "--wasm", "--prime", curve.circom,
          "-o", f.dir]);
    must(snarkjs("wtns", "calculate", f.wasm, f.input, f.wtns));
    const z0 = path.join(f.dir, "circuit_0000.zkey");
    must(snarkjs("groth16", "setup", f.r1cs, ptauPath(), z0));
    must(snarkjs("zkey", "contribute", z0, f.zkey, "--name=cuzk interop", `-e=${Math.random()}`));
    must(snarkjs("zkey", "export", "verificationkey", f.zkey, f.vk));
    fs.rmSync(z0);
  });
}

// ---- checks ----

function expectPublic(name, publicFile) {
  const inp = JSON.parse(fs.readFileSync(circuitFiles(name).input, "utf8"));
  const want = CIRCUITS[name](inp, curve.r).map(String);
  const got = JSON.parse(fs.readFileSync(publicFile, "utf8"));
  if (JSON.stringify(got) !== JSON.stringify(want)) {
    fail(`${publicFile}: public signals ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
  }
}

// snarkjs groth16 verify prints "OK!" and exits 0 for a valid proof; for an invalid one it
// logs one of the messages below and exits 1 (snarkjs/src/groth16_verify.js). Requiring the
// message, not only the exit code, keeps a rejection for an unrelated reason (a missing file,
// a crash) from passing as a rejected proof.
const SNARKJS_REJECTS = /Invalid proof|Proof commitments are not valid|Public inputs are not valid/;

function snarkjsAccepts(vk, pub, proof) {
  const r = run(snarkjs("groth16", "verify", vk, pub, proof));
  if (r.status !== 0 || !/OK!/.test(r.output)) {
    fail(`snarkjs rejected a valid proof: ${r.cmd}\nexit ${r.status}; output:\n${r.output}`);
  }
}

function snarkjsRejects(vk, pub, proof, what) {
  const r = run(snarkjs("groth16", "verify", vk, pub, proof));
  if (r.status === 0 || /OK!/.test(r.output) || !SNARKJS_REJECTS.test(r.output)) {
    fail(`snarkjs did not reject ${what} as invalid: ${r.cmd}\nexit ${r.status}; output:\n${r.output}`);
  }
}

function cuzkAccepts(vk, pub, proof) {
  const r = run(cuzk("verify", vk, pub, proof));
  if (r.status !== 0 || !/^OK/m.test(r.output)) {
    fail(`cuzk rejected a valid proof: ${r.cmd}\nexit ${r.status}; output:\n${r.output}`);
  }
}

// cuzk verify: exit 1 and "INVALID" for a well-formed proof that does not verify; exit 2 with
// a message for input it refuses to read (a point off the curve, a value not below r).
function cuzkRejects(vk, pub, proof, what, { badInput = false } = {}) {
  const r = run(cuzk("verify", vk, pub, proof));
  const ok = badInput ? (r.status === 2 && r.output.trim().length > 0)
                      : (r.status === 1 && /INVALID/.test(r.output));
  if (!ok) {
    fail(`cuzk did not reject ${what} with exit ${badInput ? "2 (bad input)" : "1 (INVALID)"}: ` +
         `${r.cmd}\nexit ${r.status}; output:\n${r.output}`);
  }
}

// Changes one decimal digit of a coordinate (the sixth, so the number keeps its length).
function flipDigit(value) {
  const s = String(value);
  const i = Math.min(5, s.length - 1);
  const d = (Number(s[i]) + 1) % 10;
  return s.slice(0, i) + d + s.slice(i + 1);
}

// Tampered proofs and public inputs, each rejected by both verifiers.
function checkRejections(vk, pub, proof, outDir) {
  fs.mkdirSync(outDir, { recursive: true });
  const write = (file, obj) => {
    const p = path.join(outDir, file);
    fs.writeFileSync(p, JSON.stringify(obj, null, 1));
    return p;
  };
  const good = JSON.parse(fs.readFileSync(proof, "utf8"));
  const publicSignals = JSON.parse(fs.readFileSync(pub, "utf8"));

  // One digit of A's x coordinate: A is no longer on the curve.
  const aOff = structuredClone(good);
  aOff.pi_a[0] = flipDigit(aOff.pi_a[0]);
  const aOffFile = write("proof_a_digit.json", aOff);
  snarkjsRejects(vk, pub, aOffFile, "a proof with one changed digit in A");
  cuzkRejects(vk, pub, aOffFile, "a proof with one changed digit in A", { badInput: true });

  // One digit of B's x coordinate (an Fp2 component): B is no longer on the twist.
  const bOff = structuredClone(good);
  bOff.pi_b[0][1] = flipDigit(bOff.pi_b[0][1]);
  const bOffFile = write("proof_b_digit.json", bOff);
  snarkjsRejects(vk, pub, bOffFile, "a proof with one changed digit in B");
  cuzkRejects(vk, pub, bOffFile, "a proof with one changed digit in B", { badInput: true });

  // A and C swapped: valid points, so only the pairing check can catch it.
  const swapped = structuredClone(good);
  [swapped.pi_a, swapped.pi_c] = [good.pi_c, good.pi_a];
  const swappedFile = write("proof_a_c_swapped.json", swapped);
  snarkjsRejects(vk, pub, swappedFile, "a proof with A and C swapped");
  cuzkRejects(vk, pub, swappedFile, "a proof with A and C swapped");

  // Wrong public signals: the first (an output) and the last (a public input) plus one.
  for (const [index, label] of [[0, "first"], [publicSignals.length - 1, "last"]]) {
    const wrong = [...publicSignals];
    wrong[index] = String((BigInt(wrong[index]) + 1n) % curve.r);
    const wrongFile = write(`public_${label}_plus_one.json`, wrong);
    snarkjsRejects(vk, wrongFile, proof, `the ${label} public signal changed`);
    cuzkRejects(vk, wrongFile, proof, `the ${label} public signal changed`);
  }

  // A public signal not below r: both refuse it (snarkjs as invalid, cuzk as bad input).
  const tooLarge = [...publicSignals];
  tooLarge[0] = String(BigInt(tooLarge[0]) + curve.r);
  const tooLargeFile = write("public_not_below_r.json", tooLarge);
  snarkjsRejects(vk, tooLargeFile, proof, "a public signal not below r");
  cuzkRejects(vk, tooLargeFile, proof, "a public signal not below r", { badInput: true });

  // One public signal missing: cuzk refuses the count. (snarkjs does not check the count
  // against its key, so it is not asked.)
  const short = write("public_one_missing.json", publicSignals.slice(0, -1));
  const r = run(cuzk("verify", vk, short, proof));
  if (r.status === 0 || /^OK/m.test(r.output)) {
    fail(`cuzk accepted a public.json with one signal missing: ${r.cmd}\n${r.output}`);
  }
}

// ---- steps ----

function stepSetup() {
  fs.mkdirSync(workDir, { recursive: true });
  makePtau();
  for (const name of Object.keys(CIRCUITS)) makeCircuit(name);
}

function requireSetup(name) {
  const f = circuitFiles(name);
  for (const p of [f.r1cs, f.wtns, f.zkey, f.vk, path.join(f.dir, "stamp")]) {
    if (!fs.existsSync(p)) fail(`${p} is missing: the setup step has not run or failed`);
  }
  return f;
}

function stepCuzkProves() {
  for (const name of Object.keys(CIRCUITS)) {
    console.log(`\n== ${args.curve} ${name}: cuzk proves with snarkjs's key`);
    const f = requireSetup(name);
    const out = path.join(f.dir, "cuzk-proves");
    fs.rmSync(out, { recursive: true, force: true });
    fs.mkdirSync(out, { recursive: true });
    const proof = path.join(out, "proof.json");
    const pub = path.join(out, "public.json");
    // --r1cs: cuzk also checks circom's constraints against the witness before proving.
    must(cuzk("prove", f.zkey, f.wtns, proof, pub, "--r1cs", f.r1cs));
    expectPublic(name, pub);
    snarkjsAccepts(f.vk, pub, proof);
    cuzkAccepts(f.vk, pub, proof);
    checkRejections(f.vk, pub, proof, path.join(out, "tampered"));
  }
}

function stepSnarkjsProves() {
  for (const name of Object.keys(CIRCUITS)) {
    console.log(`\n== ${args.curve} ${name}: snarkjs proves, cuzk verifies`);
    const f = requireSetup(name);
    const out = path.join(f.dir, "snarkjs-proves");
    fs.rmSync(out, { recursive: true, force: true });
    fs.mkdirSync(out, { recursive: true });
    const proof = path.join(out, "proof.json");
    const pub = path.join(out, "public.json");
    must(snarkjs("groth16", "prove", f.zkey, f.wtns, proof, pub));
    expectPublic(name, pub);
    cuzkAccepts(f.vk, pub, proof);
    snarkjsAccepts(f.vk, pub, proof);
    checkRejections(f.vk, pub, proof, path.join(out, "tampered"));
  }
}

// The fields of verification_key.json that define the key; snarkjs also writes derived
// ones (vk_alphabeta_12), compared too when cuzk writes them.
const VK_FIELDS = ["protocol", "curve", "nPublic", "vk_alpha_1", "vk_beta_2", "vk_gamma_2",
                   "vk_delta_2", "IC"];

function compareVerificationKeys(cuzkVkFile, snarkjsVkFile) {
  const ours = JSON.parse(fs.readFileSync(cuzkVkFile, "utf8"));
  const theirs = JSON.parse(fs.readFileSync(snarkjsVkFile, "utf8"));
  const fields = new Set(VK_FIELDS);
  for (const k of Object.keys(ours)) if (k in theirs) fields.add(k);
  for (const k of fields) {
    if (JSON.stringify(ours[k]) !== JSON.stringify(theirs[k])) {
      fail(`verification keys differ in ${k}: cuzk's ${cuzkVkFile} has ` +
           `${JSON.stringify(ours[k])}, snarkjs's export of the same zkey (${snarkjsVkFile}) ` +
           `${JSON.stringify(theirs[k])}`);
    }
  }
  console.log(`verification keys agree on ${[...fields].join(", ")}`);
}

function stepCuzkSetup() {
  for (const name of Object.keys(CIRCUITS)) {
    console.log(`\n== ${args.curve} ${name}: a key from cuzk setup, used by snarkjs`);
    const f = requireSetup(name);
    const out = path.join(f.dir, "cuzk-setup");
    fs.rmSync(out, { recursive: true, force: true });
    fs.mkdirSync(out, { recursive: true });
    const zkey = path.join(out, "cuzk.zkey");
    const vk = path.join(out, "verification_key.json");
    must(cuzk("setup", f.r1cs, zkey, vk));
    const exported = path.join(out, "verification_key_snarkjs_export.json");
    must(snarkjs("zkey", "export", "verificationkey", zkey, exported));
    compareVerificationKeys(vk, exported);

    const proof = path.join(out, "proof_snarkjs.json");
    const pub = path.join(out, "public_snarkjs.json");
    must(snarkjs("groth16", "prove", zkey, f.wtns, proof, pub));
    expectPublic(name, pub);
    snarkjsAccepts(vk, pub, proof);
    cuzkAccepts(vk, pub, proof);
    checkRejections(vk, pub, proof, path.join(out, "tampered"));

    const ourProof = path.join(out, "proof_cuzk.json");
    const ourPub = path.join(out, "public_cuzk.json");
    must(cuzk("prove", zkey, f.wtns, ourProof, ourPub, "--r1cs", f.r1cs));
    expectPublic(name, ourPub);
    snarkjsAccepts(vk, ourPub, ourProof);
    cuzkAccepts(vk, ourPub, ourProof);
  }
}

const STEPS = {
  setup: stepSetup,
  "cuzk-proves": stepCuzkProves,
  "snarkjs-proves": stepSnarkjsProves,
  "cuzk-setup": stepCuzkSetup,
};
if (!STEPS[args.step]) fail(`unknown step ${args.step} (${Object.keys(STEPS).join(", ")})`);
const started = Date.now();
STEPS[args.step]();
console.log(`\n${args.curve} ${args.step}: passed in ${((Date.now() - started) / 1000).toFixed(1)} s`);
