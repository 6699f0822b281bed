// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore

// The extension group: get_extension answers NULL for ids it does not know.

func extensionChecks(_ input: ValidationInput, _ plugin: PluginUnderTest) {
    let config = input.config
    check("extension.unknown-id") {
        guard let getExtension = plugin.descriptor.d.get_extension else { return .pass("get_extension is NULL (no extensions)") }
        let h = Harness()
        var (st, why) = h.addGuard(plugin.proxy, config: config)
        if st != NG_OK && config != "{}" { (st, why) = h.addGuard(plugin.proxy, config: "{}") }
        guard st == NG_OK, let inst = Proxy.liveInstance() else {
            return .warn("not checked: no instance (create failed: \(why))")
        }
        var found: [String] = []
        for id in ["org.navguard.validator.unknown/1", "org.navguard.validator.unknown/1 ", "", "org.navguard.report/999999",
                   String(repeating: "x", count: 2000)] {
            step("get_extension(instance, \"\(id.prefix(40))\")")
            if getExtension(inst, id) != nil { found.append("\"\(id.prefix(40))\"") }
        }
        h.destroy()
        if !found.isEmpty { return .fail("get_extension returned non-NULL for unknown id(s) \(found.joined(separator: ", "))") }
        return .pass("NULL for \"org.navguard.validator.unknown/1\" and 4 other unknown ids")
    }
}
