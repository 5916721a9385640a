#!/usr/bin/env python3
"""Turns Google Benchmark JSON (--benchmark_out, with --benchmark_repetitions) into a results
file of bench/results/ (shape in bench/README.md): per benchmark the median, minimum and maximum
over the repetitions, and for host field operations the speedup over their GMP baseline.

    tools/bench_results.py raw.json --device "AMD EPYC (2 vCPU)" --command "bench_ff ..." > out.json
"""
import argparse
import datetime
import json
import statistics
import subprocess
import sys
from collections import defaultdict


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("raw", help="Google Benchmark JSON output")
    parser.add_argument("--device", required=True, help="what ran it, e.g. the CPU or GPU model")
    parser.add_argument("--command", required=True, help="the command that produced raw")
    args = parser.parse_args()

    raw = json.load(open(args.raw))
    times = defaultdict(list)  # name -> per-repetition real time in ns
    scale = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
    for b in raw["benchmarks"]:
        if b.get("run_type") != "iteration":
            continue
        times[b["run_name"]].append(b["real_time"] * scale[b["time_unit"]])
    if not times:
        sys.exit("no per-repetition entries: run the benchmark with --benchmark_repetitions")

    medians = {name: statistics.median(v) for name, v in times.items()}
    results = []
    for name, values in times.items():
        op, _, axis = name.partition("/")
        curve, _, field = axis.partition("_f")  # "bls12_381_fp" -> ("bls12_381", "p")
        entry = {"op": op, "curve": curve, "shape": "random",
                 "median_ms": medians[name] / 1e6, "min_ms": min(values) / 1e6,
                 "max_ms": max(values) / 1e6, "runs": len(values), "median_ns": medians[name]}
        if field:
            entry["field"] = "f" + field
        baseline = f"{op}_gmp/{axis}"
        if not op.endswith("_gmp") and baseline in medians:
            entry["baseline_op"] = op + "_gmp"
            entry["speedup_vs_baseline"] = round(medians[baseline] / medians[name], 3)
        results.append(entry)

    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    out = {"device": args.device, "commit": commit,
           "date": datetime.date.today().isoformat(), "command": args.command,
           "context": raw.get("context", {}), "results": results}
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
