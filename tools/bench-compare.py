#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Two builds' benchmarks side by side (`make bench-compare`).

    bench-compare.py [--rounds N] LABEL=BENCH_DIR LABEL=BENCH_DIR

Runs every benchmark executable found in both directories, the two builds
alternately (A B A B ... N rounds), so both see the same machine over the
same minutes, and prints each figure's median from each build (the lowest of
its rounds: the least disturbed) with their ratio, then the allocations per
operation of each. Asserts nothing about time: it prints figures.
"""
import os
import re
import subprocess
import sys

DECIMAL = re.compile(r"^-?[0-9]+\.[0-9]+$")
ALLOC = re.compile(r"^  (.+?) +(-?[0-9.]+) allocations/op$")


def parse(text):
    """A benchmark's table: from the line of dashes under its header to the
    next empty line, a row is a figure's name, then its median (the first
    number with a decimal point: names have none), min, max..."""
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
        name = line[:line.index(fields[at], len(" ".join(fields[:at])))].rstrip()
        if name in figures:   # the same figure on another setting: its note says which
            note = " ".join(f for f in fields[at:] if not DECIMAL.match(f) and not f.isdigit())
            name = f"{name} ({note})"
        figures[name] = float(fields[at])
    return figures, allocs


def run(path):
    out = subprocess.run([path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if out.returncode != 0:
        sys.stderr.write(out.stdout)
        sys.exit(f"bench-compare: {path} exited with {out.returncode}")
    return parse(out.stdout)


def main(argv):
    rounds = 2
    if len(argv) >= 2 and argv[0] == "--rounds":
        rounds = int(argv[1])
        argv = argv[2:]
    if len(argv) != 2 or not all("=" in a for a in argv):
        sys.exit(__doc__)
    builds = [tuple(a.split("=", 1)) for a in argv]
    names = sorted(set.intersection(*[
        {n for n in os.listdir(d) if os.access(os.path.join(d, n), os.X_OK)
         and os.path.isfile(os.path.join(d, n))} for _, d in builds]))
    if not names:
        sys.exit("bench-compare: no benchmark executable in both directories")
    (la, da), (lb, db) = builds
    for name in names:
        best = [{}, {}]
        allocs = [{}, {}]
        order = []
        for r in range(rounds):
            for k, (_, d) in enumerate(builds):
                figs, al = run(os.path.join(d, name))
                for f, v in figs.items():
                    if f not in order:
                        order.append(f)
                    best[k][f] = min(v, best[k].get(f, v))
                allocs[k].update(al)
        print(f"== {name}: median ns, the lower of {rounds} rounds per build, run alternately")
        width = max([44] + [len(f) for f in order])
        print(f"{'figure':<{width}} {la:>12} {lb:>12} {la + '/' + lb:>10}")
        for f in order:
            a, b = best[0].get(f), best[1].get(f)
            if a is None or b is None:
                continue
            ratio = a / b if b > 0 else float("nan")
            print(f"{f:<{width}} {a:12.1f} {b:12.1f} {ratio:10.2f}")
        keys = [k for k in allocs[0] if k in allocs[1]]
        if keys:
            print(f"\nallocations per operation ({la} / {lb}):")
            for k in keys:
                print(f"  {k:<44} {allocs[0][k]:8.3f} {allocs[1][k]:8.3f}")
        print()


if __name__ == "__main__":
    main(sys.argv[1:])
