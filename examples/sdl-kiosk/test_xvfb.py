#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""example_sdl_kiosk_xvfb: the SDL kiosk in a real X window (Xvfb), driven
with xdotool like a person would, judged from its JSON log and its
screenshots: double clicks and Back during a push, swipes released,
held still and held 15 s, network replies applied, cancelling a held press,
or refused as stale, replies that wait for a swipe (rolled back or
finished) and what the log and the F1 panel say of them, a push cut short
by quitting, and the "Leave checkout?" dialog on every path that leaves
Checkout (Back, the Back key, a swipe, the idle timer), answered No then
Yes. With F1 open, the kiosk's screenshot line lists the panel's text.

Each scenario gets its own Xvfb (a free display derived from the pid) and its
own kiosk process; both are always stopped. Standard library only.

With --navguard (the navguard CLI), every scenario also records its session
(sdl-kiosk --record) and `navguard replay` must re-run the trace identically,
although the kiosk ran on the monotonic clock with real timing: the trace
holds each call's instant. The guarded double click's trace must diverge
against the empty chain (the replay compares, it does not just run).

  test_xvfb.py --app build/examples/sdl-kiosk/sdl-kiosk            # all
  test_xvfb.py --app ... --navguard build/swiftpm/release/navguard-cli
  test_xvfb.py --app ... --only swipe_hold,idle_cpu --keep -v       # debug
  test_xvfb.py --list
