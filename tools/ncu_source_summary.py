#!/usr/bin/env python3
"""Where a kernel's warps wait, from Nsight Compute's source page exported as CSV.

    ncu --import REPORT --page source --csv --print-source sass > source.csv
    tools/ncu_source_summary.py source.csv

The source page has one row per SASS instruction with its warp-state samples (where the warps
were when the sampler looked, and why they were not issuing) and its executed count. For each
kernel in the file this prints the samples by stall reason, by kind of instruction, by straight
run of code (split after every branch, barrier and exit, so that a Montgomery product, a stage's
shared-memory accesses or a load phase shows up as one run), by phase (the code between block
barriers), and the instructions with the most samples. The export's column names differ between
Nsight Compute versions: columns are found by the words in their names, and a column that is
missing leaves its part of the summary out.
"""
import csv
import sys
from collections import Counter, defaultdict

# Instructions after which a straight run of code ends.
RUN_ENDS = ("BRA", "EXIT", "BAR", "WARPSYNC", "BSYNC", "RET", "CALL", "BRX", "JMP")
# Kinds of instruction, by opcode prefix (first match wins).
KINDS = [
    ("IMAD.WIDE", "wide multiply-add"),
    ("IMAD", "multiply-add (other)"),
    ("IADD3", "integer addition"),
    ("LDS", "shared load"),
    ("STS", "shared store"),
    ("LDG", "global load"),
    ("STG", "global store"),
    ("LDL", "local load (spill)"),
    ("STL", "local store (spill)"),
    ("LDC", "constant load"),
    ("BAR", "block barrier"),
    ("WARPSYNC", "warp barrier"),
    ("LOP3", "logic"),
    ("SHF", "shift"),
    ("SEL", "select"),
    ("ISETP", "compare"),
    ("VIMNMX", "min/max"),
    ("BRA", "branch"),
]


def number(cell):
    cell = cell.replace(",", "").strip()
    try:
        return float(cell)
    except ValueError:
        return 0.0


def opcode(source):
    """'@!P0 IMAD.WIDE.U32.X R4, ...' -> 'IMAD.WIDE.U32.X'."""
    words = source.replace(";", " ").split()
    if words and words[0].startswith("@"):
        words = words[1:]
    return words[0] if words else ""


def kind(op):
    for prefix, name in KINDS:
        if op.startswith(prefix):
            return name
    return "other"


def find(header, *words):
    """Index of the first column whose name holds every one of `words` (case-insensitive)."""
    for i, name in enumerate(header):
        low = name.lower()
        if all(w.lower() in low for w in words):
            return i
    return None


def kernels(rows):
    """(title, header, data rows) for each kernel section of the export."""
    title, header, data = "", None, []
    for row in rows:
        if "Address" in row and "Source" in row:
            if header is not None:
                yield title, header, data
            header, data = row, []
            continue
        if header is None or len(row) != len(header):
            if header is not None and data:
                yield title, header, data
                header, data = None, []
            title = " ".join(c for c in row if c).strip() or title
            continue
        data.append(row)
    if header is not None:
        yield title, header, data


def split_after(rows, ends):
    """The rows in consecutive groups, each ending after a row whose opcode satisfies `ends`."""
    groups, current = [], []
    for r in rows:
        current.append(r)
        if ends(r["op"]):
            groups.append(current)
            current = []
    if current:
        groups.append(current)
    return groups


def percent(part, whole):
    return 100.0 * part / whole if whole else 0.0


