#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""bench_compare_tool: tools/bench-compare.py on fake benchmarks (shell
scripts printing a benchmark's table) in a temporary directory, judged from
what it prints: rows matched by name across builds (whatever their
alignment), a row more than 10 % worse flagged and one 5 % worse not, a row
or a benchmark only one build has shown as such, each figure's ratio to the
floor of its own build, the lowest of the rounds kept, the builds run
alternately, three builds in one table, a failing benchmark an error.
Standard library only.

  check_bench_compare.py TOOL
"""
import os
import re
import stat
import subprocess
import sys
import tempfile

HEAD = """navguard_bench: fake
plugin dir: /nowhere

figure                                        median ns        min        max  runs  note
-------------------------------------------- ---------- ---------- ---------- -----  ----
"""

failures = []


def check(cond, what, out=""):
    if not cond:
        failures.append(what)
        sys.stderr.write(f"FAIL: {what}\n")
        if out:
            sys.stderr.write(out + "\n")


def fake(d, name, label, runs_log, table, first_table=None, allocs="", rc=0):
    """An executable printing `table` (rows as "name median"), or
    `first_table` on its first run, appending `label` to runs_log."""
    os.makedirs(d, exist_ok=True)
    count = os.path.join(d, name + ".count")

    def body(rows):
        return HEAD + "".join(f"{n:<44} {v:10.1f} {v:10.1f} {v:10.1f}     7  {note}\n" for n, v, note in rows) + "\n" + allocs

    script = f"""#!/bin/sh
echo "{label} {name}" >> '{runs_log}'
if [ ! -e '{count}' ] && [ -n "{1 if first_table else ''}" ]; then
  : > '{count}'
  cat <<'END'
{body(first_table or [])}END
  exit {rc}
