#!/usr/bin/env python3
"""Throughput of the daemon process from its timeline: the results of
scripts/daemon-throughput.sh as JSON in the shape of DESIGN.md section 6 (op
"engine_throughput", "via": "daemon").

  tools/daemon_throughput.py --runs runs.jsonl --out results.json --device NAME \\
      --commit C --command TEXT

runs.jsonl has one object per measured job, written by the script: {"timeline": path of the
daemon's timeline file, "job": the measured job's id, "wall_ms": the client's time from
submitting the job to its result, "curve", "log_n", "gpus", "workers_per_gpu", "partitions",
"preload_ms"}. From the timeline's records of that job: the steady span (the first partition's
start of compute to the last one's end, so the ramp-up of the first upload is not counted),
each GPU's busy fraction over it (tools/plot_timeline.py), the median compute time and the
per-partition stage times; partitions/s both by the client's wall time and by the steady span.
"""
import argparse
import datetime
import json
import statistics
import sys
from pathlib import Path

from plot_timeline import busy_fractions, stage_time

STAGES = [("prepare", "taken_us", "prepared_us"), ("ready", "prepared_us", "stage_begin_us"),
          ("stage", "stage_begin_us", "staged_us"),
          ("wait", "staged_us", "compute_begin_us"), ("gpu", "compute_begin_us", "gpu_done_us"),
          ("epilogue", "gpu_done_us", "finished_us")]


def summarize(run):
    records = []
    for line in Path(run["timeline"]).read_text().splitlines():
        if line.strip():
            r = json.loads(line)
            if r["job"] == run["job"]:
                records.append(r)
    done = [r for r in records if r["outcome"] == "succeeded"]
    if len(done) != run["partitions"]:
        sys.exit(f"{run['timeline']}: job {run['job']} has {len(done)} succeeded partitions "
                 f"of {run['partitions']}")
    first = min(r["compute_begin_us"] for r in done)
    last = max(r["gpu_done_us"] for r in done)
    steady_ms = (last - first) / 1e3
    busy = busy_fractions(done, (first, last))
    gpus = run["gpus"]
    per_gpu = [busy.get(d, 0.0) for d in range(gpus)]
    partitions = run["partitions"]
    stages = {name: sum(stage_time(r, end) - stage_time(r, begin) for r in done) / 1e3 / partitions
              for name, begin, end in STAGES}
    by_device = {d: sum(1 for r in done if r["device"] == d) for d in range(gpus)}
    return {"op": "engine_throughput", "via": "daemon", "backend": "cuda",
            "curve": run["curve"], "log_n": run["log_n"], "shape": "porep",
            "workers_per_gpu": run["workers_per_gpu"], "gpus": gpus, "partitions": partitions,
            "wall_ms": run["wall_ms"], "partitions_per_s": 1e3 * partitions / run["wall_ms"],
            "steady_ms": steady_ms, "steady_partitions_per_s": 1e3 * partitions / steady_ms,
            "gpu_busy": sum(per_gpu) / gpus, "gpu_busy_per_gpu": per_gpu,
            "partitions_per_gpu": [by_device[d] for d in range(gpus)],
            "median_compute_ms": statistics.median(
                (r["gpu_done_us"] - r["compute_begin_us"]) / 1e3 for r in done),
            "per_partition_ms": stages, "preload_ms": run.get("preload_ms"),
            "key": "random points, proofs not verified (verify_proofs = false)"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--device", required=True)
    parser.add_argument("--commit", default="unknown")
    parser.add_argument("--command", default="scripts/daemon-throughput.sh")
    args = parser.parse_args()
    runs = [json.loads(l) for l in Path(args.runs).read_text().splitlines() if l.strip()]
    results = [summarize(run) for run in runs]
    # Scaling: the same size and K on g GPUs against one GPU.
    for r in results:
        one = [o for o in results if o["log_n"] == r["log_n"] and o["gpus"] == 1
               and o["workers_per_gpu"] == r["workers_per_gpu"] and o["curve"] == r["curve"]]
        if one and r["gpus"] > 1:
            r["scaling_vs_1gpu"] = r["partitions_per_s"] / one[0]["partitions_per_s"]
            r["steady_scaling_vs_1gpu"] = (r["steady_partitions_per_s"]
                                           / one[0]["steady_partitions_per_s"])
    doc = {"device": args.device, "commit": args.commit,
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
           "command": args.command, "results": results}
    Path(args.out).write_text(json.dumps(doc, indent=1) + "\n")
    for r in results:
        line = (f"2^{r['log_n']} {r['curve']} {r['gpus']} GPU(s) K={r['workers_per_gpu']}: "
                f"{r['partitions_per_s']:.2f} partitions/s (steady "
                f"{r['steady_partitions_per_s']:.2f}), busy "
                + ", ".join(f"{100 * b:.1f}%" for b in r["gpu_busy_per_gpu"])
                + f", partitions per GPU {r['partitions_per_gpu']}")
        if "scaling_vs_1gpu" in r:
            line += (f", scaling {r['scaling_vs_1gpu']:.2f}x "
                     f"(steady {r['steady_scaling_vs_1gpu']:.2f}x)")
        print(line)


if __name__ == "__main__":
    main()
