// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore

// What the hooks.* groups share: the context with the guard, the closing
// destroy check, and how a hook check's result is decided.

/// A context with the guard under test (config from --config), or a warning.
func withGuard(_ group: String, _ proxy: UnsafePointer<ng_plugin_descriptor>, _ config: String, _ body: (Harness) -> Void) {
    let h = Harness()
    step("ng_chain_add with config \(config)")
    let (st, why) = h.addGuard(proxy, config: config)
    guard st == NG_OK else {
        check(group) { .warn("hooks not exercised: create failed with config \(config): \(why) (pass a working configuration with --config)") }
        return
    }
    body(h)
    check("\(group).destroy") {
        step("ng_context_destroy")
        let ds = h.destroy()
        if ds != NG_OK { return .fail("ng_context_destroy: \(statusName(ds))") }
        let bad = Proxy.instances.filter { $0.destroyed != 1 }
        if !bad.isEmpty { return .fail("\(bad.count) instance(s) not destroyed exactly once") }
        return .pass("context destroyed; " + hookCounts())
    }
}

func hookCounts() -> String {
    let set: [Hook] = Hook.allCases.filter { hookIsSet($0) }
    return "hook calls: " + set.map { "\($0.name) \(Proxy.calls[$0.rawValue])" }.joined(separator: ", ")
}

func hookIsSet(_ h: Hook) -> Bool { h.isSet(in: Proxy.proxy) }

/// The check passes unless NavGuard itself reported an unexpected status, or
/// the guard cancelled a touch from inside that touch's began vote.
func finish(_ h: Harness, _ m: Harness.Mark, extra: String = "") -> CheckResult {
    let detail = h.summary(since: m) + (extra.isEmpty ? "" : "; " + extra)
    if h.beganSelfCancels.count > m.selfCancels {
        return .fail("the guard's action inside a touch's began vote cancelled or blocked that very touch before its "
                     + "verdict returned (NavGuard dropped the began instead): "
                     + h.beganSelfCancels[m.selfCancels...].prefix(3).joined(separator: ", ")
                     + "; take holds and cancel touches after the began, e.g. from on_tick or a later event")
    }
    if h.anomalies.count > m.anomalies {
        return .warn(detail + "; unexpected statuses: " + h.anomalies[m.anomalies...].prefix(3).joined(separator: "; "))
    }
    return .pass(detail)
}
