// SPDX-License-Identifier: Apache-2.0
// NavGuardPluginKit — write NavGuard guard plugins in Swift.
//
// The kit wraps include/navguard/plugin.h and nothing else: it imports the C
// header module CNavGuard (plus the standard library's Synchronization for
// the atomics of its registry of guard types), never NavGuardCore or
// Foundation, and compiles in Embedded Swift as in ordinary Swift. A plugin
// built with it still links no libnavguard and exports only ng_plugin_entry.
//
// A guard is a final class conforming to NavGuardGuard and to one protocol
// per hook it implements:
//
//     final class MaxDepth: RequestVoting {
//         let host: GuardHost
//         let maxDepth: Int
//         init?(host: GuardHost) {
//             guard let n = host.int("max_depth", default: 8), (1...4096).contains(n) else {
//                 host.log(.error, "max-depth: \"max_depth\" must be an integer in 1...4096")
//                 return nil
//             }
//             self.host = host
//             maxDepth = n
//         }
//         func vote(on request: GuardRequest) -> Vote {
//             request.kind == NG_REQ_PUSH && host.stackCount >= maxDepth
//                 ? .refuse(NG_REASON_POLICY, message: "too deep") : .allow
//         }
//     }
//
//     @c(ng_plugin_entry)
//     public func entry() -> UnsafePointer<ng_plugin_descriptor>? {
//         makeDescriptor(MaxDepth.self, id: "org.example.max-depth", name: "max-depth",
//                        version: "1.0.0", description: "Refuses pushes past max_depth.")
//     }
//
// Only the hooks whose protocol the type conforms to are set in the
// descriptor; the others stay NULL, so a guard that does not vote on events
// costs the event path nothing.
import CNavGuard

/// A guard policy: one instance per context's chain, created by the host
/// through the descriptor's create() and released at destroy().
///
/// Conform to the hook protocols (`RequestVoting`, `EventVoting`,
/// `OutcomeObserving`, `TransitionObserving`, `HoldObserving`, `Ticking`,
/// `AnswerObserving`, `ExtensionProviding`) for the hooks the guard
/// implements; each of them
/// refines this protocol.
///
/// Rules (plugin.h's, seen from Swift):
///  - Hooks run on the context's owner thread, inside a NavGuard call. They
///    must not block and must not trap: a Swift runtime error (a failed
///    `!`, an overflow, an out-of-range index) in a hook kills the host.
///    Validate everything in `init?(host:)`.
///  - State lives in the instance, never in globals.
///  - Use a `final class` (the kit creates instances through the protocol's
///    initializer).
public protocol NavGuardGuard: AnyObject {
    /// Create the instance: read the configuration through `host`'s typed
    /// getters; do no I/O. Return nil when the configuration is bad, after
    /// saying why with `host.log(.error, ...)`: the host's ng_chain_add or
    /// ng_plugin_load then fails with NG_E_GUARD.
    ///
    /// `host` stays valid until the instance is released (destroy()); keep it
    /// to read state and act from the hooks.
    init?(host: GuardHost)

    // The kit's, not the guard's: each hook protocol below fills in its own,
    // and a guard implements none of them. They tell the kit at compile time
    // which hooks the type has and how to call them (the guard as an
    // unretained pointer), where asking at run time (`is RequestVoting`)
    // would need dynamic casts, which Embedded Swift does not have.
    static var _requestHook: ((UnsafeMutableRawPointer, GuardRequest) -> Vote)? { get }
    static var _eventHook: ((UnsafeMutableRawPointer, GuardEvent) -> EventVote)? { get }
    static var _outcomeHook: ((UnsafeMutableRawPointer, GuardOutcome) -> Void)? { get }
    static var _transitionHook: ((UnsafeMutableRawPointer, ng_transition_event) -> Void)? { get }
    static var _holdHook: ((UnsafeMutableRawPointer, GuardHoldNotice) -> Void)? { get }
    static var _tickHooks: (tick: (UnsafeMutableRawPointer, Int64) -> Void,
                            nextDeadline: (UnsafeMutableRawPointer) -> Int64)? { get }
    static var _answerHook: ((UnsafeMutableRawPointer, ng_answer, GuardQuestion) -> Void)? { get }
    static var _extensionHook: ((UnsafeMutableRawPointer, CString) -> UnsafeRawPointer?)? { get }
    static var _options: [GuardOption]? { get }
    static var _eventMask: UInt32 { get }
}