fi
cat <<'END'
{body(table)}END
exit {rc}
"""
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(script)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)


def run(tool, args):
    p = subprocess.run([sys.executable, tool] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return p.returncode, p.stdout, p.stderr


def row(out, name):
    for line in out.splitlines():
        if line.startswith(name + " ") or line == name:
            return line
    return None


def main(tool):
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "runs.log")
        old, new = os.path.join(tmp, "old"), os.path.join(tmp, "new")
        floor = "(iii) floor: event via 5 C fn pointers"
        fake(old, "navguard_bench", "old", log, [
            (floor, 10.0, ""),
            ("(i)   steady", 100.0, ""),
            ("(ii)  slower", 100.0, ""),
            ("(iv)  only old", 50.0, ""),
            ("(v)   BEGAN", 40.0, "x4.00 floor"),
            ("(v)   BEGAN", 44.0, "other setting"),
            ("(v)   MOVED", 5.0, ""),
        ], allocs="  moved, default chain                             0.000 allocations/op\n")
        fake(new, "navguard_bench", "new", log, [
            (floor, 20.0, ""),
            ("(i) steady", 105.0, ""),           # spaced otherwise: the same row
            ("(ii)  slower", 125.0, ""),
            ("(vi)  only new", 70.0, ""),
            ("(v)   BEGAN", 40.0, "x2.00 floor"),
            ("(v)   BEGAN", 40.0, "other setting"),
            ("(v)   MOVED", -3.0, "timer subtracted"),
        ], first_table=[                          # its first round is disturbed: the lowest is kept
            (floor, 20.0, ""),
            ("(i) steady", 500.0, ""),
            ("(ii)  slower", 500.0, ""),
            ("(vi)  only new", 70.0, ""),
            ("(v)   BEGAN", 40.0, ""),
            ("(v)   BEGAN", 40.0, "other setting"),
        ], allocs="  moved, default chain                             1.500 allocations/op\n")
        fake(new, "bench_adapter", "new", log, [("(a) through the adapter", 60.0, "")])

        rc, out, err = run(tool, ["--rounds", "2", f"old={old}", f"new={new}"])
        check(rc == 0, f"two builds: exit 0 (got {rc})", out + err)
        with open(log) as f:
            runs = [line.split() for line in f.read().splitlines()]
        nb = [lb for lb, name in runs if name == "navguard_bench"]
        check(nb == ["old", "new", "new", "old"], f"builds run alternately, each first in turn: {nb}")
        check(sum(1 for _, name in runs if name == "bench_adapter") == 2, "a benchmark one build has runs each round")

        r = row(out, "(i) steady")
        check(r is not None and re.search(r"\b100\.0 +x10\.0 +105\.0 +x5\.25 +1\.05 ", r) and "worse" not in r,
              "a row spaced otherwise is one row; 5 % worse is not flagged; the lowest round kept; ratios to each build's floor",
              str(r) + "\n" + out)
        r = row(out, "(ii) slower")
        check(r is not None and re.search(r" 1\.25! .*25 % worse than old", r),
              "a row 25 % worse is flagged", str(r) + "\n" + out)
        r = row(out, floor)
        check(r is not None and "!" not in r and "the floor itself moved vs old" in r and "x2.00 old" not in out,
              "the floor moving is told, not flagged (it is the machine, not NavGuard)", str(r) + "\n" + out)
        r = row(out, "(iv) only old")
        check(r is not None and re.search(r"\b50\.0 +x5\.00 +- +-  only in old$", r),
              "a row only the reference has: '-' for the other, 'only in old'", str(r) + "\n" + out)
        r = row(out, "(vi) only new")
        check(r is not None and re.search(r" - +70\.0 +x3\.50 +-  only in new$", r),
              "a row only the judged build has: 'only in new'", str(r) + "\n" + out)
        r = row(out, "(v) BEGAN (other setting)")
        check(r is not None and re.search(r"\b44\.0 .*\b40\.0 .*0\.91", r),
              "a figure repeated on another setting is told apart by its note", str(r) + "\n" + out)
        check("(no bench_adapter in old)" in out, "a benchmark only one build has is named as such", out)
        r = row(out, "(a) through the adapter")
        check(r is not None and re.search(r" - +60\.0 +x3\.00 ", r),
              "a benchmark without a floor row: ratio to navguard_bench's floor of the same build", str(r) + "\n" + out)
        names = [line.split("  ")[0].rstrip() for line in out.split("== navguard_bench")[1].splitlines()[2:9]]
        check(names == [floor, "(i) steady", "(ii) slower", "(iv) only old", "(vi) only new", "(v) BEGAN",
                        "(v) BEGAN (other setting)"],
              f"rows in the judged build's order, a reference's own rows after the row they follow there: {names}")
        r = row(out, "(v) MOVED")
        check(r is not None and re.search(r" -3\.0 +x-0\.15 +-  $", r),
              "a figure at or below 0 (a timer subtracted): no ratio", str(r) + "\n" + out)
        check(re.search(r"moved, default chain +0\.000 +1\.500", out) is not None, "allocations per build", out)
        check(re.search(r"1 row\(s\) of new more than 10 % worse.*\n  navguard_bench: \(ii\) slower: x1\.25 old", out)
              is not None, "the summary names the flagged row", out)

        # --worse moves the threshold.
        rc, out, err = run(tool, ["--rounds", "1", "--worse", "30", f"old={old}", f"new={new}"])
        r = row(out, "(ii) slower")
        check(rc == 0 and r is not None and "!" not in r and "no row of new more than 30 % worse" in out,
              "--worse 30: 25 % worse is not flagged", str(r) + "\n" + out + err)

        # --bench and --rows: only the benchmarks named (and navguard_bench,
        # for the floor), only the rows matching (and the floor).
        open(log, "w").close()
        rc, out, err = run(tool, ["--rounds", "1", "--bench", "bench_adapter", "--rows", r"slower|adapter",
                                  f"old={old}", f"new={new}"])
        with open(log) as f:
            ran = sorted({line.split()[1] for line in f.read().splitlines()})
        check(rc == 0 and ran == ["bench_adapter", "navguard_bench"], f"--bench: the one named and navguard_bench run: {ran}",
              out + err)
        check(row(out, "(ii) slower") is not None and row(out, floor) is not None and row(out, "(i) steady") is None
              and row(out, "(a) through the adapter") is not None,
              "--rows: the matching rows and the floor, no other", out)
        rc, out, err = run(tool, ["--rounds", "1", "--bench", "nothing_such", f"old={old}", f"new={new}"])
        check(rc != 0 and "no benchmark nothing_such" in err, "--bench naming no benchmark: an error", err)

        # Three builds: the last judged against each of the others.
        mid = os.path.join(tmp, "mid")
        fake(mid, "navguard_bench", "mid", log, [(floor, 10.0, ""), ("(i)   steady", 80.0, ""),
                                                 ("(ii)  slower", 130.0, "")])
        rc, out, err = run(tool, ["--rounds", "1", f"old={old}", f"mid={mid}", f"new={new}"])
        check(rc == 0, f"three builds: exit 0 (got {rc})", out + err)
        check(re.search(r"^figure +old xfloor +mid xfloor +new xfloor +new/old +new/mid  note$", out, re.M) is not None,
              "three builds: a column each, then new over each reference", out)
        r = row(out, "(i) steady")
        check(r is not None and re.search(r" 1\.05  +1\.31!  31 % worse than mid$", r),
              "three builds: flagged against the one it is worse than", str(r) + "\n" + out)
        r = row(out, "(iv) only old")
        check(r is not None and r.endswith("only in old"), "three builds: a row only one has", str(r) + "\n" + out)

        # A failing benchmark stops the comparison, with its output.
        bad = os.path.join(tmp, "bad")
        fake(bad, "navguard_bench", "bad", log, [(floor, 10.0, "")], rc=3)
        rc, out, err = run(tool, ["--rounds", "1", f"old={old}", f"bad={bad}"])
        check(rc != 0 and "exited with 3" in err, f"a failing benchmark: exit non-zero, says so (got {rc})", err)
        rc, out, err = run(tool, ["--rounds", "1", f"old={old}"])
        check(rc != 0, "one build only: usage error")

    if failures:
        sys.exit(f"bench_compare_tool: {len(failures)} check(s) failed")
    print("bench_compare_tool: ok")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
