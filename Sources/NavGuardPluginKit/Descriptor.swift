// SPDX-License-Identifier: Apache-2.0
// makeDescriptor: a static ng_plugin_descriptor whose hooks trampoline into a
// Swift guard instance.
//
// Every hook but create() receives the instance pointer, so one C function
// per hook serves every guard type: the instance is a GuardBox (passed
// retained as `void *instance`, released by destroy()) holding the guard and
// its type's hooks. Which hooks a type has, and how to call them, comes from
// requirements of NavGuardGuard that the hook protocols fill in (`_hooks`,
// Guard.swift): read at compile time, not by casting at run time, which
// Embedded Swift cannot do. create() receives only the host table and the
// config text, nothing that says which descriptor it was called through,
// and a @convention(c) function cannot capture the guard type; so each
// descriptor gets its own create() from a fixed pool of `maxGuardTypes`
// functions, each reading its guard type from a registry slot.
import CNavGuard
import Synchronization

/// How many guard types one binary (plugin library, host or test program)
/// can make descriptors for. Beyond it, each call makes a new descriptor
/// whose create() fails with a logged error.
public let maxGuardTypes = 32

/// The descriptor for guard type `G`: built on the first call for this type
/// and id, in storage that is never freed, and returned again by later calls
/// (so an entry point may call this every time; the other arguments of a
/// later call are ignored). Thread-safe. The strings must be literals (the
/// descriptor points at them).
///
/// The hooks set are exactly those of the protocols `G` conforms to;
/// create() and destroy() are always set.
///
///     @c(ng_plugin_entry)
///     public func entry() -> UnsafePointer<ng_plugin_descriptor>? {
///         makeDescriptor(MyGuard.self, id: "org.example.mine", name: "mine",
///                        version: "1.0.0", description: "What it does.")
///     }
public func makeDescriptor<G: NavGuardGuard>(_ type: G.Type, id: StaticString, name: StaticString,
                                             version: StaticString, description: StaticString)
    -> UnsafePointer<ng_plugin_descriptor>
{
    let idC = permanentCString(id)
    let key = ObjectIdentifier(type)
    for slot in 0..<maxGuardTypes {
        if registry.at(slot) == nil {
            // The first empty slot: claim it. Two threads registering the
            // same type race for the same slot, and the loser finds the
            // winner's registration there (the loser's descriptor storage,
            // never handed out, is not freed: a rare race, a few hundred
            // bytes).
            let reg = Registration.of(G.self, id: idC, name: name, version: version,
                                      description: description, slot: slot)
            if registry.publish(reg, slot: slot) { return reg.descriptor }
        }
        if let found = registry.find(slot: slot, type: key, id: idC) { return found.descriptor }
    }
    return Registration.of(G.self, id: idC, name: name, version: version, description: description,
                           slot: Int.max).descriptor
}

// MARK: Registry

/// One guard type and id: its descriptor (never freed) and how to make and
/// call its instances. Immutable once published.
final class Registration {
    let type: ObjectIdentifier
    let id: UnsafePointer<CChar>
    let descriptor: UnsafePointer<ng_plugin_descriptor>
    let make: (GuardHost) -> AnyObject?
    let hooks: GuardHooks

    init(type: ObjectIdentifier, id: UnsafePointer<CChar>, descriptor: UnsafePointer<ng_plugin_descriptor>,
         make: @escaping (GuardHost) -> AnyObject?, hooks: GuardHooks) {
        self.type = type
        self.id = id
        self.descriptor = descriptor
        self.make = make
        self.hooks = hooks
    }

    /// `G`'s, with the create() of `slot`. (A generic function, not a
    /// generic init: Embedded Swift allows no generic init in a class.)
    static func of<G: NavGuardGuard>(_: G.Type, id: UnsafePointer<CChar>, name: StaticString, version: StaticString,
                                     description: StaticString, slot: Int) -> Registration {
        let hooks = G._hooks
        let d = UnsafeMutablePointer<ng_plugin_descriptor>.allocate(capacity: 1)
        d.initialize(to: ng_plugin_descriptor(
            abi_major: UInt32(NG_PLUGIN_ABI_MAJOR),
            abi_minor: UInt32(NG_PLUGIN_ABI_MINOR),
            size: UInt32(MemoryLayout<ng_plugin_descriptor>.size),
            id: id,
            name: permanentCString(name),
            version: permanentCString(version),
            description: permanentCString(description),
            create: createHook(slot),
            destroy: destroyHook,
            on_request: hooks.request != nil ? requestHook : nil,
            on_event: hooks.event != nil ? eventHook : nil,
            on_outcome: hooks.outcome != nil ? outcomeHook : nil,
            on_transition: hooks.transition != nil ? transitionHook : nil,
            on_hold: hooks.hold != nil ? holdHook : nil,
            on_tick: hooks.tick != nil ? tickHook : nil,
            next_deadline: hooks.nextDeadline != nil ? nextDeadlineHook : nil,
            get_extension: hooks.getExtension != nil ? extensionHook : nil,
            options: G._options.map(optionArray),
            on_answer: hooks.answer != nil ? answerHook : nil,
            event_mask: G._eventMask))   // 0: every event
        return Registration(type: ObjectIdentifier(G.self), id: id, descriptor: UnsafePointer(d),
                            make: { G(host: $0) }, hooks: hooks)
    }
}

