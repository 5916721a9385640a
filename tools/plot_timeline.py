#!/usr/bin/env python3
"""The daemon's timeline (`timeline_file` in cuzk.toml: one JSON object per partition, times in
microseconds since the daemon started) as a picture: one row per GPU worker, a bar per stage of
each partition, plus the busy fraction of every GPU (the union of its compute intervals over the
span from the first to the last partition).

  tools/plot_timeline.py timeline.jsonl timeline.png [--title TEXT]

Needs gnuplot (Debian: gnuplot-nox). Stages, as the engine records them (src/engine/README.md):
prepare (taken -> prepared, no lock), ready (prepared -> stage_begin: prepared ahead, waiting for
its worker's previous partition), stage (stage_begin -> staged, under the memory lock), wait
(staged -> compute_begin, waiting for the compute lock), gpu (compute_begin -> gpu_done),
epilogue (gpu_done -> finished, no lock). Timelines written before stage_begin was recorded
have no ready stage (their stage starts when the partition was prepared).
"""
import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

STAGES = [  # (name, start field, end field, colour)
    ("prepare", "taken_us", "prepared_us", "#9e9e9e"),
    ("ready", "prepared_us", "stage_begin_us", "#ce93d8"),
    ("stage", "stage_begin_us", "staged_us", "#1f77b4"),
    ("wait", "staged_us", "compute_begin_us", "#ffd54f"),
    ("gpu", "compute_begin_us", "gpu_done_us", "#2ca02c"),
    ("epilogue", "gpu_done_us", "finished_us", "#d62728"),
]


def stage_time(record, field):
    """A stage boundary; stage_begin_us falls back to prepared_us in older timelines."""
    if field == "stage_begin_us" and field not in record:
        return record["prepared_us"]
    return record[field]


def busy_fractions(records, span=None):
    """Per device: the union of the compute intervals over `span` (start_us, end_us), by default
    the whole span from the first partition taken to the last one finished."""
    by_device = {}
    for r in records:
        if r["gpu_done_us"] > r["compute_begin_us"] > 0:
            by_device.setdefault(r["device"], []).append((r["compute_begin_us"], r["gpu_done_us"]))
    if span is None:
        span = (min(r["taken_us"] for r in records), max(r["finished_us"] for r in records))
    span_start, span_end = span
    out = {}
    for device, intervals in by_device.items():
        intervals.sort()
        covered, current_start, current_end = 0, None, None
        for start, end in intervals:
            if current_end is None or start > current_end:
                if current_end is not None:
                    covered += current_end - current_start
                current_start, current_end = start, end
            else:
                current_end = max(current_end, end)
        covered += current_end - current_start
        out[device] = covered / max(1, span_end - span_start)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("timeline")
    parser.add_argument("png")
    parser.add_argument("--title", default="cuzk timeline")
    args = parser.parse_args()

    records = []
    for number, line in enumerate(Path(args.timeline).read_text().splitlines(), 1):
        if line.strip():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as e:
                sys.exit(f"{args.timeline}:{number}: not a JSON object ({e})")
    records = [r for r in records if r.get("finished_us", 0) > 0 and r.get("device", -1) >= 0]
    if not records:
        sys.exit(f"{args.timeline}: no finished GPU partitions to draw")

    rows = sorted({(r["device"], r["worker"]) for r in records})
    row_of = {key: i for i, key in enumerate(rows)}
    origin = min(r["taken_us"] for r in records)
    busy = busy_fractions(records)
    for device, fraction in sorted(busy.items()):
        print(f"GPU {device}: busy {100 * fraction:.1f}% of the span")

    with tempfile.TemporaryDirectory() as tmp:
        # One file per stage: gnuplot's `index` would skip the blocks of stages that never
        # take time (and shift the colours of the others).
        files = []
        for name, start_field, end_field, _ in STAGES:
            path = Path(tmp) / f"{name}.dat"
            lines = []
            for r in records:
                start, end = stage_time(r, start_field), stage_time(r, end_field)
                if end <= start or start < 0:
                    continue
                y = row_of[(r["device"], r["worker"])]
                # boxxyerror: x y xlow xhigh ylow yhigh, in milliseconds
                x0, x1 = (start - origin) / 1000, (end - origin) / 1000
                lines.append(f"{(x0 + x1) / 2} {y} {x0} {x1} {y - 0.35} {y + 0.35}\n")
            path.write_text("".join(lines))
            files.append(path if lines else None)
        labels = ", ".join(f'"GPU {d} worker {w}" {i}' for (d, w), i in row_of.items())
        busy_text = ", ".join(f"GPU {d} busy {100 * f:.1f}%" for d, f in sorted(busy.items()))
        plots = ", ".join(
            f"'{path}' with boxxyerror fc rgb '{colour}' fs solid title '{name}'"
            for path, (name, _, _, colour) in zip(files, STAGES)
            if path is not None
        )
        script = f"""
set terminal pngcairo size 1400,{200 + 40 * len(rows)} font 'sans,10'
set output '{args.png}'
set title '{args.title} ({busy_text})'
set xlabel 'milliseconds'
set ytics ({labels})
set yrange [-0.8:{len(rows) - 0.2}]
set key outside right top
set grid xtics
plot {plots}
"""
        result = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
        if result.returncode != 0:
            sys.exit(f"gnuplot failed: {result.stderr.strip()}")
    print(f"wrote {args.png}")


if __name__ == "__main__":
    main()
