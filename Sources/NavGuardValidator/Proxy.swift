// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardLibc
import NavGuardCore

// The validator's descriptor proxy: a copy of the plugin's descriptor whose
// hooks forward to the plugin's own and record what happened, so that the
// validator can count hook calls, check every vote and verdict the plugin
// returns, find its instances (for get_extension) and see whether it wrote to
// the host table it was given. NULL hooks stay NULL, so the core treats the
// proxy exactly as it treats the plugin. One plugin per process (the
// validator's child), hence the process-wide state.

public enum Hook: Int, CaseIterable, Sendable {
    case create, destroy, onRequest, onEvent, onOutcome, onTransition, onHold, onTick, nextDeadline, getExtension,
         onAnswer

    public var name: String {
        switch self {
        case .create: return "create"
        case .destroy: return "destroy"
        case .onRequest: return "on_request"
        case .onEvent: return "on_event"
        case .onOutcome: return "on_outcome"
        case .onTransition: return "on_transition"
        case .onHold: return "on_hold"
        case .onTick: return "on_tick"
        case .nextDeadline: return "next_deadline"
        case .getExtension: return "get_extension"
        case .onAnswer: return "on_answer"
        }
    }

    /// The hooks a guard may leave NULL, in descriptor order.
    public static let optional: [Hook] = allCases.filter { $0 != .create && $0 != .destroy }

    /// Whether the descriptor at `d` has this hook (reads that field only).
    public func isSet(in d: UnsafePointer<ng_plugin_descriptor>) -> Bool {
        switch self {
        case .create: return d.pointee.create != nil
        case .destroy: return d.pointee.destroy != nil
        case .onRequest: return d.pointee.on_request != nil
        case .onEvent: return d.pointee.on_event != nil
        case .onOutcome: return d.pointee.on_outcome != nil
        case .onTransition: return d.pointee.on_transition != nil
        case .onHold: return d.pointee.on_hold != nil
        case .onTick: return d.pointee.on_tick != nil
        case .nextDeadline: return d.pointee.next_deadline != nil
        case .getExtension: return d.pointee.get_extension != nil
        case .onAnswer: return d.pointee.on_answer != nil
        }
    }
}

struct InstanceRecord {
    var instance: UnsafeMutableRawPointer
    var host: UnsafePointer<ng_guard_host>
    var snapshot: [UInt8]
    var destroyed: Int
}

enum Proxy {
    /// The plugin's descriptor as the loader reads it: the hooks forwarded to.
    nonisolated(unsafe) static var plugin: GuardDescriptor!
    nonisolated(unsafe) static var proxy: UnsafeMutablePointer<ng_plugin_descriptor>!
    nonisolated(unsafe) static var calls = [Int](repeating: 0, count: Hook.allCases.count)
    nonisolated(unsafe) static var instances: [InstanceRecord] = []
    /// Contract breaches found inside hooks (a check that sees a new one fails).
    nonisolated(unsafe) static var violations: [String] = []
    /// Doubtful but legal behaviour (a check that sees a new one warns).
    nonisolated(unsafe) static var warnings: [String] = []

    /// Where the current check's entries begin (each is reported once per check).
    nonisolated(unsafe) static var violationsMark = 0
    nonisolated(unsafe) static var warningsMark = 0

    static func violation(_ s: String) {
        if violations.count - violationsMark < 16 && !violations[violationsMark...].contains(s) { violations.append(s) }
    }
    static func warning(_ s: String) {
        if warnings.count - warningsMark < 16 && !warnings[warningsMark...].contains(s) { warnings.append(s) }
    }

    /// Build the proxy from the loader's reading of the plugin's descriptor
    /// (its `size` is kept; fields past it read as zero, so stay NULL).
    static func install(_ g: GuardDescriptor) -> UnsafePointer<ng_plugin_descriptor> {
        plugin = g
        let p = UnsafeMutablePointer<ng_plugin_descriptor>.allocate(capacity: 1)
        p.initialize(to: g.d)
        if p.pointee.create != nil { p.pointee.create = proxyCreate }
        if p.pointee.destroy != nil { p.pointee.destroy = proxyDestroy }
        if p.pointee.on_request != nil { p.pointee.on_request = proxyOnRequest }
        if p.pointee.on_event != nil { p.pointee.on_event = proxyOnEvent }
        if p.pointee.on_outcome != nil { p.pointee.on_outcome = proxyOnOutcome }
        if p.pointee.on_transition != nil { p.pointee.on_transition = proxyOnTransition }
        if p.pointee.on_hold != nil { p.pointee.on_hold = proxyOnHold }
        if p.pointee.on_tick != nil { p.pointee.on_tick = proxyOnTick }
        if p.pointee.next_deadline != nil { p.pointee.next_deadline = proxyNextDeadline }
        if p.pointee.get_extension != nil { p.pointee.get_extension = proxyGetExtension }
        if p.pointee.on_answer != nil { p.pointee.on_answer = proxyOnAnswer }
        proxy = p
        return UnsafePointer(p)
    }

    static func snapshot(_ host: UnsafePointer<ng_guard_host>) -> [UInt8] {
        let n = min(Int(host.pointee.size), MemoryLayout<ng_guard_host>.size)
        return Array(UnsafeRawBufferPointer(start: UnsafeRawPointer(host), count: max(n, 0)))
    }

    /// Compare each live instance's host table with its copy taken at create.
    static func checkHosts() {
        for r in instances where r.destroyed == 0 { compare(r) }
    }

