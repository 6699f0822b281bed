// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore

// hooks.ticks: the clock advanced in steps, and ng_next_deadline followed.

func tickChecks(_ h: Harness) {
    check("tick.advance") {
        let m = h.mark()
        let steps: [Int64] = [0, 1, Harness.ms, 16 * Harness.ms, 100 * Harness.ms, Harness.second, 10 * Harness.second,
                              3600 * Harness.second]
        for s in steps {
            step("advance \(s) ns and tick")
            h.advance(s)
            h.tick()
        }
        return finish(h, m)
    }
    check("tick.deadlines") {
        let m = h.mark()
        step("animated push + timed hold; follow ng_next_deadline")
        h.ensureDepth(2)
        h.submit(NG_REQ_PUSH, animated: true, timed: true, screen: h.newScreen("deadline"))
        h.holdBegin("validator.deadline", mask: NG_MASK_KEY, max: 500 * Harness.ms)
        var followed = 0
        for _ in 0..<200 {
            var next: Int64 = 0
            h.expect(ng_next_deadline(h.ctx, &next), "ng_next_deadline")
            guard next != Int64.max else { break }
            let now = h.now
            if next > now { h.expect(ng_clock_set(h.ctx, next), "ng_clock_set") }
            step("tick at the next deadline")
            h.tick()
            followed += 1
            if next <= now { h.advance(Harness.ms) }
        }
        h.settle()
        let ticks = hookIsSet(.onTick) ? "on_tick called \(Proxy.calls[Hook.onTick.rawValue]) times so far" : "no on_tick hook"
        return finish(h, m, extra: "followed \(followed) deadlines; \(ticks)")
    }
}
