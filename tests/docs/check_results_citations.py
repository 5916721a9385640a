#!/usr/bin/env python3
"""Checks the citations of bench/results.

Fails (exit 1, one line per problem) when
  - a path under bench/results/ cited by any text file of the repository (READMEs, docs,
    sources, scripts, results files) does not exist; `{a,b}` in a path is expanded as the shell
    does, and paths with placeholders (`<date>`, `$OUT`, `*`) are skipped;
  - a results file is cited by its bare name (`YYYY-MM-DD_h200_abc1234_msm.json`) or in
    an abbreviated form (`..._abc1234_msm` and an extension) outside bench/results/, where the reader cannot
    tell which folder holds it;
  - a file under bench/results/ is not listed in bench/results/INDEX.md, or INDEX.md lists a
    file that does not exist;
  - a README (any .md outside docs/experiments/ and bench/results/) cites a results file that
    its row of INDEX.md's "Behind the numbers in the READMEs" table does not name;
  - a results file's path breaks the naming rule of bench/README.md:
    <topic>/<date>_[<device>_]<commit>_<what>.(json|txt), or engine/timelines/ for .jsonl/.png.

    check_results_citations.py [REPO_ROOT]   (default: two folders above this script)
"""
import os
import re
import subprocess
import sys

RESULTS = "bench/results"
INDEX = f"{RESULTS}/INDEX.md"
# A cited path: bench/results/ and what follows up to a space, quote, backtick or bracket.
CITED = re.compile(r"bench/results/(?:[^\s`'\"()\[\]<>|;,{}]|\{[^{}\s]*\})*")
# A results file's name: date, then the rest of the name, then an extension.
NAME = r"20\d\d-\d\d-\d\d_[\w{},.-]*\.(?:json|jsonl|txt|png)"
BARE = re.compile(r"(?<![\w/.{,-])" + NAME)
ABBREVIATED = re.compile(r"\.\.\._[\w{},.-]*\.(?:json|jsonl|txt|png)")
TOPICS = ("cli", "ff", "msm", "ntt", "prover", "engine", "supraseal")  # bench/README.md lists them
STEM = r"20\d\d-\d\d-\d\d_(?:[a-z0-9-]+_)?[0-9a-f]{7}_[A-Za-z0-9_]+"
NAMING = re.compile(rf"(?:(?:{'|'.join(TOPICS)})/{STEM}\.(?:json|txt)|engine/timelines/{STEM}\.(?:jsonl|png))")
SKIP_DIRS = {".git", "build", "node_modules", ".gpupkg"}
TEXT_SUFFIXES = {".md", ".txt", ".json", ".jsonl", ".py", ".sh", ".cpp", ".hpp", ".cu", ".cuh",
                 ".h", ".c", ".cmake", ".toml", ".proto", ".yml", ".yaml", ".in", ""}


def repo_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-co", "--exclude-standard"],
                             check=True, capture_output=True, text=True).stdout
        files = [f for f in out.splitlines() if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if x not in SKIP_DIRS]
            files += [os.path.relpath(os.path.join(d, n), root) for n in names]
    return [f for f in files
            if not (set(f.split("/")) & SKIP_DIRS) and os.path.isfile(os.path.join(root, f))]


def expand(path):
    """Shell brace expansion of `path` (nested braces included)."""
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    return [p for alt in m.group(1).split(",")
            for p in expand(path[:m.start()] + alt + path[m.end():])]


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1
                           else os.path.join(os.path.dirname(__file__), "..", ".."))
    files = repo_files(root)
    problems = []
    for f in files:
        if os.path.splitext(f)[1] not in TEXT_SUFFIXES:
            continue
        try:
            text = open(os.path.join(root, f), encoding="utf-8").read()
        except (UnicodeDecodeError, OSError):
            continue
        for n, line in enumerate(text.splitlines(), 1):
            where = f"{f}:{n}"
            for m in CITED.finditer(line):
                cited = m.group(0).rstrip(".:")
                if re.search(r"[<>*$]|\.\.\.", cited) or cited.endswith("_"):
                    if cited.endswith("_"):
                        problems.append(f"{where}: cited path broken across lines: {cited}")
                    continue
                for path in expand(cited):
                    if not os.path.exists(os.path.join(root, path)):
                        problems.append(f"{where}: cited results file does not exist: {path}")
            if f.startswith(RESULTS + "/"):
                continue  # results files and the index name their neighbours by bare name
            for m in BARE.finditer(line):
                problems.append(f"{where}: results file cited without its folder "
                                f"(write bench/results/<topic>/{m.group(0)})")
            for m in ABBREVIATED.finditer(line):
                problems.append(f"{where}: abbreviated results file name {m.group(0)} "
                                "(write the whole path)")

    readme_cites = {}  # README -> results paths (relative to bench/results) it cites
    for f in files:
        if (f.endswith(".md") and not f.startswith(("docs/experiments/", RESULTS + "/"))):
            try:
                text = open(os.path.join(root, f), encoding="utf-8").read()
            except (UnicodeDecodeError, OSError):
                continue
            for m in CITED.finditer(text):
                for path in expand(m.group(0).rstrip(".:")):
                    if re.search(r"\.(json|jsonl|txt|png)$", path):
                        readme_cites.setdefault(f, set()).add(os.path.relpath(path, RESULTS))

    results = sorted(f for f in files if f.startswith(RESULTS + "/") and f != INDEX
                     and not f.endswith("/README.md"))
    for f in results:
        if not NAMING.fullmatch(os.path.relpath(f, RESULTS)):
            problems.append(f"{f}: not named <topic>/<date>_[<device>_]<commit>_<what>.<ext> "
                            "(bench/README.md)")
    index_path = os.path.join(root, INDEX)
    if not os.path.exists(index_path):
        problems.append(f"{INDEX} is missing")
    else:
        index = open(index_path, encoding="utf-8").read()
        listed = set(re.findall(r"\]\(([^)\s]+)\)", index))
        for f in results:
            if os.path.relpath(f, RESULTS) not in listed:
                problems.append(f"{f}: not listed in {INDEX}")
        section = index.split("## Behind the numbers in the READMEs", 1)
        behind = {}
        if len(section) == 2:
            for row in section[1].split("\n## ", 1)[0].splitlines():
                cells = row.split("|")
                if len(cells) < 4:
                    continue
                readme = re.findall(r"\]\(\.\./\.\./([^)\s]+)\)", cells[1])
                if readme:
                    behind[readme[0]] = set(re.findall(r"\]\(([^)\s]+)\)", cells[2]))
        for readme, cited in sorted(readme_cites.items()):
            for rel in sorted(cited - behind.get(readme, set())):
                problems.append(f"{readme}: cites {RESULTS}/{rel}, which {INDEX} does not name "
                                "under \"Behind the numbers in the READMEs\"")
        for rel in sorted(listed):
            if re.match(r"[a-z]+://", rel) or rel.startswith("#"):
                continue
            if not os.path.exists(os.path.join(root, RESULTS, rel)):
                problems.append(f"{INDEX}: lists {rel}, which does not exist")

    for p in problems:
        print(p)
    print(f"{len(results)} results files, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
