#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""navguard_cli_readers_*: the tool's trace readers (convert, stats,
timeline, replay) on files that are not what they claim. Each must exit 2
with a message naming what is wrong, never die by a signal (a trap was exit
132 and nothing printed), and never read more than the file may hold.
Standard library only.

  check_readers.py --cli NAVGUARD --host TEST_DUMP_READER --work DIR CASE

CASE is one of:
  header  a real crash dump (TEST_DUMP_READER --dump DIR writes it) with one
          header field changed at a time: every command refuses it naming
          the field (the first: dropped_lines near 2^64 with ring_records
          below the lines held, which trapped); the dump as written reads
  empty   an empty file and /dev/null: every command says "the trace is
          empty" and exits 2 (convert exited 0 with no output)
  trace   JSON Lines traces with values no recorder writes: a mid-session
          hold whose deadline minus its start overflows (a trap), a hold
          that ended long before it began (the axis stepped through 10^9
          microseconds: a hang, its memory growing), a ring header's
          negative "dropped" (refused, named)
  size    /dev/zero is refused by its first byte, reading 64 KiB, not 1 GiB;
          a sparse dump longer than its header says and a sparse trace
          past 1 GiB are refused by their size, unread (the refusal names the
          limit); the peak memory of each run stays small
"""
import argparse
import os
import resource
import struct
import subprocess
import sys

FAILURES = []
COMMANDS = ("convert", "stats", "timeline", "replay")


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print(f"FAIL  {what}")
    return cond


def run(args, cmd, path):
    """One command on `path`: (exit status, stderr, peak RSS in KiB)."""
    argv = [args.cli, cmd, path]
    if cmd == "timeline":
        argv += ["-o", os.path.join(args.work, "out")]
    if cmd == "convert":
        argv += ["-o", os.path.join(args.work, "out.jsonl")]
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate()
    # communicate() has reaped it; its rusage is the children's peak since.
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    print(f"$ {' '.join(argv)}  -> exit {p.returncode}")
    if err.strip():
        print("  " + err.strip().replace("\n", "\n  "))
    return p.returncode, err, rss


def refused(args, path, must, what):
    """Every command exits 2 on `path`, its message holding `must`."""
    for cmd in COMMANDS:
        rc, err, _ = run(args, cmd, path)
        check(rc == 2 and must in err, f"{what}: navguard {cmd} exits 2 (got {rc}) naming {must!r}")


def make_dump(args):
    d = os.path.join(args.work, "dump")
    os.makedirs(d, exist_ok=True)
    for f in os.listdir(d):
        os.unlink(os.path.join(d, f))
    p = subprocess.run([args.host, "--dump", d])
    if p.returncode != 0:
        sys.exit(f"{args.host} --dump failed ({p.returncode})")
    dumps = [f for f in os.listdir(d) if f.endswith(".ngbox")]
    if len(dumps) != 1:
        sys.exit(f"{d}: expected one .ngbox, found {dumps}")
    with open(os.path.join(d, dumps[0]), "rb") as f:
        return f.read()


def write(args, name, data):
    path = os.path.join(args.work, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


# (field, offset, struct format, value): each makes the header describe
# something the file is not.
CRAFTS = [
    ("dropped_lines", 88, "<Q", 2**64 - 1),
    ("dropped_lines", 88, "<Q", 2**63 - 1),
    ("header_size", 8, "<I", 2**32 - 1),
    ("pid", 24, "<Q", 0),
    ("dump_ns", 32, "<Q", 2**64 - 1),
    ("manual_start_ns", 40, "<Q", 2**63),
    ("default_duration_ns", 48, "<Q", 2**64 - 1),
    ("posted_base", 56, "<Q", 2**64 - 1),
    ("ring_records", 64, "<Q", 0),
    ("ring_records", 64, "<Q", 2**64 - 1),
    ("ring_ns", 72, "<Q", 2**64 - 1),
    ("last_ns", 80, "<Q", 2**63),
    ("manual_clock", 96, "<I", 7),
    ("records_bytes", 104, "<Q", 2**64 - 1),
    ("records_bytes", 104, "<Q", 8),
    ("library", 112, "<Q", 2**64 - 1),
]


def case_header(args):
    dump = make_dump(args)
    good = write(args, "good.ngbox", dump)
    for cmd in ("convert", "stats", "timeline"):
        rc, err, _ = run(args, cmd, good)
        check(rc == 0, f"the dump as written: navguard {cmd} exits 0 (got {rc})")
    # The reported file: the window (ring_records 1) below the lines held, and
    # about 2^64 lines dropped before them.
    b = bytearray(dump)
    struct.pack_into("<Q", b, 64, 1)
    struct.pack_into("<Q", b, 88, 2**64 - 1)
    refused(args, write(args, "overflow.ngbox", b), "dropped_lines (offset 88) is 18446744073709551615", "the reported dump")
    for field, offset, fmt, value in CRAFTS:
        b = bytearray(dump)
        struct.pack_into(fmt, b, offset, value)
        refused(args, write(args, f"{field}-{offset}-{value}.ngbox", b), f"{field} (offset {offset})", f"{field} = {value}")
    # A newer layout: said as such (layout 1's header size is not required of it).
    b = bytearray(dump)
    struct.pack_into("<II", b, 8, 2**32 - 1, 2)
    path = write(args, "layout2.ngbox", b)
    refused(args, path, "crash dump layout 2 (offset 12); this library reads layout 1", "layout 2")
    # Longer than its header says.
    refused(args, write(args, "longer.ngbox", dump + b"\0" * 64), "records_bytes (offset 104)", "64 bytes more")
    # Too short for a header.
    refused(args, write(args, "short.ngbox", dump[:100]), "too short for its 128-byte header", "100 bytes")


def case_empty(args):
    empty = write(args, "empty.jsonl", b"")
    for path in (empty, "/dev/null"):
        refused(args, path, "the trace is empty", path)


def case_size(args):
    # /dev/zero: no trace (its first byte), refused after the first 64 KiB.
    for cmd in COMMANDS:
        rc, err, rss = run(args, cmd, "/dev/zero")
        check(rc == 2 and "its first byte, 0, begins no JSON object" in err, f"/dev/zero: navguard {cmd} exits 2 (got {rc})")
        check(rss < 200 * 1024, f"/dev/zero: navguard {cmd} peaked at {rss} KiB (it read 1 GiB before: 1.09 GB)")
    # A dump with its header whole, then a hole: longer than the header says.
    dump = make_dump(args)
    path = os.path.join(args.work, "sparse.ngbox")
    with open(path, "wb") as f:
        f.write(dump[:128])
        f.truncate(65 << 20)
    refused(args, path, "is larger than what its crash dump header's records_bytes (offset 104) says", "a 65 MiB dump")
    # Past the largest ring (64 MiB + the header), its header saying so.
    b = bytearray(dump[:128])
    struct.pack_into("<Q", b, 104, 64 << 20)
    with open(path, "wb") as f:
        f.write(b)
        f.truncate(128 + (64 << 20) + 8)
    refused(args, path, f"({128 + (64 << 20)} bytes)", "64 MiB + 136 bytes")
    # A trace past 1 GiB (sparse): refused by its size, unread.
    path = os.path.join(args.work, "sparse.jsonl")
    with open(path, "wb") as f:
        f.write(b'{"navguard_trace":1}\n')
        f.truncate((1 << 30) + 1)
    refused(args, path, "is larger than the largest trace navguard reads (1073741824 bytes)", "a trace of 1 GiB + 1 byte")
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    check(rss < 200 * 1024, f"every run peaked below 200 MiB (the largest: {rss} KiB)")
    os.unlink(path)


HEADER = '{"navguard_trace":1,"clock":"manual","manual_start_ns":0,"default_duration_ns":0,"at_ns":0'


def case_trace(args):
    state = ('"start":"mid-session","state":{"stack":[],"views":[],"chain":[],'
             '"holds":[{"token":1,"label":"x","mask":3,"began":-1,"deadline":9223372036854775807}]}')
    path = write(args, "hold-deadline.jsonl", (HEADER + "," + state + "}\n"
                 '{"k":"call","fn":"tick","t":1000000000,"ret":{"st":"NG_OK"}}\n').encode())
    for cmd in ("timeline", "stats"):
        rc, err, _ = run(args, cmd, path)
        check(rc == 0, f"a hold's deadline - began overflowing: navguard {cmd} exits 0 (got {rc})")
    path = write(args, "hold-backwards.jsonl", (HEADER + ',"start":"create"}\n'
                 '{"k":"call","fn":"tick","t":1000000000,"ret":{"st":"NG_OK"}}\n'
                 '{"k":"cb","fn":"hold_end","token":5,"label":"x","mask":3,"reason":"ended","began":9007199254740993,"ended":1000000000}\n'
                 '{"k":"call","fn":"tick","t":1000000000000,"ret":{"st":"NG_OK"}}\n').encode())
    rc, err, rss = run(args, "timeline", path)
    check(rc == 0, f"a hold ending before it began: navguard timeline exits 0 (got {rc})")
    check(rss < 200 * 1024, f"a hold ending before it began: navguard timeline peaked at {rss} KiB (it grew past 2 GB)")
    for key, value in (("dropped", -1), ("first_ns", -5)):
        path = write(args, f"ring-{key}.jsonl", (HEADER + f',"start":"ring","{key}":{value},"state":{{}}}}\n').encode())
        refused(args, path, f'"{key}" is {value}', f'a ring header\'s "{key}": {value}')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--host", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("case", choices=["header", "empty", "trace", "size"])
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    {"header": case_header, "empty": case_empty, "trace": case_trace, "size": case_size}[args.case](args)
    if FAILURES:
        print(f"{len(FAILURES)} failures")
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
