#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""navguard_cli_timeline_*: `navguard timeline` on traces that trace_host
(ctest/c/trace_host.c) records, judged from what it writes. Standard library
only.

  check_timeline.py --cli NAVGUARD --host TRACE_HOST --work DIR CASE

CASE is one of:
  full       a whole session: the Chrome trace's tracks and events (the forced
             transition, the one never finished, the holds, touches, refused
             requests, watchdog reports, a swipe's phases), its times relative
             to the header's at_ns, and the page (an <svg>, the stuck items
             marked, nothing external); -o OUT.svg and --svg
  ring       a ring dump: drawn, says it shows only the newest records
  truncated  the whole session with its last line cut in half: still drawn
  malformed  a bad line 3, an empty file, a missing file: exit 2, the message
             names the line, nothing written
  incident   trace_host --incident: the headline names when the watchdog acted
             and what it did (the hold it released, the touch it cancelled,
             both at one tick, neither hidden), the mouse's touch id drawn as
             "mouse", a posted id as #p1 (its args keep it whole), the 80 ms a
             posted reply waited for its tick, the 16 s of nothing folded;
             --from/--to draw a window of it
  drivelimit trace_host --drive-limit: a swipe back whose finger stays still
             past the watchdog's drive limit is cancelled and rolled back; the
             timeline says so (CANCELLED, not FORCED, on the screen it stayed
             on), the header counts the 8 events dropped after the cancel, and
             `navguard stats` counts it as cancelled on menu, not forced on home
  idlereturn trace_host --idle-return: the unattended Checkout; the guard's
             own pop-to-root is named #g1 (guards' ids start at
             NG_GUARD_ID_BASE itself), asked, unanswered, applied; one
             question, no report, nothing refused
  presses    trace_host --presses: a game front-end's controllers and
             keyboard; one lane per device (controller 3, controller 4,
             keyboard 0), each press a span named by NG_BUTTON_MAP ("A",
             "dpad-down", "B", "start") or its key code, the cancels with
             their cause (transition, device-removed, destroyed), the removal
             marked; the focus tokens on the screen lane, set and handed
             back; the SVG shows the device lanes, the button names and the
             tokens; the trace replays identically
  fleet      several traces and dumps on one page, one lane each; one process
             each in the Chrome trace
  stats      `navguard stats` over the traces: the table and --json
"""
import argparse
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

FAILURES = []
MS = 1_000_000
HOST_START_NS = 1000 * 1000 * MS   # trace_host.c's START: its manual clock's first reading
POSTED_ID = 2**52 + 1              # the first posted request's id (NG_POSTED_ID_BASE + 1: a separate range, below 2^53)


def check(cond, what):
    if not cond:
        FAILURES.append(what)
        print(f"FAIL  {what}")
    return cond


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    print(f"$ {' '.join(cmd)}  -> exit {p.returncode}")
    if p.stdout.strip():
        print(p.stdout.rstrip())
    if p.stderr.strip():
        print(p.stderr.rstrip())
    return p


def record(args, name, *host_args):
    trace = os.path.join(args.work, name)
    # TMPDIR: a ring's automatic dumps (one per watchdog report) stay here.
    env = dict(os.environ, TMPDIR=args.work)
    p = run([args.host, trace, *host_args], env=env)
    if p.returncode != 0:
        sys.exit(f"trace_host failed ({p.returncode})")
    return trace


def timeline(args, trace, out, *extra):
    return run([args.cli, "timeline", trace, "-o", out, *extra])


def load_chrome(path):
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    check(isinstance(doc.get("traceEvents"), list), f"{path}: traceEvents is a list")
    check(doc.get("displayTimeUnit") == "ms", f"{path}: displayTimeUnit is ms")
    return doc["traceEvents"]


def threads(events):
    return {e["tid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}


def check_events_wellformed(events, path):
    """Every event has what the format needs, and the complete events of one
    thread nest (Perfetto and chrome://tracing draw overlapping ones wrongly)."""
    for e in events:
        if e["ph"] == "M":
            continue
        ok = isinstance(e.get("ts"), (int, float)) and e["ts"] >= 0 and "pid" in e and "name" in e
        if not check(ok, f"{path}: event has name, pid and ts >= 0: {e}"):
            return
        if e["ph"] == "X":
            check(isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0 and "tid" in e, f"{path}: X event has tid, dur >= 0: {e}")
        elif e["ph"] == "i":
            check(e.get("s") in ("t", "p", "g") and "tid" in e, f"{path}: instant has a scope and tid: {e}")
        else:
            check(e["ph"] == "C", f"{path}: only M, X, i and C events: {e}")
    by_tid = {}
    for e in events:
        if e["ph"] == "X":
            by_tid.setdefault(e["tid"], []).append(e)
    for tid, xs in by_tid.items():
        open_ends = []
        for e in xs:
            start, end = e["ts"], e["ts"] + e["dur"]
            while open_ends and open_ends[-1] <= start and not (open_ends[-1] == start == end):
                open_ends.pop()
            if open_ends and end > open_ends[-1] + 1e-6:
                check(False, f"{path}: complete events overlap without nesting on tid {tid}: {e['name']}")
                break
            open_ends.append(end)


def find(events, ph=None, tid=None, name=None, cat=None):
    out = []
    for e in events:
        if ph and e.get("ph") != ph:
            continue
        if tid is not None and e.get("tid") != tid:
            continue
        if name and not re.search(name, e.get("name", "")):
            continue
        if cat and e.get("cat") != cat:
            continue
        out.append(e)
    return out


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def svg_of(html, path):
    m = re.search(r"<svg\b.*?</svg>", html, re.S)
    if not check(m, f"{path}: has an <svg"):
        return None
    try:
        return ET.fromstring(m.group(0))
    except ET.ParseError as e:
        check(False, f"{path}: the SVG is well-formed XML: {e}")
        return None


def check_page(path, must_contain):
    html = read(path)
    check(html.startswith("<!DOCTYPE html>"), f"{path}: is an HTML page")
    check("<script" not in html.lower(), f"{path}: no scripts")
    check(not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html) and "@import" not in html and "url(" not in html,
          f"{path}: nothing external")
    svg = svg_of(html, path)
    for text in must_contain:
        check(text in html, f"{path}: contains {text!r}")
    return html, svg