    static func compare(_ r: InstanceRecord) {
        let now = snapshot(r.host)
        if now.count != r.snapshot.count {
            violation("the ng_guard_host table changed size (the plugin wrote to it)")
            return
        }
        for i in 0..<now.count where now[i] != r.snapshot[i] {
            violation("the plugin wrote to the ng_guard_host table it was given (byte offset \(i))")
            return
        }
    }

    static func liveInstance() -> UnsafeMutableRawPointer? {
        instances.last(where: { $0.destroyed == 0 })?.instance
    }

    static func checkVerdict(_ hook: String, _ v: UnsafeMutablePointer<ng_verdict>?) {
        guard let v else { return }
        let reason = v.pointee.reason
        if reason < 0 || reason >= NG_REASON_COUNT {
            violation("\(hook) refused with reason \(reason), not an NG_REASON_* value")
        } else if reason == NG_REASON_NONE {
            warning("\(hook) refused without a reason (NG_REASON_NONE)")
        }
        if let m = v.pointee.message {
            if !isValidUTF8C(m) { violation("\(hook) verdict message is not valid UTF-8") }
            if strnlen(m, Int(NG_MAX_STRING) + 1) > Int(NG_MAX_STRING) {
                warning("\(hook) verdict message is longer than NG_MAX_STRING (\(NG_MAX_STRING)) bytes")
            }
        }
    }
}

// MARK: - The forwarding hooks

private let proxyCreate: @convention(c) (UnsafePointer<ng_guard_host>?, UnsafePointer<CChar>?) -> UnsafeMutableRawPointer? = { host, config in
    Proxy.calls[Hook.create.rawValue] += 1
    let snap = host.map { Proxy.snapshot($0) } ?? []
    let inst = Proxy.plugin.d.create!(host, config)
    if let inst, let host {
        let r = InstanceRecord(instance: inst, host: host, snapshot: snap, destroyed: 0)
        Proxy.compare(r)
        Proxy.instances.append(r)
    }
    return inst
}

private let proxyDestroy: @convention(c) (UnsafeMutableRawPointer?) -> Void = { inst in
    Proxy.calls[Hook.destroy.rawValue] += 1
    var index: Int?
    if let i = Proxy.instances.firstIndex(where: { $0.instance == inst && $0.destroyed == 0 }) {
        index = i
        Proxy.compare(Proxy.instances[i])
    } else if Proxy.instances.contains(where: { $0.instance == inst }) {
        Proxy.violation("destroy called twice for one instance (core)")
    }
    Proxy.plugin.d.destroy!(inst)
    if let i = index { Proxy.instances[i].destroyed += 1 }
}

private let proxyOnRequest: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ng_guard_request>?, UnsafeMutablePointer<ng_verdict>?) -> ng_vote = { inst, request, verdict in
    Proxy.calls[Hook.onRequest.rawValue] += 1
    let vote = Proxy.plugin.d.on_request!(inst, request, verdict)
    switch vote {
    case NG_VOTE_ALLOW, NG_VOTE_DEFER: break
    case NG_VOTE_REFUSE: Proxy.checkVerdict("on_request", verdict)
    default: Proxy.violation("on_request returned \(vote), not an NG_VOTE_* value")
    }
    return vote
}

private let proxyOnEvent: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ng_guard_event>?, UnsafeMutablePointer<ng_verdict>?) -> ng_vote = { inst, event, verdict in
    Proxy.calls[Hook.onEvent.rawValue] += 1
    let vote = Proxy.plugin.d.on_event!(inst, event, verdict)
    let final = event.map { $0.pointee.flags & NG_GEVF_FINAL != 0 } ?? false
    switch vote {
    case NG_VOTE_ALLOW: break
    case NG_VOTE_REFUSE: if !final { Proxy.checkVerdict("on_event", verdict) }
    case NG_VOTE_DEFER: Proxy.violation("on_event returned NG_VOTE_DEFER (only requests may be deferred)")
    default: Proxy.violation("on_event returned \(vote), not an NG_VOTE_* value")
    }
    return vote
}

private let proxyOnOutcome: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ng_outcome>?) -> Void = { inst, outcome in
    Proxy.calls[Hook.onOutcome.rawValue] += 1
    Proxy.plugin.d.on_outcome!(inst, outcome)
}

private let proxyOnTransition: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ng_transition_event>?) -> Void = { inst, event in
    Proxy.calls[Hook.onTransition.rawValue] += 1
    Proxy.plugin.d.on_transition!(inst, event)
}

private let proxyOnHold: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ng_hold_notice>?) -> Void = { inst, notice in
    Proxy.calls[Hook.onHold.rawValue] += 1
    Proxy.plugin.d.on_hold!(inst, notice)
}

private let proxyOnTick: @convention(c) (UnsafeMutableRawPointer?, Int64) -> Void = { inst, now in
    Proxy.calls[Hook.onTick.rawValue] += 1
    Proxy.plugin.d.on_tick!(inst, now)
}

private let proxyNextDeadline: @convention(c) (UnsafeMutableRawPointer?) -> Int64 = { inst in
    Proxy.calls[Hook.nextDeadline.rawValue] += 1
    return Proxy.plugin.d.next_deadline!(inst)
}

private let proxyOnAnswer: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ng_question>?, ng_answer) -> Void = { inst, question, answer in
    Proxy.calls[Hook.onAnswer.rawValue] += 1
    if answer < NG_ANSWER_YES || answer > NG_ANSWER_WITHDRAWN { Proxy.violation("on_answer with answer \(answer) (core)") }
    Proxy.plugin.d.on_answer!(inst, question, answer)
}

private let proxyGetExtension: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> UnsafeRawPointer? = { inst, id in
    Proxy.calls[Hook.getExtension.rawValue] += 1
    return Proxy.plugin.d.get_extension!(inst, id)
}
