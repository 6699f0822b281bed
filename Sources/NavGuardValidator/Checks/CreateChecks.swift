// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore

// Creating the guard: the create.empty group (an empty and a NULL
// configuration, one create and one destroy), create.config (the --config
// configuration) and the create.garbage.* groups (configurations it must
// survive: created, or refused with a status).

/// Statuses of ng_chain_add that mean "refused cleanly": the guard's create
/// failed (NG_E_GUARD), or the core rejected the configuration text first.
let cleanFailures: Set<ng_status> = [NG_E_GUARD, NG_E_PARSE, NG_E_TOO_LONG, NG_E_UTF8]

func createEmptyChecks(_ input: ValidationInput, _ plugin: PluginUnderTest) {
    let proxy = plugin.proxy
    for (name, config) in [("create.empty-config", Optional("{}")), ("create.null-config", nil)] {
        check(name) {
            let h = Harness()
            let logs0 = h.logs.count
            step("ng_chain_add with config \(config ?? "NULL")")
            let (st, why) = h.addGuard(proxy, config: config)
            if st == NG_OK {
                step("ng_context_destroy")
                h.destroy()
                return .pass("created with config \(config ?? "NULL")")
            }
            if !cleanFailures.contains(st) { return .fail("ng_chain_add: unexpected \(why)") }
            step("ng_context_destroy")
            h.destroy()
            if h.logs.count == logs0 {
                return .warn("create failed cleanly but logged nothing through host->log (it should say why): \(why)")
            }
            return .pass("failed cleanly with config \(config ?? "NULL"): \(why)")
        }
    }
    check("create.destroy") {
        let h = Harness()
        let creates = Proxy.calls[Hook.create.rawValue], destroys = Proxy.calls[Hook.destroy.rawValue]
        let (st, why) = h.addGuard(proxy, config: "{}")
        guard st == NG_OK else { return .pass("not applicable: create failed with {} (\(why))") }
        step("ng_context_destroy")
        let ds = h.destroy()
        if ds != NG_OK { return .fail("ng_context_destroy: \(statusName(ds))") }
        let c = Proxy.calls[Hook.create.rawValue] - creates, dd = Proxy.calls[Hook.destroy.rawValue] - destroys
        if c != 1 || dd != 1 { return .fail("create called \(c) times, destroy \(dd) times (expected once each)") }
        return .pass("created, destroyed once; host table untouched")
    }
}

/// create.config: hooks can only be exercised if the guard can be created.
func createConfigCheck(_ input: ValidationInput, _ plugin: PluginUnderTest) {
    let config = input.config
    check("create.config") {
        let h = Harness()
        step("ng_chain_add with config \(config)")
        let (st, why) = h.addGuard(plugin.proxy, config: config)
        h.destroy()
        if input.expectCreateFailure {
            if st == NG_OK { return .fail("created with \(config), though --expect-create-failure says it must be refused") }
            if !cleanFailures.contains(st) { return .fail("ng_chain_add: unexpected \(why)") }
            return .pass("refused, as expected: \(why)")
        }
        if st != NG_OK {
            return .fail("the guard cannot be created with \(config), so its hooks cannot run: \(why) "
                         + "(pass a configuration it accepts with --config, or --expect-create-failure when refusing it is the point)")
        }
        return .pass("created with \(config)")
    }
}

/// Configurations a guard must survive: created, or refused with a status.
/// Each is its own group, create.garbage.<label>.
let garbageConfigs: [(label: String, json: String)] = {
    func nested(_ depth: Int, _ leaf: String) -> String {
        String(repeating: "{\"a\":[", count: depth) + leaf + String(repeating: "]}", count: depth)
    }
    return [
        ("wrong-types", #"{"mode":123,"limit":"x","interval_ms":-5,"keep":[],"mask":"all","report":"yes","every_view_exclusive":1,"hold_during_transitions":{},"symbol":7,"library":false,"args":"kind","kinds":{"push":true},"blocked_routes":"home","max_depth":[1]}"#),
        ("nested", "{\"mode\":\(nested(15, "1")),\"limit\":\(nested(15, "\"x\"")),\"args\":\(nested(14, "[]"))}"),
        ("too-deep", nested(100, "0")),
        ("unknown-keys", #"{"validator_unknown_key":true,"x":{"y":[1,2,3]},"emoji 💥":"\u0000","":"","interval_ms_":5}"#),
        ("huge-numbers", #"{"interval_ms":9223372036854775807,"limit":-9223372036854775808,"mask":4294967296,"max_ms":1e308,"timeout_ms":-1e308,"max_depth":1.5}"#),
        ("nulls", #"{"mode":null,"keep":null,"limit":null,"interval_ms":null,"mask":null,"symbol":null,"library":null,"args":null,"blocked_routes":null}"#),
        ("lists", #"{"blocked_routes":[1,null,{},[],""],"args":["kind","no-such-arg",3],"kinds":["push","warp"],"mode":["queue"],"routes":[]}"#),
        ("empty-strings", #"{"mode":"","keep":"","symbol":"","library":"","returns":"","refuse_when":"","reason":""}"#),
        ("long-strings", "{\"mode\":\"\(String(repeating: "q", count: 600))\",\"symbol\":\"\(String(repeating: "s", count: 300))\"}"),
        ("truncated", #"{"mode":"queue","limit":"#),
        ("not-object", "[1,2,3]"),
    ]
}()

func garbageCheck(_ plugin: PluginUnderTest, _ garbage: (label: String, json: String)) {
    let (label, json) = garbage
    check("create.garbage.\(label)") {
        let h = Harness()
        step("ng_chain_add with the \(label) configuration")
        let (st, why) = h.addGuard(plugin.proxy, config: json)
        if st != NG_OK {
            if !cleanFailures.contains(st) { return .fail("ng_chain_add: unexpected \(why)") }
            step("ng_context_destroy")
            h.destroy()
            return .pass("refused cleanly: \(why)")
        }
        // Created: it must also work with that configuration.
        step("push, pop, touch and tick with the \(label) configuration")
        h.submit(NG_REQ_PUSH, animated: true, screen: h.newScreen("garbage"))
        h.settle()
        h.submit(NG_REQ_POP)
        h.settle()
        h.touch(on: Harness.button)
        h.advance(10 * Harness.second)
        h.tick()
        step("ng_context_destroy")
        h.destroy()
        return .pass("accepted, and ran: \(h.outcomeSummary(since: 0))")
    }
}
