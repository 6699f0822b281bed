// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore
import NavGuardLibc

// The load group: the plugin loads as the loader loads it (dlopen, dlsym,
// ng_plugin_entry), quickly, and then its descriptor is checked
// (DescriptorChecks.swift). Its gates are in ValidatorGroups.swift.

func loadChecks(_ input: ValidationInput) {
    let path = input.path
    var handle: UnsafeMutableRawPointer?
    var entry: ng_plugin_entry_fn?
    var d: UnsafePointer<ng_plugin_descriptor>?
    var scan: Int64 = 0

    check("load.dlopen") {
        step("dlopen(RTLD_NOW|RTLD_LOCAL|RTLD_NODELETE)")
        let t0 = monotonicNS()
        handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)
        scan += monotonicNS() - t0
        guard handle != nil else {
            return .fail("dlopen(RTLD_NOW|RTLD_LOCAL|RTLD_NODELETE): \(dlerror().map { String(cString: $0) } ?? "unknown error")")
        }
        return .pass("dlopen(RTLD_NOW|RTLD_LOCAL|RTLD_NODELETE) succeeded")
    }
    guard let handle else { return }
    check("load.entry-symbol") {
        let t0 = monotonicNS()
        let sym = dlsym(handle, NG_PLUGIN_ENTRY_SYMBOL)
        scan += monotonicNS() - t0
        guard let sym else { return .fail("dlsym(\(NG_PLUGIN_ENTRY_SYMBOL)): \(dlerror().map { String(cString: $0) } ?? "not found")") }
        entry = unsafeBitCast(sym, to: ng_plugin_entry_fn.self)
        return .pass("\(NG_PLUGIN_ENTRY_SYMBOL) found")
    }
    guard let entry else { return }
    check("load.entry") {
        step("call \(NG_PLUGIN_ENTRY_SYMBOL)()")
        let t0 = monotonicNS()
        d = entry()
        scan += monotonicNS() - t0
        guard let d else { return .fail("\(NG_PLUGIN_ENTRY_SYMBOL)() returned NULL") }
        step("call \(NG_PLUGIN_ENTRY_SYMBOL)() again")
        if entry() != d { return .warn("\(NG_PLUGIN_ENTRY_SYMBOL)() returned a different descriptor on a second call (it should be static)") }
        return .pass("returned a descriptor (the same one on a second call)")
    }
    check("load.scan-time") {
        let detail = "dlopen + dlsym + \(NG_PLUGIN_ENTRY_SYMBOL)(): \(formatMS(scan))"
        return scan < 100 * Harness.ms ? .pass(detail) : .warn(detail + " (over 100 ms: does the plugin do work at load?)")
    }
    guard let d else { return }
    descriptorChecks(path, d)
}