def svg_texts(svg):
    return [("".join(t.itertext())) for t in svg.iter() if t.tag.endswith("text")]


def red_rects(svg):
    return [r for r in svg.iter() if r.tag.endswith("rect") and r.get("class") == "alarm"]


# --- cases -----------------------------------------------------------------

def case_full(args):
    trace = record(args, "full.jsonl", "--unfinished")
    with open(trace, encoding="utf-8") as f:
        at_ns = json.loads(f.readline())["at_ns"]
    check(at_ns > 0, "the trace starts at a clock reading other than 0 (times must be made relative)")
    out = os.path.join(args.work, "full")
    p = timeline(args, trace, out)
    check(p.returncode == 0, "full: exit 0")
    events = load_chrome(out + ".json")
    check_events_wellformed(events, "full.json")
    names = threads(events)
    tid = {v: k for k, v in names.items()}
    for track in ("screen transitions", "bar transitions", "requests", "watchdog reports and logs"):
        check(track in tid, f"full.json: a track named {track!r} (tracks: {sorted(names.values())})")
    holds = [t for n, t in tid.items() if n.startswith("holds")]
    touch_tids = [t for n, t in tid.items() if n.startswith("touches")]
    check(holds and touch_tids, "full.json: hold and touch tracks")
    if len(tid) < 6 or not holds or not touch_tids:
        return
    screen, bar = tid["screen transitions"], tid["bar transitions"]

    # The checkout push the host never finished: forced by the watchdog after
    # 2 s, at 3860 ms after the trace's start (the host's script).
    forced = find(events, "X", screen, r"^push #6 item→checkout")
    if check(len(forced) == 1, "full.json: the forced checkout push on the screen track"):
        f = forced[0]
        check(f["ts"] == 3_860_000 and f["dur"] == 2_000_000, f"full.json: forced push at 3860 ms for 2000 ms (µs, from at_ns): {f['ts']}, {f['dur']}")
        check("FORCED by the watchdog after 2000 ms" in f["name"] and f["args"].get("end") == "did (forced)",
              f"full.json: the push is marked forced by the watchdog: {f}")
        check(f.get("cname") == "terrible", "full.json: the forced push is coloured as a problem")
    check(len(find(events, "X", bar, r"^push #6 .*FORCED")) == 1, "full.json: the forced push on the bar track too")
    never = find(events, "X", screen, r"^push #9 .*NEVER FINISHED")
    if check(len(never) == 1, "full.json: the last push, never finished"):
        check(never[0]["ts"] == 10_500_000 and never[0]["dur"] == 500_000, f"full.json: never-finished push from 10500 ms to the end: {never[0]}")
    ok = find(events, "X", screen, r"^push #1 home→menu$")
    check(len(ok) == 1 and ok[0]["args"].get("end") == "did" and ok[0]["dur"] == 350_000, f"full.json: the first push, finished after 350 ms: {ok}")

    # A finger-driven swipe back, with its phases inside it.
    swipe = find(events, "X", screen, r"^interactive-back #4 item→menu")
    check(len(swipe) == 1, "full.json: the swipe back")
    check(len(find(events, "X", screen, r"^driven by touch 5$")) == 1 and len(find(events, "X", screen, r"^finishing$")) == 1,
          "full.json: the swipe's driven and finishing phases")
    check(len([e for e in find(events, "C", name="^swipe$") if "progress" in e["args"]]) >= 4, "full.json: the swipe's progress counter")

    # Holds: the host's network hold ended; its payment hold released by the
    # watchdog at its 3 s limit; the printer hold released at destroy.
    network = [e for t in holds for e in find(events, "X", t, r"^network$")]
    check(len(network) == 1 and network[0]["dur"] == 400_000 and "problem" not in network[0]["args"],
          f"full.json: the network hold, 400 ms, no problem: {network}")
    payment = [e for t in holds for e in find(events, "X", t, r"^payment")]
    check(len(payment) == 1 and "RELEASED by the watchdog after 3000 ms" in payment[0]["name"]
          and payment[0]["args"].get("mask") == "touch", f"full.json: the payment hold released by the watchdog: {payment}")
    printer = [e for t in holds for e in find(events, "X", t, r"^printer")]
    check(len(printer) == 1 and "released at destroy" in printer[0]["name"], f"full.json: the printer hold released at destroy: {printer}")
    check(any(find(events, "X", t, r"^global-ignore: transition") for t in holds), "full.json: the transition guard's holds")

    # Touches: one slice each, dropped ones marked.
    touches = [e for t in touch_tids for e in find(events, "X", t, r"^touch \d+")]
    ids = sorted(int(re.match(r"touch (\d+)", e["name"]).group(1)) for e in touches)
    check(ids == list(range(1, 14)), f"full.json: touches 1..13, one slice each: {ids}")
    dropped = sorted(int(re.match(r"touch (\d+)", e["name"]).group(1)) for e in touches if e["cat"] == "touch.dropped")
    check(dropped == [2, 3, 8, 9, 11, 13], f"full.json: the dropped touches: {dropped}")
    t2 = [e for e in touches if e["name"].startswith("touch 2 ")]
    check(t2 and t2[0]["name"] == "touch 2 dropped: ignoring" and t2[0]["args"].get("view") == 2, f"full.json: touch 2 dropped while a hold ignores touches: {t2}")
    t1 = [e for e in touches if e["name"].startswith("touch 1 ")]
    check(t1 and t1[0]["name"] == "touch 1 → view 2" and t1[0]["ts"] == 100_000 and t1[0]["dur"] == 60_000,
          f"full.json: touch 1 delivered to view 2, from 100 to 160 ms: {t1}")

    # Requests: instants with their outcome; refusals stand out.
    req = tid["requests"]
    refused = find(events, "i", req, cat="request.refused")
    check(sorted(e["name"] for e in refused) == ["REFUSED back #7: busy", "REFUSED push #2 → menu: duplicate",
                                                 "REFUSED push #p1 → menu: duplicate"],
          f"full.json: the three refusals (a posted id as #p1): {[e['name'] for e in refused]}")
    posted = [e for e in refused if str(e["args"].get("request")) == str(POSTED_ID)]
    check(posted and posted[0]["ts"] == 1_300_000 and posted[0]["args"].get("source") == 5,
          f"full.json: the posted reply (a posted id, kept exact) refused at the tick after it: {posted}")
    busy = [e for e in refused if e["name"].startswith("REFUSED back")]
    check(busy and busy[0]["args"].get("guard") == "org.navguard.transition" and busy[0]["args"].get("reason") == "busy",
          f"full.json: the refused back names its guard and reason: {busy}")
    check(len(find(events, "i", req, r"applied$", cat="request")) == 7, "full.json: seven applied requests")

    # Watchdog reports, with their text.
    reports = find(events, "i", tid["watchdog reports and logs"], cat="report")
    check(len(reports) == 2 and all("recovered 1 stuck item" in e["args"].get("text", "") for e in reports),
          f"full.json: the watchdog's two reports with their text: {[e['name'] for e in reports]}")

    html, svg = check_page(out + ".html", ["FORCED by the watchdog after 2000 ms", "NEVER FINISHED",
                                           "RELEASED by the watchdog after 3000 ms", "Reports (2)"])
    if svg is not None:
        texts = svg_texts(svg)
        # The headline: when the watchdog acted and what it did, not when the
        # push or the hold began.
        headline = [t for t in texts if t.startswith("⚠ at ")]
        check(headline[:2] == ["⚠ at 5860 ms: the watchdog forced push #6 item→checkout to finish after 2000 ms, since 3860 ms",
                               "⚠ at 9300 ms: the watchdog released the hold \"payment\" after 3000 ms, since 6300 ms"],
              f"full.html: the headline names when the watchdog acted and what it did: {headline}")
        check(any("push #9 item→checkout began and never finished" in t for t in headline), f"full.html: the headline names the push never finished: {headline}")
        check(any("NEVER FINISHED" in t for t in texts), "full.html: the never-finished push is labelled in the picture")
        check(len(red_rects(svg)) >= 5, f"full.html: the stuck spans are drawn red (forced x2, never finished x2, payment): {len(red_rects(svg))}")
        check(any(re.fullmatch(r"\d+ ms", t) for t in texts) and "10000 ms" in texts, "full.html: a time axis labelled in ms")
        titles = [t.text or "" for t in svg.iter() if t.tag.endswith("title")]
        check(any(t.startswith("REFUSED back #7: busy") and "org.navguard.transition" in t for t in titles),
              "full.html: hovering the refused back tells its guard")
        for lane in ("screen", "bar", "holds", "touches", "requests"):
            check(lane in texts, f"full.html: a {lane} lane")

    # Only the SVG: -o OUT.svg, and --svg.
    p = timeline(args, trace, os.path.join(args.work, "only.svg"))
    check(p.returncode == 0 and os.path.exists(os.path.join(args.work, "only.svg")), "-o OUT.svg: written")
    check(not os.path.exists(os.path.join(args.work, "only.svg.json")), "-o OUT.svg: nothing else written")
    p = timeline(args, trace, os.path.join(args.work, "flag"), "--svg")
    check(p.returncode == 0 and os.path.exists(os.path.join(args.work, "flag.svg"))
          and not os.path.exists(os.path.join(args.work, "flag.json")), "--svg: OUT.svg only")
    # An output that cannot be written: exit 1, the file and the reason named.
    p = timeline(args, trace, os.path.join(args.work, "no-such-dir", "out"))
    check(p.returncode == 1 and re.search(r"^navguard timeline: cannot write \S*/no-such-dir/out\.json: "
                                          r"No such file or directory$", p.stderr, re.M),
          f"unwritable OUT: exit 1 and the reason (got {p.returncode}: {p.stderr.strip()})")
    try:
        root = ET.parse(os.path.join(args.work, "only.svg")).getroot()
        check(root.tag == "{http://www.w3.org/2000/svg}svg", "only.svg: an SVG document")
    except (ET.ParseError, OSError) as e:
        check(False, f"only.svg: well-formed: {e}")


