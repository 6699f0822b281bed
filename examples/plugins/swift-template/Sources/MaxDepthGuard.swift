// SPDX-License-Identifier: Apache-2.0
// MaxDepthGuard.swift — a NavGuard guard plugin written in Swift.
//
// TEMPLATE FOR INTEGRATORS. One file, no Foundation: it imports the C module
// CNavGuard (include/module.modulemap: navguard.h + plugin.h) and
// NavGuardPluginKit (Sources/NavGuardPluginKit: plugin.h in Swift), is
// compiled with Embedded Swift (no Swift runtime: it needs only libc), and
// exports a single symbol, ng_plugin_entry. Copy it, change the id and the
// policy (what Embedded Swift refuses, and the ordinary Swift fallback:
// examples/plugins/README.md, "Embedded Swift").
//
// The guard: org.example.max-depth. Refuses a push (or a replace-stack) that
// would make the stack deeper than "max_depth" screens (default 8), with
// NG_REASON_POLICY.
//
//     {"max_depth": 5}
//
// Rules the Swift side must keep (the same as for C guards, plus two):
//  - Declare the options (OptionDeclaring): the host then checks every
//    configuration before init?(host:) runs (a misspelt key, a wrong type or
//    a value out of range never reaches it) and answers a key that is absent
//    with its declared default. Check anything else in init?(host:) and
//    return nil (after host.log) on a bad value; nothing may trap in a hook:
//    a Swift runtime error there kills the host.
//  - Verdict messages are string literals (StaticString): static storage, as
//    plugin.h requires, and no allocation on the vote path.
//  - Per-context state lives in the instance; the kit passes it to the host
//    as the `void *instance` and releases it at destroy().
//  - Hosts load plugins with RTLD_NODELETE and never unload them (a Swift
//    library that used concurrency crashes on dlclose): keep no teardown work
//    for library unload.
import CNavGuard
import NavGuardPluginKit

/// One instance per context. Conforming to RequestVoting sets on_request in
/// the descriptor; every hook the guard does not implement stays NULL.
final class MaxDepth: RequestVoting, OptionDeclaring {
    static let options: [GuardOption] = [
        .int("max_depth", default: 8, range: 1...4096, doc: "the deepest stack a push may make"),
    ]
    let host: GuardHost
    let maxDepth: Int

    init?(host: GuardHost) {
        // Declared with a default and a range, checked by the host: it reads.
        guard let maxDepth = host.int("max_depth") else {
            host.log(.error, "max-depth: \"max_depth\" is missing (a host older than plugin ABI 1.1?)")
            return nil
        }
        self.host = host
        self.maxDepth = maxDepth
        host.log(.info, "max-depth: at most \(maxDepth) screens")
    }

    func vote(on request: GuardRequest) -> Vote {
        let depthAfter: Int
        switch request.kind {
        case NG_REQ_PUSH: depthAfter = host.stackCount + 1
        case NG_REQ_REPLACE_STACK: depthAfter = request.screens.count
        default: return .allow
        }
        return depthAfter > maxDepth
            ? .refuse(NG_REASON_POLICY, message: "the stack would be deeper than max_depth")
            : .allow
    }
}

/// The one exported symbol (SE-0495 `@c(name)`; `@_cdecl("ng_plugin_entry")`
/// on compilers before Swift 6.3). makeDescriptor builds the descriptor on
/// the first call and returns the same one afterwards.
@c(ng_plugin_entry)
public func entry() -> UnsafePointer<ng_plugin_descriptor>? {
    makeDescriptor(MaxDepth.self,
                   id: "org.example.max-depth",
                   name: "max-depth",
                   version: "1.0.0",
                   description: "Refuses pushes that would make the stack deeper than max_depth (default 8).")
}
