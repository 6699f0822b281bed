// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore

// The lifecycle group: destroy with work in flight, two contexts side by side,
// repeated create/destroy.

func lifecycleChecks(_ input: ValidationInput, _ plugin: PluginUnderTest) {
    let proxy = plugin.proxy, config = input.config
    check("lifecycle.destroy-busy") {
        let h = Harness()
        let (st, why) = h.addGuard(proxy, config: config)
        guard st == NG_OK else { return .warn("not exercised: create failed with config \(config): \(why)") }
        step("leave a transition, a hold, a touch and a posted request live, then destroy")
        h.ensureDepth(2)
        h.submit(NG_REQ_PUSH, animated: true, screen: h.newScreen("busy"))
        h.submit(NG_REQ_POP, animated: true, source: 55)
        h.holdBegin("validator.live", mask: NG_MASK_KEY)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 1000, at: Harness.point(of: Harness.multi))
        h.post(NG_REQ_PUSH, screen: h.newScreen("late"))
        step("ng_context_destroy")
        let ds = h.destroy()
        if ds != NG_OK { return .fail("ng_context_destroy: \(statusName(ds))") }
        let bad = Proxy.instances.filter { $0.destroyed != 1 }
        if !bad.isEmpty { return .fail("\(bad.count) instance(s) not destroyed exactly once") }
        return .pass("destroyed with work in flight; " + h.outcomeSummary(since: 0))
    }
    check("lifecycle.two-contexts") {
        let a = Harness(), b = Harness()
        let (sa, wa) = a.addGuard(proxy, config: config)
        let (sb, wb) = b.addGuard(proxy, config: config)
        guard sa == NG_OK, sb == NG_OK else { return .warn("not exercised: create failed: \(sa == NG_OK ? wb : wa)") }
        step("interleave two contexts with one instance each")
        for i in 0..<4 {
            a.submit(NG_REQ_PUSH, animated: i % 2 == 0, screen: a.newScreen("a\(i)"))
            b.submit(NG_REQ_PUSH, animated: i % 2 == 1, screen: b.newScreen("b\(i)"))
            a.touch(on: Harness.button)
            b.touch(on: Harness.multi)
            a.settle()
            b.settle()
        }
        step("destroy the first context, keep using the second")
        a.destroy()
        b.submit(NG_REQ_POP, animated: true)
        b.touch(on: Harness.circle)
        b.settle()
        b.destroy()
        let bad = Proxy.instances.filter { $0.destroyed != 1 }
        if !bad.isEmpty { return .fail("\(bad.count) instance(s) not destroyed exactly once") }
        return .pass("two instances used side by side, each destroyed once")
    }
    check("lifecycle.repeat") {
        step("create and destroy 50 contexts with the guard")
        for _ in 0..<50 {
            let h = Harness()
            let (st, why) = h.addGuard(proxy, config: config)
            if st != NG_OK { return .warn("not exercised: create failed: \(why)") }
            h.submit(NG_REQ_PUSH, screen: h.newScreen("r"))
            h.destroy()
        }
        return .pass("50 create/destroy cycles")
    }
}
