#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The Prometheus textfiles NavGuard writes, checked against the format's
rules (a parser of the classic text format 0.0.4, and `promtool check
metrics` when installed) and against what they count:

  stats    `navguard stats --format prometheus --output` on kiosk-sim's
           traces, every sample line against `navguard stats --json`
  labels   the same on a trace whose guard id and hold label hold quotes,
           backslashes and newlines: escaped, nothing cut
  metrics  the kiosk-side file (adapters/journald/navguard_metrics.c) that
           test_metrics writes from a real context
"""
import argparse, json, os, re, shutil, subprocess, sys

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*$")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*$")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, file=sys.stderr)
    return cond


def parse_labels(s, where):
    """{a="x",b="y"} body -> [(name, unescaped value)]; strict escapes."""
    out, i = [], 0
    while i < len(s):
        m = re.match(r"([a-zA-Z_][a-zA-Z0-9_]*)=\"", s[i:])
        if not check(m, f"{where}: label at {s[i:]!r}"):
            return None
        name, i, v = m.group(1), i + m.end(), ""
        while True:
            if not check(i < len(s), f"{where}: unterminated label value"):
                return None
            c = s[i]
            if c == "\\":
                nxt = s[i + 1] if i + 1 < len(s) else ""
                if not check(nxt in ('\\', '"', 'n'), f"{where}: bad escape \\{nxt}"):
                    return None
                v += {"\\": "\\", '"': '"', "n": "\n"}[nxt]
                i += 2
            elif c == '"':
                i += 1
                break
            else:
                v += c
                i += 1
        out.append((name, v))
        if i < len(s):
            if not check(s[i] == ",", f"{where}: ',' between labels"):
                return None
            i += 1
    return out


def lint(path):
    """The format's rules; returns {(name, labels tuple): value}."""
    text = open(path, encoding="utf-8").read()
    check(text.endswith("\n"), f"{path}: ends with a newline")
    samples, types, helps, seen_families, current = {}, {}, {}, [], None
    for n, line in enumerate(text.split("\n")[:-1], 1):
        where = f"{path}:{n}"
        if line.startswith("# HELP ") or line.startswith("# TYPE "):
            kind, rest = line[2:6], line[7:]
            name, _, val = rest.partition(" ")
            check(NAME.match(name), f"{where}: metric name {name!r}")
            d = helps if kind == "HELP" else types
            check(name not in d, f"{where}: second # {kind} for {name}")
            check(name not in seen_families, f"{where}: # {kind} {name} after its samples")
            if kind == "TYPE":
                check(val in ("counter", "gauge", "histogram", "summary", "untyped"), f"{where}: type {val!r}")
                check(val != "counter" or name.endswith("_total"), f"{where}: a counter's name ends in _total")
            d[name] = val
            continue
        if line.startswith("#"):
            continue
        m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( -?\d+)?$", line)
        if not check(m, f"{where}: sample line {line!r}"):
            continue
        name, labels, value = m.group(1), parse_labels(m.group(3) or "", where), m.group(4)
        if labels is None:
            continue
        check(len({k for k, _ in labels}) == len(labels), f"{where}: a label twice")
        try:
            v = float(value)
        except ValueError:
            check(False, f"{where}: value {value!r}")
            continue
        if name != current:
            check(name not in seen_families, f"{where}: samples of {name} not together")
            seen_families.append(name)
            current = name
        check(name in types, f"{where}: {name} has a # TYPE before its samples")
        key = (name, tuple(sorted(labels)))
        check(key not in samples, f"{where}: series {key} twice")
        samples[key] = v
    promtool = shutil.which("promtool")
    if promtool:
        p = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True)
        check(p.returncode == 0, f"promtool check metrics {path}: {p.stdout}{p.stderr}")
        print(f"promtool check metrics {os.path.basename(path)}: exit {p.returncode}")
    else:
        print("promtool not installed (Debian: apt-get install prometheus): the parser's rules only")
    return samples, types, helps


def samples_of(samples, name):
    return [k for k in samples if k[0] == name]


FAMILIES = ["navguard_refusals_total", "navguard_drops_total", "navguard_transitions_stuck_total",
            "navguard_transitions_forced_total", "navguard_watchdog_actions_total", "navguard_crash_dumps_total",
            "navguard_longest_hold_seconds", "navguard_reports_total"]


