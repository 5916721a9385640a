#!/usr/bin/env python3
"""Whole-command prove time of `cuzk prove` against `snarkjs groth16 prove`.

For each curve and size, a chain circuit (x -> x^2 + 7, `cuzk gen --shape chain`) with
2^log_n - 3 constraints, so that the domain is exactly 2^log_n (one public input, one public
output and the constant one take the other three rows), and a key from `cuzk setup`. Both
provers get the same .zkey and .wtns; each run is the whole command as a user starts it
(process start, reading the key and witness, proving, writing proof.json and public.json).
The runs of the two provers alternate, after one untimed warm-up each (page cache, node's
compile cache), and the last proof of each is checked with `cuzk verify`.

Writes JSON in the shape of DESIGN.md section 6 with op "prove_cli" (bench/README.md) and
prints a table. Circuits and keys are cached in the work folder.

    bench/groth16/compare_snarkjs.py                      # both curves, 2^12..2^18, 3 runs
    bench/groth16/compare_snarkjs.py --log-n 12 --runs 3 --curves bn254

Needs the cuzk binary (default build/release/cuzk) and snarkjs from
tests/interop/snarkjs (scripts/setup.sh installs it). Run it on an idle machine: the numbers
are wall-clock times.
"""

import argparse
import datetime
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SNARKJS_CLI = ROOT / "tests/interop/snarkjs/node_modules/snarkjs/build/cli.cjs"
CURVES = ("bn254", "bls12_381")


def fail(message):
    print(f"compare_snarkjs: {message}", file=sys.stderr)
    sys.exit(1)


def run(argv, quiet=True):
    """Runs a command that must succeed; returns its wall time in milliseconds."""
    start = time.perf_counter()
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    ms = (time.perf_counter() - start) * 1000.0
    if r.returncode != 0:
        fail(f"command failed with exit {r.returncode}: {shlex.join(map(str, argv))}\n{r.stdout}")
    if not quiet:
        print(r.stdout, end="")
    return ms


def capture(argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def host_info():
    model = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "cpu_model": model,
        "cores": len(os.sched_getaffinity(0)),
        "machine": platform.machine(),
        "load_average_at_start": list(os.getloadavg()),
    }


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cuzk", default=str(ROOT / "build/release/cuzk"), help="cuzk binary")
    p.add_argument("--curves", default=",".join(CURVES), help="comma-separated: bn254,bls12_381")
    p.add_argument("--log-n", default="12,14,16,18", help="comma-separated domain sizes (log2)")
    p.add_argument("--runs", type=int, default=3, help="timed runs per prover (median of them)")
    p.add_argument("--warmup", type=int, default=1, help="untimed runs per prover first")
    p.add_argument("--cuzk-arg", action="append", default=[],
                   help="extra argument for cuzk prove (repeatable), e.g. --cuzk-arg=--check-key-subgroups")
    p.add_argument("--work", default=str(ROOT / "build/bench-snarkjs"), help="folder for circuits, keys, proofs")
    p.add_argument("--out", help="JSON output (default: <work>/prove_cli_<date>_<commit>.json)")
    p.add_argument("--device", help="device field of the JSON (default: the CPU model)")
    a = p.parse_args()
    a.curves = [c.strip() for c in a.curves.split(",") if c.strip()]
    for c in a.curves:
        if c not in CURVES:
            fail(f"unknown curve {c!r} (expected {' or '.join(CURVES)})")
    try:
        a.log_n = [int(x) for x in a.log_n.split(",") if x.strip()]
    except ValueError:
        fail(f"--log-n takes comma-separated integers, got {a.log_n!r}")
    if any(k < 3 or k > 28 for k in a.log_n):
        fail("--log-n values must lie in 3..28")
    if a.runs < 1 or a.warmup < 0:
        fail("--runs must be >= 1 and --warmup >= 0")
    if not os.access(a.cuzk, os.X_OK):
        fail(f"cuzk binary {a.cuzk} not found: build it (cmake --build --preset release --target cuzk)")
    if not SNARKJS_CLI.exists():
        fail(f"{SNARKJS_CLI} not found: run scripts/setup.sh (npm ci in tests/interop/snarkjs)")
    return a


