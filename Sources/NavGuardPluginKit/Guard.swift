// NavGuardPluginKit — write NavGuard guard plugins in Swift.
//
// The kit wraps include/navguard/plugin.h and nothing else: it imports the C
// header module CNavGuard (plus the standard library's Synchronization for
// one lock taken when a descriptor is built and when an instance is created),
// never NavGuardCore or Foundation. A plugin built with it still links no
// libnavguard and exports only ng_plugin_entry.
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
}

/// Votes on navigation requests (the descriptor's on_request).
public protocol RequestVoting: NavGuardGuard {
    /// `.allow`, `.refuse(reason, message:)` or `.defer` (the guard keeps
    /// `request.id` and later calls `host.applyDeferred` or
    /// `host.dropDeferred`). `request` and what it points to are valid for
    /// this call only.
    func vote(on request: GuardRequest) -> Vote
}

/// Votes on input events (the descriptor's on_event).
public protocol EventVoting: NavGuardGuard {
    /// `.deliver` or `.drop(reason, message:)`. For an event with
    /// `isFinal` set (the end of a delivered touch) the vote is not used.
    /// Runs for every event the chain sees: keep it cheap.
    func vote(on event: GuardEvent) -> EventVote
}

/// Observes the final outcome of every request (on_outcome).
public protocol OutcomeObserving: NavGuardGuard {
    func observe(outcome: GuardOutcome)
}

/// Observes transition phases (on_transition), in delegate order.
public protocol TransitionObserving: NavGuardGuard {
    func observe(transition: ng_transition_event)
}

/// Observes holds beginning and ending (on_hold).
public protocol HoldObserving: NavGuardGuard {
    func observe(hold: GuardHoldNotice)
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

/// Hears how the questions it asked the host ended (on_answer, plugin ABI
/// 1.2): exactly once per question, NG_ANSWER_YES or _NO from the host,
/// _TIMEOUT or _WITHDRAWN.
public protocol AnswerObserving: NavGuardGuard {
    func observe(answer: ng_answer, to question: GuardQuestion)
}

/// Offers optional capabilities by versioned id (get_extension).
public protocol ExtensionProviding: NavGuardGuard {
    /// The capability for `id` (compare exactly: `id == "org.example.x/1"`),
    /// or nil for every id the guard does not know.
    func getExtension(_ id: CString) -> UnsafeRawPointer?
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