def expected_from_json(j):
    """Every sample `navguard stats --format prometheus` must write, from --json."""
    want = {}
    for g in j["guards"]:
        for reason, n in g["refused"].items():
            want[("navguard_refusals_total", (("guard", g["guard"]), ("reason", reason)))] = n
        drops = dict(g["dropped"])
        for reason, n in g["events_dropped"].items():
            drops[reason] = drops.get(reason, 0) + n
        for reason, n in drops.items():
            want[("navguard_drops_total", (("guard", g["guard"]), ("reason", reason)))] = n
    for s in j["screens"]:
        want[("navguard_transitions_stuck_total", (("route", s["screen"]),))] = s["stuck"]
        want[("navguard_transitions_forced_total", (("route", s["screen"]),))] = s["forced"]
    for kind in set(["transition", "hold", "touch"]) | set(j["watchdog_actions"]):
        want[("navguard_watchdog_actions_total", (("kind", kind),))] = j["watchdog_actions"].get(kind, 0)
    want[("navguard_crash_dumps_total", ())] = len(j["crashes"])
    for label, ms in j["longest_hold_ms_by_label"].items():
        want[("navguard_longest_hold_seconds", (("label", label),))] = ms / 1000
    for g, n in j["reports"].items():
        want[("navguard_reports_total", (("guard", g),))] = n
    return want


def run(cmd, **kw):
    p = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if p.returncode != 0:
        print(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stdout}{p.stderr}", file=sys.stderr)
        sys.exit(1)
    return p


def compare(args, traces, tag):
    out = os.path.join(args.work, f"{tag}.prom")
    if os.path.exists(out):
        os.remove(out)
    run([args.cli, "stats", *traces, "--format", "prometheus", "--output", out])
    check(not [f for f in os.listdir(args.work) if f.endswith(".tmp")], "no temporary file left")
    samples, types, helps = lint(out)
    for f in FAMILIES:
        check(f in types and f in helps, f"{f}: # HELP and # TYPE")
    j = json.loads(run([args.cli, "stats", *traces, "--json"]).stdout)
    want = expected_from_json(j)
    for key, v in want.items():
        check(key in samples, f"{tag}: line for {key} (from --json)") and \
            check(abs(samples[key] - v) < 1e-9, f"{tag}: {key} = {samples.get(key)}, --json says {v}")
    for key in samples:
        check(key in want, f"{tag}: {key} is in no --json count")
    stdout = run([args.cli, "stats", *traces, "--format", "prometheus"]).stdout
    check(stdout == open(out).read(), "--output writes what standard output shows")
    print(f"{tag}: {len(samples)} samples, each equal to --json")
    return out, j


def record(args, d):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    run([args.sim, "--record", d])
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".jsonl"))


def case_stats(args):
    traces = record(args, os.path.join(args.work, "traces"))
    check(len(traces) >= 10, f"kiosk-sim recorded {len(traces)} traces")
    out, j = compare(args, traces, "kiosk-sim")
    check(sum(sum(g["refused"].values()) for g in j["guards"]) > 0, "kiosk-sim's traces have refusals")
    check(sum(j["reports"].values()) > 0, "and reports")
    # A transition the watchdog ended is one request (its screen and bar
    # lanes are one): at most the forced and rolled-back ones of --json.
    ended = sum(s["forced"] + s["cancelled"] for s in j["screens"])
    check(0 < j["watchdog_actions"].get("transition", 0) <= ended,
          f"watchdog transitions {j['watchdog_actions']} within forced + cancelled ({ended})")
    print(open(out).read(), end="")
    # A file that does not read: exit 2, the old textfile left as it was.
    bad = os.path.join(args.work, "bad.jsonl")
    open(bad, "w").write("not a trace\n")
    before = open(out).read()
    p = subprocess.run([args.cli, "stats", bad, "--format", "prometheus", "--output", out], capture_output=True, text=True)
    check(p.returncode == 2 and open(out).read() == before, f"a bad trace: exit 2 ({p.returncode}), file kept")
    p = subprocess.run([args.cli, "stats", traces[0], "--format", "yaml"], capture_output=True, text=True)
    check(p.returncode != 0 and "prometheus" in p.stderr, "an unknown --format is refused")


