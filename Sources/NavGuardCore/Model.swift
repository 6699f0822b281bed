// SPDX-License-Identifier: Apache-2.0
import CNavGuard

/// A screen on the stack.
public struct Screen: Sendable {
    public var id: UInt64
    public var route: CStr
    public var identity: CStr
    /// NG_SCREENF_* (the host's bits included).
    public var flags: UInt32
    /// The host's focus token (ng_screen_set_focus), 0 for none. Kept with
    /// the screen so a pop, pop-to or rolled-back swipe hands it back.
    public var focus: UInt64 = 0

    public init(id: UInt64, route: CStr, identity: CStr, flags: UInt32 = 0) {
        self.id = id
        self.route = route
        self.identity = identity
        self.flags = flags
    }

    public init(id: UInt64, route: String, identity: String? = nil, flags: UInt32 = 0) {
        let r = CStr(route)
        self.init(id: id, route: r, identity: identity.map(CStr.init) ?? r, flags: flags)
    }

    /// As hosts and guards read it (ng_screen_info).
    public var info: ng_screen_info {
        var i = ng_screen_info()
        i.size = UInt32(MemoryLayout<ng_screen_info>.size)
        i.id = id
        i.route = UnsafePointer(route.pointer)
        i.identity = UnsafePointer(identity.pointer)
        i.flags = flags
        i.focus_token = focus
        return i
    }
}

/// A navigation request after validation and copying by the ABI layer.
public struct Request: Sendable {
    public var id: UInt64 = 0
    public var kind: RequestKind
    public var flags: UInt32 = 0
    public var source: UInt32 = 0
    public var screen: Screen?
    public var targetID: UInt64 = 0
    public var screens: [Screen] = []
    public var durationNs: Int64 = 0
    /// INTERACTIVE_BACK: the live touch that drives the swipe (NG_REQF_TOUCH_DRIVEN).
    public var drivingTouch: UInt64?
    /// The screen it was issued from (ng_request.from_screen), or 0: when it
    /// would apply and that screen is not the top, it is stale.
    public var fromScreen: UInt64 = 0
    /// The device that made it (ng_request.device), or 0: carried to the
    /// guards only.
    public var device: UInt64 = 0
    /// Re-evaluations after a guard's deferred_apply.
    public var attempt: UInt32 = 0
    /// Set when the request was malformed: it is refused (NG_REASON_INVALID)
    /// with this message, but still gets an id and an outcome.
    public var invalidMessage: String?

    public init(kind: RequestKind, flags: UInt32 = 0, source: UInt32 = 0) {
        self.kind = kind
        self.flags = flags
        self.source = source
    }

    public static func push(_ s: Screen, flags: UInt32 = 0, source: UInt32 = 0) -> Request {
        var r = Request(kind: .push, flags: flags, source: source)
        r.screen = s
        return r
    }

    public static func popTo(_ id: UInt64, flags: UInt32 = 0) -> Request {
        var r = Request(kind: .popTo, flags: flags)
        r.targetID = id
        return r
    }

    public static func replace(_ screens: [Screen], flags: UInt32 = 0) -> Request {
        var r = Request(kind: .replaceStack, flags: flags)
        r.screens = screens
        return r
    }

    var animated: Bool { flags & UInt32(NG_REQF_ANIMATED) != 0 }
    var timed: Bool { flags & UInt32(NG_REQF_TIMED) != 0 }
}

/// What submit reports at once.
public struct SubmitResult {
    public var status: Outcome
    public var requestID: UInt64
    public var reason: Reason
    public var guardID: UnsafePointer<CChar>?
    /// Why it was refused (core rules and guards' verdict messages), or nil.
    public var message: CStr?
}

/// The final outcome of a request, delivered exactly once.
public struct OutcomeRecord {
    public var requestID: UInt64
    public var kind: RequestKind
    public var outcome: Outcome
    public var reason: Reason
    public var source: UInt32
    public var guardID: UnsafePointer<CChar>?
    public var message: CStr?

    public init(requestID: UInt64, kind: RequestKind, outcome: Outcome, reason: Reason, source: UInt32,
                guardID: UnsafePointer<CChar>?, message: CStr?) {
        self.requestID = requestID
        self.kind = kind
        self.outcome = outcome
        self.reason = reason
        self.source = source
        self.guardID = guardID
        self.message = message
    }

    /// The C view handed to guards and to the host's delegate; its pointers
    /// are valid while this record lives.
    public var cValue: ng_outcome {
        var c = ng_outcome()
        c.size = UInt32(MemoryLayout<ng_outcome>.size)
        c.outcome = outcome.rawValue
        c.request_id = requestID
        c.kind = kind.rawValue
        c.reason = reason.rawValue
        c.source = source
        c.guard_id = guardID
        c.message = message.map { UnsafePointer($0.pointer) }
        return c
    }
}

/// A hold that ended.
public struct HoldEndRecord {
    public var token: UInt64
    public var label: CStr?
    public var mask: UInt32
    public var reason: Int32
    public var beganNs: Int64
    public var endedNs: Int64
    /// The guard that began it, or nil (the host).
    public var owner: UnsafePointer<CChar>?