/// `maxGuardTypes` slots, filled in order and never emptied: lock-free (the
/// kit needs no lock, which Embedded Swift's Synchronization lacks on
/// Linux). A slot holds a retained Registration, published with release
/// ordering once complete.
private struct Registry: @unchecked Sendable {
    let slots: UnsafeMutablePointer<Atomic<UInt>>

    init() {
        slots = .allocate(capacity: maxGuardTypes)
        for i in 0..<maxGuardTypes { (slots + i).initialize(to: Atomic(0)) }
    }

    func at(_ slot: Int) -> Registration? {
        guard slot >= 0, slot < maxGuardTypes,
              let p = UnsafeRawPointer(bitPattern: slots[slot].load(ordering: .acquiring)) else { return nil }
        return Unmanaged<Registration>.fromOpaque(p).takeUnretainedValue()
    }

    func find(slot: Int, type: ObjectIdentifier, id: UnsafePointer<CChar>) -> Registration? {
        guard let r = at(slot), r.type == type, CString(r.id) == CString(id) else { return nil }
        return r
    }

    /// Whether `reg` took the empty `slot` (false: another did first).
    func publish(_ reg: Registration, slot: Int) -> Bool {
        // A published registration is retained for good.
        let p = Unmanaged.passRetained(reg)
        if slots[slot].compareExchange(expected: 0, desired: UInt(bitPattern: p.toOpaque()),
                                       ordering: .acquiringAndReleasing).exchanged { return true }
        p.release()
        return false
    }
}

private let registry = Registry()

private typealias CreateFn = @convention(c) (UnsafePointer<ng_guard_host>?, UnsafePointer<CChar>?) -> UnsafeMutableRawPointer?

/// create() for registry slot `slot`.
private func create(slot: Int, _ host: UnsafePointer<ng_guard_host>?) -> UnsafeMutableRawPointer? {
    guard let host else { return nil }
    let h = GuardHost(host)
    guard let reg = registry.at(slot) else {
        h.log(.error, "NavGuardPluginKit: more than \(maxGuardTypes) guard types in one binary; this one cannot be created")
        return nil
    }
    // plugin.h's one rule, seen from the plugin: the host's table first.
    guard ng_plugin_abi_compatible(host.pointee.abi_major, host.pointee.abi_minor,
                                   UInt32(NG_PLUGIN_ABI_MAJOR), UInt32(NG_PLUGIN_ABI_MINOR)),
          Int(host.pointee.size) >= Int(NG_GUARD_HOST_MIN_SIZE) else {
        h.log(.error, "NavGuardPluginKit: the host's guard table (ABI \(host.pointee.abi_major).\(host.pointee.abi_minor), \(host.pointee.size) bytes) does not fit a plugin built for \(NG_PLUGIN_ABI_MAJOR).\(NG_PLUGIN_ABI_MINOR)")
        return nil
    }
    guard let instance = reg.make(h) else {
        // The guard should have logged why; this line guarantees a trace.
        h.log(.debug, "NavGuardPluginKit: init(host:) returned nil")
        return nil
    }
    return Unmanaged.passRetained(GuardBox(instance, reg.hooks)).toOpaque()
}

/// A distinct C create() per slot (a C function pointer cannot carry the
/// slot), and past the pool one that always fails, saying why.
private func createHook(_ slot: Int) -> CreateFn {
    switch slot {
    case 0: return { h, _ in create(slot: 0, h) }
    case 1: return { h, _ in create(slot: 1, h) }
    case 2: return { h, _ in create(slot: 2, h) }
    case 3: return { h, _ in create(slot: 3, h) }
    case 4: return { h, _ in create(slot: 4, h) }
    case 5: return { h, _ in create(slot: 5, h) }
    case 6: return { h, _ in create(slot: 6, h) }
    case 7: return { h, _ in create(slot: 7, h) }
    case 8: return { h, _ in create(slot: 8, h) }
    case 9: return { h, _ in create(slot: 9, h) }
    case 10: return { h, _ in create(slot: 10, h) }
    case 11: return { h, _ in create(slot: 11, h) }
    case 12: return { h, _ in create(slot: 12, h) }
    case 13: return { h, _ in create(slot: 13, h) }
    case 14: return { h, _ in create(slot: 14, h) }
    case 15: return { h, _ in create(slot: 15, h) }
    case 16: return { h, _ in create(slot: 16, h) }
    case 17: return { h, _ in create(slot: 17, h) }
    case 18: return { h, _ in create(slot: 18, h) }
    case 19: return { h, _ in create(slot: 19, h) }
    case 20: return { h, _ in create(slot: 20, h) }
    case 21: return { h, _ in create(slot: 21, h) }
    case 22: return { h, _ in create(slot: 22, h) }
    case 23: return { h, _ in create(slot: 23, h) }
    case 24: return { h, _ in create(slot: 24, h) }
    case 25: return { h, _ in create(slot: 25, h) }
    case 26: return { h, _ in create(slot: 26, h) }
    case 27: return { h, _ in create(slot: 27, h) }
    case 28: return { h, _ in create(slot: 28, h) }
    case 29: return { h, _ in create(slot: 29, h) }
    case 30: return { h, _ in create(slot: 30, h) }
    case 31: return { h, _ in create(slot: 31, h) }
    default: return { h, _ in create(slot: Int.max, h) }
    }
}

