#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""navguard_cli_convert_output: `navguard convert DUMP -o OUT` writes OUT
whole, as `stats --output` does: into OUT.<pid>.tmp beside it, renamed into
place. So
  - an existing OUT is replaced, not rewritten in place: a second name (a
    hard link: what a reader that opened the old file still holds) keeps
    the old contents, whole, and OUT is a new file holding the trace;
  - no .tmp file is left, after a success or a failure;
  - when the rename cannot be done (OUT is a directory) or the file cannot
    be written (its directory does not exist): exit 1, a message naming
    the file, nothing left behind, a directory OUT untouched.
Standard library only.

  check_convert_output.py --cli NAVGUARD --dump crash-ring-4096.ngbox --work DIR
"""
import argparse
import os
import shutil
import subprocess
import sys

FAILURES = []


def check(cond, what):
    print(("ok    " if cond else "FAIL  ") + what)
    if not cond:
        FAILURES.append(what)
    return cond


def convert(args, out):
    p = subprocess.run([args.cli, "convert", args.dump, "-o", out], capture_output=True, text=True, timeout=60)
    return p.returncode, p.stderr


def leftovers(d):
    return [f for f in os.listdir(d) if f.endswith(".tmp")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--dump", required=True, help="a crash dump (.ngbox)")
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)

    # The trace convert writes to standard output: what OUT must hold.
    p = subprocess.run([args.cli, "convert", args.dump], capture_output=True, timeout=60)
    check(p.returncode == 0 and p.stdout.startswith(b"{"), f"convert {os.path.basename(args.dump)} to stdout: exit {p.returncode}")
    want = p.stdout

    out = os.path.join(args.work, "trace.jsonl")
    old = b'{"old":"a file a reader has open"}\n' * 1000
    with open(out, "wb") as f:
        f.write(old)
    held = os.path.join(args.work, "held.jsonl")
    os.link(out, held)
    inode = os.stat(out).st_ino
    rc, err = convert(args, out)
    check(rc == 0, f"convert -o over an existing file: exit {rc} {err.strip()}")
    with open(out, "rb") as f:
        check(f.read() == want, "OUT holds the trace, as standard output shows it")
    check(os.stat(out).st_ino != inode, "OUT is a new file (renamed into place), not the old one rewritten")
    with open(held, "rb") as f:
        check(f.read() == old, "the old file, still open elsewhere, is whole (not truncated or half rewritten)")
    check(not leftovers(args.work), f"no temporary file left: {leftovers(args.work)}")

    # The rename fails: OUT is a directory.
    d = os.path.join(args.work, "is-a-directory")
    os.makedirs(os.path.join(d, "inside"))
    rc, err = convert(args, d)
    check(rc == 1 and "cannot rename" in err and d in err, f"OUT a directory: exit {rc}, {err.strip()!r}")
    check(os.listdir(d) == ["inside"], f"the directory is untouched: {os.listdir(d)}")
    check(not leftovers(args.work), f"no temporary file left: {leftovers(args.work)}")

    # The write fails: OUT's directory does not exist.
    missing = os.path.join(args.work, "no-such-dir", "trace.jsonl")
    rc, err = convert(args, missing)
    check(rc == 1 and "cannot write" in err and "no-such-dir" in err, f"OUT in a missing directory: exit {rc}, {err.strip()!r}")
    check(not os.path.exists(os.path.dirname(missing)), "nothing created")

    # A symlink planted at the temporary file's name (OUT.<pid>.tmp: the
    # child plants it for its own pid, then becomes the tool) is removed,
    # never followed: the file it points to is untouched.
    victim = os.path.join(args.work, "victim.txt")
    with open(victim, "wb") as f:
        f.write(b"not yours\n")
    out2 = os.path.join(args.work, "planted.jsonl")
    pid = os.fork()
    if pid == 0:
        os.symlink(victim, f"{out2}.{os.getpid()}.tmp")
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.execv(args.cli, [args.cli, "convert", args.dump, "-o", out2])
    _, status = os.waitpid(pid, 0)
    check(os.waitstatus_to_exitcode(status) == 0, f"convert -o past a planted temporary symlink: exit {os.waitstatus_to_exitcode(status)}")
    with open(victim, "rb") as f:
        check(f.read() == b"not yours\n", "the planted symlink's target is untouched")
    with open(out2, "rb") as f:
        check(f.read() == want and not os.path.islink(out2), "OUT holds the trace, a file of its own")
    check(not leftovers(args.work), f"no temporary file left: {leftovers(args.work)}")

    print(f"{'FAILED' if FAILURES else 'passed'}: {len(FAILURES)} failure(s)")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
