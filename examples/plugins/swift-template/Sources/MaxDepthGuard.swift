// MaxDepthGuard.swift — a NavGuard guard plugin written in Swift.
//
// TEMPLATE FOR INTEGRATORS. One file, no Foundation: it imports only the C
// module CNavGuard (include/module.modulemap: navguard.h + plugin.h) and is
// linked with the Swift runtime inside (-static-stdlib), exporting a single
// symbol, ng_plugin_entry. Copy it, change the id and the policy.
//
// The guard: org.example.max-depth. Refuses a push (or a replace-stack) that
// would make the stack deeper than "max_depth" screens (default 8), with
// NG_REASON_POLICY.
//
//     {"max_depth": 5}
//
// Rules the Swift side must keep (the same as for C guards, plus two):
//  - Every hook is a @convention(c) closure: it captures nothing, and reaches
//    its state through the `instance` pointer (an Unmanaged class here).
//  - Strings handed to the host (id, names, verdict messages) must outlive
//    the call: StaticString literals are static storage.
//  - Nothing may throw or trap across the C boundary: a Swift runtime error in
//    a hook kills the host. Validate the configuration in create() and fail
//    with NULL (after host->log) instead.
//  - Hosts load plugins with RTLD_NODELETE and never unload them (a Swift
//    library that used concurrency crashes on dlclose): keep no teardown work
//    for library unload.
import CNavGuard

/// A C string from a string literal: static storage, valid forever.
private func cString(_ s: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// One instance per context; owned by the host between create and destroy.
private final class MaxDepth {
    let host: UnsafePointer<ng_guard_host>
    let maxDepth: Int
    var refusals = 0

    init(host: UnsafePointer<ng_guard_host>, maxDepth: Int) {
        self.host = host
        self.maxDepth = maxDepth
    }

    func log(_ severity: ng_severity, _ message: String) {
        // The host copies the text: a temporary C string is fine.
        message.withCString { host.pointee.log(host, severity, $0) }
    }

    static func from(_ instance: UnsafeMutableRawPointer?) -> MaxDepth {
        Unmanaged<MaxDepth>.fromOpaque(instance!).takeUnretainedValue()
    }
}

private let create: @convention(c) (UnsafePointer<ng_guard_host>?, UnsafePointer<CChar>?) -> UnsafeMutableRawPointer? = { host, _ in
    guard let host else { return nil }
    var value: Int64 = 8
    let status = host.pointee.config_int(host, "max_depth", &value)
    if status == NG_E_NOT_FOUND {
        value = 8
    } else if status != NG_OK || value < 1 || value > Int64(NG_MAX_STACK) {
        host.pointee.log(host, NG_LOG_ERROR, "max-depth: \"max_depth\" must be an integer in 1...4096")
        return nil
    }
    let guardState = MaxDepth(host: host, maxDepth: Int(value))
    guardState.log(NG_LOG_INFO, "max-depth: at most \(value) screens")
    return Unmanaged.passRetained(guardState).toOpaque()
}

private let destroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { instance in
    guard let instance else { return }
    Unmanaged<MaxDepth>.fromOpaque(instance).release()
}

private let onRequest: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ng_guard_request>?, UnsafeMutablePointer<ng_verdict>?) -> ng_vote = { instance, request, verdict in
    guard let request, let verdict else { return NG_VOTE_ALLOW }
    let g = MaxDepth.from(instance)
    let depthAfter: Int
    switch request.pointee.kind {
    case NG_REQ_PUSH:
        depthAfter = g.host.pointee.stack_count(g.host) + 1
    case NG_REQ_REPLACE_STACK:
        depthAfter = request.pointee.screen_count
    default:
        return NG_VOTE_ALLOW
    }
    guard depthAfter > g.maxDepth else { return NG_VOTE_ALLOW }
    g.refusals += 1
    verdict.pointee.reason = NG_REASON_POLICY
    verdict.pointee.message = cString("the stack would be deeper than max_depth")
    return NG_VOTE_REFUSE
}

private let getExtension: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> UnsafeRawPointer? = { _, _ in
    nil  // no optional capabilities; an unknown id must give NULL
}

/// The descriptor: built once (Swift globals are initialized lazily and
/// thread-safely), at a stable address, never freed.
nonisolated(unsafe) private let descriptor: UnsafeMutablePointer<ng_plugin_descriptor> = {
    let d = UnsafeMutablePointer<ng_plugin_descriptor>.allocate(capacity: 1)
    d.initialize(to: ng_plugin_descriptor(
        abi_major: UInt32(NG_PLUGIN_ABI_MAJOR),
        abi_minor: UInt32(NG_PLUGIN_ABI_MINOR),
        size: UInt32(MemoryLayout<ng_plugin_descriptor>.size),
        id: cString("org.example.max-depth"),
        name: cString("max-depth"),
        version: cString("1.0.0"),
        description: cString("Refuses pushes that would make the stack deeper than max_depth (default 8)."),
        create: create,
        destroy: destroy,
        on_request: onRequest,
        on_event: nil,
        on_outcome: nil,
        on_transition: nil,
        on_hold: nil,
        on_tick: nil,
        next_deadline: nil,
        get_extension: getExtension))
    return d
}()

/// The one exported symbol (SE-0495 `@c`: a C function named ng_plugin_entry;
/// `@_cdecl("ng_plugin_entry")` does the same on older compilers).
@c public func ng_plugin_entry() -> UnsafePointer<ng_plugin_descriptor>? {
    UnsafePointer(descriptor)
}