def summarize(title, header, data, out):
    col_source = header.index("Source")
    col_address = header.index("Address")
    col_samples = find(header, "Warp Stall Sampling", "All")
    col_executed = find(header, "Instructions Executed")
    reasons = [(i, name) for i, name in enumerate(header) if name.startswith("stall_")]
    if col_samples is None:
        out.write(f"{title}: no warp-state samples in this export\n")
        return
    rows = []
    for r in data:
        op = opcode(r[col_source])
        rows.append({
            "address": r[col_address].strip(),
            "source": " ".join(r[col_source].split()),
            "op": op,
            "samples": number(r[col_samples]),
            "executed": number(r[col_executed]) if col_executed is not None else 0.0,
            "reasons": {name: number(r[i]) for i, name in reasons},
        })
    total = sum(r["samples"] for r in rows)
    executed = sum(r["executed"] for r in rows)
    out.write(f"== {title}\n{len(rows)} instructions, {total:.0f} samples, "
              f"{executed:.4g} warp instructions executed\n")

    if reasons:
        by_reason = Counter()
        for r in rows:
            by_reason.update(r["reasons"])
        out.write("\nsamples by stall reason\n")
        for name, n in by_reason.most_common():
            if n:
                out.write(f"  {name:32s} {n:12.0f} {percent(n, total):6.1f}%\n")

    by_kind = defaultdict(lambda: [0.0, 0.0, 0])
    for r in rows:
        k = by_kind[kind(r["op"])]
        k[0] += r["samples"]
        k[1] += r["executed"]
        k[2] += 1
    out.write("\nby kind of instruction      samples  executed  (static count)\n")
    for name, (s, e, c) in sorted(by_kind.items(), key=lambda kv: -kv[1][0]):
        out.write(f"  {name:24s} {percent(s, total):6.1f}% {percent(e, executed):6.1f}%  ({c})\n")

    def shares(group):
        """The group's share of samples and of executed instructions, and its top reasons."""
        s = sum(r["samples"] for r in group)
        e = sum(r["executed"] for r in group)
        why = Counter()
        for r in group:
            why.update(r["reasons"])
        top = ", ".join(f"{n.replace('stall_', '')} {percent(v, s):.0f}%"
                        for n, v in why.most_common(3) if v)
        return f"{percent(s, total):6.1f}% {percent(e, executed):6.1f}%  {top}"

    # Phases: the code between block barriers, in address order (in a kernel whose phases are
    # laid out in the order they run, such as the NTT pass: load phase, stages, store phase).
    phases = split_after(rows, lambda op: op.startswith("BAR.SYNC") or op == "BAR")
    if len(phases) > 1:
        out.write("\nphases between block barriers, in address order (start address, "
                  "instructions, share of samples, of executed, top reasons)\n")
        for phase in phases:
            out.write(f"  {phase[0]['address']:>8s} {len(phase):5d} {shares(phase)}\n")

    runs = split_after(rows, lambda op: op.split(".")[0] in RUN_ENDS)
    out.write("\nstraight runs by samples (start address, instructions, share of samples, "
              "of executed, top reasons; contents)\n")
    for run in sorted(runs, key=lambda run: -sum(r["samples"] for r in run))[:25]:
        ops = Counter(kind(r["op"]) for r in run)
        mix = ", ".join(f"{n} {c}" for n, c in ops.most_common(5))
        out.write(f"  {run[0]['address']:>8s} {len(run):4d} {shares(run)}\n           {mix}\n")

    out.write("\ninstructions by samples\n")
    for r in sorted(rows, key=lambda r: -r["samples"])[:30]:
        top = ", ".join(f"{n.replace('stall_', '')} {v:.0f}"
                        for n, v in Counter(r["reasons"]).most_common(3) if v)
        out.write(f"  {r['address']:>8s} {percent(r['samples'], total):5.2f}%  "
                  f"{r['source'][:60]:60s} {top}\n")
    out.write("\n")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    with open(sys.argv[1], newline="") as f:
        rows = [row for row in csv.reader(f) if row]
    found, previous = False, None
    for title, header, data in kernels(rows):
        # Nsight Compute 2025 writes each launch's page twice in a row: summarize it once.
        if data and data != previous:
            found = True
            summarize(title or "kernel", header, data, sys.stdout)
        previous = data
    if not found:
        sys.exit(f"{sys.argv[1]}: no source-page rows (a header with Address and Source)")


if __name__ == "__main__":
    main()
