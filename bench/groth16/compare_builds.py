#!/usr/bin/env python3
"""Whole-command `cuzk prove` time of two builds of cuzk on the same circuits, keys and witnesses.

For a change that must not cost speed: BEFORE and AFTER are two cuzk binaries (say, the commit
before the change and the change), run alternately on the same files, after one untimed
warm-up each, for every case of --cases. Each case is a synthetic circuit (`cuzk gen`) with a
development key (`cuzk setup`, by the AFTER binary; keys and circuits are cached in --work)
and a backend:

    cpu:<curve>:<shape>:<log_n>[:<format>]    `cuzk prove --backend cpu`, pinned to --cpu-cores
    cuda:<curve>:<shape>:<log_n>[:<format>]   `cuzk prove --backend cuda`

<format> is zkey (default) or params (bellman, BLS12-381 only). The circuit has 2^log_n − 3
constraints (chain: the domain is exactly 2^log_n) or 2^log_n − 2 (porep, dense). The last
proof of each build is checked with `cuzk verify`. Writes JSON in the shape of DESIGN.md §6
(op "prove_cli", with "build": "before" or "after"; the after entry also has "breakdown_ms",
from one more run with --json) and prints a table with the ratio.

    bench/groth16/compare_builds.py --before old/cuzk --after build/cuzk --cases cpu:bn254:chain:16
"""

import argparse
import datetime
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path


def fail(message):
    print(f"compare_builds: {message}", file=sys.stderr)
    sys.exit(1)


def run(argv, env=None):
    """Runs a command that must succeed; returns its wall time in milliseconds."""
    start = time.perf_counter()
    r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    ms = (time.perf_counter() - start) * 1000.0
    if r.returncode != 0:
        fail(f"exit {r.returncode}: {shlex.join(map(str, argv))}\n{r.stdout}")
    return ms


def parse_case(text):
    parts = text.split(":")
    if len(parts) not in (4, 5) or parts[0] not in ("cpu", "cuda"):
        fail(f"bad case '{text}': backend:curve:shape:log_n[:format]")
    fmt = parts[4] if len(parts) == 5 else "zkey"
    if fmt not in ("zkey", "params"):
        fail(f"bad format in '{text}'")
    return {"backend": parts[0], "curve": parts[1], "shape": parts[2], "log_n": int(parts[3]),
            "format": fmt}


def prepare(cuzk, work, case):
    """The circuit, witness and key of a case (cached); returns their paths."""
    stem = f"{case['curve']}_{case['shape']}_{case['log_n']}"
    d = work / stem
    d.mkdir(parents=True, exist_ok=True)
    r1cs, wtns = d / "circuit.r1cs", d / "witness.wtns"
    if not r1cs.exists():
        n = (1 << case["log_n"]) - (3 if case["shape"] == "chain" else 2)
        run([cuzk, "gen", "--curve", case["curve"], "--shape", case["shape"],
             "--constraints", str(n), "--public", "1", "--seed", "1",
             "--r1cs", r1cs, "--wtns", wtns])
    if case["format"] == "params":
        key, vk = d / "circuit.params", d / "circuit.vk"
    else:
        key, vk = d / "circuit.zkey", d / "verification_key.json"
    if not key.exists():
        run([cuzk, "setup", r1cs, key, vk])
    return {"dir": d, "r1cs": r1cs, "wtns": wtns, "key": key, "vk": vk}


def prove_argv(cuzk, files, case, build, cores):
    d = files["dir"]
    proof = d / (f"proof_{build}.bin" if case["format"] == "params" else f"proof_{build}.json")
    argv = [cuzk, "prove", files["key"], files["wtns"], proof, d / f"public_{build}.json",
            "--backend", case["backend"]]
    if case["format"] == "params":
        argv += ["--r1cs", files["r1cs"]]
    if case["backend"] == "cpu" and cores:
        argv = ["taskset", "-c", cores] + argv
    return argv, proof, d / f"public_{build}.json"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--before", required=True, type=Path)
    p.add_argument("--after", required=True, type=Path)
    p.add_argument("--cases", nargs="+", required=True)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--cpu-cores", default="0,1", help="taskset list for cpu cases ('' for all)")
    p.add_argument("--work", type=Path, default=Path("/tmp/cuzk-compare-builds"))
    p.add_argument("--device", default="")
    p.add_argument("--commit", default="")
    p.add_argument("--out", type=Path, required=True)
    a = p.parse_args()
    cases = [parse_case(c) for c in a.cases]
    results = []
    print(f"{'case':36} {'before ms':>10} {'after ms':>10} {'after/before':>13}")
    for case in cases:
        files = prepare(str(a.after), a.work, case)
        times = {"before": [], "after": []}
        binaries = {"before": str(a.before), "after": str(a.after)}
        for build in ("before", "after"):  # warm-up: page cache, driver
            run(prove_argv(binaries[build], files, case, build, a.cpu_cores)[0])
        for _ in range(a.runs):
            for build in ("before", "after"):
                argv = prove_argv(binaries[build], files, case, build, a.cpu_cores)[0]
                times[build].append(run(argv))
        for build in ("before", "after"):
            _, proof, public = prove_argv(binaries[build], files, case, build, a.cpu_cores)
            run([str(a.after), "verify", files["vk"], public, proof])
            t = times[build]
            results.append({
                "op": "prove_cli", "build": build, "curve": case["curve"],
                "log_n": case["log_n"], "shape": case["shape"], "format": case["format"],
                "backend": case["backend"],
                "cpu_cores": a.cpu_cores if case["backend"] == "cpu" else "",
                "median_ms": statistics.median(t), "min_ms": min(t), "max_ms": max(t),
                "runs": len(t), "all_ms": t})
        # One more AFTER run with --json: where its wall time goes (the engine's stage times
        # and the command's own phases around the job).
        argv = prove_argv(binaries["after"], files, case, "after", a.cpu_cores)[0] + ["--json"]
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        if r.returncode == 0:
            report = json.loads(r.stdout)
            results[-1]["breakdown_ms"] = {"stages": report.get("timings", {}),
                                           "command": report.get("command_timings", {})}
        b, f = statistics.median(times["before"]), statistics.median(times["after"])
        name = ":".join(str(case[k]) for k in ("backend", "curve", "shape", "log_n", "format"))
        print(f"{name:36} {b:10.1f} {f:10.1f} {f / b:13.3f}", flush=True)
    out = {"device": a.device, "commit": a.commit,
           "date": datetime.date.today().isoformat(),
           "command": shlex.join(sys.argv), "results": results}
    a.out.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
