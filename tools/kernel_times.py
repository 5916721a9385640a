#!/usr/bin/env python3
"""Kernel times from Nsight Compute CSV output (`ncu --metrics gpu__time_duration.sum --csv`).

Splits each file's launches into MSMs at every `horner` kernel (the last launch of an MSM) and
prints, per MSM, the time of each kernel summed by its short name, largest first, with its
share. Launches before an MSM's first kernel (input generation) are counted in that MSM's
segment under their own names; read them as such.

    tools/kernel_times.py FILE.csv...
"""
import csv
import re
import sys
from collections import OrderedDict


def short_name(name):
    """'void cuzk::gpu::msm::kernels::accumulate<...>(...)' -> 'accumulate'."""
    name = re.sub(r"^void\s+", "", name)
    depth = 0
    out = []
    for ch in name:  # drop template arguments and parameter lists
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out).split("::")[-1].strip()


SCALE_TO_US = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3,
               "msecond": 1e3, "s": 1e6, "second": 1e6}


def launches(path):
    """(kernel, microseconds) in launch order."""
    rows = []
    with open(path, newline="") as f:
        lines = [line for line in f if line.startswith('"')]  # skip the program's own output
    for row in csv.DictReader(lines):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        value = float(row["Metric Value"].replace(",", ""))
        unit = row.get("Metric Unit", "")
        scale = SCALE_TO_US.get(unit)
        if scale is None:
            raise SystemExit(f"{path}: unknown time unit {unit!r}")
        rows.append((short_name(row["Kernel Name"]), value * scale))
    return rows


def main(paths):
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    for path in paths:
        segment = OrderedDict()
        index = 0
        for kernel, us in launches(path) + [("", None)]:
            if us is not None:
                segment[kernel] = segment.get(kernel, 0.0) + us
            if kernel == "horner" or (us is None and segment):
                total = sum(segment.values())
                print(f"{path} MSM {index}: {total / 1e3:.2f} ms")
                for name, t in sorted(segment.items(), key=lambda kv: -kv[1]):
                    print(f"  {name:48s} {t / 1e3:9.3f} ms {100 * t / total:5.1f}%")
                index += 1
                segment = OrderedDict()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
