// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore

// The loader group: the plugin through the real loader (ng_plugin_load),
// not the proxy.

func loaderChecks(_ input: ValidationInput, _ descriptor: GuardDescriptor) {
    let path = input.path, config = input.config
    check("loader.ng_plugin_load") {
        let h = Harness()
        step("ng_plugin_load(\(path))")
        let logs0 = h.logs.count
        let st = ng_plugin_load(h.ctx, path, config)
        if st != NG_OK {
            let why = h.failureDetail(st, logsFrom: logs0)
            if st == NG_E_GUARD || st == NG_E_PARSE { return .warn("loaded, but create failed cleanly with config \(config): \(why)") }
            return .fail("ng_plugin_load: \(why)")
        }
        var idp: UnsafePointer<CChar>?
        h.expect(ng_chain_get_id(h.ctx, 0, &idp), "ng_chain_get_id")
        let id = text(idp) ?? ""
        let want = descriptor.id
        step("run a push and a touch through the loaded guard")
        h.submit(NG_REQ_PUSH, animated: true, screen: h.newScreen("loaded"))
        h.touch(on: Harness.button)
        h.settle()
        step("load it a second time into the same context (a duplicate id)")
        let again = ng_plugin_load(h.ctx, path, config)
        h.destroy()
        if id != want { return .fail("the chain has id \"\(id)\", the descriptor says \"\(want)\"") }
        let dup = again == NG_OK ? "a second load of the same id was accepted" : "a second load was refused (\(statusCode(again)))"
        return .pass("loaded through ng_plugin_load as \(id); \(dup)")
    }
}