// No hooks but create and destroy, unless a hook protocol says otherwise.
extension NavGuardGuard {
    public static var _requestHook: ((UnsafeMutableRawPointer, GuardRequest) -> Vote)? { nil }
    public static var _eventHook: ((UnsafeMutableRawPointer, GuardEvent) -> EventVote)? { nil }
    public static var _outcomeHook: ((UnsafeMutableRawPointer, GuardOutcome) -> Void)? { nil }
    public static var _transitionHook: ((UnsafeMutableRawPointer, ng_transition_event) -> Void)? { nil }
    public static var _holdHook: ((UnsafeMutableRawPointer, GuardHoldNotice) -> Void)? { nil }
    public static var _tickHooks: (tick: (UnsafeMutableRawPointer, Int64) -> Void,
                                   nextDeadline: (UnsafeMutableRawPointer) -> Int64)? { nil }
    public static var _answerHook: ((UnsafeMutableRawPointer, ng_answer, GuardQuestion) -> Void)? { nil }
    public static var _extensionHook: ((UnsafeMutableRawPointer, CString) -> UnsafeRawPointer?)? { nil }
    public static var _options: [GuardOption]? { nil }
    public static var _eventMask: UInt32 { 0 }

    /// The guard behind a hook's pointer.
    @inline(__always)
    static func _guard(_ p: UnsafeMutableRawPointer) -> Self { Unmanaged<Self>.fromOpaque(p).takeUnretainedValue() }

    /// This type's hooks, as the kit's boxes keep them.
    static var _hooks: GuardHooks {
        GuardHooks(request: _requestHook, event: _eventHook, outcome: _outcomeHook, transition: _transitionHook,
                   hold: _holdHook, tick: _tickHooks?.tick, nextDeadline: _tickHooks?.nextDeadline,
                   answer: _answerHook, getExtension: _extensionHook)
    }
}

/// How the kit calls one guard type's hooks; nil for a hook it lacks.
struct GuardHooks {
    var request: ((UnsafeMutableRawPointer, GuardRequest) -> Vote)?
    var event: ((UnsafeMutableRawPointer, GuardEvent) -> EventVote)?
    var outcome: ((UnsafeMutableRawPointer, GuardOutcome) -> Void)?
    var transition: ((UnsafeMutableRawPointer, ng_transition_event) -> Void)?
    var hold: ((UnsafeMutableRawPointer, GuardHoldNotice) -> Void)?
    var tick: ((UnsafeMutableRawPointer, Int64) -> Void)?
    var nextDeadline: ((UnsafeMutableRawPointer) -> Int64)?
    var answer: ((UnsafeMutableRawPointer, ng_answer, GuardQuestion) -> Void)?
    var getExtension: ((UnsafeMutableRawPointer, CString) -> UnsafeRawPointer?)?
}

/// Votes on navigation requests (the descriptor's on_request).
public protocol RequestVoting: NavGuardGuard {
    /// `.allow`, `.refuse(reason, message:)` or `.defer` (the guard keeps
    /// `request.id` and later calls `host.applyDeferred` or
    /// `host.dropDeferred`). `request` and what it points to are valid for
    /// this call only.
    func vote(on request: GuardRequest) -> Vote
}

extension RequestVoting {
    public static var _requestHook: ((UnsafeMutableRawPointer, GuardRequest) -> Vote)? { { _guard($0).vote(on: $1) } }
}

/// Votes on input events (the descriptor's on_event).
public protocol EventVoting: NavGuardGuard {
    /// `.deliver` or `.drop(reason, message:)`. For an event with
    /// `isFinal` set (the end of a delivered touch) the vote is not used.
    /// Runs for every event the chain sees: keep it cheap.
    func vote(on event: GuardEvent) -> EventVote

    /// The events `vote(on:)` is called for: NG_WANT_* bits (plugin.h,
    /// the descriptor's event_mask). 0, the default, means every event; a
    /// guard that needs fewer says so, and the chain does not call it for
    /// the others.
    static var wantedEvents: UInt32 { get }
}