// MARK: Instances and hooks

/// The `void *instance`: the guard and its type's hooks (a hook costs a
/// load, a retain/release pair and a call: no allocation, no dynamic cast).
final class GuardBox {
    let instance: AnyObject
    /// `instance`, unretained, as the hooks take it.
    let opaque: UnsafeMutableRawPointer
    let hooks: GuardHooks

    init(_ g: AnyObject, _ hooks: GuardHooks) {
        instance = g
        opaque = Unmanaged.passUnretained(g).toOpaque()
        self.hooks = hooks
    }

    @inline(__always)
    static func from(_ p: UnsafeMutableRawPointer) -> GuardBox {
        Unmanaged<GuardBox>.fromOpaque(p).takeUnretainedValue()
    }
}

// The hooks below allocate nothing: the request/event views copy C structs,
// votes carry StaticString messages (pointers into static storage), and the
// guard is reached through its box's hooks.

private let destroyHook: @convention(c) (UnsafeMutableRawPointer?) -> Void = { instance in
    guard let instance else { return }
    Unmanaged<GuardBox>.fromOpaque(instance).release()
}

private let requestHook: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ng_guard_request>?, UnsafeMutablePointer<ng_verdict>?) -> ng_vote = { instance, request, verdict in
    guard let instance, let request else { return NG_VOTE_ALLOW }
    let box = GuardBox.from(instance)
    guard let vote = box.hooks.request else { return NG_VOTE_ALLOW }
    switch vote(box.opaque, GuardRequest(request.pointee)) {
    case .allow:
        return NG_VOTE_ALLOW
    case .refuse(let reason, let message):
        verdict?.pointee.reason = reason
        verdict?.pointee.message = message.flatMap(staticCString)
        return NG_VOTE_REFUSE
    case .defer:
        return NG_VOTE_DEFER
    }
}

private let eventHook: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ng_guard_event>?, UnsafeMutablePointer<ng_verdict>?) -> ng_vote = { instance, event, verdict in
    guard let instance, let event else { return NG_VOTE_ALLOW }
    let box = GuardBox.from(instance)
    guard let vote = box.hooks.event else { return NG_VOTE_ALLOW }
    switch vote(box.opaque, GuardEvent(event.pointee)) {
    case .deliver:
        return NG_VOTE_ALLOW
    case .drop(let reason, let message):
        verdict?.pointee.reason = reason
        verdict?.pointee.message = message.flatMap(staticCString)
        return NG_VOTE_REFUSE
    }
}

private let outcomeHook: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ng_outcome>?) -> Void = { instance, outcome in
    guard let instance, let outcome else { return }
    let box = GuardBox.from(instance)
    box.hooks.outcome?(box.opaque, GuardOutcome(outcome.pointee))
}

private let transitionHook: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ng_transition_event>?) -> Void = { instance, event in
    guard let instance, let event else { return }
    let box = GuardBox.from(instance)
    box.hooks.transition?(box.opaque, event.pointee)
}

private let holdHook: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ng_hold_notice>?) -> Void = { instance, notice in
    guard let instance, let notice else { return }
    let box = GuardBox.from(instance)
    box.hooks.hold?(box.opaque, GuardHoldNotice(notice.pointee))
}

private let tickHook: @convention(c) (UnsafeMutableRawPointer?, Int64) -> Void = { instance, now in
    guard let instance else { return }
    let box = GuardBox.from(instance)
    box.hooks.tick?(box.opaque, now)
}

private let nextDeadlineHook: @convention(c) (UnsafeMutableRawPointer?) -> Int64 = { instance in
    guard let instance else { return noDeadline }
    let box = GuardBox.from(instance)
    return box.hooks.nextDeadline?(box.opaque) ?? noDeadline
}

private let answerHook: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ng_question>?, ng_answer) -> Void = { instance, question, answer in
    guard let instance, let question else { return }
    let box = GuardBox.from(instance)
    box.hooks.answer?(box.opaque, answer, GuardQuestion(question.pointee))
}

private let extensionHook: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> UnsafeRawPointer? = { instance, id in
    guard let instance, let id else { return nil }
    let box = GuardBox.from(instance)
    return box.hooks.getExtension?(box.opaque, CString(id))
}
