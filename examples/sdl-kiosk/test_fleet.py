#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""example_sdl_kiosk_fleet / example_qt_kiosk_fleet: a kiosk's --journal and
--metrics FILE, run for real under Xvfb (the harness of test_xvfb.py).

The test binds an AF_UNIX datagram socket of its own and points the kiosk's
journal sink at it with NAVGUARD_JOURNAL_SOCKET, then drives one scenario:
on Menu with 6 s transitions, the Back key twice. The first Back pops (a
6 s slide), the second is refused (by the throttle guard), and the
watchdog, whose transition limit is 2 s, finishes the pop and reports. The
kiosk quits; then

  journal   every datagram (or sealed memfd) parses with the native
            protocol's rules (field names A-Z 0-9 _, not starting with _,
            at most 64 bytes; NAME=value or NAME + le64 length + bytes);
            one REFUSAL entry per refusal the kiosk's log shows and one
            WATCHDOG entry per watchdog report, nothing else; each with its
            MESSAGE_ID, PRIORITY (6, 3), SYSLOG_IDENTIFIER (the kiosk's
            name), NAVGUARD_VERSION (the log's), one NAVGUARD_CONTEXT, a
            NAVGUARD_SCREEN/ROUTE, and NAVGUARD_REQUEST/REASON/KIND/GUARD
            (refusal) or MESSAGE = the report's first line,
            NAVGUARD_TEXT = the report, NAVGUARD_GUARD (watchdog);
  metrics   the textfile exists, no .tmp is left, it passes the format's
            rules (ctest/cli/check_prometheus.py's parser) and `promtool
            check metrics`, has every family with # HELP and # TYPE, and
            its counts are the log's: refusals and drops by guard and
            reason, reports by guard, forced transitions and the watchdog's
            transition actions, and the crash dumps announced.

sdl-kiosk also records a ring (--dump-dir DIR): before that scenario it is
started once with --dump-dir and killed with SIGSEGV (a crash dump in DIR);
the scenario's run then announces it (CRASH_DUMP, PRIORITY 2, NAVGUARD_DUMP
its path, marked <dump>.journald), counts it in navguard_crash_dumps_total,
and the watchdog's report writes a report dump (a DUMP entry, PRIORITY 6,
NAVGUARD_DUMP the file the report names); a third start announces nothing.
The Qt kiosk records no ring (the Qt adapter records to a file only).

  test_fleet.py --kiosk sdl --app build/examples/sdl-kiosk/sdl-kiosk
  test_fleet.py --kiosk qt --app build/examples/qt-kiosk/qt-kiosk --keep -v
"""
import argparse
import fcntl
import importlib.util
import os
import re
import shutil
import signal
import socket
import struct
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


h = load("sdl_kiosk_harness", os.path.join(HERE, "test_xvfb.py"))
prom = load("check_prometheus", os.path.join(ROOT, "ctest", "cli", "check_prometheus.py"))
Failure, expect = h.Failure, h.expect

# adapters/journald/navguard_journald.h
MID_REPORT = "5f8e2a7c3b6d4e19a0c1d2e3f4a5b601"
MID_WATCHDOG = "5f8e2a7c3b6d4e19a0c1d2e3f4a5b602"
MID_DUMP = "5f8e2a7c3b6d4e19a0c1d2e3f4a5b603"
MID_CRASH_DUMP = "5f8e2a7c3b6d4e19a0c1d2e3f4a5b604"
MID_REFUSAL = "5f8e2a7c3b6d4e19a0c1d2e3f4a5b605"
WATCHDOG = "org.navguard.watchdog"
CORE = "the core"          # navguard_metrics.c's guard label for a refusal by the core
ANIM_MS = 6000             # longer than the watchdog's transition_limit_ms (2000)


# --------------------------------------------------------------------------
# The journal's native protocol, read back (as adapters/journald/test_journald.c)
# --------------------------------------------------------------------------

def field_name_ok(name):
    return (0 < len(name) <= 64 and not name.startswith(b"_")
            and all(c in b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_" for c in name))


def parse_entry(b):
    """NAME=value\\n or NAME\\n<le64 length><bytes>\\n, strictly: a list of
    (name, value bytes)."""
    out, at, n = [], 0, len(b)
    while at < n:
        k = at
        while k < n and b[k] not in (0x3D, 0x0A):       # '=' or '\n'
            k += 1
        if k == n:
            raise Failure(f"journal entry: a field name without '=' or newline at byte {at}")
        name = b[at:k]
        if not field_name_ok(name):
            raise Failure(f"journal entry: field name {name!r} breaks the journal's rules")
        if b[k] == 0x3D:
            nl = b.find(b"\n", k + 1)
            if nl < 0:
                raise Failure(f"journal entry: {name.decode()}= without its newline")
            value, at = b[k + 1:nl], nl + 1
        else:
            if n - k - 1 < 8:
                raise Failure(f"journal entry: {name.decode()}: binary field without its length")
            (length,) = struct.unpack_from("<Q", b, k + 1)
            end = k + 9 + length
            if end >= n or b[end] != 0x0A:
                raise Failure(f"journal entry: {name.decode()}: binary field of {length} bytes not ended by a newline")
            value, at = b[k + 9:end], end + 1
        out.append((name.decode(), value))
    return out


class Journal:
    """A datagram socket the kiosk's sink sends to, drained by a thread so
    the kiosk never finds its queue full."""

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.sock.settimeout(0.1)
        self.raw, self.errors = [], []
        self._stop = threading.Event()
        self._th = threading.Thread(target=self._run, daemon=True)
        self._th.start()

    def _run(self):
        while True:
            try:
                data, anc, _, _ = self.sock.recvmsg(4 << 20, socket.CMSG_SPACE(4))
            except socket.timeout:
                if self._stop.is_set():     # stopped, and nothing left queued
                    return
                continue
            except OSError as e:
                self.errors.append(str(e))
                return
            for level, kind, cdata in anc:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    (fd,) = struct.unpack("i", cdata[:4])
                    try:
                        seals = fcntl.fcntl(fd, fcntl.F_GET_SEALS)
                        want = fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE
                        if seals & want != want or data:
                            self.errors.append(f"memfd entry: seals {seals}, datagram {len(data)} bytes")
                        data = os.pread(fd, os.fstat(fd).st_size, 0)
                    finally:
                        os.close(fd)
            self.raw.append(data)

    def close(self):
        self._stop.set()
        self._th.join(5)
        self.sock.close()

    def entries(self):
        expect(not self.errors, f"the journal socket: {self.errors}")
        out = []
        for i, data in enumerate(self.raw):
            fields = parse_entry(data)
            names = [n for n, _ in fields]
            dup = {n for n in names if names.count(n) > 1}
            expect(not dup, f"journal entry {i}: fields twice: {sorted(dup)}")
            out.append({n: v.decode("utf-8") for n, v in fields})
        return out


# --------------------------------------------------------------------------
# The scenario and its checks
# --------------------------------------------------------------------------

def back_twice_watchdog(k, back_key):
    """On Menu: the Back key twice; the second is refused while the 6 s pop
    runs; the watchdog finishes the pop at 2 s and reports."""
    k.xdo("key", "--delay", 80, back_key, back_key)
    k.wait_for(lambda e: e["type"] == "outcome" and e["outcome"] == "refused", 10, "a refused Back")
    k.wait_for(lambda e: e["type"] == "report" and e["guard"] == WATCHDOG, 15, "the watchdog's report")
    k.wait_stack(["home"])
    k.wait_idle()
    time.sleep(0.3)
    k.quit()


def report_dump(text):
    """The report dump a report's text names (navguard.h, ng_record_options),
    or None."""
    m = re.search(r"flight recorder: the last records \(.*?\) are in (.+?) \(binary", text)
    return m.group(1) if m else None


def check_journal(k, entries, identifier, crash_dumps=()):
    refused = [e for e in k.of("outcome") if e["outcome"] == "refused"]
    reports = k.of("report")
    start = k.of("start")
    expect(start, "the kiosk's log has no start line")
    version = start[0]["navguard"]
    expect(refused, "the log shows no refusal: the scenario did not set up what it checks")
    expect(any(r["guard"] == WATCHDOG for r in reports), "the log shows no watchdog report")

    by_id = {}
    for e in entries:
        by_id.setdefault(e.get("MESSAGE_ID"), []).append(e)
    kinds = {m: len(v) for m, v in by_id.items()}
    want_kinds = {MID_REFUSAL: len(refused)}
    for r in reports:
        mid = MID_WATCHDOG if r["guard"] == WATCHDOG else MID_REPORT
        want_kinds[mid] = want_kinds.get(mid, 0) + 1
    dumps = [d for d in (report_dump(r["text"]) for r in reports) if d]
    if dumps:
        want_kinds[MID_DUMP] = len(dumps)
    if crash_dumps:
        want_kinds[MID_CRASH_DUMP] = len(crash_dumps)
    expect(kinds == want_kinds, f"journal entries by MESSAGE_ID {kinds}, the log says {want_kinds}")

    # Crash dumps are announced at start-up, of no context and no screen.
    crash = by_id.get(MID_CRASH_DUMP, [])
    for e in crash:
        expect(e.get("PRIORITY") == "2" and e.get("NAVGUARD_DUMP") in crash_dumps
               and e["NAVGUARD_DUMP"] in e.get("MESSAGE", ""),
               f"the crash dump's entry: {e}, expected PRIORITY 2 and NAVGUARD_DUMP one of {list(crash_dumps)}")
        expect(os.path.exists(e["NAVGUARD_DUMP"] + ".journald"), f"{e['NAVGUARD_DUMP']}: not marked announced")
    expect(sorted(e["NAVGUARD_DUMP"] for e in crash) == sorted(crash_dumps),
           f"crash dumps announced {[e['NAVGUARD_DUMP'] for e in crash]}, expected {list(crash_dumps)}")
    total = len(entries)
    entries = [e for e in entries if e.get("MESSAGE_ID") != MID_CRASH_DUMP]
    for e, d in zip(by_id.get(MID_DUMP, []), dumps):
        expect(e.get("PRIORITY") == "6" and e.get("NAVGUARD_DUMP") == d and os.path.exists(d),
               f"the report dump's entry: {e}, expected PRIORITY 6 and NAVGUARD_DUMP {d} (a file)")
    contexts = {e.get("NAVGUARD_CONTEXT") for e in entries}
    expect(len(contexts) == 1 and None not in contexts and "" not in contexts,
           f"NAVGUARD_CONTEXT: {contexts}, expected one context named in every entry")
    for i, e in enumerate(entries):
        where = f"journal entry {i} ({e.get('MESSAGE_ID')})"
        expect(e.get("SYSLOG_IDENTIFIER") == identifier, f"{where}: SYSLOG_IDENTIFIER {e.get('SYSLOG_IDENTIFIER')!r}")
        expect(e.get("NAVGUARD_VERSION") == version, f"{where}: NAVGUARD_VERSION {e.get('NAVGUARD_VERSION')!r}, "
               f"the log says {version}")
        expect("\n" not in e.get("MESSAGE", "\n"), f"{where}: MESSAGE missing or not one line: {e.get('MESSAGE')!r}")
        expect(e.get("NAVGUARD_ROUTE") in ("home", "menu", "item", "checkout"),
               f"{where}: NAVGUARD_ROUTE {e.get('NAVGUARD_ROUTE')!r}")
        expect(e.get("NAVGUARD_SCREEN", "").isdigit(), f"{where}: NAVGUARD_SCREEN {e.get('NAVGUARD_SCREEN')!r}")

    # Refusals, in the log's order.
    for o, e in zip(refused, by_id[MID_REFUSAL]):
        where = f"the refusal of request {o['id']}"
        want = {"PRIORITY": "6", "NAVGUARD_REQUEST": str(o["id"]), "NAVGUARD_REASON": o["reason"],
                "NAVGUARD_KIND": o["kind"]}
        got = {f: e.get(f) for f in want}
        expect(got == want, f"{where}: journal fields {got}, expected {want}")
        expect(e.get("NAVGUARD_GUARD") == o["guard"],
               f"{where}: NAVGUARD_GUARD {e.get('NAVGUARD_GUARD')!r}, the log says {o['guard']!r}")
        expect("refused" in e["MESSAGE"] and o["reason"] in e["MESSAGE"], f"{where}: MESSAGE {e['MESSAGE']!r}")
    # Reports (the watchdog's), in the log's order.
    for r, e in zip([r for r in reports if r["guard"] == WATCHDOG], by_id[MID_WATCHDOG]):
        text = r["text"]
        want = {"PRIORITY": "3", "NAVGUARD_GUARD": WATCHDOG, "MESSAGE": text.split("\n", 1)[0],
                "NAVGUARD_TEXT": text}
        got = {f: e.get(f) for f in want}
        expect(got == want, f"the watchdog's entry: {got}, expected {want}")
    o = refused[0]
    return (f"journal: {total} entries ({len(refused)} refusal: request {o['id']} {o['kind']} "
            f"{o['reason']} by {o['guard'] or CORE}; {want_kinds.get(MID_WATCHDOG, 0)} watchdog report; "
            f"{len(dumps)} report dump, {len(crash_dumps)} crash dump), every field as the log says")


def check_metrics(k, path, promtool, crash_dumps=0):
    expect(os.path.exists(path), f"--metrics {path}: no file")
    left = [f for f in os.listdir(os.path.dirname(path)) if f.endswith(".tmp")]
    expect(not left, f"a temporary file was left beside the textfile: {left}")
    del prom.failures[:]
    samples, types, helps = prom.lint(path)       # runs promtool check metrics (found on PATH)
    expect(not prom.failures, f"{path}: the format's rules: {prom.failures}")
    r = h.subprocess.run([promtool, "check", "metrics"], stdin=open(path, "rb"), capture_output=True)
    expect(r.returncode == 0, f"promtool check metrics {path}: exit {r.returncode}: {r.stdout}{r.stderr}")
    # Every family the kiosk keeps (navguard_metrics.h: not the stuck count).
    families = [f for f in prom.FAMILIES if f != "navguard_transitions_stuck_total"]
    for f in families:
        expect(f in types and f in helps, f"{path}: {f} has no # HELP and # TYPE")

    want = {}

    def add(name, labels, n=1):
        key = (name, tuple(sorted(labels)))
        want[key] = want.get(key, 0) + n

    for o in k.of("outcome"):
        if o["outcome"] in ("refused", "dropped"):
            fam = "navguard_refusals_total" if o["outcome"] == "refused" else "navguard_drops_total"
            add(fam, (("guard", o["guard"] or CORE), ("reason", o["reason"])))
    for r in k.of("report"):
        add("navguard_reports_total", (("guard", r["guard"]),))
    forced = [e for e in k.of("transition", track="screen") if e["phase"] != "will" and "forced" in e["flags"]]
    for e in forced:
        add("navguard_transitions_forced_total", (("route", e["to_route"] or "?"),))
    want[("navguard_watchdog_actions_total", (("kind", "transition"),))] = len(forced)
    want[("navguard_crash_dumps_total", ())] = crash_dumps
    expect(forced, "the log shows no forced transition: the watchdog did not end the pop")

    counted = {key: v for key, v in samples.items() if key[0] != "navguard_longest_hold_seconds"}
    for key, v in want.items():
        expect(key in counted, f"{path}: no sample {key[0]}{dict(key[1])} (the log counts {v})")
        expect(counted[key] == v, f"{path}: {key[0]}{dict(key[1])} = {counted[key]}, the log counts {v}")
    extra = {key: v for key, v in counted.items() if key not in want and v != 0}
    expect(not extra, f"{path}: counts the log does not show: {extra}")
    refusals = sum(v for key, v in want.items() if key[0] == "navguard_refusals_total")
    return (f"metrics: {len(samples)} samples, promtool ok, {refusals} refusal, "
            f"{len(forced)} forced transition, reports {sum(v for key, v in want.items() if key[0] == 'navguard_reports_total')}"
            f", {crash_dumps} crash dump = the log")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kiosk", choices=("sdl", "qt"), required=True)
    ap.add_argument("--app", required=True, help="the kiosk binary")
    ap.add_argument("--keep", action="store_true", help="keep the log, journal and textfile (prints the directory)")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    h.VERBOSE = a.verbose
    name = f"{a.kiosk}-kiosk"
    if not os.access(a.app, os.X_OK):
        print(f"error: --app {a.app!r} is not an executable {name}", file=sys.stderr)
        return 2
    missing = [t for t in ("Xvfb", "xdotool", "promtool") if not shutil.which(t)]
    if missing:
        print(f"error: missing {', '.join(missing)}; run: apt-get install -y xvfb xdotool prometheus",
              file=sys.stderr)
        return 1
    if a.kiosk == "qt":
        q = load("qt_kiosk_harness", os.path.join(ROOT, "examples", "qt-kiosk", "test_xvfb.py"))
        os.environ.update(QT_QPA_PLATFORM="xcb", QSG_RENDER_LOOP="basic", QT_QUICK_BACKEND="software")
        make, back_key = q.QtKiosk, "Escape"
    else:
        make, back_key = h.Kiosk, "BackSpace"

    tmp = tempfile.mkdtemp(prefix=f"{name}-fleet-")
    ok = False
    t0 = time.monotonic()
    try:
        notes = run_fleet(a, make, back_key, tmp, name)
        print(f"PASS fleet {time.monotonic() - t0:5.1f} s  {'; '.join(notes)}")
        ok = True
    except Failure as e:
        print(f"FAIL fleet {time.monotonic() - t0:5.1f} s  --journal, --metrics and --dump-dir: {e}")
    finally:
        if a.keep or not ok:
            print(f"logs, journal socket, textfile and dumps: {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0 if ok else 1


def crash(make, app, tmp, dumps):
    """sdl-kiosk --dump-dir: SIGSEGV after its first frame writes a crash
    dump there (NG_RECORD_CRASH_DUMP) and the process dies of the signal."""
    k = make(app, tmp, "crash", ["--dump-dir", dumps])
    try:
        k.start()
        k.proc.send_signal(signal.SIGSEGV)
        try:
            k.proc.wait(15)
        except h.subprocess.TimeoutExpired:
            raise Failure("the kiosk did not end on SIGSEGV")
        expect(k.proc.returncode == -signal.SIGSEGV,
               f"the kiosk exited with {k.proc.returncode} on SIGSEGV, expected to die of it:\n{k.output()}")
    finally:
        k.close()
    found = sorted(os.path.join(dumps, f) for f in os.listdir(dumps) if f.endswith("-crash.ngbox"))
    expect(len(found) == 1, f"crash dumps in {dumps} after SIGSEGV: {os.listdir(dumps)}")
    return found


def session(a, make, tmp, label, args):
    """A kiosk with --journal to a socket of the test's: (kiosk, entries);
    `args` and the scenario set by the caller through `body`."""
    sock = os.path.join(tmp, f"{label}.socket")
    journal = Journal(sock)
    os.environ["NAVGUARD_JOURNAL_SOCKET"] = sock
    k = make(a.app, tmp, label, args + ["--journal"])
    return k, journal


def run_fleet(a, make, back_key, tmp, name):
    notes = []
    metrics = os.path.join(tmp, "metrics", "navguard.prom")
    os.makedirs(os.path.dirname(metrics))
    dumps = os.path.join(tmp, "dumps")
    ring = a.kiosk == "sdl"          # only sdl-kiosk records a ring (--dump-dir)
    crash_dumps = []
    if ring:
        os.makedirs(dumps)
        crash_dumps = crash(make, a.app, tmp, dumps)
        notes.append(f"SIGSEGV: crash dump {os.path.basename(crash_dumps[0])}")

    k, journal = session(a, make, tmp, "fleet", ["--stack", "home,menu", "--anim-ms", str(ANIM_MS),
                                                 "--metrics", metrics] + (["--dump-dir", dumps] if ring else []))
    try:
        try:
            k.start()
            back_twice_watchdog(k, back_key)
        finally:
            journal.close()           # reads what is queued, then stops
        entries = journal.entries()
        if a.verbose:
            for e in entries:
                print("    " + " ".join(f"{f}={v!r}" for f, v in e.items() if f != "NAVGUARD_TEXT"))
        notes.append(check_journal(k, entries, name, crash_dumps))
        notes.append(check_metrics(k, metrics, shutil.which("promtool"), len(crash_dumps)))
        expect("entries are dropped" not in k.output(), f"the kiosk said the journal dropped entries:\n{k.output()}")
    except Failure:
        if a.verbose:
            for e in k.events():
                if e["type"] not in ("verdict", "frames"):
                    print("      " + h.json.dumps(e), flush=True)
        raise
    finally:
        k.close()

    if ring:
        # Announced once: the next start says nothing of that crash dump.
        k, journal = session(a, make, tmp, "again", ["--dump-dir", dumps])
        try:
            try:
                k.start()
                k.quit()
            finally:
                journal.close()
            again = [e for e in journal.entries() if e.get("MESSAGE_ID") == MID_CRASH_DUMP]
        finally:
            k.close()
        expect(not again, f"the crash dump was announced again at the next start: {again}")
        notes.append("not announced again")
    return notes


if __name__ == "__main__":
    sys.exit(main())