extension EventVoting {
    public static var wantedEvents: UInt32 { 0 }
    public static var _eventHook: ((UnsafeMutableRawPointer, GuardEvent) -> EventVote)? { { _guard($0).vote(on: $1) } }
    public static var _eventMask: UInt32 { wantedEvents }
}

/// Observes the final outcome of every request (on_outcome).
public protocol OutcomeObserving: NavGuardGuard {
    func observe(outcome: GuardOutcome)
}

extension OutcomeObserving {
    public static var _outcomeHook: ((UnsafeMutableRawPointer, GuardOutcome) -> Void)? { { _guard($0).observe(outcome: $1) } }
}

/// Observes transition phases (on_transition), in delegate order.
public protocol TransitionObserving: NavGuardGuard {
    func observe(transition: ng_transition_event)
}

extension TransitionObserving {
    public static var _transitionHook: ((UnsafeMutableRawPointer, ng_transition_event) -> Void)? {
        { _guard($0).observe(transition: $1) }
    }
}

/// Observes holds beginning and ending (on_hold).
public protocol HoldObserving: NavGuardGuard {
    func observe(hold: GuardHoldNotice)
}

extension HoldObserving {
    public static var _holdHook: ((UnsafeMutableRawPointer, GuardHoldNotice) -> Void)? { { _guard($0).observe(hold: $1) } }
}

/// Asks for wake-ups (on_tick and next_deadline, set together).
public protocol Ticking: NavGuardGuard {
    /// When `tick(now:)` should run next, on the context's clock, or
    /// `noDeadline`. Read often (every ng_next_deadline and ng_tick):
    /// return a stored value.
    var nextDeadline: Int64 { get }
    /// Called from ng_tick once the clock has reached `nextDeadline`.
    func tick(now: Int64)
}

extension Ticking {
    public static var _tickHooks: (tick: (UnsafeMutableRawPointer, Int64) -> Void,
                                   nextDeadline: (UnsafeMutableRawPointer) -> Int64)? {
        ({ _guard($0).tick(now: $1) }, { _guard($0).nextDeadline })
    }
}

/// Hears how the questions it asked the host ended (on_answer, plugin ABI
/// 1.2): exactly once per question, NG_ANSWER_YES or _NO from the host,
/// _TIMEOUT or _WITHDRAWN.
public protocol AnswerObserving: NavGuardGuard {
    func observe(answer: ng_answer, to question: GuardQuestion)
}

extension AnswerObserving {
    public static var _answerHook: ((UnsafeMutableRawPointer, ng_answer, GuardQuestion) -> Void)? {
        { _guard($0).observe(answer: $1, to: $2) }
    }
}

/// Offers optional capabilities by versioned id (get_extension).
public protocol ExtensionProviding: NavGuardGuard {
    /// The capability for `id` (compare exactly: `id == "org.example.x/1"`),
    /// or nil for every id the guard does not know.
    func getExtension(_ id: CString) -> UnsafeRawPointer?
}

extension ExtensionProviding {
    public static var _extensionHook: ((UnsafeMutableRawPointer, CString) -> UnsafeRawPointer?)? {
        { _guard($0).getExtension($1) }
    }
}

/// NG_NO_DEADLINE: "no wake-up wanted".
public let noDeadline: Int64 = NG_NO_DEADLINE

/// A guard's vote on a request.
public enum Vote: Sendable {
    /// Let it pass (the next guard votes).
    case allow
    /// Refuse it with an NG_REASON_* (NG_REASON_POLICY for a guard's own
    /// rule) and an optional message. The message is a string literal, so it
    /// is static storage, as plugin.h requires, and costs no allocation.
    case refuse(ng_reason, message: StaticString? = nil)
    /// Keep it: the guard later calls `host.applyDeferred(request.id)` or
    /// `host.dropDeferred(request.id, ...)`.
    case `defer`
}

/// A guard's vote on an input event. (Events cannot be deferred.)
public enum EventVote: Sendable {
    /// Deliver it (the next guard votes).
    case deliver
    /// Drop it with an NG_REASON_* and an optional static message.
    case drop(ng_reason, message: StaticString? = nil)
}