def case_ring(args):
    trace = record(args, "ring.jsonl", "--ring", "60", "--unfinished")
    out = os.path.join(args.work, "ring")
    p = timeline(args, trace, out)
    check(p.returncode == 0, "ring: exit 0")
    events = load_chrome(out + ".json")
    check_events_wellformed(events, "ring.json")
    tid = {v: k for k, v in threads(events).items()}
    # The ring starts inside the stuck checkout push: its end is there, not its begin.
    # Its push fell out of the ring, but the ring's checkpoint names both
    # screens and says when it began.
    forced = find(events, "X", tid.get("screen transitions"), r"^… push #6 item→checkout — FORCED by the watchdog after 2000 ms")
    check(len(forced) == 1 and forced[0]["ts"] == 0 and "before the trace's first record" in forced[0]["args"].get("began", ""),
          f"ring.json: the forced push, begun before the ring, drawn from its start, its screens named: {forced}")
    check(min(e["ts"] for e in events if e["ph"] != "M") == 0, "ring.json: times start at the ring's oldest record")
    # A ring's header is written at the dump: at_ns is the end, first_ns the start.
    with open(trace, encoding="utf-8") as f:
        header = json.loads(f.readline())
    check(header.get("start") == "ring" and header.get("first_ns", 0) < header["at_ns"], f"ring: a ring dump header: {header}")
    never = find(events, "X", tid.get("screen transitions"), r"^push #9 .*NEVER FINISHED")
    expected = (HOST_START_NS + 10_500 * MS - header.get("first_ns", 0)) // 1000
    check(len(never) == 1 and never[0]["ts"] == expected and never[0]["dur"] == 500_000,
          f"ring.json: the never-finished push at 10500 ms of the session, {expected} µs into the ring: {never}")
    payment = find(events, "X", name=r"^payment .*RELEASED by the watchdog after 3000 ms")
    check(len(payment) == 1 and payment[0]["dur"] == 3_000_000, f"ring.json: the payment hold, 3000 ms: {payment}")
    html, svg = check_page(out + ".html", ["Ring dump: this shows only the newest 60 records", "NEVER FINISHED", "STILL HELD at the end"])
    if svg is not None:
        check(any("only the newest" in t for t in svg_texts(svg)), "ring.html: the picture says it shows only the newest records")

    # The dump the watchdog's first report wrote by itself (the file a frozen
    # kiosk leaves): it ends at that report, the forced push in it.
    dumps = sorted(n for n in os.listdir(args.work) if re.fullmatch(r"navguard-\d+-\d+-1-[0-9a-f]{16}\.ngbox", n))
    if check(len(dumps) == 1, f"ring: the watchdog's first report dumped the ring: {os.listdir(args.work)}"):
        out = os.path.join(args.work, "dump")
        p = timeline(args, os.path.join(args.work, dumps[0]), out)
        check(p.returncode == 0, "dump: exit 0")
        events = load_chrome(out + ".json")
        check_events_wellformed(events, "dump.json")
        forced = find(events, "X", name=r"push #6 .*FORCED by the watchdog")
        reports = find(events, "i", cat="report")
        check(forced and len(reports) == 1 and reports[0]["ts"] == forced[0]["ts"] + forced[0]["dur"],
              f"dump.json: the forced push, ended at the report that dumped the ring: {forced} {reports}")


