#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""example_sdl_game_xvfb: the game front-end (examples/sdl-game) in a real X
window (Xvfb), played with virtual game controllers that SDL 2.26 opens as
game controllers (SDL_JoystickAttachVirtualEx: the game attaches them itself,
--pads 2, and takes their presses from a FIFO, --control) and with the
keyboard through xdotool. Every scenario runs guarded (the default chain,
confirm-leave's time limit, device-owner with the keyboard shared) and
unguarded (--unguarded: the empty chain; the core's press rules stay), and
is judged from the game's JSON log (the stack, the focus, the counts), its
screenshot's pixels, and, with --navguard, `navguard replay` of its trace,
which must be identical.

  test_xvfb.py --app build/examples/sdl-game/sdl-game [--navguard CLI]
  test_xvfb.py --app ... --only b_mash --keep -v
  test_xvfb.py --list
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
APT = "apt-get install -y libsdl2-dev libsdl2-ttf-dev fonts-dejavu-core xvfb xdotool"
W, H = 800, 600
ANIM_MS = 400
CONFIRM_MS = 1500
# examples/sdl-game/game.c, BG and FOCUS.
BG = {"title": (30, 64, 175), "main": (21, 128, 61), "options": (124, 58, 237), "video": (194, 65, 12),
      "audio": (194, 65, 12), "controls": (194, 65, 12), "game": (15, 23, 42)}
PAUSE_PANEL = (51, 65, 85)
FOCUS = (250, 204, 21)
KEYBOARD = 0
VERBOSE = False


class Failure(Exception):
    pass


class Premise(Failure):
    """The run did not set up what the scenario is about (a press that missed
    its slide on a busy machine); the scenario is run once more. Any other
    failure is final."""


def say(msg):
    if VERBOSE:
        print("    " + msg, flush=True)


def expect(cond, msg):
    if not cond:
        raise Failure(msg)


def read_bmp(path):
    """(width, height, pixel(x, y) -> (r, g, b)) of SDL_SaveBMP's 32-bit or 24-bit output."""
    with open(path, "rb") as f:
        d = f.read()
    off = struct.unpack_from("<I", d, 10)[0]
    w, h = struct.unpack_from("<ii", d, 18)
    bpp = struct.unpack_from("<H", d, 28)[0]
    bottom_up = h > 0
    h = abs(h)
    stride = ((w * bpp // 8) + 3) & ~3
    masks = None
    if bpp == 32 and struct.unpack_from("<I", d, 30)[0] == 3:
        masks = struct.unpack_from("<III", d, 54)

    def px(x, y):
        row = (h - 1 - y) if bottom_up else y
        i = off + row * stride + x * (bpp // 8)
        if bpp == 24:
            b, g, r = d[i], d[i + 1], d[i + 2]
            return r, g, b
        v = struct.unpack_from("<I", d, i)[0]
        if masks:
            out = []
            for m in masks:
                shift = (m & -m).bit_length() - 1
                out.append((v & m) >> shift)
            return tuple(out)
        return (v >> 16) & 255, (v >> 8) & 255, v & 255
    return w, h, px


def near(c, want, tol=6):
    return all(abs(a - b) <= tol for a, b in zip(c, want))


def free_display(salt):
    for n in range(90 + (os.getpid() + salt) % 300, 1000):
        if not os.path.exists(f"/tmp/.X11-unix/X{n}") and not os.path.exists(f"/tmp/.X{n}-lock"):
            return n
    raise Failure("no free X display")


class Game:
    def __init__(self, app, tmp, name, guarded, record):
        self.app, self.name, self.guarded = app, name, guarded
        self.dir = os.path.join(tmp, name)
        os.makedirs(self.dir, exist_ok=True)
        self.log = os.path.join(self.dir, "log.jsonl")
        self.bmp = os.path.join(self.dir, "shot.bmp")
        self.fifo = os.path.join(self.dir, "control")
        self.trace = os.path.join(self.dir, "trace.jsonl") if record else None
        for stale in (self.log, self.bmp, self.fifo, self.trace):
            if stale and os.path.exists(stale):
                os.remove(stale)
        os.mkfifo(self.fifo)
        self.xvfb = self.proc = None
        self.ctl = None

    def start(self):
        for attempt in range(6):
            n = free_display(attempt * 17)
            self.xvfb = subprocess.Popen(["Xvfb", f":{n}", "-screen", "0", f"{W}x{H}x24", "-nolisten", "tcp"],
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            sock = f"/tmp/.X11-unix/X{n}"
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and self.xvfb.poll() is None and not os.path.exists(sock):
                time.sleep(0.02)
            if self.xvfb.poll() is None and os.path.exists(sock):
                self.display = f":{n}"
                break
            self._stop_xvfb()
        else:
            raise Failure("could not start Xvfb")
        self.env = dict(os.environ, DISPLAY=self.display, SDL_RENDER_DRIVER="software", SDL_VIDEODRIVER="x11")
        args = [self.app, "--log", self.log, "--screenshot", self.bmp, "--control", self.fifo, "--pads", "2",
                "--anim-ms", str(ANIM_MS), "--confirm-timeout-ms", str(CONFIRM_MS)]
        if not self.guarded:
            args.append("--unguarded")
        if self.trace:
            args += ["--record", self.trace]
        self.out = open(os.path.join(self.dir, "app.out"), "w")
        self.proc = subprocess.Popen(args, env=self.env, stdout=self.out, stderr=subprocess.STDOUT)
        self.ctl = open(self.fifo, "w")
        self.wait_for(lambda e: e["type"] == "ready", 30, "the game's ready line")
        self.pads = [e["device"] for e in self.events() if e["type"] == "pad"]
        expect(len(self.pads) == 2, f"two virtual controllers attached, got {self.pads}")
        expect(KEYBOARD not in self.pads, f"a controller has the keyboard's device 0: {self.pads}")
        time.sleep(0.3)

    def _stop_xvfb(self):
        if self.xvfb and self.xvfb.poll() is None:
            self.xvfb.terminate()
            try:
                self.xvfb.wait(5)
            except subprocess.TimeoutExpired:
                self.xvfb.kill()
                self.xvfb.wait()
        self.xvfb = None

    def close(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        if self.ctl:
            try:
                self.ctl.close()
            except OSError:
                pass
        self._stop_xvfb()

    # -- input --
    def send(self, line):
        self.ctl.write(line + "\n")
        self.ctl.flush()

    def pad(self, n, verb, button=""):
        self.send(f"pad {n} {verb} {button}".strip())

    def press(self, n, button, gap=0.25):
        self.pad(n, "down", button)
        time.sleep(0.06)
        self.pad(n, "up", button)
        time.sleep(gap)

    def key(self, k, gap=0.25):
        subprocess.run(["xdotool", "key", k], env=self.env, check=True)
        time.sleep(gap)

    def quit(self):
        self.send("quit")
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            raise Failure("the game did not quit")
        expect(self.proc.returncode == 0, f"the game exited with {self.proc.returncode}")
        expect(os.path.exists(self.bmp), "no screenshot at exit")

    # -- log --
    def events(self):
        out = []
        if os.path.exists(self.log):
            with open(self.log) as f:
                for line in f:
                    if line.endswith("\n"):
                        out.append(json.loads(line))
        return out

    def wait_for(self, pred, timeout, what):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for e in self.events():
                if pred(e):
                    return e
            if self.proc.poll() is not None:
                raise Failure(f"the game exited ({self.proc.returncode}) waiting for {what}")
            time.sleep(0.03)
        raise Failure(f"timed out waiting for {what}")

    def stack(self):
        s = [e for e in self.events() if e["type"] == "stack"]
        return s[-1]["routes"], s[-1]["focus"]

    def settle(self, routes, timeout=5):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.stack()[0] == routes:
                time.sleep(ANIM_MS / 1000 * 0.25)
                return
            time.sleep(0.03)
        raise Failure(f"stack {self.stack()[0]}, waited for {routes}")

    def count(self, type_, **kv):
        return sum(1 for e in self.events() if e["type"] == type_ and all(e.get(k) == v for k, v in kv.items()))

    # -- navigation --
    def to_main(self):
        self.press(1, "a")
        self.settle(["title", "main"])

    def focus_to(self, n, index):
        for _ in range(index):
            self.press(n, "dpdown", 0.15)

    def to_options(self):
        self.to_main()
        self.focus_to(1, 2)
        self.press(1, "a")
        self.settle(["title", "main", "options"])

    def to_game(self):
        self.to_main()
        self.focus_to(1, 1)
        self.press(1, "a")
        self.settle(["title", "main", "game"])


def top_pixel(g, route):
    """The exit screenshot shows the top screen: its colour clear of text, or
    for the pause menu its panel."""
    _, _, px = read_bmp(g.bmp)
    if route == "pause":
        c = px(250, 140)
        expect(near(c, PAUSE_PANEL), f"screenshot at (250, 140): {c}, want the pause panel's {PAUSE_PANEL}")
        return
    c = px(760, 20)
    expect(near(c, BG[route]), f"screenshot at (760, 20): {c}, want {route}'s {BG[route]}")


def finish(g, routes, focus=None):
    """Quit; the final stack (and focus) from the log and the screenshot's top colour."""
    time.sleep(ANIM_MS / 1000 + 0.3)
    g.quit()
    got, f = g.stack()
    expect(routes is None or got == routes, f"stack {got}, want {routes}")
    routes = got
    if focus is not None:
        expect(f == focus, f"focus {f}, want {focus}")
    top_pixel(g, routes[-1])
    return f"stack {'/'.join(got)} focus {f}"


# ---------------------------------------------------------------------------
# Scenarios: fn(game, guarded) -> note
# ---------------------------------------------------------------------------

def b_mash(g, guarded):
    """B mashed during a slide: one level guarded, several unguarded."""
    g.to_options()
    g.press(1, "a")                      # Video
    g.settle(["title", "main", "options", "video"])
    for _ in range(4):
        g.press(1, "b", 0.06)
    backs = g.count("back")
    applied = g.count("back", status="applied")
    if guarded:
        note = finish(g, ["title", "main", "options"], 0)
        expect(applied == 1, f"{applied} Backs applied of {backs}, want 1")
    else:
        note = finish(g, None)
        routes = g.stack()[0]
        expect(len(routes) < 3, f"unguarded B mash left {routes}: expected more than one level")
    return f"{note}; Backs {applied}/{backs} applied"


def a_twice(g, guarded):
    """A pressed twice during a push: one activation guarded."""
    g.to_main()
    g.focus_to(1, 2)
    g.press(1, "a", 0.08)
    g.press(1, "a", 0.1)
    if guarded:
        note = finish(g, ["title", "main", "options"], 0)
    else:
        note = finish(g, ["title", "main", "options", "video"], 0)
    acts = g.count("activate")
    pushes = g.count("outcome", kind="push", outcome="applied")
    refused = [e for e in g.events() if e["type"] == "outcome" and e["kind"] == "push" and e["outcome"] != "applied"]
    if acts != 2:
        raise Premise(f"{acts} activations, want 2 (the second A must come during the push)")
    # The title's push, then Options; guarded, the second A's push is refused.
    expect(pushes == (2 if guarded else 3), f"{pushes} pushes applied")
    why = f"; 2nd push {refused[0]['outcome']} by {refused[0]['guard']}" if refused else ""
    return f"{note}; activations {acts}, pushes applied {pushes}{why}"


def a_held(g, guarded):
    """A held from the title into the main menu, released there: no activation."""
    g.pad(1, "down", "a")
    g.settle(["title", "main"])
    time.sleep(0.5)
    g.pad(1, "up", "a")
    time.sleep(0.3)
    note = finish(g, ["title", "main"], 0)
    cancels = g.count("press_cancel", code="A", cause="transition")
    ups = [e for e in g.events() if e["type"] == "input" and e["code"] == "A" and e["phase"] == "up"]
    expect(g.count("activate") == 0, f"{g.count('activate')} activations, want 0")
    expect(cancels == 1, f"{cancels} press_cancel of A (transition), want 1")
    expect(ups and ups[-1]["verdict"] == "drop" and ups[-1]["reason"] == "cancelled",
           f"A's release on Main: {ups}")
    return f"{note}; A cancelled by the push, its up dropped (cancelled)"


def dpad_held(g, guarded):
    """D-pad held on the title through the push of the main menu: the focus stays."""
    g.pad(1, "down", "dpdown")
    time.sleep(0.1)
    g.press(1, "a")
    g.settle(["title", "main"])
    time.sleep(1.2)                    # the game repeats a held D-pad after 300 ms, every 90 ms
    g.pad(1, "up", "dpdown")
    note = finish(g, ["title", "main"], 0)
    reps = [e for e in g.events() if e["type"] == "input" and e["phase"] == "repeat"]
    delivered = [e for e in reps if e["verdict"] == "deliver"]
    if not reps:
        raise Premise("no repeat was submitted (the D-pad must be held through the push)")
    expect(not delivered, f"{len(delivered)} repeats delivered on Main")
    expect(g.count("focus") == 0, f"focus moved {g.count('focus')} times")
    return f"{note}; {len(reps)} repeats dropped"


def start_transition(g, guarded):
    """Start during the push of the running scene: no pause guarded."""
    g.to_main()
    g.focus_to(1, 1)
    g.press(1, "a", 0.08)
    g.press(1, "start", 0.1)
    if guarded:
        return finish(g, ["title", "main", "game"])
    return finish(g, ["title", "main", "game", "pause"])


def p2_in_pause(g, guarded):
    """Controller 2 pressing in controller 1's pause menu."""
    g.to_game()
    g.press(1, "start")
    g.settle(["title", "main", "game", "pause"])
    g.press(2, "dpdown")
    g.press(2, "a")
    time.sleep(ANIM_MS / 1000 + 0.2)
    if guarded:
        drops = [e for e in g.events() if e["type"] == "input" and e["device"] == g.pads[1]
                 and e["verdict"] == "drop" and e["guard"] == "org.navguard.device-owner"]
        expect(len(drops) >= 2, f"controller 2's presses dropped by device-owner: {len(drops)}")
        g.press(2, "b")                # its Back: dropped with its press
        g.key("Down")                  # the keyboard is shared
        expect(g.count("focus", screen="pause") == 1, "the keyboard (shared) moved no focus in the pause menu")
        g.key("Up")
        g.send("shot " + g.bmp)
        g.wait_for(lambda e: e["type"] == "shot", 5, "the pause menu's screenshot")
        _, _, px = read_bmp(g.bmp)
        expect(near(px(250, 140), PAUSE_PANEL), f"pause panel at (250, 140): {px(250, 140)}")
        expect(near(px(285, 260), FOCUS), f"Resume focused at (285, 260): {px(285, 260)}")
        expect(not near(px(285, 330), FOCUS), f"Options also highlighted at (285, 330): {px(285, 330)}")
        dim = px(60, 300)
        expect(all(v < 25 for v in dim), f"the running scene dimmed under the menu at (60, 300): {dim}")
        shutil.copy(g.bmp, os.path.join(g.dir, "pause.bmp"))
        note = finish(g, ["title", "main", "game", "pause"], 0)
        return f"{note}; controller 2: {len(drops)} presses dropped (device-owner)"
    note = finish(g, ["title", "main", "game", "pause", "options"], 0)
    acts = [e for e in g.events() if e["type"] == "activate" and e["device"] == g.pads[1]]
    expect(acts, "controller 2 activated nothing unguarded")
    return f"{note}; controller 2 opened {acts[0]['item']}"


def unplug_held(g, guarded):
    """Controller 1 unplugged while A is held: a cancel, no activation."""
    g.to_main()
    g.pad(1, "down", "a")
    time.sleep(0.2)
    g.pad(1, "unplug")
    g.wait_for(lambda e: e["type"] == "unplugged", 5, "the unplug")
    time.sleep(0.2)
    g.key("Down")
    note = finish(g, ["title", "main"], 1)
    expect(g.count("activate") == 0, f"{g.count('activate')} activations")
    expect(g.count("press_cancel", code="A", cause="device-removed") == 1, "no device-removed cancel of A")
    return f"{note}; A cancelled (device-removed), keyboard still moves focus"


def focus_back(g, guarded):
    """Focus restored after each Back, from did-show's focus_token."""
    g.to_options()
    g.focus_to(1, 1)                    # Audio
    g.press(1, "a")
    g.settle(["title", "main", "options", "audio"])
    g.press(1, "b")
    g.settle(["title", "main", "options"])
    r1 = g.stack()[1]
    g.press(1, "b")
    g.settle(["title", "main"])
    r2 = g.stack()[1]
    expect(r1 == 1, f"Options' focus after Back: {r1}, want 1 (Audio)")
    expect(r2 == 2, f"Main's focus after Back: {r2}, want 2 (Options)")
    dids = [e for e in g.events() if e["type"] == "transition" and e["phase"] == "did" and e["kind"] == "back"
            and e["track"] == "screen"]
    expect([d["focus_token"] for d in dids] == [2, 3], f"did-show focus tokens {[d['focus_token'] for d in dids]}")
    note = finish(g, ["title", "main"], 2)
    return f"{note}; tokens 2, 3 handed back"


def discard(answer):
    def run(g, guarded):
        g.to_options()
        g.press(1, "a")                 # Video
        g.settle(["title", "main", "options", "video"])
        g.focus_to(1, 2)                # High
        g.press(1, "a")
        g.press(1, "b")
        g.settle(["title", "main", "options"])
        g.press(1, "b")
        if not guarded:
            note = finish(g, ["title", "main"], 2)
            expect(g.count("question") == 0, "a question unguarded")
            expect(g.count("settings", why="discarded") == 1, "the changes were not dropped")
            return f"{note}; no question: changes lost"
        g.wait_for(lambda e: e["type"] == "question", 5, "the discard question")
        if answer == "yes":
            g.press(1, "dpleft")
            g.press(1, "a")
            note = finish(g, ["title", "main"], 2)
            expect(g.count("settings", why="discarded") == 1, "not discarded")
        elif answer == "no":
            g.press(1, "a")
            note = finish(g, ["title", "main", "options"], 0)
            expect(g.count("settings", why="discarded") == 0, "discarded on no")
        else:
            g.wait_for(lambda e: e["type"] == "question_end", CONFIRM_MS / 1000 + 5, "the question's end")
            note = finish(g, ["title", "main", "options"], 0)
            expect(g.count("outcome", kind="back", outcome="dropped", reason="unanswered") == 1,
                   "the Back was not dropped unanswered")
        ends = [e["answer"] for e in g.events() if e["type"] == "question_end"]
        want = {"yes": "yes", "no": "no", "none": "timeout"}[answer]
        expect(ends == [want], f"question_end {ends}, want [{want}]")
        return f"{note}; answered {want}"
    return run


SCENARIOS = [
    ("b_mash", b_mash, "B mashed during a slide"),
    ("a_twice", a_twice, "A pressed twice during a push"),
    ("a_held", a_held, "A held into the next screen and released there"),
    ("dpad_held", dpad_held, "a D-pad held through a push"),
    ("start_transition", start_transition, "Start during a transition"),
    ("p2_in_pause", p2_in_pause, "controller 2 pressing in controller 1's pause menu"),
    ("unplug_held", unplug_held, "controller 1 unplugged while A is held"),
    ("focus_back", focus_back, "focus restored after each Back"),
    ("discard_yes", discard("yes"), "the discard question answered yes"),
    ("discard_no", discard("no"), "the discard question answered no"),
    ("discard_none", discard("none"), "the discard question not answered"),
]


# Guarded scenarios whose trace must diverge when replayed against the empty
# chain: the replay compares, it does not just run.
DIVERGE_UNGUARDED = {"b_mash", "a_twice", "p2_in_pause", "discard_no"}


def replay_check(cli, g, name):
    expect(g.trace and os.path.exists(g.trace), "--record wrote no trace")
    r = subprocess.run([cli, "replay", g.trace], capture_output=True, text=True, timeout=60)
    out = r.stdout + r.stderr
    if r.returncode != 0 or not out.startswith("replay: identical"):
        raise Failure(f"navguard replay {g.trace} exited with {r.returncode}, expected identical:\n{out}")
    note = "replay identical"
    if g.guarded and name in DIVERGE_UNGUARDED:
        r = subprocess.run([cli, "replay", g.trace, "--config", '{"guards":[]}'], capture_output=True, text=True,
                           timeout=60)
        out = r.stdout + r.stderr
        if r.returncode != 1 or "diverged" not in out:
            raise Failure(f"navguard replay {g.trace} --config '{{\"guards\":[]}}' exited with {r.returncode}, "
                          f"expected 1 with a report that says \"diverged\":\n{out}")
        note += ", diverges unguarded"
    return note


def run_one(app, tmp, name, fn, guarded, cli, rep):
    g = Game(app, tmp, f"{name}.{'guarded' if guarded else 'unguarded'}.{rep}", guarded, cli is not None)
    try:
        g.start()
        note = fn(g, guarded)
        if cli:
            note += "; " + replay_check(cli, g, name)
        return note
    except Failure:
        if VERBOSE:
            for e in g.events():
                print("      " + json.dumps(e), flush=True)
        raise
    finally:
        g.close()


def main():
    global VERBOSE
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--app")
    ap.add_argument("--navguard")
    ap.add_argument("--only")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--shot", help="copy the guarded pause menu's screenshot (BMP) here")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    VERBOSE = a.verbose
    if a.list:
        for name, _, what in SCENARIOS:
            print(f"{name:18} {what}")
        return 0
    if not a.app or not os.access(a.app, os.X_OK):
        print(f"error: --app {a.app!r} is not an executable sdl-game", file=sys.stderr)
        return 2
    missing = [t for t in ("Xvfb", "xdotool") if not shutil.which(t)]
    if missing or not os.path.exists(FONT):
        print(f"error: missing {', '.join(missing) or FONT}; run: {APT}", file=sys.stderr)
        return 1
    chosen = [s for s in SCENARIOS if not a.only or s[0] in a.only.split(",")]
    tmp = tempfile.mkdtemp(prefix="sdl-game-xvfb-")
    failed = total = 0
    t_all = time.monotonic()
    try:
        for name, fn, what in chosen:
            for guarded in (True, False):
                total += 1
                label = f"{name} {'guarded' if guarded else 'unguarded'}"
                t0 = time.monotonic()
                for n in (1, 2):
                    try:
                        note = run_one(a.app, tmp, name, fn, guarded, a.navguard, n)
                        print(f"PASS {label:30} {time.monotonic() - t0:5.1f} s  {note}", flush=True)
                        break
                    except Premise as e:
                        if n == 2:
                            print(f"FAIL {label:30} {time.monotonic() - t0:5.1f} s  {what}: {e}", flush=True)
                            failed += 1
                        else:
                            print(f"     {label:30} (again: {e})", flush=True)
                    except Failure as e:
                        print(f"FAIL {label:30} {time.monotonic() - t0:5.1f} s  {what}: {e}", flush=True)
                        failed += 1
                        break
                if a.shot and name == "p2_in_pause" and guarded:
                    src = os.path.join(tmp, f"{name}.guarded.1", "pause.bmp")
                    if not os.path.exists(src):
                        src = os.path.join(tmp, f"{name}.guarded.2", "pause.bmp")
                    if os.path.exists(src):
                        shutil.copy(src, a.shot)
    finally:
        if a.keep or failed:
            print(f"logs and screenshots: {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"{total - failed}/{total} scenarios passed in {time.monotonic() - t_all:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
