// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore

// hooks.events: touch phases and targets, multi-touch, bad sequences, the
// other event types, a view removed under a touch, events during a transition.

func eventChecks(_ h: Harness) {
    check("event.touch-phases") {
        let m = h.mark()
        for v in [Harness.button, Harness.multi, Harness.circle, Harness.star, Harness.hidden, Harness.disabled, Harness.window] {
            step("touch began/moved/ended on view \(v)")
            h.touch(on: v)
            step("touch began/moved/cancelled on view \(v)")
            h.touch(on: v, cancel: true)
            h.advance(Harness.second)
        }
        step("a touch outside every view")
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 500, at: (-10, -10))
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_ENDED, touch: 500, at: (-10, -10))
        return finish(h, m)
    }
    check("event.touch-target") {
        let m = h.mark()
        step("touches with a host target (NG_EVF_HAS_TARGET)")
        h.touch(on: Harness.circle, useTarget: true)
        h.touch(on: Harness.button, useTarget: true)
        step("a touch targeting an unregistered view")
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 600, at: (1, 1), target: 4242)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_ENDED, touch: 600, at: (1, 1), target: 4242)
        return finish(h, m)
    }
    check("event.multi-touch") {
        let mark = h.mark()
        step("two touches on a multi-touch view, one on the exclusive button meanwhile")
        let b = Harness.point(of: Harness.button), mt = Harness.point(of: Harness.multi), c = Harness.point(of: Harness.circle)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 700, at: mt)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 701, at: (mt.0 + 5, mt.1))
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 702, at: b)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 703, at: c)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 704, at: c)
        for id: UInt64 in 700...704 { h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_MOVED, touch: id, at: mt) }
        for id: UInt64 in 700...704 { h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_ENDED, touch: id, at: mt) }
        step("exclusive button first, then other views")
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 710, at: b)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 711, at: mt)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_CANCELLED, touch: 710, at: b)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_ENDED, touch: 711, at: mt)
        return finish(h, mark)
    }
    check("event.bad-sequences") {
        let m = h.mark()
        step("began twice, moved/ended for unknown touches")
        let p = Harness.point(of: Harness.multi)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 800, at: p)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 800, at: p)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_MOVED, touch: 801, at: p)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_ENDED, touch: 802, at: p)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_ENDED, touch: 800, at: p)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_ENDED, touch: 800, at: p)
        return finish(h, m)
    }
    check("event.types") {
        let m = h.mark()
        let types: [(String, ng_event_type)] = [("motion", NG_EVENT_MOTION), ("remote", NG_EVENT_REMOTE), ("key", NG_EVENT_KEY),
                                                ("scroll", NG_EVENT_SCROLL), ("hover", NG_EVENT_HOVER)]
        for (name, t) in types {
            for phase: Int32 in 0..<3 {
                step("\(name) event, subtype \(phase)")
                h.event(t, phase: phase, touch: UInt64(phase), at: Harness.point(of: Harness.button), code: Int64(phase) * 7 + 1)
            }
            h.event(t, phase: 0, at: (-1, -1), target: Harness.circle, code: -1)
            h.advance(5 * Harness.ms)
        }
        return finish(h, m)
    }
    check("event.view-removed") {
        let m = h.mark()
        step("touch began on a view, the view removed, the touch ends")
        let p = Harness.point(of: Harness.star)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 900, at: p)
        h.removeView(Harness.star)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_MOVED, touch: 900, at: p)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_ENDED, touch: 900, at: p)
        h.addViews()
        return finish(h, m)
    }
    check("event.during-transition") {
        let m = h.mark()
        step("touches and keys while an animated push runs")
        h.ensureDepth(2)
        h.submit(NG_REQ_PUSH, animated: true, screen: h.newScreen("anim"))
        h.touch(on: Harness.button)
        h.event(NG_EVENT_KEY, code: 27)
        h.event(NG_EVENT_REMOTE, code: 3)
        _ = ng_transition_finish(h.ctx, NG_TRACK_ALL)
        h.touch(on: Harness.button)
        h.settle()
        return finish(h, m)
    }
}
