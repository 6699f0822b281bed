#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Builds' benchmarks side by side (`make bench-compare`).

    bench-compare.py [--rounds N] [--worse PCT] [--floor NAME]
                     [--bench NAME[,NAME...]] [--rows REGEX]
                     LABEL=BENCH_DIR [LABEL=BENCH_DIR ...] LABEL=BENCH_DIR

The last build is the one judged; each one before it is a reference (an
older release, or the ordinary Swift build). Runs every benchmark executable
found in any of the directories, the builds alternately (A B C, B C A, ... N
rounds: each build takes each place in turn), so all see the same machine
over the same minutes, and prints, for each figure (a row of a benchmark's
table, matched by name across builds):

  * each build's median ns (the lowest of its rounds: the least disturbed),
    and beside it its ratio to the C floor (NAME, default "(iii) floor: event
    via 5 C fn pointers") of the same build in the same run: from the same
    benchmark's table when it has that row, else from navguard_bench's;
  * the judged build's ns over each reference's (last/ref), marked "!" and
    named in the note when more than PCT (default 10) per cent worse;
  * "-" for a build without the row, the note saying which builds have it.

Then the allocations per operation of each build, and the rows flagged.

--bench runs only the benchmark executables named (navguard_bench is run
too when a ratio to its floor is wanted: always, here); --rows shows and
judges only the figures whose name matches REGEX (re.search; the floor row
is always shown): more rounds of a few rows in the same minutes.
Exits 0 whatever the figures: the machine's load makes a time a poor
assertion (issue 27); a missing or failing benchmark executable exits 1.
Standard library only (Debian 12's python3).
"""
import os
import re
import subprocess
import sys

DECIMAL = re.compile(r"^-?[0-9]+\.[0-9]+$")
ALLOC = re.compile(r"^  (.+?) +(-?[0-9.]+) allocations/op$")
DEFAULT_FLOOR = "(iii) floor: event via 5 C fn pointers"
FLOOR_BENCH = "navguard_bench"


def key(name):
    """The name a row is matched by: runs of spaces are alignment, not
    meaning ("(iv)  moved" and "(iv) moved" are one row)."""
    return " ".join(name.split())


def parse(text):
    """A benchmark's table: from the line of dashes under its header to the
    next empty line, a row is a figure's name, then its median (the first
    number with a decimal point: names have none), min, max... Returns
    ({name: median}, {label: allocations per op}), names in table order."""
    figures, allocs, in_table = {}, {}, None
    for line in text.splitlines():
        m = ALLOC.match(line)
        if m:
            allocs[m.group(1).rstrip()] = float(m.group(2))
            continue
        if in_table is None:
            in_table = True if line.startswith("---") else None
            continue
        if not in_table:
            continue
        if not line.strip():
            in_table = False
            continue
        fields = line.split()
        at = next((i for i, f in enumerate(fields) if DECIMAL.match(f)), None)
        if at is None or at == 0:
            continue
        name = " ".join(fields[:at])
        if name in figures:   # the same figure on another setting: its note says which
            note = " ".join(f for f in fields[at:] if not DECIMAL.match(f) and not f.isdigit())
            name = f"{name} ({note})"
        figures[name] = float(fields[at])
    return figures, allocs


def executables(d):
    if not os.path.isdir(d):
        sys.exit(f"bench-compare: {d} is not a directory (was the build made?)")
    return {n for n in os.listdir(d)
            if os.path.isfile(os.path.join(d, n)) and os.access(os.path.join(d, n), os.X_OK)}


def run(path):
    # Each build loads the plugins next to its own libnavguard, whatever the
    # caller's environment names.
    env = {k: v for k, v in os.environ.items() if k not in ("NAVGUARD_PLUGIN_DIR", "NAVGUARD_PLUGIN_PATH")}
    out = subprocess.run([path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    if out.returncode != 0:
        sys.stderr.write(out.stdout)
        sys.exit(f"bench-compare: {path} exited with {out.returncode}")
    return parse(out.stdout)


def collect(builds, rounds, log=sys.stderr, only=None):
    """Run every benchmark of every build (or those in `only`, with
    navguard_bench for its floor), alternately, `rounds` times.
    Returns {bench: [per build: ({key: lowest median}, {key: shown name},
    allocs) or None when that build lacks the benchmark]}."""
    have = [executables(d) for _, d in builds]
    names = sorted(set().union(*have))
    if only is not None:
        unknown = sorted(set(only) - set(names))
        if unknown:
            sys.exit(f"bench-compare: --bench: no benchmark {', '.join(unknown)} in any directory")
        names = [n for n in names if n in only or n == FLOOR_BENCH]
    if not names:
        sys.exit("bench-compare: no benchmark executable in any directory")
    results = {}
    for name in names:
        res = [({}, {}, {}) if name in have[k] else None for k in range(len(builds))]
        for r in range(rounds):
            for i in range(len(builds)):
                k = (i + r) % len(builds)
                if res[k] is None:
                    continue
                label, d = builds[k]
                log.write(f"bench-compare: {name}, round {r + 1}/{rounds}, {label}\n")
                log.flush()
                figs, al = run(os.path.join(d, name))
                best, shown, allocs = res[k]
                for f, v in figs.items():
                    shown.setdefault(key(f), f)
                    best[key(f)] = min(v, best.get(key(f), v))
                allocs.update(al)
        results[name] = res
    return results


def merged_order(lists):
    """The rows in the first list's order (the judged build's table), each
    row of the others placed after the row it follows there."""
    order = []
    for rows in lists:
        for i, kf in enumerate(rows):
            if kf in order:
                continue
            prev = next((rows[j] for j in range(i - 1, -1, -1) if rows[j] in order), None)
            order.insert(order.index(prev) + 1 if prev is not None else 0, kf)
    return order


def fmt_ns(v):
    return "-" if v is None else f"{v:.1f}"


def fmt_floor(v):
    if v is None:
        return ""
    return f"x{v:.2f}" if v < 10 else f"x{v:.1f}"


def report(builds, results, rounds, worse_pct=10.0, floor_name=DEFAULT_FLOOR, out=sys.stdout, rows=None):
    """Print the tables (only the rows whose name matches `rows`, a
    compiled pattern, and the floor); return the flagged rows as (bench,
    row, ref, ratio)."""
    labels = [lb for lb, _ in builds]
    new, refs = labels[-1], labels[:-1]
    limit = 1.0 + worse_pct / 100.0
    fkey = key(floor_name)
    # The floor of each build in this run: navguard_bench's, for benchmarks
    # without a floor row of their own.
    common_floor = [None] * len(builds)
    for k, res in enumerate(results.get(FLOOR_BENCH, [])):
        if res is not None:
            common_floor[k] = res[0].get(fkey)
    flagged = []
    cell = max([16] + [len(lb) + 7 for lb in labels])
    rcell = max([8] + [len(f"{new}/{r}") for r in refs])
    for name, res in results.items():
        order = merged_order([list(r[0]) for r in reversed(res) if r is not None])
        shown = {}
        for r in reversed(res):
            if r is not None:
                for kf in r[0]:
                    shown.setdefault(kf, r[1][kf])
        floors = [None if r is None else (r[0].get(fkey) or common_floor[k]) for k, r in enumerate(res)]
        missing = [lb for lb, r in zip(labels, res) if r is None]
        out.write(f"== {name}: median ns, the lowest of {rounds} round(s) per build, builds run alternately;"
                  f" xN: ratio to the floor of the same build, this run; {new}/ref > 1: {new} slower,"
                  f" '!' more than {worse_pct:g} %\n")
        if missing:
            out.write(f"   (no {name} in {', '.join(missing)})\n")
        if rows is not None:
            order = [kf for kf in order if kf == fkey or rows.search(shown[kf])]
        width = max([44] + [len(shown[kf]) for kf in order])
        head = f"{'figure':<{width}}" + "".join(f" {lb + ' ' + 'xfloor':>{cell}}" for lb in labels)
        head += "".join(f" {new + '/' + r:>{rcell}}" for r in refs) + "  note"
        out.write(head + "\n")
        for kf in order:
            vals = [None if r is None else r[0].get(kf) for r in res]
            cells = []
            for v, fl in zip(vals, floors):
                c = f"{fmt_ns(v):>9} {fmt_floor(v / fl) if v is not None and fl else '':>6}"
                cells.append(f" {c:>{cell}}")
            notes, ratios, moved = [], [], []
            for k, r in enumerate(refs):
                a, b = vals[-1], vals[k]
                if a is None or b is None or a <= 0 or b <= 0:
                    # A figure less a measured overhead (a timer's) can come
                    # out at or below 0 under load: no ratio to speak of.
                    ratios.append(f" {'-':>{rcell}}")
                    continue
                ratio = a / b
                worse = ratio > limit and kf != fkey
                ratios.append(f" {ratio:>{rcell - 1}.2f}{'!' if worse else ' '}")
                if kf == fkey and abs(ratio - 1) > limit - 1:
                    moved.append(r)
                if worse:
                    notes.append(f"{(ratio - 1) * 100:.0f} % worse than {r}")
                    flagged.append((name, shown[kf], r, ratio))
            if moved:   # not NavGuard's code: the machine changed, not the build
                notes.append(f"the floor itself moved vs {', '.join(moved)}: the load differed between the runs")
            present = [lb for lb, v in zip(labels, vals) if v is not None]
            if len(present) < len(labels) - len(missing):
                notes.append("only in " + ", ".join(present))
            out.write(f"{shown[kf]:<{width}}" + "".join(cells) + "".join(ratios) + "  " + "; ".join(notes) + "\n")
        alloc_keys = []
        for r in res:
            if r is not None:
                alloc_keys += [a for a in r[2] if a not in alloc_keys]
        if alloc_keys:
            out.write(f"\nallocations per operation ({' / '.join(labels)}):\n")
            for a in alloc_keys:
                vs = ["-" if r is None or a not in r[2] else f"{r[2][a]:.3f}" for r in res]
                out.write(f"  {a:<44}" + "".join(f" {v:>8}" for v in vs) + "\n")
        out.write("\n")
    if flagged:
        out.write(f"bench-compare: {len(flagged)} row(s) of {new} more than {worse_pct:g} % worse"
                  f" (noise on a loaded machine looks the same: rerun with more rounds before believing one):\n")
        for bench, row, ref, ratio in flagged:
            out.write(f"  {bench}: {row}: x{ratio:.2f} {ref}\n")
    else:
        out.write(f"bench-compare: no row of {new} more than {worse_pct:g} % worse than {', '.join(refs)}\n")
    return flagged


def main(argv):
    rounds, worse, floor_name, only, rows = 2, 10.0, DEFAULT_FLOOR, None, None
    while argv and argv[0].startswith("--"):
        if len(argv) < 2:
            sys.exit(__doc__)
        opt, val, argv = argv[0], argv[1], argv[2:]
        if opt == "--rounds":
            rounds = int(val)
        elif opt == "--worse":
            worse = float(val)
        elif opt == "--floor":
            floor_name = val
        elif opt == "--bench":
            only = [n for n in val.split(",") if n]
        elif opt == "--rows":
            try:
                rows = re.compile(val)
            except re.error as e:
                sys.exit(f"bench-compare: --rows: {e}")
        else:
            sys.exit(f"bench-compare: unknown option {opt}\n{__doc__}")
    if len(argv) < 2 or not all("=" in a for a in argv) or rounds < 1:
        sys.exit(__doc__)
    builds = [tuple(a.split("=", 1)) for a in argv]
    labels = [lb for lb, _ in builds]
    if len(set(labels)) != len(labels):
        sys.exit(f"bench-compare: two builds share a label: {' '.join(labels)}")
    report(builds, collect(builds, rounds, only=only), rounds, worse, floor_name, rows=rows)


if __name__ == "__main__":
    main(sys.argv[1:])