ODD_GUARD = 'org.example.odd "guard" \\ back\nslash'
ODD_LABEL = 'pay\\ment "card"\nreader'


def case_labels(args):
    """A trace's strings with quotes, backslashes and a newline: every hold
    label and the refusing guard's id replaced (JSON-escaped in the trace)."""
    traces = record(args, os.path.join(args.work, "traces-labels"))
    changed = 0
    out_traces = []
    for t in traces:
        lines = open(t, encoding="utf-8").read().split("\n")
        new = []
        for line in lines:
            if line.strip():
                try:
                    rec = json.loads(line)
                except ValueError:
                    new.append(line)
                    continue
                before = json.dumps(rec, sort_keys=True)
                rec = rewrite(rec)
                if json.dumps(rec, sort_keys=True) != before:
                    changed += 1
                line = json.dumps(rec, ensure_ascii=False, separators=(",", ":"))
            new.append(line)
        p = t.replace(".jsonl", "-odd.jsonl")
        open(p, "w", encoding="utf-8").write("\n".join(new))
        out_traces.append(p)
    check(changed > 0, "the traces had labels and guard ids to rewrite")
    out, j = compare(args, out_traces, "odd-labels")
    text = open(out).read()
    esc = lambda s: s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    check(f'label="{esc(ODD_LABEL)}"' in text, f"the hold label escaped whole: {esc(ODD_LABEL)}")
    check(any(g["guard"] == ODD_GUARD for g in j["guards"]), "--json has the odd guard id")
    check(f'guard="{esc(ODD_GUARD)}"' in text, f"the guard id escaped whole: {esc(ODD_GUARD)}")


def rewrite(v):
    if isinstance(v, dict):
        return {k: (ODD_LABEL if k == "label" and isinstance(x, str)
                    else ODD_GUARD if k in ("guard", "guard_id") and isinstance(x, str) and x.startswith("org.navguard.")
                    else rewrite(x)) for k, x in v.items()}
    if isinstance(v, list):
        return [rewrite(x) for x in v]
    return v


def case_metrics(args):
    path = os.path.join(args.work, "kiosk.prom")
    os.makedirs(args.work, exist_ok=True)
    if os.path.exists(path):
        os.remove(path)
    run([*(args.emulator or []), args.prog, path])
    samples, types, helps = lint(path)
    text = open(path).read()
    print(text, end="")
    for f in FAMILIES:
        if f != "navguard_transitions_stuck_total":
            check(f in types and f in helps, f"{f}: # HELP and # TYPE")
    s = lambda name, *labels: samples.get((name, tuple(sorted(labels))))
    check(s("navguard_refusals_total", ("guard", "the core"), ("reason", "at-root")) == 2, "two refusals: pop at the root")
    check(s("navguard_transitions_forced_total", ("route", 'check"out')) == 1, "a forced transition, route escaped")
    check(s("navguard_watchdog_actions_total", ("kind", "transition")) == 1, "the watchdog forced one transition")
    check(s("navguard_watchdog_actions_total", ("kind", "hold")) == 1, "and released one hold")
    check(s("navguard_watchdog_actions_total", ("kind", "touch")) == 0, "no touch")
    check(s("navguard_crash_dumps_total") == 2, "two crash dumps")
    check(s("navguard_reports_total", ("guard", "org.navguard.watchdog")) == 2, "the watchdog's two reports")
    check(s("navguard_reports_total", ("guard", 'com.example.odd"\\\nguard')) == 1, "the odd guard, whole")
    held = s("navguard_longest_hold_seconds", ("label", ODD_LABEL))
    check(held is not None and held > 10, f"the released hold's length ({held})")
    check('com.example.odd\\"\\\\\\nguard' in text, "escaped as the format says")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli")
    ap.add_argument("--sim")
    ap.add_argument("--prog")
    # A cross build's test program runs under its emulator (the words of
    # CMAKE_CROSSCOMPILING_EMULATOR, one --emulator each).
    ap.add_argument("--emulator", action="append")
    ap.add_argument("--work", required=True)
    ap.add_argument("case", choices=["stats", "labels", "metrics"])
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    {"stats": case_stats, "labels": case_labels, "metrics": case_metrics}[args.case](args)
    if failures:
        print(f"{len(failures)} failures", file=sys.stderr)
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