"""
import argparse
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

APT = "apt-get install -y libsdl2-dev libsdl2-ttf-dev fonts-dejavu-core xvfb xdotool"
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
W, H = 800, 600

# Where things are in the kiosk (examples/sdl-kiosk/kiosk.c, BUTTONS).
NEXT = (665, 532)
BACK = (53, 30)
NETWORK = (150, 532)
EDGE = (4, 400)                 # a swipe-back starts here (x < 24, below the bar)
VIEW_BACK = 10
VIEW_SCRIM = 20                 # the dialog's scrim: takes every touch outside its buttons
SRC_SWIPE, SRC_NETWORK, SRC_IDLE = 900, 901, 903
DONE = NEXT                     # Checkout's Done is where Next is
# The question's dialog (kiosk.c, dialog_layout; F1 closed): a card at
# (214, 176) 372x236, Yes and No 150x56 at y 334.
YES, NO = (313, 362), (487, 362)
CARD_POINTS = [(575, 200), (575, 320)]               # white, clear of text
SCRIM = 114 / 255                                      # the scrim's alpha (0.45 of 255, truncated)
BAND_POINTS = [(760, 185), (700, 75), (520, 120)]   # inside the colour band, clear of text
COLOURS = {"home": (37, 99, 235), "menu": (22, 163, 74), "item": (234, 118, 12), "checkout": (139, 62, 200)}
WATCHDOG = "org.navguard.watchdog"
CONFIRM = "org.navguard.confirm-leave"

VERBOSE = False


class Failure(Exception):
    pass


class Premise(Failure):
    """The run did not set up what the scenario is about (timing on a busy
    machine); the scenario is run once more."""


def say(msg):
    if VERBOSE:
        print("    " + msg, flush=True)


# --------------------------------------------------------------------------
# BMP reading (what SDL_SaveBMP writes: 32-bit with bit masks, or 24-bit)
# --------------------------------------------------------------------------

def bmp_pixel(path, x, y):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] != b"BM":
        raise Failure(f"{path}: not a BMP file")
    offset = struct.unpack_from("<I", data, 10)[0]
    header = struct.unpack_from("<I", data, 14)[0]
    width, height = struct.unpack_from("<ii", data, 18)
    bpp = struct.unpack_from("<H", data, 28)[0]
    compression = struct.unpack_from("<I", data, 30)[0]
    if bpp not in (24, 32):
        raise Failure(f"{path}: {bpp} bits per pixel, expected 24 or 32")
    masks = (0xFF0000, 0xFF00, 0xFF)
    if bpp == 32 and compression in (3, 6):   # BI_BITFIELDS: masks follow the 40-byte header
        masks = struct.unpack_from("<III", data, 14 + 40)
    elif compression not in (0,):
        raise Failure(f"{path}: unsupported BMP compression {compression}")
    del header
    bottom_up = height > 0
    height = abs(height)
    if not (0 <= x < width and 0 <= y < height):
        raise Failure(f"{path}: ({x},{y}) outside {width}x{height}")
    row = (width * bpp + 31) // 32 * 4
    p = offset + (height - 1 - y if bottom_up else y) * row + x * (bpp // 8)
    if bpp == 24:
        b, g, r = data[p], data[p + 1], data[p + 2]
        return (r, g, b)
    v = struct.unpack_from("<I", data, p)[0]

    def channel(mask):
        shift = (mask & -mask).bit_length() - 1
        return (v & mask) >> shift
    return tuple(channel(m) for m in masks)


def check_band(bmp, route, tolerance=24):
    want = COLOURS[route]
    for (x, y) in BAND_POINTS:
        got = bmp_pixel(bmp, x, y)
        if any(abs(a - b) > tolerance for a, b in zip(got, want)):
            names = [r for r, c in COLOURS.items() if all(abs(a - b) <= tolerance for a, b in zip(got, c))]
            raise Failure(f"screenshot pixel ({x},{y}) is {got}, expected {route}'s {want}"
                          + (f" (that is {names[0]}'s colour)" if names else ""))
    return f"band {route}"


def check_dialog(bmp, route="checkout", tolerance=24):
    """The dialog is drawn: its card white, the page behind it dimmed."""
    for (x, y) in CARD_POINTS:
        got = bmp_pixel(bmp, x, y)
        if min(got) < 235:
            raise Failure(f"screenshot pixel ({x},{y}) is {got}: no white dialog card there")
    want = tuple(round(c * (1 - SCRIM)) for c in COLOURS[route])
    (x, y) = BAND_POINTS[0]
    got = bmp_pixel(bmp, x, y)
    if any(abs(a - b) > tolerance for a, b in zip(got, want)):
        raise Failure(f"screenshot pixel ({x},{y}) is {got}, expected {route}'s band dimmed by the scrim {want}")
    return "dialog drawn"


# --------------------------------------------------------------------------
# One kiosk in one Xvfb
# --------------------------------------------------------------------------

def free_display(skip=0):
    start = 100 + (os.getpid() * 7 + skip) % 800
    for k in range(800):
        n = 100 + (start - 100 + k) % 800
        if not os.path.exists(f"/tmp/.X{n}-lock") and not os.path.exists(f"/tmp/.X11-unix/X{n}"):
            return n
    raise Failure("no free X display number in :100..:899")


class Kiosk:
    def __init__(self, app, tmp, name, args, record=False):
        self.app, self.name, self.args = app, name, list(args)
        self.dir = os.path.join(tmp, name)
        os.makedirs(self.dir, exist_ok=True)
        self.log = os.path.join(self.dir, "log.jsonl")
        self.bmp = os.path.join(self.dir, "shot.bmp")
        self.out = os.path.join(self.dir, "app.out")
        self.trace = os.path.join(self.dir, "trace.jsonl") if record else None
        if self.trace:
            self.args += ["--record", self.trace]
        for stale in (self.log, self.bmp) + ((self.trace,) if self.trace else ()):
            if os.path.exists(stale):
                os.remove(stale)
        self.xvfb = self.proc = None
        self.env = None
        self._events, self._pos = [], 0

    # -- processes --
    def start(self):
        for attempt in range(6):
            n = free_display(attempt * 13)
            errf = open(os.path.join(self.dir, "xvfb.err"), "w")
            self.xvfb = subprocess.Popen(["Xvfb", f":{n}", "-screen", "0", f"{W}x{H}x24", "-nolisten", "tcp"],
                                         stdout=subprocess.DEVNULL, stderr=errf)
            errf.close()
            sock = f"/tmp/.X11-unix/X{n}"
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and self.xvfb.poll() is None and not os.path.exists(sock):
                time.sleep(0.02)
            if self.xvfb.poll() is None and os.path.exists(sock):
                self.display = f":{n}"
                break
            self._stop_xvfb()      # lost a race for that display: take another
        else:
            raise Failure("could not start Xvfb (see xvfb.err)")
        self.env = dict(os.environ, DISPLAY=self.display, SDL_RENDER_DRIVER="software", SDL_VIDEODRIVER="x11")
        with open(self.out, "w") as out:
            self.proc = subprocess.Popen([self.app, "--log", self.log, "--screenshot", self.bmp] + self.args,
                                         env=self.env, stdout=out, stderr=subprocess.STDOUT)
        say(f"{self.name}: Xvfb {self.display}, kiosk pid {self.proc.pid} {' '.join(self.args)}")
        self.wait_for(lambda e: e["type"] == "ready", 30, "the kiosk's first frame (ready)")
        time.sleep(0.1)

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
        self._stop_xvfb()

    def quit(self):
        """Escape (a real key press), else SIGTERM; the screenshot is written at exit."""
        if self.proc.poll() is None:
            try:
                self.xdo("key", "Escape")
            except Failure:
                pass
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.send_signal(signal.SIGTERM)
                try:
                    self.proc.wait(10)
                except subprocess.TimeoutExpired:
                    raise Failure("the kiosk did not quit on Escape nor on SIGTERM")
        if self.proc.returncode != 0:
            raise Failure(f"the kiosk exited with status {self.proc.returncode}:\n{self.output()}")
        if not os.path.exists(self.bmp):
            raise Failure("no screenshot was written at exit")

    def output(self):
        try:
            with open(self.out) as f:
                return f.read()[-3000:]
        except OSError:
            return ""

    # -- the log --
    def events(self):
        try:
            with open(self.log, "rb") as f:
                f.seek(self._pos)
                chunk = f.read()
        except OSError:
            return self._events
        end = chunk.rfind(b"\n")
        if end >= 0:
            for raw in chunk[:end].split(b"\n"):
                if raw.strip():
                    self._events.append(json.loads(raw))
            self._pos += end + 1
        return self._events

    def wait_for(self, pred, timeout, what):
        deadline = time.monotonic() + timeout
        while True:
            for e in self.events():
                if pred(e):
                    return e
            if self.proc.poll() is not None:
                raise Failure(f"the kiosk exited (status {self.proc.returncode}) while waiting for {what}:\n"
                              + self.output())
            if time.monotonic() > deadline:
                raise Failure(f"timed out after {timeout} s waiting for {what}")
            time.sleep(0.02)

    def of(self, type_, **kw):
        return [e for e in self.events() if e["type"] == type_ and all(e.get(k) == v for k, v in kw.items())]

    def final_stack(self):
        stacks = self.of("stack")
        return stacks[-1]["routes"] if stacks else None

    def wait_stack(self, routes, timeout=10, after=-1.0):
        return self.wait_for(lambda e: e["type"] == "stack" and e["routes"] == routes and e["t"] > after, timeout,
                             f"the stack {routes}")

    def screenshot(self, name, timeout=10):
        """SIGUSR1 (no input event, so the idle timer does not see it): the
        kiosk writes its next frame; kept as NAME.bmp."""
        n = len(self.of("screenshot"))
        self.proc.send_signal(signal.SIGUSR1)
        deadline = time.monotonic() + timeout
        while len(self.of("screenshot")) <= n:
            if time.monotonic() > deadline:
                raise Failure("no screenshot after SIGUSR1")
            time.sleep(0.02)
        path = os.path.join(self.dir, name + ".bmp")
        shutil.copyfile(self.bmp, path)
        return path

    def wait_idle(self, quiet=0.6, timeout=10):
        """Until nothing is animating (no transition in flight) and the log
        was quiet for `quiet` seconds."""
        deadline = time.monotonic() + timeout
        n, since = len(self.events()), time.monotonic()
        while time.monotonic() < deadline:
            time.sleep(0.05)
            m = len(self.events())
            if m != n:
                n, since = m, time.monotonic()
            elif time.monotonic() - since >= quiet and not self.in_flight():
                return
        raise Failure("the kiosk did not settle")

    def in_flight(self):
        open_ = set()
        for e in self.of("transition", track="screen"):
            if e["phase"] == "will" and "animated" in e["flags"]:
                open_.add(e["id"])
            elif e["phase"] in ("did", "cancelled"):
                open_.discard(e["id"])
        return bool(open_)

    # -- input --
    def xdo(self, *args):
        r = subprocess.run(["xdotool"] + [str(a) for a in args], env=self.env, capture_output=True, timeout=10)
        if r.returncode != 0:
            raise Failure(f"xdotool {' '.join(map(str, args))}: {r.stderr.decode().strip()}")

    def move(self, x, y):
        self.xdo("mousemove", int(x), int(y))

    def click(self, pt, hold=0.04):
        self.move(*pt)
        time.sleep(0.03)
        self.xdo("mousedown", 1)
        time.sleep(hold)
        self.xdo("mouseup", 1)

    def drag_from_edge(self, to_x, y=EDGE[1], steps=16, step_s=0.02):
        self.move(EDGE[0], y)
        time.sleep(0.05)
        self.xdo("mousedown", 1)
        time.sleep(0.03)
        for i in range(1, steps + 1):
            self.move(EDGE[0] + (to_x - EDGE[0]) * i / steps, y)
            time.sleep(step_s)

    def cpu_seconds(self):
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# --------------------------------------------------------------------------
# Checks shared by scenarios
# --------------------------------------------------------------------------

def expect(cond, msg):
    if not cond:
        raise Failure(msg)


def fps_note(k):
    fps = [e["fps"] for e in k.of("frames") if e["anim"] in ("push", "pop", "settle-finish", "settle-cancel")]
    return f"fps {min(fps):.0f}-{max(fps):.0f}" if fps else ""


def applied(k, kind):
    return [e for e in k.of("outcome", kind=kind) if e["outcome"] == "applied"]


def began_verdicts(k):
    return k.of("verdict", event="touch", phase="began")


def second_click_during_push(k, push_id):
    """The second click's began came between the push's will and did."""
    will = k.of("transition", track="screen", phase="will", id=push_id)
    did = [e for e in k.of("transition", track="screen", id=push_id) if e["phase"] in ("did", "cancelled")]
    began = began_verdicts(k)
    if not will or not did or len(began) < 2:
        raise Premise("the clicks were not seen as planned")
    t = began[1]["t"]
    if not (will[0]["t"] <= t <= did[0]["t"]):
        raise Premise(f"the second click came at {t:.0f} ms, outside the push ({will[0]['t']:.0f}-{did[0]['t']:.0f} ms)")
    return began[1]


def swipe_request(k):
    begins = [e for e in k.of("swipe", event="begin")]
    expect(begins, "no swipe-back began (no 'swipe' begin line): the edge drag was not taken")
    expect(begins[0]["status"] == "applied", f"the interactive back was {begins[0]['status']}")
    return begins[0]["request"]


def moves_delivered_during(k, rid):
    will = k.of("transition", track="screen", phase="will", id=rid)[0]["t"]
    moves = [e for e in k.of("verdict", event="touch", phase="moved") if e["t"] > will]
    dropped = [e for e in moves if e["verdict"] != "deliver"]
    expect(moves, "no move of the driving touch after the swipe began")
    expect(not dropped, f"moves of the driving touch were dropped during the swipe: {dropped[:2]}")
    return len(moves)


# --------------------------------------------------------------------------
# Scenarios
# --------------------------------------------------------------------------

def double_click(k, unguarded=False):
    k.click(NEXT)
    time.sleep(0.08)
    k.click(NEXT)
    k.wait_for(lambda e: e["type"] == "stack" and len(e["routes"]) >= 2, 10, "a push")
    k.wait_idle()
    k.quit()
    pushes = applied(k, "push")
    expect(pushes, "no push was applied")
    second_click_during_push(k, pushes[0]["id"])
    if unguarded:
        expect(len(pushes) == 2, f"{len(pushes)} pushes applied unguarded, expected 2 (the double push NavGuard prevents)")
        expect(k.final_stack() == ["home", "menu", "item"], f"final stack {k.final_stack()}")
        return f"2 pushes, stack home,menu,item; {check_band(k.bmp, 'item')}"
    expect(len(pushes) == 1, f"{len(pushes)} pushes applied, expected exactly 1")
    b2 = began_verdicts(k)[1]
    expect(b2["verdict"] == "drop", f"the second click's touch was delivered: {b2}")
    expect(len(k.of("action", button="next")) == 1, "Next fired more than once")
    expect(k.final_stack() == ["home", "menu"], f"final stack {k.final_stack()}, expected home,menu")
    return (f"1 push, stack home,menu; 2nd click dropped ({b2['reason']} by {b2['guard'] or 'core'}); "
            f"{check_band(k.bmp, 'menu')}")


def double_click_unguarded(k):
    return double_click(k, unguarded=True)


def back_during_push(k):
    k.click(NEXT)
    time.sleep(0.1)
    k.click(BACK)
    k.wait_stack(["home", "menu", "item"])
    k.wait_idle()
    k.quit()
    pushes = applied(k, "push")
    expect(len(pushes) == 1, f"{len(pushes)} pushes applied, expected 1")
    b2 = second_click_during_push(k, pushes[0]["id"])
    expect(not k.of("action", button="back"), "Back acted during the push")
    expect(not applied(k, "back") and not applied(k, "pop"), "a back/pop was applied")
    expect(k.final_stack() == ["home", "menu", "item"], f"final stack {k.final_stack()}, expected home,menu,item")
    return (f"one level only, stack home,menu,item; Back's touch {b2['verdict']} ({b2['reason']}); "
            f"{check_band(k.bmp, 'item')}")


def swipe_release(k, fraction, hold_s):
    k.drag_from_edge(EDGE[0] + fraction * W)
    time.sleep(hold_s)
    k.xdo("mouseup", 1)
    rid = swipe_request(k)
    end = k.wait_for(lambda e: e["type"] == "transition" and e["track"] == "screen" and e["id"] == rid
                     and e["phase"] in ("did", "cancelled"), 10, "the end of the swipe-back")
    k.wait_idle()
    k.quit()
    rel = k.of("swipe", event="release")
    expect(rel, "the swipe was never released (no 'swipe' release line)")
    return rid, end, rel[0], moves_delivered_during(k, rid)


def swipe_cancel(k):
    rid, end, rel, moves = swipe_release(k, 0.30, 0.25)
    expect(not rel["finish"], f"released at {rel['progress']:.2f} with {rel['velocity']:.0f} px/s but decided finish")
    expect(end["phase"] == "cancelled", f"the swipe ended with {end['phase']}, expected cancelled")
    expect(not k.of("transition", track="screen", phase="did", id=rid), "a screen did fired for the cancelled swipe")
    expect(k.final_stack() == ["home", "menu"], f"final stack {k.final_stack()}, expected home,menu (unchanged)")
    return (f"cancelled at p={rel['progress']:.2f} v={rel['velocity']:.0f}px/s, {moves} moves delivered, "
            f"stack home,menu; {check_band(k.bmp, 'menu')}")


def swipe_finish(k):
    rid, end, rel, moves = swipe_release(k, 0.70, 0.25)
    expect(rel["finish"], f"released at {rel['progress']:.2f} but decided cancel")
    expect(end["phase"] == "did", f"the swipe ended with {end['phase']}, expected did")
    expect("interactive" in end["flags"], f"the did lacks the interactive flag: {end['flags']}")
    expect(not k.of("transition", phase="cancelled"), "a cancelled phase fired")
    expect(k.final_stack() == ["home"], f"final stack {k.final_stack()}, expected home (popped)")
    return f"completed at p={rel['progress']:.2f}, {moves} moves delivered, stack home; {check_band(k.bmp, 'home')}"


def swipe_hold(k):
    rid, end, rel, moves = swipe_release(k, 0.60, 3.0)
    will = k.of("transition", track="screen", phase="will", id=rid)[0]
    held = rel["t"] - will["t"]
    expect(held > 2500, f"the finger was down only {held:.0f} ms: the watchdog's 2 s limit was not exceeded")
    expect(end["phase"] == "did", f"the swipe ended with {end['phase']}, expected did")
    expect("forced" not in end["flags"], f"the did was forced by the watchdog: {end['flags']}")
    expect(not k.of("transition", phase="cancelled"), "a cancelled phase fired (the watchdog rolled the swipe back?)")
    reports = k.of("report", guard=WATCHDOG)
    expect(not reports, "the watchdog reported: " + (reports[0]["text"].splitlines() or [""])[0] if reports else "")
    expect(k.final_stack() == ["home"], f"final stack {k.final_stack()}, expected home")
    return (f"held {held / 1000:.1f} s at p={rel['progress']:.2f}, completed, no watchdog report; "
            f"{check_band(k.bmp, 'home')}")


def network_hold_back(k):
    k.click(NETWORK)
    k.wait_for(lambda e: e["type"] == "network", 5, "the Network button's action")
    time.sleep(0.1)
    k.move(*BACK)
    time.sleep(0.03)
    k.xdo("mousedown", 1)
    k.wait_for(lambda e: e["type"] == "transition" and e["phase"] == "will" and e["kind"] == "push", 10,
               "the network reply's push")
    k.wait_stack(["home", "menu", "item"])
    time.sleep(0.2)
    k.xdo("mouseup", 1)
    k.wait_idle()
    k.quit()
    began = [e for e in began_verdicts(k) if e["view"] == VIEW_BACK]
    expect(began, "the press on Back was not seen")
    if began[-1]["verdict"] != "deliver":
        raise Premise(f"the press on Back was dropped ({began[-1]['reason']}): it did not start before the push")
    push = [e for e in applied(k, "push")]
    expect(len(push) == 1 and push[0]["source"] == 901, f"expected one push from the network reply: {push}")
    cancels = k.of("touch_cancel", view=VIEW_BACK)
    expect(len(cancels) == 1, f"{len(cancels)} touch_cancel on Back, expected 1")
    expect(not k.of("action", button="back"), "Back fired although its press was cancelled")
    expect(k.final_stack() == ["home", "menu", "item"], f"final stack {k.final_stack()}, expected home,menu,item")
    return f"Back's press cancelled (touch_cancel), no back action, stack home,menu,item; {check_band(k.bmp, 'item')}"


def swipe_long(k):
    """A 12 s swipe: the finger moves every second, then stays still 3 s, and
    lets go past half way. The watchdog must leave a finger that is alive
    (moving) and a driving touch that is still (its own minute-long limit)
    alone: the pop completes, nothing is cancelled, nothing is reported."""
    y = EDGE[1]
    k.move(EDGE[0], y)
    time.sleep(0.05)
    k.xdo("mousedown", 1)
    time.sleep(0.03)
    for x in (16, 28, 40):                       # past the slop: the swipe begins
        k.move(x, y)
        time.sleep(0.02)
    rid = swipe_request(k)
    for i in range(1, 13):                        # 12 s, a move every second
        time.sleep(1.0)
        k.move(40 + i * 37, y)                    # ends at x 484: p 0.60
    time.sleep(3.0)                               # still
    k.xdo("mouseup", 1)
    end = k.wait_for(lambda e: e["type"] == "transition" and e["track"] == "screen" and e["id"] == rid
                     and e["phase"] in ("did", "cancelled"), 10, "the end of the swipe-back")
    k.wait_idle()
    k.quit()
    reports = k.of("report")
    expect(not reports, "a guard reported: " + (reports[0]["text"].splitlines() or [""])[0] if reports else "")
    expect(not k.of("touch_cancel"), f"a touch was cancelled: {k.of('touch_cancel')[:1]}")
    rel = k.of("swipe", event="release")
    expect(rel, "the swipe was never released (no 'swipe' release line)")
    rel = rel[0]
    will = k.of("transition", track="screen", phase="will", id=rid)[0]
    held = rel["t"] - will["t"]
    expect(held > 14500, f"the finger was down only {held:.0f} ms, expected about 15 s")
    expect(not rel["touch_cancelled"], "the driving touch was cancelled before its release")
    expect(rel["finish"], f"released at {rel['progress']:.2f} but decided cancel")
    expect(end["phase"] == "did" and "forced" not in end["flags"], f"the swipe ended {end['phase']} {end['flags']}")
    expect(not k.of("transition", phase="cancelled"), "a cancelled phase fired (the swipe sprang back)")
    expect(k.final_stack() == ["home"], f"final stack {k.final_stack()}, expected home")
    moves = moves_delivered_during(k, rid)
    return (f"finger down {held / 1000:.1f} s (12 s moving, 3 s still), released at p={rel['progress']:.2f}, "
            f"completed, {moves} moves delivered, no cancel, no report; {check_band(k.bmp, 'home')}")


def button_held(k):
    """A finger resting on Next for 15 s, then lifted: a press, not a fault.
    The watchdog leaves a still touch that blocks nothing alone: Next fires
    on the release, nothing is cancelled, nothing is reported."""
    k.move(*NEXT)
    time.sleep(0.05)
    k.xdo("mousedown", 1)
    time.sleep(15.0)                              # still: no move, no other touch
    k.xdo("mouseup", 1)
    try:
        k.wait_for(lambda e: e["type"] == "action" and e["button"] == "next", 10, "Next's action on the release")
    except Failure as e:
        reports = [r["text"].splitlines()[0] for r in k.of("report")]
        raise Failure(f"the press was lost ({e}); touch cancels {k.of('touch_cancel')}, reports {reports}")
    k.wait_stack(["home", "menu"])
    k.wait_idle()
    k.quit()
    expect(not k.of("touch_cancel"), f"the resting press was cancelled: {k.of('touch_cancel')[:1]}")
    reports = k.of("report")
    expect(not reports, "a guard reported: " + (reports[0]["text"].splitlines() or [""])[0] if reports else "")
    expect(len(k.of("action", button="next")) == 1, f"Next fired {len(k.of('action', button='next'))} times")
    expect(k.final_stack() == ["home", "menu"], f"final stack {k.final_stack()}, expected home,menu")
    return f"Next held still 15 s, then released: fired once, no cancel, no report; {check_band(k.bmp, 'menu')}"


def network_reply(k):
    k.click(NETWORK)
    net = k.wait_for(lambda e: e["type"] == "network", 5, "the Network button's action")
    expect(net["from_route"] == "menu", f"the reply is scoped to {net['from_route']}, expected menu")
    return net


def reply_outcome(k, timeout=10):
    return k.wait_for(lambda e: e["type"] == "outcome" and e["source"] == SRC_NETWORK, timeout,
                      "the network reply's outcome")


def reply_stale(k):
    """Network on Menu, swipe back to Home and go on to a new Menu before the
    reply lands: the reply is refused (dropped when a guard had queued it)
    as stale, and never pushes Item, on Home or on the new Menu."""
    net = network_reply(k)
    time.sleep(0.1)
    k.drag_from_edge(EDGE[0] + 0.7 * W)
    k.xdo("mouseup", 1)
    home = k.wait_stack(["home"])
    k.wait_idle(quiet=0.3)
    k.click(NEXT)
    k.wait_stack(["home", "menu"], after=home["t"])
    out = reply_outcome(k)
    k.wait_idle()
    k.quit()
    will = k.of("transition", track="screen", phase="will", kind="interactive-back")
    expect(will, "no swipe back began")
    if out["t"] < will[0]["t"]:
        raise Premise(f"the reply landed ({out['outcome']}) before the swipe back began")
    expect(out["outcome"] in ("refused", "dropped") and out["reason"] == "stale",
           f"the reply for the Menu the user left was {out['outcome']} {out['reason']} by {out['guard']}, "
           "expected refused or dropped stale")
    expect(not [e for e in k.of("stack") if "item" in e["routes"]], "the stale reply pushed Item")
    new_menu = k.of("transition", track="screen", phase="will", kind="push")[-1]["to"]
    expect(new_menu != net["from_screen"], "the new Menu has the old one's screen id")
    expect(k.final_stack() == ["home", "menu"], f"final stack {k.final_stack()}, expected home,menu")
    where = "the new Menu" if out["t"] > k.of("stack")[-1]["t"] else "Home"
    return (f"reply {out['outcome']} stale on {where} (scoped to Menu #{net['from_screen']}, now Menu "
            f"#{new_menu}), stack home,menu; {check_band(k.bmp, 'menu')}")


def reply_stayed(k):
    """The same reply when the user stays on Menu: applied."""
    net = network_reply(k)
    out = reply_outcome(k)
    k.wait_stack(["home", "menu", "item"])
    k.wait_idle()
    k.quit()
    expect(out["outcome"] == "applied", f"the reply for the Menu the user stayed on was {out['outcome']} "
                                        f"{out['reason']} by {out['guard']}, expected applied")
    expect(k.final_stack() == ["home", "menu", "item"], f"final stack {k.final_stack()}, expected home,menu,item")
    return f"reply scoped to Menu #{net['from_screen']} applied, stack home,menu,item; {check_band(k.bmp, 'item')}"


def overlay_at(k, name):
    """A screenshot with the F1 panel open; the panel's lines as the kiosk
    logged them with it (its "screenshot" line)."""
    k.screenshot(name)
    shot = k.of("screenshot")[-1]
    expect("overlay" in shot, f"the screenshot line has no overlay text (F1 closed?): {shot}")
    return shot["overlay"]


def overlay_section(lines, heading):
    """The lines under a heading of the panel, up to the next heading."""
    out, inside = [], False
    for ln in lines:
        if not ln.startswith("  "):
            inside = ln.startswith(heading)
        elif inside:
            out.append(ln.strip())
    return out


def swipe_end(k, rid):
    return k.wait_for(lambda e: e["type"] == "transition" and e["track"] == "screen" and e["id"] == rid
                      and e["phase"] in ("did", "cancelled"), 10, "the end of the swipe-back")


def reply_in_completion(k, rid):
    """The reply's outcome came inside the call that completed the swipe
    (logged after the swipe's end, before its complete line): it waited.
    Else the machine was too slow or too fast for the plan."""
    will = k.of("transition", track="screen", phase="will", id=rid)[0]
    end = swipe_end(k, rid)
    out = reply_outcome(k)
    done = k.wait_for(lambda e: e["type"] == "swipe" and e["event"] == "complete" and e["request"] == rid, 10,
                      "the swipe's complete line")
    if out["t"] < will["t"]:
        raise Premise(f"the reply landed ({out['outcome']}) before the swipe back began")
    if not (end["t"] <= out["t"] <= done["t"]):
        raise Premise(f"the reply's outcome ({out['t']:.0f} ms) came outside the swipe's completion "
                      f"({end['t']:.0f}-{done['t']:.0f} ms): it did not wait for the swipe")
    return end, out, done


def waiting_logged(k, out):
    """The kiosk logged the reply as waiting, and its wait with its outcome."""
    waits = [e for e in k.of("waiting") if e["id"] == out["id"]]
    expect(waits, f"the reply {out['id']} waited for the swipe but no 'waiting' line says so")
    expect(waits[0]["screen"] == "menu", f"the waiting reply is scoped to {waits[0]['screen']}, expected menu")
    expect(out.get("waited_ms", 0) > 0, f"the reply's outcome line has no waited_ms: {out}")


def reply_swipe_rollback(k):
    """Network on Menu, then a swipe back held undecided while the reply
    comes, dragged back and released (the recipe of issue 28): the reply
    waits for the swipe, which rolls back, and is applied on the Menu it was
    for. The F1 panel shows Menu on display during the swipe (Home only as
    its prospect), the waiting push, and afterwards that it was applied
    after waiting."""
    network_reply(k)
    t0 = time.monotonic()
    k.drag_from_edge(320)                                # p = 0.40
    rid = swipe_request(k)
    t_drag = time.monotonic()
    time.sleep(max(0.0, t0 + 1.35 - time.monotonic()))   # the reply (1 s) has come
    held = overlay_at(k, "swipe-held")
    time.sleep(max(0.0, t_drag + 1.4 - time.monotonic()))
    for i in range(1, 7):                                # back to x = 200
        k.move(320 - 120 * i / 6, EDGE[1])
        time.sleep(0.02)
    k.xdo("mouseup", 1)
    end, out, done = reply_in_completion(k, rid)
    k.wait_stack(["home", "menu", "item"])
    k.wait_idle()
    after = overlay_at(k, "after")
    k.xdo("key", "F1")                                   # the panel closed: the band reads at exit
    k.wait_for(lambda e: e["type"] == "verdict" and e["event"] == "key" and e["t"] > k.of("screenshot")[-1]["t"],
               5, "the F1 key")
    k.quit()
    label = "#p" + str(out["id"] - 2 ** 52)
    expect(end["phase"] == "cancelled", f"the swipe ended with {end['phase']}, expected cancelled (rolled back)")
    expect(done["finish"] is False, f"the complete line of the rolled-back swipe: {done}")
    expect(out["outcome"] == "applied", f"the reply for the Menu the swipe rolled back to was {out['outcome']} "
                                        f"{out['reason']} by {out['guard']}, expected applied")
    expect(k.final_stack() == ["home", "menu", "item"], f"final stack {k.final_stack()}, expected home,menu,item")
    # The panel during the swipe: Menu still on display, the pop a prospect.
    stack = overlay_section(held, "STACK")
    expect(stack[:2] == ["home \u203a menu", "swipe back undecided: home if it finishes"],
           f"the panel's STACK during the undecided swipe: {stack}")
    waiting = overlay_section(held, "WAITING")
    expect(any(ln.startswith(f"push {label} for menu") for ln in waiting),
           f"the panel does not list the push {label} waiting for the swipe: {held}")
    verdicts = overlay_section(after, "LAST VERDICTS")
    expect(any(ln.split(" ", 1)[1].startswith(f"push {label} applied after waiting") for ln in verdicts),
           f"the panel does not say the push {label} was applied after waiting: {verdicts}")
    expect(not overlay_section(after, "WAITING"), "the panel still lists a waiting request")
    waiting_logged(k, out)
    return (f"reply {label} waited {out['waited_ms'] / 1000:.1f} s for the swipe, rolled back, applied, stack "
            f"home,menu,item; panel: Menu on display during the swipe, the wait listed; {check_band(k.bmp, 'item')}")


def reply_swipe_rollback_unguarded(k):
    return reply_swipe_rollback(k)


def reply_swipe_finish(k):
    """Network on Menu, Next to Item, then a swipe back to Menu released to
    finish while the reply (for Menu, the swipe's target) waits: the reply
    is applied inside the completion, and the log's complete line still
    says finish (the reply's push starts a new animation in that call)."""
    net = network_reply(k)
    t0 = time.monotonic()
    k.click(NEXT)
    k.wait_stack(["home", "menu", "item"])
    k.wait_idle(quiet=0.1)
    k.drag_from_edge(EDGE[0] + 0.7 * W)
    rid = swipe_request(k)
    time.sleep(max(0.0, t0 + 1.5 - time.monotonic()))    # the reply (1.2 s) has come
    k.xdo("mouseup", 1)
    end, out, done = reply_in_completion(k, rid)
    k.wait_stack(["home", "menu", "item"], after=out["t"])
    k.wait_idle()
    k.quit()
    rel = k.of("swipe", event="release", request=rid)
    expect(rel and rel[0]["finish"], f"the swipe was released to cancel: {rel}")
    expect(end["phase"] == "did", f"the swipe ended with {end['phase']}, expected did")
    expect(done["finish"] is True and done["status"].startswith("NG_OK"),
           f"the complete line of a swipe that finished says {done}")
    expect(out["outcome"] == "applied", f"the reply for Menu, the swipe's target, was {out['outcome']} {out['reason']}")
    pushes = k.of("transition", track="screen", phase="will", kind="push")
    expect(pushes[-1]["id"] == out["id"] and pushes[-1]["from_route"] == "menu",
           f"the reply's push: {pushes[-1]}")
    expect(k.final_stack() == ["home", "menu", "item"], f"final stack {k.final_stack()}, expected home,menu,item")
    waiting_logged(k, out)
    return (f"released at p={rel[0]['progress']:.2f}: did, complete finish=true; the reply for Menu (#"
            f"{net['from_screen']}) waited {out['waited_ms'] / 1000:.1f} s and pushed Item; "
            f"{check_band(k.bmp, 'item')}")


def quit_mid_push(k):
    """Escape during a long push: the context's destruction ends the push,
    and the log says so (flag "destroyed"), after the quit line: the push
    does not read as completed."""
    k.click(NEXT)
    will = k.wait_for(lambda e: e["type"] == "transition" and e["track"] == "screen" and e["phase"] == "will"
                      and e["kind"] == "push", 10, "the push's will")
    k.quit()
    rid = will["id"]
    quit_t = k.of("quit")[0]["t"]
    ends = [e for e in k.of("transition", track="screen", id=rid) if e["phase"] != "will"]
    expect(len(ends) == 1, f"{len(ends)} ends of the push, expected 1")
    if ends[0]["t"] < quit_t:
        raise Premise("the push completed before the kiosk quit")
    expect("destroyed" in ends[0]["flags"], f"the push cut short by quitting ended {ends[0]['phase']} "
                                            f"with flags {ends[0]['flags']}: no 'destroyed'")
    expect(not k.of("late_finish"), "a late finish was logged")
    return f"push #{rid} ended {ends[0]['phase']} {'+'.join(ends[0]['flags'])} after quit"


def quit_mid_push_unguarded(k):
    return quit_mid_push(k)


# The leave dialog: Checkout asks before any path leaves it. Each path is
# answered No (Checkout stays), then Yes (Checkout leaves).
CHECKOUT_STACK = ["home", "menu", "item", "checkout"]


def swipe_off_checkout(k):
    k.drag_from_edge(EDGE[0] + 0.4 * W, steps=8)
    k.xdo("mouseup", 1)


LEAVE_PATHS = {
    # path: (request kind asked about, how the user (or the timer) asks to leave, stack after Yes)
    "back_button": ("back", lambda k: k.click(BACK), ["home", "menu", "item"]),
    "back_key": ("back", lambda k: k.xdo("key", "BackSpace"), ["home", "menu", "item"]),
    "swipe": ("interactive-back", swipe_off_checkout, ["home", "menu", "item"]),
    "idle": ("pop-to-root", lambda k: None, ["home"]),   # --idle-ms: no input does it
}


def ask(k, path, after_id):
    kind, trigger, _ = LEAVE_PATHS[path]
    trigger(k)
    q = k.wait_for(lambda e: e["type"] == "question" and e["id"] > after_id, 10, "NavGuard's question (the dialog)")
    expect(q["kind"] == kind and q["screen"] == "checkout" and q["text"] == "Leave checkout?" and q["guard"] == CONFIRM,
           f"the question: {q}")
    if kind == "interactive-back":
        begin = k.wait_for(lambda e: e["type"] == "swipe" and e["event"] == "begin" and e["request"] == q["request"],
                           5, "the swipe's begin line")
        expect(begin["status"] == "refused", f"the swipe on Checkout was {begin['status']}, expected refused (asking)")
    if path == "idle":
        expect(q["source"] == SRC_IDLE, f"the question did not come from the idle return: {q}")
    return q


def answer(k, q, button, word):
    k.click(button)
    end = k.wait_for(lambda e: e["type"] == "question_end" and e["id"] == q["id"], 10, f"the question's end ({word})")
    expect(end["answer"] == word, f"the question ended {end['answer']}, expected {word}")
    expect(k.of("answer", id=q["id"], answer=word), f"no answer line for the {word} click")
    return end


def modal_check(k, q):
    """Clicks behind the open dialog reach its scrim, never a button."""
    n = len(began_verdicts(k))
    for pt in (DONE, BACK):
        k.click(pt)
    k.wait_for(lambda e: len(began_verdicts(k)) >= n + 2, 5, "the clicks behind the dialog")
    behind = began_verdicts(k)[n:n + 2]
    expect(all(e["view"] == VIEW_SCRIM for e in behind), f"a click behind the dialog hit {[e['view'] for e in behind]}")
    acted = [e for e in k.of("action") if e["t"] > q["t"]]
    expect(not acted, f"a button behind the dialog acted: {acted}")


def leave(k, path):
    kind, _, after_yes = LEAVE_PATHS[path]
    notes = []
    # No: Checkout stays.
    q1 = ask(k, path, 0)
    notes.append(check_dialog(k.screenshot("dialog")))
    if path == "back_button":
        modal_check(k, q1)
        notes.append("modal")
    if path == "back_key":
        k.xdo("key", "BackSpace")      # a second Back does not get round the dialog
        again = k.wait_for(lambda e: e["type"] == "outcome" and e["kind"] == "back" and e["id"] != q1["request"], 5,
                           "the second Back's outcome")
        expect(again["outcome"] == "refused" and again["reason"] == "asking", f"a second Back while asking: {again}")
        notes.append("2nd Back refused asking")
    answer(k, q1, NO, "no")
    held = k.wait_for(lambda e: e["type"] == "outcome" and e["id"] == q1["request"], 5, "the held request's outcome")
    if kind == "interactive-back":
        expect(held["outcome"] == "refused" and held["reason"] == "asking", f"the swipe's outcome: {held}")
    else:
        expect(held["outcome"] == "dropped" and held["reason"] == "declined" and held["guard"] == CONFIRM,
               f"after No the held {kind} was {held['outcome']} {held['reason']}, expected dropped declined")
    if path != "idle":     # the idle timer asks again soon after No
        time.sleep(0.3)
        check_band(k.screenshot("after-no"), "checkout")
        notes.append("closed on No")
    expect(not [e for e in k.of("transition", phase="will") if e["t"] > q1["t"]], "a transition began after No")
    expect(not [e for e in k.of("stack") if e["t"] > q1["t"]], "the stack changed after No")
    # Yes: Checkout leaves.
    q2 = ask(k, path, q1["id"])
    answer(k, q2, YES, "yes")
    if kind == "interactive-back":     # the swipe that did not start becomes a Back
        done = k.wait_for(lambda e: e["type"] == "outcome" and e["kind"] == "back" and e["t"] >= q2["t"]
                          and e["source"] == SRC_SWIPE, 5, "the Back made for the swipe")
    else:
        done = k.wait_for(lambda e: e["type"] == "outcome" and e["id"] == q2["request"], 5, "the held request's outcome")
    expect(done["outcome"] == "applied", f"after Yes the {done['kind']} was {done['outcome']} {done['reason']}")
    k.wait_stack(after_yes)
    k.wait_idle()
    k.quit()
    expect(k.final_stack() == after_yes, f"final stack {k.final_stack()}, expected {after_yes}")
    expect(len(k.of("question")) == 2 and len(k.of("question_end")) == 2,
           f"{len(k.of('question'))} questions, {len(k.of('question_end'))} ends; expected 2 and 2")
    expect(not k.of("report"), f"a guard reported: {k.of('report')[:1]}")
    return (f"{kind}: No -> stays ({held['outcome']} {held['reason']}), Yes -> {','.join(after_yes)}; "
            f"{'; '.join(notes)}; {check_band(k.bmp, after_yes[-1])}")


def leave_back_button(k):
    return leave(k, "back_button")


def leave_back_key(k):
    return leave(k, "back_key")


def leave_swipe(k):
    return leave(k, "swipe")


def leave_idle(k):
    return leave(k, "idle")


def unattended_checkout(k):
    """Nobody at the kiosk: org.navguard.idle-return asks to leave Checkout
    after --idle-ms, nobody answers, confirm-leave's unattended timeout (10 s)
    lets the return go on: Home, no report, and no second question."""
    q = k.wait_for(lambda e: e["type"] == "question", 10, "the idle return's question")
    expect(q["source"] == SRC_IDLE and q["kind"] == "pop-to-root" and q["guard"] == CONFIRM,
           f"the question did not come from the idle return: {q}")
    expect(abs(q.get("timeout_ms", 0) - 10000) <= 1, f"asked with {q.get('timeout_ms')} ms, expected the unattended 10000")
    end = k.wait_for(lambda e: e["type"] == "question_end" and e["id"] == q["id"], 15, "the question's end")
    expect(end["answer"] == "timeout", f"the question ended {end['answer']}, expected timeout (nobody answered)")
    done = k.wait_for(lambda e: e["type"] == "outcome" and e["id"] == q["request"], 5, "the return's outcome")
    expect(done["outcome"] == "applied", f"the unattended pop-to-root was {done['outcome']} {done['reason']}")
    home = k.wait_stack(["home"])
    time.sleep(3 * 1.5)               # three idle times at Home: nothing more happens
    k.quit()
    expect(len(k.of("question")) == 1, f"{len(k.of('question'))} questions, expected 1: the kiosk asked again")
    expect(not k.of("report"), f"a guard reported: {k.of('report')[:1]}")
    late = [e for e in k.of("outcome") if e["t"] > home["t"]]
    expect(not late, f"requests after Home: {late[:2]}")
    return (f"asked at {q['t'] / 1000:.1f} s, unanswered for {(end['t'] - q['t']) / 1000:.1f} s, "
            f"home; 1 question, no report")


def idle_cpu(k):
    time.sleep(0.5)
    c0, t0 = k.cpu_seconds(), time.monotonic()
    time.sleep(3.0)
    c1, t1 = k.cpu_seconds(), time.monotonic()
    share = (c1 - c0) / (t1 - t0)
    k.quit()
    expect(share < 0.05, f"the idle kiosk used {share * 100:.1f} % of a core (expected < 5 %): a busy loop?")
    return f"idle CPU {share * 100:.2f} % of one core over {t1 - t0:.1f} s"


SCENARIOS = [
    ("double_click", [], double_click, "double click on Next during a push: one push"),
    ("back_during_push", ["--stack", "home,menu"], back_during_push, "Back clicked during a push: one level"),
    ("swipe_cancel", ["--stack", "home,menu"], swipe_cancel, "edge swipe released at 30 %: cancelled"),
    ("swipe_finish", ["--stack", "home,menu"], swipe_finish, "edge swipe released at 70 %: completed"),
    ("swipe_hold", ["--stack", "home,menu"], swipe_hold, "edge swipe held 3 s at 60 %: no watchdog"),
    ("network_hold_back", ["--stack", "home,menu", "--network-delay-ms", "800"], network_hold_back,
     "press held on Back while a network push lands: cancelled"),
    ("swipe_long", ["--stack", "home,menu"], swipe_long,
     "edge swipe 15 s (moving 12 s, still 3 s), released at 60 %: completed, no watchdog"),
    ("button_held", [], button_held, "Next held still 15 s, then released: it fires, nothing is reported"),
    ("reply_stale", ["--stack", "home,menu", "--network-delay-ms", "3000"], reply_stale,
     "Network on Menu, back to Home and on to a new Menu: the reply is stale"),
    ("reply_stayed", ["--stack", "home,menu", "--network-delay-ms", "600"], reply_stayed,
     "Network on Menu, the user stays: the reply is applied"),
    ("reply_swipe_rollback", ["--stack", "home,menu", "--network-delay-ms", "1000", "--overlay"],
     reply_swipe_rollback, "a reply during an undecided swipe that rolls back: applied; the panel shows it"),
    ("reply_swipe_rollback_unguarded",
     ["--unguarded", "--stack", "home,menu", "--network-delay-ms", "1000", "--overlay"],
     reply_swipe_rollback_unguarded, "the same unguarded: the reply waits and is applied"),
    ("reply_swipe_finish", ["--stack", "home,menu", "--network-delay-ms", "1200"], reply_swipe_finish,
     "a reply for the target of a swipe released to finish: applied; complete says finish"),
    ("quit_mid_push", ["--anim-ms", "4000"], quit_mid_push, "Escape during a push: its end says destroyed"),
    ("quit_mid_push_unguarded", ["--unguarded", "--anim-ms", "4000"], quit_mid_push_unguarded,
     "the same unguarded"),
    ("leave_back_button", ["--stack", ",".join(CHECKOUT_STACK)], leave_back_button,
     "Back on Checkout asks: No stays, Yes leaves; the dialog is modal"),
    ("leave_back_key", ["--stack", ",".join(CHECKOUT_STACK)], leave_back_key,
     "the Back key on Checkout asks: No stays, Yes leaves"),
    ("leave_swipe", ["--stack", ",".join(CHECKOUT_STACK)], leave_swipe,
     "a swipe on Checkout does not start and asks: No stays, Yes goes back"),
    ("leave_idle", ["--stack", ",".join(CHECKOUT_STACK), "--idle-ms", "1500"], leave_idle,
     "the idle timer's pop-to-root on Checkout asks: No stays, Yes goes Home"),
    ("unattended_checkout", ["--stack", ",".join(CHECKOUT_STACK), "--idle-ms", "1500"], unattended_checkout,
     "nobody at Checkout: idle, asked, unanswered, Home after 10 s, no report, no second question"),
    ("double_click_unguarded", ["--unguarded"], double_click_unguarded, "the same double click unguarded: two pushes"),
    ("idle_cpu", [], idle_cpu, "idle: asleep, not a busy loop"),
]
# The clicks of these must land inside a push: a slower slide keeps them
# there on a loaded machine (the guards do not depend on its length).
SLOW_PUSH = {"double_click", "back_during_push", "double_click_unguarded"}


# Guarded scenarios whose trace must diverge against the empty chain.
DIVERGE_UNGUARDED = {"double_click"}


def replay(cli, trace, *extra):
    t0 = time.monotonic()
    r = subprocess.run([cli, "replay", trace] + list(extra), capture_output=True, text=True, timeout=60)
    return r.returncode, r.stdout + r.stderr, (time.monotonic() - t0) * 1000


def replay_check(cli, name, k, diverge_unguarded=DIVERGE_UNGUARDED):
    """The kiosk has quit: its trace is complete. It replays identically,
    and a scenario named in `diverge_unguarded` diverges against the empty
    chain."""
    expect(os.path.exists(k.trace), f"--record wrote no trace ({k.trace})")
    with open(k.trace, "rb") as f:
        lines = f.read().count(b"\n")
    rc, out, ms = replay(cli, k.trace)
    if rc != 0 or not out.startswith("replay: identical"):
        raise Failure(f"navguard replay {k.trace} exited with {rc}, expected 0 (identical):\n{out}")
    counts = out.split("identical: ", 1)[1].split(" as recorded", 1)[0]
    note = f"replay identical ({counts}, {lines} lines, {ms:.0f} ms)"
    if name in diverge_unguarded:
        rc, out, _ = replay(cli, k.trace, "--config", '{"guards":[]}')
        if rc != 1 or "diverged" not in out:
            raise Failure(f"navguard replay {k.trace} --config '{{\"guards\":[]}}' exited with {rc}, "
                          f"expected 1 with a report that says \"diverged\":\n{out}")
        note += ", diverges unguarded"
    return note


def run_kiosk(k, body, cli=None, name=None, diverge_unguarded=DIVERGE_UNGUARDED):
    """Start kiosk `k`, run the scenario `body(k)` and return its note, with
    the frame rate and, given the CLI, the replay of its trace; on a failure
    with -v, print the events other than delivered verdicts. Closes `k`."""
    try:
        k.start()
        note = body(k)
        fps = fps_note(k)
        note += f"; {fps}" if fps else ""
        if cli:
            note += "; " + replay_check(cli, name, k, diverge_unguarded)
        return note
    except Failure:
        if VERBOSE:
            for e in k.events():
                if e["type"] != "verdict" or e["verdict"] != "deliver":
                    print("      " + json.dumps(e), flush=True)
        raise
    finally:
        k.close()


def run_one(app, tmp, name, args, fn, run, cli=None):
    extra = ["--anim-ms", "500"] if name in SLOW_PUSH else []
    k = Kiosk(app, tmp, f"{name}.{run}", args + extra, record=cli is not None)
    return run_kiosk(k, fn, cli, name)


def check_programs(a, app_name):
    """The --app and --navguard arguments name executables: else the error
    and exit status 2."""
    if not a.app or not os.access(a.app, os.X_OK):
        print(f"error: --app {a.app!r} is not an executable {app_name}", file=sys.stderr)
        return 2
    if a.navguard and not os.access(a.navguard, os.X_OK):
        print(f"error: --navguard {a.navguard!r} is not an executable navguard CLI", file=sys.stderr)
        return 2
    return 0


def choose(scenarios, only):
    """The scenarios --only names (all without it), or None after printing
    which names are unknown."""
    if not only:
        return scenarios
    names = only.split(",")
    unknown = [n for n in names if n not in {s[0] for s in scenarios}]
    if unknown:
        print(f"error: unknown scenario {', '.join(unknown)} (see --list)", file=sys.stderr)
        return None
    return [s for s in scenarios if s[0] in names]


def attempt(label, what, width, run):
    """Run `run(attempt)` and print PASS or FAIL: a premise the machine broke
    (the window was slow, a click missed its moment) is tried once more; a
    failure is not. Returns whether it passed."""
    t0 = time.monotonic()
    for n in (1, 2):
        try:
            note = run(n)
            print(f"PASS {label:{width}} {time.monotonic() - t0:5.1f} s  {note}", flush=True)
            return True
        except Premise as e:
            if n == 2:
                print(f"FAIL {label:{width}} {time.monotonic() - t0:5.1f} s  {what}: {e}", flush=True)
                return False
            print(f"     {label:{width}} (again: {e})", flush=True)
        except Failure as e:
            print(f"FAIL {label:{width}} {time.monotonic() - t0:5.1f} s  {what}: {e}", flush=True)
            return False


def main():
    global VERBOSE
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--app", help="the sdl-kiosk binary")
    ap.add_argument("--navguard", help="the navguard CLI: record every scenario and replay its trace")
    ap.add_argument("--only", help="comma-separated scenario names")
    ap.add_argument("--list", action="store_true", help="list the scenarios")
    ap.add_argument("--repeat", type=int, default=1, help="run the selection N times")
    ap.add_argument("--keep", action="store_true", help="keep the logs and screenshots (prints the directory)")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    VERBOSE = a.verbose
    if a.list:
        for name, _, _, what in SCENARIOS:
            print(f"{name:24} {what}")
        return 0
    bad = check_programs(a, "sdl-kiosk")
    if bad:
        return bad
    missing = [t for t in ("Xvfb", "xdotool") if not shutil.which(t)]
    if missing or not os.path.exists(FONT):
        what = ", ".join(missing + ([] if os.path.exists(FONT) else [FONT]))
        print(f"error: missing {what}; run: {APT}", file=sys.stderr)
        return 1
    chosen = choose(SCENARIOS, a.only)
    if chosen is None:
        return 2

    tmp = tempfile.mkdtemp(prefix="sdl-kiosk-xvfb-")
    failed = 0
    t_all = time.monotonic()
    try:
        for rep in range(a.repeat):
            for name, args, fn, what in chosen:
                run = lambda n: run_one(a.app, tmp, name, args, fn, f"{rep + 1}.{n}", a.navguard)
                failed += not attempt(name, what, 24, run)
    finally:
        if a.keep or failed:
            print(f"logs and screenshots: {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    total = len(chosen) * a.repeat
    print(f"{total - failed}/{total} scenarios passed in {time.monotonic() - t_all:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