    /// As the host's on_hold_end and the trace see it (valid while `label` lives).
    public var cValue: ng_hold_info {
        var c = ng_hold_info()
        c.size = UInt32(MemoryLayout<ng_hold_info>.size)
        c.token = token
        c.label = label.map { UnsafePointer($0.pointer) }
        c.mask = mask
        c.reason = reason
        c.began_ns = beganNs
        c.ended_ns = endedNs
        c.owner_id = owner
        return c
    }
}

/// Receives the engine's callbacks (the ABI layer forwards them to the C
/// delegate). Calls happen on the owner thread, one at a time.
public protocol EngineObserver: AnyObject {
    func engineOutcome(_ outcome: OutcomeRecord)
    func engineTransition(_ event: ng_transition_event)
    func engineHoldEnded(_ hold: HoldEndRecord)
    func engineReport(guardID: UnsafePointer<CChar>?, text: CStr)
    func engineLog(severity: Int32, guardID: UnsafePointer<CChar>?, message: CStr)
    func engineTouchCancelled(_ touch: ng_touch_info)
    func engineQuestion(_ question: ng_question)
    func engineQuestionEnded(_ question: ng_question, answer: Int32)
    func enginePressCancelled(_ press: ng_press_info)
}

public extension EngineObserver {
    func engineTransition(_ event: ng_transition_event) {}
    func engineHoldEnded(_ hold: HoldEndRecord) {}
    func engineReport(guardID: UnsafePointer<CChar>?, text: CStr) {}
    func engineLog(severity: Int32, guardID: UnsafePointer<CChar>?, message: CStr) {}
    func engineTouchCancelled(_ touch: ng_touch_info) {}
    func engineQuestion(_ question: ng_question) {}
    func engineQuestionEnded(_ question: ng_question, answer: Int32) {}
    func enginePressCancelled(_ press: ng_press_info) {}
}

/// An error from an engine operation: an NG_E_* status and a message.
public struct EngineError: Error, Sendable {
    public var status: Int32
    public var message: String
    public init(_ status: Int32, _ message: String) {
        self.status = status
        self.message = message
    }

    /// `what` called from inside a callback, where it is not allowed.
    public static func inCallback(_ what: String) -> EngineError {
        EngineError(NG_E_CALLBACK, "\(what) is not allowed inside a callback")
    }
}

/// Whether the calling thread may use the engine: injected by the ABI layer
/// (which knows the context's owner thread); the core has no threads. A
/// guard's host-table call from another thread is refused with it.
public struct OwnerCheck: Sendable {
    public var check: @convention(c) (Int) -> Bool
    public var arg: Int
    public init(check: @convention(c) (Int) -> Bool, arg: Int) {
        self.check = check
        self.arg = arg
    }
    @inline(__always) public func callAsFunction() -> Bool { check(arg) }
    /// Every call comes from the owner (an engine driven directly, in tests).
    public static var always: OwnerCheck { OwnerCheck(check: { _ in true }, arg: 0) }
}

/// How a guard's worker thread wakes the host's loop (plugin.h `wake`):
/// injected by the ABI layer, which owns the host's on_wake and its
/// coalescing; callable from any thread, so it is a plain C function and a
/// word, fixed for the engine's life.
public struct WakeHook: Sendable {
    public var wake: @convention(c) (Int) -> Void
    public var arg: Int
    public init(wake: @convention(c) (Int) -> Void, arg: Int) {
        self.wake = wake
        self.arg = arg
    }
    @inline(__always) public func callAsFunction() { wake(arg) }
    public static var none: WakeHook { WakeHook(wake: { _ in }, arg: 0) }
}

/// The clock, injected: the core never reads the system time itself.
public enum ClockSource {
    case manual(startNs: Int64)
    case external(@convention(c) () -> Int64)
}

public struct EngineConfig {
    public var clock: ClockSource
    public var defaultDurationNs: Int64
    /// With an external clock: a cheaper, coarser reading of the same clock
    /// (milliseconds suffice) to time guards' votes with; nil: the clock.
    public var stopwatch: (@convention(c) () -> Int64)?
    public init(clock: ClockSource = .manual(startNs: 0), defaultDurationNs: Int64 = 350_000_000,
                stopwatch: (@convention(c) () -> Int64)? = nil) {
        self.clock = clock
        self.defaultDurationNs = defaultDurationNs
        self.stopwatch = stopwatch
    }
}

public enum Limits {
    public static let maxString = 1024
    /// Guard reports (the watchdog's state dump) may be longer than a string.
    public static let maxReport = 64 * 1024
    public static let maxStack = 4096
    public static let maxGuards = 32
    public static let maxHolds = 1024
    /// The largest `size` an option declaration may have (plugin.h).
    public static let maxOptionDeclSize = 1024
    /// The work one host call may set off (navguard.h).
    public static let maxWork = Int(NG_MAX_WORK)
    /// Guards voting longer on one request are logged (navguard.h).
    public static let slowVoteNs = Int64(NG_SLOW_VOTE_MS) * 1_000_000
    public static let noDeadline = Int64.max
    /// Ids handed out by the owner thread count up from 1; posted ones (and
    /// guards' requests) from here: both stay below 2^53 (JSON, QML).
    public static let postedIDBase = UInt64(NG_POSTED_ID_BASE)
    public static let guardRequestIDBase = UInt64(NG_GUARD_ID_BASE)
}