def prepare(args, curve, log_n):
    """The circuit, witness and key of one size, made once and kept in the work folder."""
    d = Path(args.work) / f"{curve}_chain_{log_n}"
    d.mkdir(parents=True, exist_ok=True)
    files = {k: d / name for k, name in (("r1cs", "circuit.r1cs"), ("wtns", "witness.wtns"),
                                          ("zkey", "circuit.zkey"), ("vk", "verification_key.json"))}
    done = d / "prepared"
    if not done.exists():
        constraints = (1 << log_n) - 3
        print(f"  preparing {curve} 2^{log_n}: cuzk gen ({constraints} constraints), cuzk setup",
              flush=True)
        run([args.cuzk, "gen", "--curve", curve, "--shape", "chain", "--constraints",
             str(constraints), "--seed", "1", "--r1cs", files["r1cs"], "--wtns", files["wtns"]])
        run([args.cuzk, "setup", files["r1cs"], files["zkey"], files["vk"]])
        done.write_text("")
    return d, files


def summary(samples, extra):
    return {
        **extra,
        "median_ms": round(statistics.median(samples), 2),
        "min_ms": round(min(samples), 2),
        "max_ms": round(max(samples), 2),
        "runs": len(samples),
        "samples_ms": [round(s, 2) for s in samples],
    }


def measure(args, curve, log_n):
    d, f = prepare(args, curve, log_n)
    outputs = {b: (d / f"proof_{b}.json", d / f"public_{b}.json") for b in ("cpu", "snarkjs")}
    commands = {
        "cpu": [args.cuzk, "prove", *args.cuzk_arg, f["zkey"], f["wtns"], *outputs["cpu"]],
        "snarkjs": ["node", SNARKJS_CLI, "groth16", "prove", f["zkey"], f["wtns"], *outputs["snarkjs"]],
    }
    for _ in range(args.warmup):
        for cmd in commands.values():
            run(cmd)
    samples = {b: [] for b in commands}
    for i in range(args.runs):
        for backend, cmd in commands.items():
            samples[backend].append(run(cmd))
        print(f"  {curve} 2^{log_n} run {i + 1}/{args.runs}: "
              + ", ".join(f"{b} {s[-1]:.0f} ms" for b, s in samples.items()), flush=True)
    # A benchmark of a prover whose proofs do not verify would mean nothing.
    for backend, (proof, public) in outputs.items():
        run([args.cuzk, "verify", f["vk"], public, proof])

    base = {"op": "prove_cli", "curve": curve, "log_n": log_n, "shape": "chain",
            "constraints": (1 << log_n) - 3}
    cpu = summary(samples["cpu"], {**base, "backend": "cpu",
                                   "command": shlex.join(["cuzk", "prove", *args.cuzk_arg,
                                                          "circuit.zkey", "witness.wtns",
                                                          "proof.json", "public.json"])})
    snarkjs = summary(samples["snarkjs"], {**base, "backend": "snarkjs",
                                           "command": "snarkjs groth16 prove circuit.zkey "
                                                      "witness.wtns proof.json public.json"})
    cpu["speedup_vs_snarkjs"] = round(snarkjs["median_ms"] / cpu["median_ms"], 2)
    return [cpu, snarkjs]


def main():
    args = parse_args()
    host = host_info()
    commit = capture(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"])
    if capture(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"]):
        commit += "-dirty"
    date = datetime.date.today().isoformat()
    node = capture(["node", "--version"])
    snarkjs_version = json.loads((SNARKJS_CLI.parents[1] / "package.json").read_text())["version"]
    print(f"host: {host['cpu_model']}, {host['cores']} cores, load {host['load_average_at_start']}")

    results = []
    for curve in args.curves:
        for log_n in args.log_n:
            results.extend(measure(args, curve, log_n))

    doc = {
        "device": args.device or f"{host['cpu_model']} ({host['cores']} cores, CPU only)",
        "commit": commit,
        "date": date,
        "command": shlex.join(["bench/groth16/compare_snarkjs.py", *sys.argv[1:]]),
        "host": host,
        "tools": {"snarkjs": snarkjs_version, "node": node},
        "results": results,
    }
    out = Path(args.out) if args.out else Path(args.work) / f"prove_cli_{date}_{commit}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1) + "\n")

    print(f"\n{'curve':<10} {'log_n':>5} {'cuzk ms':>10} {'snarkjs ms':>11} {'speedup':>8}")
    for i in range(0, len(results), 2):
        cpu, sj = results[i], results[i + 1]
        print(f"{cpu['curve']:<10} {cpu['log_n']:>5} {cpu['median_ms']:>10.1f} "
              f"{sj['median_ms']:>11.1f} {cpu['speedup_vs_snarkjs']:>7.2f}x")
    print(f"\nwritten to {out}")


if __name__ == "__main__":
    main()
