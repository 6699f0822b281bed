// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore

// hooks.holds: begin/end, expiry, a hold cancelling a touch, a hold during a
// transition.

func holdChecks(_ h: Harness) {
    check("hold.begin-end") {
        let m = h.mark()
        step("hold begin (all events), request and events during it, end")
        let t = h.holdBegin("validator.all", mask: NG_MASK_ALL)
        h.ensureDepth(2)
        h.submit(NG_REQ_PUSH, screen: h.newScreen("held"))
        h.touch(on: Harness.button)
        h.event(NG_EVENT_KEY, code: 13)
        h.expect(ng_hold_end(h.ctx, t), "ng_hold_end")
        step("end the same hold again, and an unknown token")
        _ = ng_hold_end(h.ctx, t)
        _ = ng_hold_end(h.ctx, 987_654_321)
        h.settle()
        return finish(h, m)
    }
    check("hold.expire") {
        let m = h.mark()
        step("overlapping holds of 300 ms and 1.3 s; advance and tick")
        h.holdBegin("validator.short", mask: NG_MASK_DEFAULT, max: 300 * Harness.ms)
        h.holdBegin("validator.long", mask: NG_MASK_TOUCH, max: 1300 * Harness.ms)
        for _ in 0..<20 { h.advance(100 * Harness.ms); h.tick(); h.event(NG_EVENT_MOTION, code: 1) }
        h.settle()
        return finish(h, m)
    }
    check("hold.touch-cancel") {
        let m = h.mark()
        step("touch began, then a hold over touches (the touch is cancelled), then its end")
        let id = h.nextTouchID
        h.nextTouchID += 1
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: id, at: Harness.point(of: Harness.multi))
        let t = h.holdBegin("validator.block", mask: NG_MASK_TOUCH, max: Harness.second)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_MOVED, touch: id, at: Harness.point(of: Harness.multi))
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_ENDED, touch: id, at: Harness.point(of: Harness.multi))
        _ = ng_hold_end(h.ctx, t)
        h.settle()
        return finish(h, m)
    }
    check("hold.during-transition") {
        let m = h.mark()
        step("hold during an animated push; end both")
        h.ensureDepth(2)
        h.submit(NG_REQ_PUSH, animated: true, screen: h.newScreen("h1"))
        let t = h.holdBegin("validator.transition", mask: 0)
        h.touch(on: Harness.circle)
        _ = ng_transition_finish(h.ctx, NG_TRACK_ALL)
        _ = ng_hold_end(h.ctx, t)
        h.settle()
        return finish(h, m)
    }
}