def case_truncated(args):
    full = record(args, "whole.jsonl", "--unfinished")
    with open(full, "rb") as f:
        data = f.read()
    lines = data.split(b"\n")[:-1]
    cut = b"\n".join(lines[:-1]) + b"\n" + lines[-1][: len(lines[-1]) // 2]
    trace = os.path.join(args.work, "cut.jsonl")
    with open(trace, "wb") as f:
        f.write(cut)
    out = os.path.join(args.work, "cut")
    p = timeline(args, trace, out)
    check(p.returncode == 0, "truncated: exit 0")
    events = load_chrome(out + ".json")
    check_events_wellformed(events, "cut.json")
    check(find(events, "X", name=r"^push #6 .*FORCED"), "cut.json: still drawn (the forced push is there)")
    check_page(out + ".html", [f"line {len(lines)} is incomplete", "FORCED by the watchdog"])


def case_malformed(args):
    good = record(args, "good.jsonl")
    with open(good, encoding="utf-8") as f:
        lines = f.read().split("\n")
    bad = os.path.join(args.work, "bad.jsonl")
    with open(bad, "w", encoding="utf-8") as f:
        f.write("\n".join(lines[:2] + ['{"k":"call","fn":"tick","t":12,'] + lines[3:]))
    cases = [(bad, r"line 3\b"), (os.path.join(args.work, "empty.jsonl"), r"empty"),
             (os.path.join(args.work, "missing.jsonl"), r"missing\.jsonl"), (os.path.join(args.work, "notatrace.jsonl"), r"first line")]
    open(cases[1][0], "w").close()
    with open(cases[3][0], "w", encoding="utf-8") as f:
        f.write('{"hello":1}\n')
    for path, message in cases:
        out = os.path.join(args.work, "out-" + os.path.basename(path))
        p = timeline(args, path, out)
        check(p.returncode == 2, f"{os.path.basename(path)}: exit 2 (got {p.returncode})")
        check(re.search(message, p.stderr), f"{os.path.basename(path)}: the message matches {message!r}: {p.stderr.strip()}")
        check(not os.path.exists(out + ".json") and not os.path.exists(out + ".html"), f"{os.path.basename(path)}: nothing written")


def case_incident(args):
    trace = record(args, "incident.jsonl", "--incident")
    out = os.path.join(args.work, "incident")
    p = timeline(args, trace, out)
    check(p.returncode == 0, "incident: exit 0")
    events = load_chrome(out + ".json")
    check_events_wellformed(events, "incident.json")
    tid = {v: k for k, v in threads(events).items()}
    # The mouse: its touch id (all bits set) drawn as "mouse", kept whole in the args.
    mouse = find(events, "X", name=r"^touch mouse → view 2")
    check(len(mouse) == 1 and str(mouse[0]["args"].get("touch")) == str(2**64 - 1) and mouse[0]["ts"] == 1_000_000
          and mouse[0]["dur"] == 3_000_000 and "its end never came" in mouse[0]["name"],
          f"incident.json: the mouse's touch, cancelled at 4000 ms: {mouse}")
    cancel = find(events, "i", name=r"^touch mouse cancelled by the watchdog$")
    check(len(cancel) == 1 and cancel[0]["ts"] == 4_000_000 and cancel[0]["tid"] in [t for n, t in tid.items() if n.startswith("touches")],
          f"incident.json: the cancel, a marker of its own on the touches lane: {cancel}")
    reports = find(events, "i", cat="report")
    check(len(reports) == 1 and reports[0]["ts"] == 4_000_000, f"incident.json: the watchdog's report at 4000 ms: {reports}")
    # The posted reply waited 80 ms for its tick; its id reads #p1.
    waits = find(events, "X", name=r"^push #p1 → item posted, waited 80 ms$")
    check(len(waits) == 1 and waits[0]["ts"] == 20_000_000 and waits[0]["dur"] == 80_000 and waits[0]["args"].get("request") == POSTED_ID,
          f"incident.json: the posted reply's wait, 20000 to 20080 ms: {waits}")
    check(any(e["name"] == "push #p1 → item applied" and e["args"].get("waited") == "80 ms" for e in find(events, "i", tid.get("requests"))),
          "incident.json: the outcome says how long it waited")
    html, svg = check_page(out + ".html", [])
    if svg is not None:
        texts = svg_texts(svg)
        headline = [t for t in texts if t.startswith("⚠ at ")]
        check(sorted(headline) == ["⚠ at 4000 ms: the watchdog cancelled touch mouse on view 2",
                                   "⚠ at 4000 ms: the watchdog released the hold \"scanner\" after 3000 ms, since 1000 ms"],
              f"incident.html: both things the watchdog did at 4000 ms, in the headline: {headline}")
        check(any(re.fullmatch(r"1[56]\.\d s idle", t) for t in texts), f"incident.html: the 16 s of nothing folded: {[t for t in texts if 'idle' in t]}")
        check("cancelled" in texts and "watchdog report" in texts, "incident.html: the cancel and the report both labelled")
        # Folded: 20000 ms sits well left of where a linear axis puts it.
        ticks = {t.text: float(t.get("x")) for t in svg.iter() if t.tag.endswith("text") and t.get("class") == "axis" and t.text and t.text.endswith(" ms")}
        if check("20000 ms" in ticks and "4000 ms" in ticks, f"incident.html: axis labels: {sorted(ticks)}"):
            check(ticks["20000 ms"] - ticks["4000 ms"] < 200, f"incident.html: the idle stretch takes little room: {ticks['4000 ms']} → {ticks['20000 ms']}")
    p = timeline(args, trace, os.path.join(args.work, "unfolded.svg"), "--no-fold")
    check(p.returncode == 0 and "idle<" not in read(os.path.join(args.work, "unfolded.svg")), "--no-fold: nothing folded")
    # A window: from 3500 to 4500 ms.
    win = os.path.join(args.work, "window")
    p = timeline(args, trace, win, "--from", "3500", "--to", "4500")
    check(p.returncode == 0, "--from/--to: exit 0")
    events = load_chrome(win + ".json")
    check_events_wellformed(events, "window.json")
    stamps = [e["ts"] for e in events if e["ph"] != "M"]
    check(stamps and min(stamps) >= 3_500_000 and max(e["ts"] + e.get("dur", 0) for e in events if e["ph"] != "M") <= 4_500_000,
          f"window.json: everything within 3500..4500 ms: {min(stamps) if stamps else None}")
    check(find(events, "X", name=r"^… touch mouse") and not find(events, "X", name=r"push #p1"),
          "window.json: the mouse's touch, cut at the window's start; the push at 20 s left out")
    check("Drawn from 3500 ms to 4500 ms" in read(win + ".html"), "window.html: says what it draws")
    p = timeline(args, trace, win, "--from", "5", "--to", "4")
    check(p.returncode != 0, "--to before --from: refused")


def case_drivelimit(args):
    trace = record(args, "drive-limit.jsonl", "--drive-limit")
    out = os.path.join(args.work, "drive-limit")
    p = timeline(args, trace, out)
    check(p.returncode == 0, "drivelimit: exit 0")
    events = load_chrome(out + ".json")
    check_events_wellformed(events, "drive-limit.json")
    tid = {v: k for k, v in threads(events).items()}
    # The recorded truth: the swipe's screen track ends CANCELLED, marked forced.
    with open(trace, encoding="utf-8") as f:
        phases = [r for r in map(json.loads, f) if r.get("k") == "cb" and r.get("fn") == "transition" and r.get("track") == "screen"]
    check(any(r.get("phase") == "cancelled" and r.get("flags", 0) & 0x8 for r in phases),   # NG_TRANSF_FORCED
          f"drive-limit.jsonl: the trace has the swipe cancelled by a guard: {phases}")
    swipe = find(events, "X", tid.get("screen transitions"), r"^interactive-back #2 menu→home")
    if check(len(swipe) == 1, f"drive-limit.json: one swipe span on the screen track: {swipe}"):
        s = swipe[0]
        check("FORCED" not in s["name"] and "(cancelled)" in s["name"]
              and "CANCELLED by the watchdog after 60180 ms: rolled back, the stack stayed on menu" in s["name"],
              f"drive-limit.json: the swipe is shown cancelled by the watchdog, on menu: {s['name']}")
        check(s["args"].get("end") == "cancelled (forced)", f"drive-limit.json: its end: {s['args']}")
        check(s["ts"] == 1_020_000 and s["dur"] == 60_180_000, f"drive-limit.json: 1020 ms to 61200 ms: {s['ts']}, {s['dur']}")
    check(not find(events, "X", name=r"FORCED"), "drive-limit.json: nothing drawn as forced")
    html, svg = check_page(out + ".html", [])
    if svg is not None:
        texts = svg_texts(svg)
        headline = [t for t in texts if t.startswith("⚠ at ")]
        check("⚠ at 61200 ms: the watchdog cancelled interactive-back #2 menu→home after 60180 ms, since 1020 ms: "
              "rolled back, the stack stayed on menu" in headline, f"drive-limit.html: the headline tells what happened: {headline}")
        check(not any("forced" in t or "to finish" in t for t in headline), f"drive-limit.html: no 'forced … to finish': {headline}")
        sub = [t for t in texts if " touch " in t and "input event" in t]
        check(len(sub) == 1 and "1 touch (0 dropped at began, 1 cancelled), 8 of 12 input events dropped" in sub[0],
              f"drive-limit.html: the header counts the touch's 8 dropped events: {sub}")
    p = run([args.cli, "stats", trace])
    check(p.returncode == 0, "drivelimit stats: exit 0")
    check(re.search(r"^menu +1 +0 +0 +1 ", p.stdout, re.M), "stats: menu: 1 transition (the push), 0 stuck, 0 forced, 1 cancelled")
    check(not re.search(r"^home ", p.stdout, re.M), "stats: no row for home: the swipe never got there")
    p = run([args.cli, "stats", trace, "--json"])
    screens = {s["screen"]: s for s in json.loads(p.stdout)["screens"]} if p.returncode == 0 else {}
    check(screens.get("menu", {}).get("cancelled") == 1 and screens.get("menu", {}).get("forced") == 0 and "home" not in screens,
          f"stats --json: cancelled on menu, nothing forced: {screens}")


def case_idlereturn(args):
    trace = record(args, "idle-return.jsonl", "--idle-return")
    out = os.path.join(args.work, "idle-return")
    p = timeline(args, trace, out)
    check(p.returncode == 0, "idlereturn: exit 0")
    events = load_chrome(out + ".json")
    check_events_wellformed(events, "idle-return.json")
    names = [e["name"] for e in events if e.get("ph") in ("X", "i")]
    back = [n for n in names if n.startswith("pop-to-root ")]
    check(back and all(n.startswith("pop-to-root #g1") for n in back),
          f"idle-return.json: the guard's pop-to-root is #g1: {back}")
    check("pop-to-root #g1 applied" in names, f"idle-return.json: it is applied: {back}")
    questions = [n for n in names if n.startswith("question:")]
    check(questions == ["question: Leave checkout?"], f"idle-return.json: one question: {questions}")
    check("answer: timeout" in names, "idle-return.json: nobody answered")
    reports = [e["name"] for e in events if e.get("cat") == "report"]
    check(not reports, f"idle-return.json: no report: {reports}")
    check(not [n for n in names if "REFUSED" in n or "DROPPED" in n], "idle-return.json: nothing refused or dropped")
    p = run([args.cli, "stats", trace])
    check(p.returncode == 0 and re.search(r"^home +1 +0 +0 +0 ", p.stdout, re.M),
          f"idlereturn stats: home reached once, nothing forced or cancelled: {p.stdout}")


def case_presses(args):
    trace = record(args, "presses.jsonl", "--presses")
    out = os.path.join(args.work, "presses")
    p = timeline(args, trace, out)
    check(p.returncode == 0, "presses: exit 0")
    events = load_chrome(out + ".json")
    check_events_wellformed(events, "presses.json")
    th = threads(events)
    lanes = {}
    for tid, name in th.items():
        if name.startswith("presses: "):
            lanes.setdefault(name[len("presses: "):], []).append(tid)
    check(sorted(lanes) == ["controller 3", "controller 4", "keyboard 0"], f"presses.json: a lane per device: {th}")

    def spans(device):
        return sorted((e for e in events if e.get("ph") == "X" and e.get("tid") in lanes.get(device, [])
                       and e.get("cat", "").startswith("press") and not e.get("cat", "").endswith(".phase")),
                      key=lambda e: e["ts"])
    c3 = spans("controller 3")
    check([e["args"]["button"] for e in c3] == ["A", "dpad-down", "A"], f"controller 3: A, dpad-down, A: {c3}")
    if len(c3) == 3:
        check(c3[0]["ts"] == 100_000 and c3[0]["dur"] == 100_000, f"controller 3's first A: 100 ms to 200 ms: {c3[0]}")
        check(c3[0]["args"].get("cause") == "transition" and "cancelled: transition" in c3[0]["name"]
              and c3[0]["args"]["end"] == "up (dropped: cancelled)",
              f"controller 3's first A: cancelled by the push, its up withheld: {c3[0]}")
        check("cause" not in c3[1]["args"] and c3[1]["args"]["end"] == "up (delivered)", f"the D-pad press: up delivered: {c3[1]}")
        check(c3[2]["args"].get("cause") == "device-removed" and c3[2]["args"]["end"] == "its device was removed"
              and c3[2]["ts"] == 1_300_000 and c3[2]["dur"] == 100_000,
              f"controller 3's second A: ended by the removal at 1400 ms: {c3[2]}")
    removed = find(events, ph="i", name=r"^controller 3 removed$")
    check(len(removed) == 1 and removed[0]["ts"] == 1_400_000 and removed[0]["tid"] in lanes.get("controller 3", []),
          f"the removal, on controller 3's lane at 1400 ms: {removed}")
    c4 = spans("controller 4")
    check([e["args"]["button"] for e in c4] == ["B", "start"], f"controller 4: B, start: {c4}")
    if len(c4) == 2:
        check(c4[0]["args"].get("cause") == "transition" and c4[0]["args"].get("screen") == "menu",
              f"B: down on menu, cancelled by the Back: {c4[0]}")
        check(c4[1]["args"].get("cause") == "destroyed" and c4[1]["ts"] + c4[1]["dur"] == 1_700_000,
              f"Start: cancelled at destroy (1700 ms): {c4[1]}")
    k0 = spans("keyboard 0")
    check([e["args"]["button"] for e in k0] == ["key 27"] and k0[0]["args"]["end"] == "up (delivered)" if k0 else False,
          f"keyboard 0: Escape pressed and released: {k0}")
    # Focus, on the screen lane.
    screen_tid = next((t for t, n in th.items() if n == "screen transitions"), None)
    focus = [(e["ts"], e["name"]) for e in events if e.get("cat") == "focus"]
    check(focus == [(50_000, "home: focus 11 set"), (500_000, "menu: focus 21 set"), (650_000, "menu: focus 22 set"),
                    (1_160_000, "home: focus 11 handed back")], f"focus: set and handed back: {focus}")
    check(all(e["tid"] == screen_tid for e in events if e.get("cat") == "focus"), "focus marks are on the screen lane")
    # The picture.
    html, svg = check_page(out + ".html", ["controller 3", "controller 4", "keyboard 0", "focus 11", "focus 22",
                                           "6 presses (0 dropped at down, 4 cancelled)"])
    if svg is not None:
        texts = svg_texts(svg)
        check("controller 3" in texts and "keyboard 0" in texts, f"the SVG labels the device lanes: {texts[:40]}")
        check("focus 11" in texts and "focus 21" in texts, "the SVG writes the focus tokens")
        check(any(t.startswith("A") for t in texts) or "A" in html, "the SVG names the buttons")
        check(len([r for r in svg.iter() if r.tag.endswith("rect") and r.get("class") == "press"]) >= 2,
              "the delivered presses are drawn as press spans")
    p = run([args.cli, "replay", trace])
    check(p.returncode == 0 and "identical" in p.stdout, f"presses: the trace replays identically: {p.stdout}")
    p = run([args.cli, "stats", trace])
    check(p.returncode == 0, "presses: stats reads it")


def case_fleet(args):
    full = record(args, "kiosk-a.jsonl", "--unfinished")
    inc = record(args, "kiosk-b.jsonl", "--incident")
    ring = record(args, "kiosk-c.jsonl", "--ring", "60", "--unfinished")
    out = os.path.join(args.work, "fleet")
    p = run([args.cli, "timeline", full, inc, ring, "-o", out])
    check(p.returncode == 0, "fleet: exit 0")
    events = load_chrome(out + ".json")
    procs = {e["pid"]: e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "process_name"}
    check(sorted(procs.values()) == ["NavGuard trace kiosk-a.jsonl", "NavGuard trace kiosk-b.jsonl", "NavGuard trace kiosk-c.jsonl"],
          f"fleet.json: one process per trace: {procs}")
    html = read(out + ".html")
    pictures = re.findall(r"<svg\b.*?</svg>", html, re.S)
    check(len(pictures) == 4, f"fleet.html: the fleet's picture, then each trace's: {len(pictures)}")
    if pictures:
        try:
            fleet = ET.fromstring(pictures[0])
        except ET.ParseError as e:
            check(False, f"fleet.html: the fleet picture is well-formed: {e}")
            return
        texts = svg_texts(fleet)
        check("NavGuard fleet — 3 traces, one lane each" in texts, "fleet.html: the fleet picture's title")
        for name in ("kiosk-a.jsonl", "kiosk-b.jsonl", "kiosk-c.jsonl"):
            check(name in texts, f"fleet.html: a lane named {name}")
        check(sum(1 for t in texts if t.startswith("⚠ ")) == 3, f"fleet.html: each lane's headline: {[t for t in texts if t.startswith('⚠')]}")
    p = run([args.cli, "timeline", full, inc, "-o", os.path.join(args.work, "fleet.svg")])
    check(p.returncode == 0 and "one lane each" in read(os.path.join(args.work, "fleet.svg")), "fleet: -o OUT.svg writes the fleet picture")


def case_stats(args):
    full = record(args, "kiosk-a.jsonl", "--unfinished")
    inc = record(args, "kiosk-b.jsonl", "--incident")
    p = run([args.cli, "stats", full, inc])
    check(p.returncode == 0, "stats: exit 0")
    table = p.stdout
    check(re.search(r"^org\.navguard\.transition +1 busy", table, re.M), "stats: the transition guard refused one request, busy")
    check(re.search(r"^the core +2 duplicate", table, re.M), "stats: the core refused two duplicates")
    check(re.search(r"^checkout +2 +1 +1 ", table, re.M), "stats: checkout: 2 transitions, 1 stuck, 1 forced")
    check(re.search(r"payment 3000 ms \(released by the watchdog\)", table), "stats: the longest hold, payment, released by the watchdog")
    p = run([args.cli, "stats", full, inc, "--json"])
    check(p.returncode == 0, "stats --json: exit 0")
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError as e:
        check(False, f"stats --json: JSON: {e}")
        return
    check(doc["files"] == [full, inc], f"stats --json: files: {doc['files']}")
    guards = {g["guard"]: g for g in doc["guards"]}
    check(guards.get("org.navguard.transition", {}).get("refused") == {"busy": 1}, f"stats --json: transition refused busy once: {guards}")
    check(guards.get("org.navguard.global-ignore", {}).get("events_dropped", {}).get("ignoring", 0) >= 4,
          f"stats --json: global-ignore dropped touches while ignoring: {guards.get('org.navguard.global-ignore')}")
    screens = {s["screen"]: s for s in doc["screens"]}
    co = screens.get("checkout", {})
    check(co.get("stuck") == 1 and co.get("forced") == 1 and co.get("transitions") == 2, f"stats --json: checkout: {co}")
    holds = [h for s in doc["screens"] for h in s["longest_holds"]]
    check(any(h["label"] == "scanner" and h["ms"] == 3000 and h["end"] == "released by the watchdog" and h["file"] == inc for h in holds),
          f"stats --json: the scanner hold of the incident: {holds}")
    p = run([args.cli, "stats", os.path.join(args.work, "missing.jsonl")])
    check(p.returncode == 2 and "missing.jsonl" in p.stderr, "stats: a missing file: exit 2, named")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--host", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("case", choices=["full", "ring", "truncated", "malformed", "incident", "drivelimit", "idlereturn", "presses", "fleet", "stats"])
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    for name in os.listdir(args.work):
        os.remove(os.path.join(args.work, name))
    globals()["case_" + args.case](args)
    if FAILURES:
        print(f"\n{len(FAILURES)} check(s) failed in case {args.case}")
        sys.exit(1)
    print(f"case {args.case}: all checks passed")


if __name__ == "__main__":
    main()
