#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""example_qt_kiosk_xvfb: the Qt kiosk in a real X window (Xvfb), driven with
xdotool like a person would, judged from its JSON log and its screenshot.
Every scenario runs twice: guarded (the default chain) and --unguarded (the
same app, empty chain: stock StackView behaviour), each in its own Xvfb and
kiosk process. Besides the StackView scenarios: replies that wait for a
swipe (rolled back, finished) and a push cut short by quitting (the quit
line names it).

The harness is the SDL kiosk's (examples/sdl-kiosk/test_xvfb.py: Xvfb on a
free display, the log followed while the app runs, xdotool, BMP pixels, the
flight-recorder replay); this file adds the Qt kiosk's places and scenarios.
Qt runs with QSG_RENDER_LOOP=basic: under Xvfb the threaded render loop has
no vsync and plays animations about 3x too fast.

  test_xvfb.py --app build/examples/qt-kiosk/qt-kiosk              # all
  test_xvfb.py --app ... --navguard build/swiftpm/release/navguard-cli
  test_xvfb.py --app ... --only back_during_push --keep -v           # debug
  test_xvfb.py --list
"""
import argparse
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "sdl_kiosk_harness", os.path.join(HERE, "..", "sdl-kiosk", "test_xvfb.py"))
h = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(h)
Failure, Premise, expect = h.Failure, h.Premise, h.expect

APT = ("apt-get install -y qt6-declarative-dev qml6-module-qtquick qml6-module-qtquick-controls "
       "qml6-module-qtquick-templates qml6-module-qtquick-window qml6-module-qtquick-layouts "
       "qml6-module-qtqml-workerscript xvfb xdotool")

# Where things are in the kiosk (examples/qt-kiosk/Main.qml; the StackView
# starts at y 60, pages are 540 px tall).
BACK = (56, 30)
LIST_ROW = (200, 251)            # Menu's first row (Espresso)
OUTGOING_ROW = (150, 313)        # Menu's second row, still on the page sliding out early in a push
NETWORK = (150, 532)
LEAVE_NO = (305, 355)
LEAVE_YES = (495, 355)
ANIM_MS = 500                    # the scenarios' StackView transition length (--anim-ms)


class QtKiosk(h.Kiosk):
    """The SDL harness's kiosk process, for the Qt kiosk: Escape is its Back
    key, so it quits on SIGTERM (it writes --screenshot first)."""

    def start(self):
        super().start()
        # No window manager gives the window the keyboard focus: set it, as
        # a window manager would on mapping it.
        self.xdo("search", "--name", "^NavGuard Qt kiosk$", "windowfocus")
        time.sleep(0.1)

    def quit(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                raise Failure("the kiosk did not quit on SIGTERM")
        if self.proc.returncode != 0:
            raise Failure(f"the kiosk exited with status {self.proc.returncode}:\n{self.output()}")
        if not os.path.exists(self.bmp):
            raise Failure("no screenshot was written at exit")

    def key(self, *keys, delay_ms=60):
        self.xdo("key", "--delay", delay_ms, *keys)

    def double_click(self, pt, delay_ms=90):
        self.move(*pt)
        time.sleep(0.05)
        self.xdo("click", "--repeat", 2, "--delay", delay_ms, 1)


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------

def applied(k, kind):
    return h.applied(k, kind)


def outcomes(k, kind, outcome):
    return [e for e in k.of("outcome", kind=kind) if e["outcome"] == outcome]


def push_window(k, rid):
    will = k.of("transition", track="screen", phase="will", id=rid)
    end = [e for e in k.of("transition", track="screen", id=rid) if e["phase"] in ("did", "cancelled")]
    if not will or not end:
        raise Failure(f"request {rid} has no will-show and did-show in the log")
    return will[0], end[0]


def during(k, rid, t, what):
    """`t` fell inside transition `rid` (else the run did not set up what the
    scenario is about: run again)."""
    will, end = push_window(k, rid)
    if not (will["t"] <= t <= end["t"]):
        raise Premise(f"{what} came at {t:.0f} ms, outside the transition ({will['t']:.0f}-{end['t']:.0f} ms)")


def final(k, routes):
    expect(k.final_stack() == routes, f"final stack {k.final_stack()}, expected {','.join(routes)}")
    return ",".join(routes)


def user_push(k):
    pushes = [e for e in applied(k, "push") if e["source"] == 201]
    expect(pushes, "the list item's push was not applied")
    return pushes[0]["id"]


# --------------------------------------------------------------------------
# Scenarios: fn(k, unguarded) -> note
# --------------------------------------------------------------------------

def double_click_item(k, unguarded):
    k.double_click(LIST_ROW)
    k.wait_for(lambda e: e["type"] == "stack" and len(e["routes"]) >= 3, 10, "a push")
    k.wait_idle()
    k.quit()
    pushes = applied(k, "push")
    expect(pushes, "no push was applied")
    b2 = h.second_click_during_push(k, pushes[0]["id"])
    # Stock StackView ignores presses on its own pages while it is busy: one
    # push either way; guarded, NavGuard drops the second press itself.
    expect(len(pushes) == 1, f"{len(pushes)} pushes applied, expected 1")
    expect(len(k.of("action", button="item")) == 1, "the list item fired more than once")
    if unguarded:
        expect(b2["verdict"] == "deliver", f"unguarded, the second press was dropped: {b2}")
    else:
        expect(b2["verdict"] == "drop", f"the second press was delivered: {b2}")
    return (f"1 push, stack {final(k, ['home', 'menu', 'item'])}; 2nd press {b2['verdict']}"
            f"{'' if unguarded else ' (' + b2['reason'] + ')'}; {h.check_band(k.bmp, 'item')}")


def back_during_push(k, unguarded):
    k.click(LIST_ROW)
    time.sleep(0.1)
    k.click(BACK)
    time.sleep(0.2)
    k.wait_idle()
    k.quit()
    rid = user_push(k)
    b2 = h.second_click_during_push(k, rid)
    backs = applied(k, "back")
    if unguarded:
        expect(len(backs) == 1, f"unguarded: {len(backs)} backs applied, expected 1 (Back pops the push again)")
        return f"Back popped the push again: stack {final(k, ['home', 'menu'])}; {h.check_band(k.bmp, 'menu')}"
    expect(b2["verdict"] == "drop", f"Back's press was delivered during the push: {b2}")
    expect(not k.of("action", button="back"), "Back acted during the push")
    expect(not backs, "a back was applied")
    return (f"one level, stack {final(k, ['home', 'menu', 'item'])}; Back's press dropped ({b2['reason']}); "
            f"{h.check_band(k.bmp, 'item')}")


def escape_twice(k, unguarded):
    k.key("Escape", "Escape", delay_ms=60)
    time.sleep(0.2)
    k.wait_idle()
    k.quit()
    keys = [e for e in k.of("action", button="back-key")]
    expect(len(keys) == 2, f"{len(keys)} Back key actions, expected 2")
    backs = applied(k, "back")
    if unguarded:
        expect(len(backs) == 2, f"unguarded: {len(backs)} backs applied, expected 2 (two levels)")
        return f"two levels: stack {final(k, ['home'])}; {h.check_band(k.bmp, 'home')}"
    expect(len(backs) == 1, f"{len(backs)} backs applied, expected 1")
    refused = outcomes(k, "back", "refused")
    expect(len(refused) == 1, f"{len(refused)} backs refused, expected 1")
    return (f"one level, stack {final(k, ['home', 'menu'])}; 2nd Escape refused "
            f"{refused[0]['reason']} by {refused[0]['guard']}; {h.check_band(k.bmp, 'menu')}")


def tap_outgoing(k, unguarded):
    k.click(LIST_ROW)
    time.sleep(0.12)
    k.click(OUTGOING_ROW)
    time.sleep(0.2)
    k.wait_idle()
    k.quit()
    rid = user_push(k)
    b2 = h.second_click_during_push(k, rid)
    expect(len(applied(k, "push")) == 1, f"{len(applied(k, 'push'))} pushes applied, expected 1")
    expect(len(k.of("action", button="item")) == 1, "the outgoing page's row fired")
    # Stock StackView already ignores presses on its own pages while busy.
    if unguarded:
        expect(b2["verdict"] == "deliver", f"unguarded, the tap was dropped: {b2}")
    else:
        expect(b2["verdict"] == "drop", f"the tap on the outgoing page was delivered: {b2}")
    return (f"the tap did nothing ({'StackView busy' if unguarded else 'dropped ' + b2['reason']}), "
            f"stack {final(k, ['home', 'menu', 'item'])}; {h.check_band(k.bmp, 'item')}")


def network_hold_back(k, unguarded):
    k.click(NETWORK)
    k.wait_for(lambda e: e["type"] == "network", 5, "the Network button's action")
    time.sleep(0.1)
    k.move(*BACK)
    time.sleep(0.03)
    k.xdo("mousedown", 1)
    k.wait_for(lambda e: e["type"] == "transition" and e["phase"] == "will" and e["kind"] == "push", 10,
               "the network reply's push")
    k.wait_stack(["home", "menu", "item"])
    time.sleep(0.3)
    k.xdo("mouseup", 1)
    time.sleep(0.2)
    k.wait_idle()
    k.quit()
    began = [e for e in h.began_verdicts(k) if abs(e["x"] - BACK[0]) < 2 and abs(e["y"] - BACK[1]) < 2]
    expect(began, "the press on Back was not seen")
    if began[-1]["verdict"] != "deliver":
        raise Premise(f"the press on Back was dropped ({began[-1]['reason']}): it did not start before the push")
    push = applied(k, "push")
    expect(len(push) == 1 and push[0]["source"] == 901, f"expected one push from the network reply: {push}")
    if unguarded:
        expect(k.of("action", button="back"), "unguarded: Back did not fire on release")
        expect(len(applied(k, "back")) == 1, "unguarded: the back was not applied")
        return f"Back fired on release and lost the reply: stack {final(k, ['home', 'menu'])}; {h.check_band(k.bmp, 'menu')}"
    cancels = k.of("touch_cancel")
    expect(len(cancels) == 1 and cancels[0]["routed"], f"touch cancels: {cancels}")
    expect(not k.of("action", button="back"), "Back fired although its press was cancelled")
    expect(not applied(k, "back"), "a back was applied")
    return (f"Back's press cancelled (touch_cancel routed into Qt), no back; stack "
            f"{final(k, ['home', 'menu', 'item'])}; {h.check_band(k.bmp, 'item')}")


def escape_during_push(k, unguarded):
    k.click(LIST_ROW)
    time.sleep(0.1)
    k.key("Escape")
    time.sleep(0.2)
    k.wait_idle()
    k.quit()
    rid = user_push(k)
    key = k.of("action", button="back-key")
    expect(key, "the Back key did not act")
    during(k, rid, key[0]["t"], "Escape")
    if unguarded:
        expect(len(applied(k, "back")) == 1, "unguarded: the back was not applied")
        return f"Escape popped the push: stack {final(k, ['home', 'menu'])}; {h.check_band(k.bmp, 'menu')}"
    refused = outcomes(k, "back", "refused")
    expect(len(refused) == 1 and refused[0]["reason"] == "busy", f"the back was not refused busy: {refused}")
    return (f"back refused busy by {refused[0]['guard']}, stack {final(k, ['home', 'menu', 'item'])}; "
            f"{h.check_band(k.bmp, 'item')}")


def double_click_back(k, unguarded):
    k.double_click(BACK)
    time.sleep(0.2)
    k.wait_idle()
    k.quit()
    backs = applied(k, "back")
    expect(backs, "no back was applied")
    began = h.began_verdicts(k)
    expect(len(began) >= 2, f"{len(began)} presses seen")
    during(k, backs[0]["id"], began[1]["t"], "the second press")
    if unguarded:
        expect(len(backs) == 2, f"unguarded: {len(backs)} backs applied, expected 2 (two levels)")
        return f"two levels: stack {final(k, ['home'])}; {h.check_band(k.bmp, 'home')}"
    expect(len(backs) == 1, f"{len(backs)} backs applied, expected 1")
    expect(began[1]["verdict"] == "drop", f"the second press was delivered: {began[1]}")
    return (f"one level, stack {final(k, ['home', 'menu'])}; 2nd press dropped ({began[1]['reason']}); "
            f"{h.check_band(k.bmp, 'menu')}")


def network_during_push(k, unguarded):
    """The reply is unscoped here (--network-unscoped): what it does to a
    push in flight."""
    k.click(NETWORK)
    net = k.wait_for(lambda e: e["type"] == "network", 5, "the Network button's action")
    time.sleep(0.05)
    k.click(LIST_ROW)
    k.wait_for(lambda e: e["type"] == "outcome" and e["source"] == 901, 10, "the network reply's outcome")
    time.sleep(0.2)
    k.wait_idle()
    k.quit()
    rid = user_push(k)
    will, did = push_window(k, rid)
    during(k, rid, net["t"] + net["delay_ms"], "the network reply")
    reply = [e for e in k.of("outcome") if e["source"] == 901][0]
    expect(reply["outcome"] == "applied", f"the reply was {reply}")
    lasted = did["t"] - will["t"]
    if unguarded:
        expect("interrupted" in did["flags"], f"unguarded: the user's push was not interrupted: {did}")
        return (f"the reply cut the push short (did interrupted after {lasted:.0f} of {ANIM_MS} ms), stack "
                f"{final(k, ['home', 'menu', 'item', 'item'])}; {h.check_band(k.bmp, 'item')}")
    expect("interrupted" not in did["flags"], f"the user's push was interrupted: {did}")
    expect(lasted >= 0.9 * ANIM_MS, f"the user's push lasted {lasted:.0f} ms of {ANIM_MS}")
    expect(reply["t"] >= did["t"], f"the reply was applied at {reply['t']:.0f} ms, during the push")
    return (f"the push ran its {lasted:.0f} ms, then the reply was applied; stack "
            f"{final(k, ['home', 'menu', 'item', 'item'])}; {h.check_band(k.bmp, 'item')}")


def network_stale(k, unguarded):
    """The reply is scoped to Menu (from_screen); the user goes on to an item
    before it lands: it is dropped as stale, guarded or not (a core rule)."""
    k.click(NETWORK)
    k.wait_for(lambda e: e["type"] == "network", 5, "the Network button's action")
    time.sleep(0.05)
    k.click(LIST_ROW)
    k.wait_for(lambda e: e["type"] == "outcome" and e["source"] == 901, 10, "the network reply's outcome")
    time.sleep(0.2)
    k.wait_idle()
    k.quit()
    user_push(k)
    reply = [e for e in k.of("outcome") if e["source"] == 901][0]
    expect(reply["outcome"] in ("dropped", "refused") and reply["reason"] == "stale", f"the reply was {reply}")
    return (f"the reply for Menu was {reply['outcome']} stale; stack {final(k, ['home', 'menu', 'item'])}; "
            f"{h.check_band(k.bmp, 'item')}")


def mid_swipe_shot(k, fraction):
    """Drag from the left edge to `fraction` of the width and hold; a
    screenshot (SIGUSR1) then shows the page following the finger: the top
    page (Menu, green) moved right by the drag, the page below (Home, blue)
    uncovered on its left."""
    k.drag_from_edge(h.EDGE[0] + fraction * h.W)
    time.sleep(0.25)
    n = len(k.of("screenshot"))
    k.proc.send_signal(signal.SIGUSR1)
    k.wait_for(lambda e: e["type"] == "screenshot" and len(k.of("screenshot")) > n, 5, "the mid-swipe screenshot")
    shot = os.path.join(k.dir, "mid-swipe.bmp")
    shutil.copyfile(k.bmp, shot)
    offset = fraction * h.W - h.EDGE[0]
    for x, route in ((offset * 0.4, "home"), (offset + (h.W - offset) * 0.8, "menu")):
        got = h.bmp_pixel(shot, int(x), 120)
        want = h.COLOURS[route]
        expect(all(abs(a - b) <= 24 for a, b in zip(got, want)),
               f"mid-swipe at {fraction:.0%}: pixel ({int(x)},120) is {got}, expected {route}'s {want}")
    return f"mid-swipe: menu moved {offset:.0f} px over home"


def swipe_cancel(k, unguarded):
    note = mid_swipe_shot(k, 0.30)
    return swipe_done(k, 0.30, note)


def swipe_finish(k, unguarded):
    note = mid_swipe_shot(k, 0.70)
    return swipe_done(k, 0.70, note)


def swipe_done(k, fraction, note):
    """The finger (held at `fraction`) lets go; the swipe settles."""
    k.xdo("mouseup", 1)
    rid = h.swipe_request(k)
    end = k.wait_for(lambda e: e["type"] == "transition" and e["track"] == "screen" and e["id"] == rid
                     and e["phase"] in ("did", "cancelled"), 10, "the end of the swipe-back")
    k.wait_idle()
    k.quit()
    rel = k.of("swipe", event="release")
    expect(rel, "the swipe was never released (no 'swipe' release line)")
    moves = h.moves_delivered_during(k, rid)
    if fraction < 0.5:
        expect(not rel[0]["finish"], f"released at {rel[0]['progress']:.2f} but decided finish")
        expect(end["phase"] == "cancelled", f"the swipe ended with {end['phase']}, expected cancelled")
        return (f"cancelled at p={rel[0]['progress']:.2f}, {moves} moves delivered, "
                f"stack {final(k, ['home', 'menu'])}; {note}; {h.check_band(k.bmp, 'menu')}")
    expect(rel[0]["finish"], f"released at {rel[0]['progress']:.2f} but decided cancel")
    expect(end["phase"] == "did" and "interactive" in end["flags"], f"the swipe ended with {end}")
    return (f"completed at p={rel[0]['progress']:.2f}, {moves} moves delivered, "
            f"stack {final(k, ['home'])}; {note}; {h.check_band(k.bmp, 'home')}")


def reply_swipe_rollback(k, unguarded):
    """Network on Menu, then a swipe back held undecided while the reply
    comes, dragged back and released (the recipe of issue 28): the reply
    waits for the swipe (a core rule: guarded or not), the swipe rolls back,
    and the reply is applied inside the completion, on the Menu it was for."""
    k.click(NETWORK)
    k.wait_for(lambda e: e["type"] == "network", 5, "the Network button's action")
    k.drag_from_edge(320)                                # p = 0.40
    rid = h.swipe_request(k)
    time.sleep(1.4)
    for i in range(1, 7):                                # back to x = 200
        k.move(320 - 120 * i / 6, h.EDGE[1])
        time.sleep(0.02)
    k.xdo("mouseup", 1)
    end, out, done = h.reply_in_completion(k, rid)
    k.wait_stack(["home", "menu", "item"])
    k.wait_idle()
    k.quit()
    expect(end["phase"] == "cancelled", f"the swipe ended with {end['phase']}, expected cancelled (rolled back)")
    expect(done["finish"] is False, f"the complete line of the rolled-back swipe: {done}")
    expect(out["outcome"] == "applied", f"the reply for the Menu the swipe rolled back to was {out['outcome']} "
                                        f"{out['reason']} by {out['guard']}, expected applied")
    return (f"the reply waited for the swipe, which rolled back, and was applied at its completion; stack "
            f"{final(k, ['home', 'menu', 'item'])}; {h.check_band(k.bmp, 'item')}")


def reply_swipe_finish(k, unguarded):
    """Network on Menu, an item opened, then a swipe back to Menu released to
    finish while the reply (for Menu, the swipe's target) waits: applied
    inside the completion, and the complete line still says finish."""
    k.click(NETWORK)
    k.wait_for(lambda e: e["type"] == "network", 5, "the Network button's action")
    t0 = time.monotonic()
    k.click(LIST_ROW)
    k.wait_stack(["home", "menu", "item"])
    k.wait_idle(quiet=0.1)
    k.drag_from_edge(h.EDGE[0] + 0.7 * h.W)
    rid = h.swipe_request(k)
    time.sleep(max(0.0, t0 + 1.7 - time.monotonic()))    # the reply (1.4 s) has come
    k.xdo("mouseup", 1)
    end, out, done = h.reply_in_completion(k, rid)
    k.wait_stack(["home", "menu", "item"], after=out["t"])
    k.wait_idle()
    k.quit()
    expect(end["phase"] == "did", f"the swipe ended with {end['phase']}, expected did")
    expect(done["finish"] is True, f"the complete line of a swipe that finished says {done}")
    expect(out["outcome"] == "applied", f"the reply for Menu, the swipe's target, was {out['outcome']} {out['reason']}")
    return (f"the swipe finished (complete finish=true), the reply waited and pushed its item; stack "
            f"{final(k, ['home', 'menu', 'item'])}; {h.check_band(k.bmp, 'item')}")


def quit_mid_push(k, unguarded):
    """SIGTERM during a long push: the context's destruction ends it after
    the log closes; the quit line names it, so it does not read as
    completed."""
    k.click(LIST_ROW)
    will = k.wait_for(lambda e: e["type"] == "transition" and e["track"] == "screen" and e["phase"] == "will"
                      and e["kind"] == "push", 10, "the push's will")
    k.quit()
    rid = will["id"]
    ends = [e for e in k.of("transition", track="screen", id=rid) if e["phase"] != "will"]
    if ends:
        raise Premise(f"the push ended ({ends[0]['phase']}) before the kiosk quit")
    q = k.of("quit")
    expect(q and q[0].get("cut_short") == rid and q[0].get("cut_short_kind") == "push",
           f"the quit line does not name the push #{rid} cut short: {q}")
    return f"push #{rid} in flight at quit: the quit line names it (cut_short)"


def leave_dialog(k, unguarded):
    k.click(BACK)
    if unguarded:
        k.wait_stack(["home", "menu", "item"])
        k.wait_idle()
        k.quit()
        expect(not k.of("question"), "unguarded: a question was asked")
        return f"no confirm-leave guard: Back left at once, stack {final(k, ['home', 'menu', 'item'])}"
    q = k.wait_for(lambda e: e["type"] == "question", 5, "the leave question (Back)")
    time.sleep(0.3)
    k.click(LEAVE_NO)
    k.wait_for(lambda e: e["type"] == "question_end" and e["id"] == q["id"], 5, "the answer no")
    time.sleep(0.3)
    expect(k.final_stack() in (None, ["home", "menu", "item", "checkout"]), f"stack {k.final_stack()} after no")
    k.key("Escape")
    q2 = k.wait_for(lambda e: e["type"] == "question" and e["id"] != q["id"], 5, "the leave question (Escape)")
    time.sleep(0.3)
    k.click(LEAVE_YES)
    k.wait_stack(["home", "menu", "item"])
    k.wait_idle()
    k.quit()
    ends = {e["id"]: e["answer"] for e in k.of("question_end")}
    expect(ends.get(q["id"]) == "no" and ends.get(q2["id"]) == "yes", f"answers {ends}")
    backs = k.of("outcome", kind="back")
    expect([b["outcome"] for b in backs] == ["dropped", "applied"], f"back outcomes {backs}")
    expect(backs[0]["reason"] == "declined", f"the first back was dropped {backs[0]['reason']}")
    return (f"Back asked, no: stayed (dropped {backs[0]['reason']}); Escape asked, yes: left; stack "
            f"{final(k, ['home', 'menu', 'item'])}; {h.check_band(k.bmp, 'item')}")


def button_held(k, unguarded):
    """Home's Next held still 15 s, then released: a press, not a fault. The
    watchdog leaves a still touch that blocks nothing alone: Next fires on
    the release, nothing is cancelled, nothing is reported (as unguarded)."""
    k.move(665, 532)                              # Home's Next (Main.qml: Big at 560,440 in the page, 210x64)
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
    return (f"Next held still 15 s, then released: fired once, no cancel, no report; stack "
            f"{final(k, ['home', 'menu'])}; {h.check_band(k.bmp, 'menu')}")


def unattended_checkout(k, unguarded):
    """Nobody at the kiosk (--idle-ms 1500): org.navguard.idle-return asks to
    leave Checkout, nobody answers, confirm-leave's unattended timeout (10 s)
    lets the return go on: Home, no report, no second question. Guarded only:
    unguarded there is no chain, so no idle return and no question."""
    q = k.wait_for(lambda e: e["type"] == "question", 10, "the idle return's question")
    expect(q["source"] == 903 and q["kind"] == "pop-to-root" and q["guard"] == "org.navguard.confirm-leave",
           f"the question did not come from the idle return: {q}")
    expect(abs(q.get("timeout_ms", 0) - 10000) <= 1, f"asked with {q.get('timeout_ms')} ms, expected the unattended 10000")
    end = k.wait_for(lambda e: e["type"] == "question_end" and e["id"] == q["id"], 15, "the question's end")
    expect(end["answer"] == "timeout", f"the question ended {end['answer']}, expected timeout")
    done = k.wait_for(lambda e: e["type"] == "outcome" and e["id"] == q["request"], 5, "the return's outcome")
    expect(done["outcome"] == "applied", f"the unattended pop-to-root was {done['outcome']} {done['reason']}")
    home = k.wait_stack(["home"])
    time.sleep(3 * 1.5)               # three idle times at Home: nothing more happens
    k.quit()
    expect(len(k.of("question")) == 1, f"{len(k.of('question'))} questions, expected 1: the kiosk asked again")
    expect(not k.of("report"), f"a guard reported: {k.of('report')[:1]}")
    late = [e for e in k.of("outcome") if e["t"] > home["t"]]
    expect(not late, f"requests after Home: {late[:2]}")
    return (f"asked at {q['t'] / 1000:.1f} s, unanswered {(end['t'] - q['t']) / 1000:.1f} s, "
            f"stack {final(k, ['home'])}; 1 question, no report")


def idle_cpu(k, unguarded):
    return h.idle_cpu(k)


SCENARIOS = [
    ("double_click_item", ["--stack", "home,menu"], double_click_item, "double click on a list item"),
    ("back_during_push", ["--stack", "home,menu"], back_during_push, "the header's Back during a push"),
    ("escape_twice", ["--stack", "home,menu,item"], escape_twice, "Escape twice fast"),
    ("tap_outgoing", ["--stack", "home,menu"], tap_outgoing, "a tap on the outgoing page"),
    ("network_hold_back", ["--stack", "home,menu", "--network-delay-ms", "800"], network_hold_back,
     "a network push while Back is held"),
    ("escape_during_push", ["--stack", "home,menu"], escape_during_push, "Escape during a push"),
    ("double_click_back", ["--stack", "home,menu,item"], double_click_back, "double click on the header's Back"),
    ("network_during_push", ["--stack", "home,menu", "--network-delay-ms", "250", "--network-unscoped"],
     network_during_push, "a network reply during a user's push"),
    ("network_stale", ["--stack", "home,menu", "--network-delay-ms", "400"], network_stale,
     "a reply for a screen the user has left"),
    ("swipe_cancel", ["--stack", "home,menu"], swipe_cancel, "an edge swipe released at 30 %"),
    ("swipe_finish", ["--stack", "home,menu"], swipe_finish, "an edge swipe released at 70 %"),
    ("reply_swipe_rollback", ["--stack", "home,menu", "--network-delay-ms", "1000"], reply_swipe_rollback,
     "a reply during an undecided swipe that rolls back: applied"),
    ("reply_swipe_finish", ["--stack", "home,menu", "--network-delay-ms", "1400"], reply_swipe_finish,
     "a reply for the target of a swipe released to finish"),
    ("quit_mid_push", ["--stack", "home,menu", "--anim-ms", "4000"], quit_mid_push, "quitting during a push"),
    ("leave_dialog", ["--stack", "home,menu,item,checkout"], leave_dialog, "the leave dialog on Checkout"),
    ("button_held", [], button_held, "Next held still 15 s, then released: it fires, nothing reported"),
    ("unattended_checkout", ["--stack", "home,menu,item,checkout", "--idle-ms", "1500"], unattended_checkout,
     "nobody at Checkout: idle, asked, unanswered, Home, no report, no second question"),
    ("idle_cpu", [], idle_cpu, "idle: asleep, not a busy loop"),
]
NO_UNGUARDED = {"idle_cpu", "unattended_checkout"}
# Guarded traces that must diverge when replayed against the empty chain.
DIVERGE_UNGUARDED = {"back_during_push", "escape_twice"}


def run_one(app, tmp, name, args, fn, unguarded, run, cli=None):
    variant = f"{name}{'_unguarded' if unguarded else ''}"
    extra = ([] if "--anim-ms" in args else ["--anim-ms", str(ANIM_MS)]) + (["--unguarded"] if unguarded else [])
    k = QtKiosk(app, tmp, f"{variant}.{run}", args + extra, record=cli is not None)
    return h.run_kiosk(k, lambda k: fn(k, unguarded), cli, name,
                       set() if unguarded else DIVERGE_UNGUARDED)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--app", help="the qt-kiosk binary")
    ap.add_argument("--navguard", help="the navguard CLI: record every scenario and replay its trace")
    ap.add_argument("--only", help="comma-separated scenario names")
    ap.add_argument("--guarded-only", action="store_true", help="skip the --unguarded runs")
    ap.add_argument("--list", action="store_true", help="list the scenarios")
    ap.add_argument("--repeat", type=int, default=1, help="run the selection N times")
    ap.add_argument("--keep", action="store_true", help="keep the logs and screenshots (prints the directory)")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    h.VERBOSE = a.verbose
    if a.list:
        for name, _, _, what in SCENARIOS:
            print(f"{name:22} {what}")
        return 0
    bad = h.check_programs(a, "qt-kiosk")
    if bad:
        return bad
    missing = [t for t in ("Xvfb", "xdotool") if not shutil.which(t)]
    if missing:
        print(f"error: missing {', '.join(missing)}; run: {APT}", file=sys.stderr)
        return 1
    # Qt in the X server, the basic render loop (wall-clock animations),
    # Qt Quick's software renderer (no GL needed).
    os.environ.update(QT_QPA_PLATFORM="xcb", QSG_RENDER_LOOP="basic", QT_QUICK_BACKEND="software")
    chosen = h.choose(SCENARIOS, a.only)
    if chosen is None:
        return 2

    tmp = tempfile.mkdtemp(prefix="qt-kiosk-xvfb-")
    failed = total = 0
    t_all = time.monotonic()
    try:
        for rep in range(a.repeat):
            for name, args, fn, what in chosen:
                for unguarded in (False, True):
                    if unguarded and (a.guarded_only or name in NO_UNGUARDED):
                        continue
                    total += 1
                    label = f"{name}{' (unguarded)' if unguarded else ''}"
                    run = lambda n: run_one(a.app, tmp, name, args, fn, unguarded, f"{rep + 1}.{n}", a.navguard)
                    failed += not h.attempt(label, what, 34, run)
    finally:
        if a.keep or failed:
            print(f"logs and screenshots: {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"{total - failed}/{total} scenario runs passed in {time.monotonic() - t_all:.1f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
