// makeDescriptor: a static ng_plugin_descriptor whose hooks trampoline into a
// Swift guard instance.
//
// Every hook but create() receives the instance pointer, so one C function
// per hook serves every guard type: the instance is a GuardBox (passed
// retained as `void *instance`, released by destroy()) holding the guard
// once per hook protocol it conforms to. create() receives only the host
// table and the config text, nothing that says which descriptor it was
// called through, and a @convention(c) function cannot capture the guard
// type; so each descriptor gets its own create() from a fixed pool of
// `maxGuardTypes` functions, each reading its guard type from a registry
// slot.
import CNavGuard
import Synchronization

/// How many guard types one binary (plugin library, host or test program)
/// can make descriptors for. A descriptor made beyond it fails create()
/// with a logged error.
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
    registry.withLock { entries -> Sent<UnsafePointer<ng_plugin_descriptor>> in
        let idC = permanentCString(id)
        let key = ObjectIdentifier(type)
        for e in entries where e.type == key && CString(e.id) == CString(idC) {
            return Sent(UnsafePointer(e.descriptor))
        }
        let slot = entries.count
        let d = UnsafeMutablePointer<ng_plugin_descriptor>.allocate(capacity: 1)
        d.initialize(to: ng_plugin_descriptor(
            abi_major: UInt32(NG_PLUGIN_ABI_MAJOR),
            abi_minor: UInt32(NG_PLUGIN_ABI_MINOR),
            size: UInt32(MemoryLayout<ng_plugin_descriptor>.size),
            id: idC,
            name: permanentCString(name),
            version: permanentCString(version),
            description: permanentCString(description),
            create: createHook(slot),
            destroy: destroyHook,
            on_request: G.self is any RequestVoting.Type ? requestHook : nil,
            on_event: G.self is any EventVoting.Type ? eventHook : nil,
            on_outcome: G.self is any OutcomeObserving.Type ? outcomeHook : nil,
            on_transition: G.self is any TransitionObserving.Type ? transitionHook : nil,
            on_hold: G.self is any HoldObserving.Type ? holdHook : nil,
            on_tick: G.self is any Ticking.Type ? tickHook : nil,
            next_deadline: G.self is any Ticking.Type ? nextDeadlineHook : nil,
            get_extension: G.self is any ExtensionProviding.Type ? extensionHook : nil,
            options: optionArray(G.self),
            on_answer: G.self is any AnswerObserving.Type ? answerHook : nil))
        entries.append(Registration(type: key, factory: G.self, id: idC, descriptor: d))
        return Sent(UnsafePointer(d))
    }.value
}

// MARK: Registry

private struct Registration: @unchecked Sendable {
    var type: ObjectIdentifier
    var factory: any NavGuardGuard.Type
    var id: UnsafePointer<CChar>
    var descriptor: UnsafeMutablePointer<ng_plugin_descriptor>
}

private let registry = Mutex<[Registration]>([])

/// A pointer handed out of the lock (descriptors are immutable once built).
private struct Sent<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

private typealias CreateFn = @convention(c) (UnsafePointer<ng_guard_host>?, UnsafePointer<CChar>?) -> UnsafeMutableRawPointer?

/// create() for registry slot `slot`.
private func create(slot: Int, _ host: UnsafePointer<ng_guard_host>?) -> UnsafeMutableRawPointer? {
    guard let host else { return nil }
    let reg = registry.withLock { slot < $0.count ? $0[slot] : nil }
    let h = GuardHost(host)
    guard let reg else {
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
    guard let instance = reg.factory.init(host: h) else {
        // The guard should have logged why; this line guarantees a trace.
        h.log(.debug, "NavGuardPluginKit: init(host:) returned nil")
        return nil
    }
    return Unmanaged.passRetained(GuardBox(instance)).toOpaque()
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

/// The `void *instance`: the guard, once per hook protocol it conforms to
/// (cast once at create, so a hook costs a load, a retain/release pair and
/// a witness call: no allocation, no dynamic cast).
final class GuardBox {
    let instance: any NavGuardGuard
    let request: (any RequestVoting)?
    let event: (any EventVoting)?
    let outcome: (any OutcomeObserving)?
    let transition: (any TransitionObserving)?
    let hold: (any HoldObserving)?
    let ticking: (any Ticking)?
    let extensions: (any ExtensionProviding)?
    let answers: (any AnswerObserving)?

    init(_ g: any NavGuardGuard) {
        instance = g
        request = g as? any RequestVoting
        event = g as? any EventVoting
        outcome = g as? any OutcomeObserving
        transition = g as? any TransitionObserving
        hold = g as? any HoldObserving
        ticking = g as? any Ticking
        extensions = g as? any ExtensionProviding
        answers = g as? any AnswerObserving
    }

    @inline(__always)
    static func from(_ p: UnsafeMutableRawPointer) -> GuardBox {
        Unmanaged<GuardBox>.fromOpaque(p).takeUnretainedValue()
    }
}

// The hooks below allocate nothing: the request/event views copy C structs,
// votes carry StaticString messages (pointers into static storage), and the
// guard is reached through the box's stored existentials.

private let destroyHook: @convention(c) (UnsafeMutableRawPointer?) -> Void = { instance in
    guard let instance else { return }
    Unmanaged<GuardBox>.fromOpaque(instance).release()
}

private let requestHook: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ng_guard_request>?, UnsafeMutablePointer<ng_verdict>?) -> ng_vote = { instance, request, verdict in
    guard let instance, let request, let g = GuardBox.from(instance).request else { return NG_VOTE_ALLOW }
    switch g.vote(on: GuardRequest(request.pointee)) {
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
    guard let instance, let event, let g = GuardBox.from(instance).event else { return NG_VOTE_ALLOW }
    switch g.vote(on: GuardEvent(event.pointee)) {
    case .deliver:
        return NG_VOTE_ALLOW
    case .drop(let reason, let message):
        verdict?.pointee.reason = reason
        verdict?.pointee.message = message.flatMap(staticCString)
        return NG_VOTE_REFUSE
    }
}

private let outcomeHook: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ng_outcome>?) -> Void = { instance, outcome in
    guard let instance, let outcome, let g = GuardBox.from(instance).outcome else { return }
    g.observe(outcome: GuardOutcome(outcome.pointee))
}

private let transitionHook: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ng_transition_event>?) -> Void = { instance, event in
    guard let instance, let event, let g = GuardBox.from(instance).transition else { return }
    g.observe(transition: event.pointee)
}

private let holdHook: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ng_hold_notice>?) -> Void = { instance, notice in
    guard let instance, let notice, let g = GuardBox.from(instance).hold else { return }
    g.observe(hold: GuardHoldNotice(notice.pointee))
}

private let tickHook: @convention(c) (UnsafeMutableRawPointer?, Int64) -> Void = { instance, now in
    guard let instance, let g = GuardBox.from(instance).ticking else { return }
    g.tick(now: now)
}

private let nextDeadlineHook: @convention(c) (UnsafeMutableRawPointer?) -> Int64 = { instance in
    guard let instance, let g = GuardBox.from(instance).ticking else { return noDeadline }
    return g.nextDeadline
}

private let answerHook: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ng_question>?, ng_answer) -> Void = { instance, question, answer in
    guard let instance, let question, let g = GuardBox.from(instance).answers else { return }
    g.observe(answer: answer, to: GuardQuestion(question.pointee))
}

private let extensionHook: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> UnsafeRawPointer? = { instance, id in
    guard let instance, let id, let g = GuardBox.from(instance).extensions else { return nil }
    return g.getExtension(CString(id))
}
