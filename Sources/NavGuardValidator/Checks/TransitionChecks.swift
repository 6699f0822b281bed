// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore

// hooks.transitions: tracks finished separately, interrupted, never finished.

func transitionChecks(_ h: Harness) {
    check("transition.tracks") {
        let m = h.mark()
        h.ensureDepth(2)
        step("push animated; finish the screen track, then the bar track")
        h.submit(NG_REQ_PUSH, animated: true, screen: h.newScreen("t1"))
        _ = ng_transition_finish(h.ctx, NG_TRACK_SCREEN)
        h.advance(50 * Harness.ms)
        _ = ng_transition_finish(h.ctx, NG_TRACK_BAR)
        step("finish with nothing in flight")
        _ = ng_transition_finish(h.ctx, NG_TRACK_ALL)
        h.settle()
        return finish(h, m)
    }
    check("transition.interrupted") {
        let m = h.mark()
        step("push animated, then pop and replace while it runs (may be refused busy)")
        h.submit(NG_REQ_PUSH, animated: true, screen: h.newScreen("t2"))
        h.advance(10 * Harness.ms)
        h.submit(NG_REQ_POP, animated: true, source: 900)
        h.advance(10 * Harness.ms)
        h.submit(NG_REQ_REPLACE_STACK, animated: true, stack: [h.newScreen("r1"), h.newScreen("r2")], source: 901)
        h.settle()
        h.settle()
        return finish(h, m)
    }
    check("transition.never-finished") {
        let m = h.mark()
        step("push animated and never finish it; let a minute pass in ticks")
        h.submit(NG_REQ_PUSH, animated: true, screen: h.newScreen("stuck"))
        for _ in 0..<60 { h.advance(Harness.second); h.tick() }
        h.settle()
        return finish(h, m)
    }
}
