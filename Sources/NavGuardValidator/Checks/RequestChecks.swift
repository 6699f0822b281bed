// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore

// hooks.requests: every request kind, immediate and animated, twice at once,
// interactive back, timed, busy, posted and malformed requests.

func requestChecks(_ h: Harness) {
    // Every request kind, immediate and animated (the host ends the animation).
    // Interactive back has its own checks below.
    for kind in [NG_REQ_PUSH, NG_REQ_POP, NG_REQ_POP_TO, NG_REQ_POP_TO_ROOT, NG_REQ_REPLACE_STACK, NG_REQ_BACK] {
        let name = String(cString: ng_request_kind_name(kind))
        check("request.\(name)") {
            let m = h.mark()
            for animated in [false, true] {
                h.ensureDepth(4)
                h.source += 1
                let how = animated ? "animated" : "immediate"
                step("submit \(name) (\(how))")
                switch kind {
                case NG_REQ_PUSH:
                    h.submit(kind, animated: animated, screen: h.newScreen("detail", identity: "item-\(h.nextScreenID)"))
                    h.settle()
                    step("submit \(name) of the top screen's identity (\(how))")
                    h.submit(kind, animated: animated, screen: h.newScreen("same", identity: "same"))
                    h.settle()
                    h.submit(kind, animated: animated, screen: h.newScreen("same", identity: "same"))
                case NG_REQ_POP_TO:
                    h.submit(kind, animated: animated, target: h.screenID(at: 1))
                    h.settle()
                    step("submit \(name) an unknown screen (\(how))")
                    h.submit(kind, animated: animated, target: 999_999)
                case NG_REQ_REPLACE_STACK:
                    h.submit(kind, animated: animated, stack: [h.newScreen("home2"), h.newScreen("list"), h.newScreen("detail")])
                default:
                    h.submit(kind, animated: animated)
                }
                if animated {
                    step("finish the bar track, then the screen track")
                    _ = ng_transition_finish(h.ctx, NG_TRACK_BAR)
                    _ = ng_transition_finish(h.ctx, NG_TRACK_SCREEN)
                }
                h.settle()
            }
            // Two in a row without time passing (throttles, duplicates).
            step("submit \(name) twice at once")
            h.ensureDepth(4)
            for _ in 0..<2 {
                switch kind {
                case NG_REQ_PUSH: h.submit(kind, screen: h.newScreen("twice", identity: "twice"))
                case NG_REQ_POP_TO: h.submit(kind, target: h.screenID(at: 0))
                case NG_REQ_REPLACE_STACK: h.submit(kind, stack: [h.newScreen("a"), h.newScreen("b")])
                default: h.submit(kind)
                }
            }
            h.settle()
            return finish(h, m)
        }
    }
    check("request.interactive-back") {
        let m = h.mark()
        for commit in [false, true] {
            h.ensureDepth(3)
            h.source += 1
            step("interactive back begin")
            let r = h.submit(NG_REQ_INTERACTIVE_BACK, animated: true)
            if r.status == NG_OUTCOME_APPLIED {
                for p in [0.1, 0.35, 0.6, 0.2] {
                    step("interactive back update \(p)")
                    h.advance(16 * Harness.ms)
                    _ = ng_interactive_update(h.ctx, p)
                    h.tick()
                }
                step(commit ? "interactive back finish" : "interactive back cancel")
                if commit { _ = ng_transition_finish(h.ctx, NG_TRACK_ALL) } else { _ = ng_interactive_cancel(h.ctx) }
            }
            h.settle()
        }
        step("interactive back without the animated flag")
        h.submit(NG_REQ_INTERACTIVE_BACK)
        _ = ng_interactive_cancel(h.ctx)
        h.settle()
        return finish(h, m)
    }
    check("request.timed") {
        let m = h.mark()
        h.ensureDepth(2)
        step("push animated + timed (200 ms), then let the clock run")
        h.submit(NG_REQ_PUSH, animated: true, timed: true, duration: 200 * Harness.ms, screen: h.newScreen("timed"))
        for _ in 0..<5 { h.advance(60 * Harness.ms); h.tick() }
        step("pop animated + timed (context default)")
        h.submit(NG_REQ_POP, animated: true, timed: true)
        h.advance(Harness.second)
        h.tick()
        h.settle()
        return finish(h, m)
    }
    check("request.busy") {
        let m = h.mark()
        h.ensureDepth(3)
        step("push animated, then every kind while it runs")
        h.submit(NG_REQ_PUSH, animated: true, screen: h.newScreen("slow"))
        h.source += 1
        h.submit(NG_REQ_PUSH, animated: true, screen: h.newScreen("during"))
        h.submit(NG_REQ_POP, animated: true)
        h.submit(NG_REQ_BACK, animated: true)
        h.submit(NG_REQ_POP_TO_ROOT)
        h.submit(NG_REQ_INTERACTIVE_BACK, animated: true)
        step("finish, then let queued requests run")
        for _ in 0..<6 {
            _ = ng_transition_finish(h.ctx, NG_TRACK_ALL)
            h.advance(100 * Harness.ms)
            h.tick()
        }
        h.settle()
        return finish(h, m)
    }
    check("request.posted") {
        let m = h.mark()
        h.ensureDepth(2)
        step("ng_request_post push and pop, then tick")
        h.post(NG_REQ_PUSH, screen: h.newScreen("posted"))
        h.post(NG_REQ_POP)
        h.tick()
        h.settle()
        return finish(h, m)
    }
    check("request.invalid") {
        let m = h.mark()
        step("submit malformed requests (the core refuses them as invalid)")
        h.submit(99)
        h.submit(NG_REQ_PUSH, screen: ng_screen(id: 0, route: nil, identity: nil))
        h.submit(NG_REQ_REPLACE_STACK, stack: [])
        h.settle()
        return finish(h, m)
    }
}
