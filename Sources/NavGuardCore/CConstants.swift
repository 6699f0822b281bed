// SPDX-License-Identifier: Apache-2.0
import CNavGuard

// navguard.h's enum-like values as Swift types, in the style of
// swift-system's Errno: each wraps the header's int32 type, and its members
// are the header's macros, never numbers typed again. A value is the C value
// itself (same size, same bits), so it costs what the Int32 cost; the core
// meets C through `init(rawValue:)` and `.rawValue`. Their names (messages,
// traces) stay in C: ng_request_kind_name and the others, generated from the
// header's X-macro tables.

/// A request kind (ng_request_kind, NG_REQ_*).
@frozen
public struct RequestKind: RawRepresentable, Hashable, Sendable {
    public let rawValue: ng_request_kind
    @inlinable @inline(__always)
    public init(rawValue: ng_request_kind) { self.rawValue = rawValue }

    @inlinable public static var push: Self { Self(rawValue: NG_REQ_PUSH) }
    @inlinable public static var pop: Self { Self(rawValue: NG_REQ_POP) }
    @inlinable public static var popTo: Self { Self(rawValue: NG_REQ_POP_TO) }
    @inlinable public static var popToRoot: Self { Self(rawValue: NG_REQ_POP_TO_ROOT) }
    @inlinable public static var replaceStack: Self { Self(rawValue: NG_REQ_REPLACE_STACK) }
    @inlinable public static var back: Self { Self(rawValue: NG_REQ_BACK) }
    @inlinable public static var interactiveBack: Self { Self(rawValue: NG_REQ_INTERACTIVE_BACK) }

    /// One of the header's kinds (below NG_REQ_KIND_COUNT).
    @inlinable public var isKnown: Bool { rawValue >= 0 && rawValue < NG_REQ_KIND_COUNT }
}

/// Why a request was refused or dropped, or an event dropped (ng_reason,
/// NG_REASON_*).
@frozen
public struct Reason: RawRepresentable, Hashable, Sendable {
    public let rawValue: ng_reason
    @inlinable @inline(__always)
    public init(rawValue: ng_reason) { self.rawValue = rawValue }

    @inlinable public static var none: Self { Self(rawValue: NG_REASON_NONE) }
    @inlinable public static var busy: Self { Self(rawValue: NG_REASON_BUSY) }
    @inlinable public static var duplicate: Self { Self(rawValue: NG_REASON_DUPLICATE) }
    @inlinable public static var throttled: Self { Self(rawValue: NG_REASON_THROTTLED) }
    @inlinable public static var ignoring: Self { Self(rawValue: NG_REASON_IGNORING) }
    @inlinable public static var atRoot: Self { Self(rawValue: NG_REASON_AT_ROOT) }
    @inlinable public static var notFound: Self { Self(rawValue: NG_REASON_NOT_FOUND) }
    @inlinable public static var invalid: Self { Self(rawValue: NG_REASON_INVALID) }
    @inlinable public static var superseded: Self { Self(rawValue: NG_REASON_SUPERSEDED) }
    @inlinable public static var queueFull: Self { Self(rawValue: NG_REASON_QUEUE_FULL) }
    @inlinable public static var destroyed: Self { Self(rawValue: NG_REASON_DESTROYED) }
    @inlinable public static var policy: Self { Self(rawValue: NG_REASON_POLICY) }
    @inlinable public static var exclusive: Self { Self(rawValue: NG_REASON_EXCLUSIVE) }
    @inlinable public static var multiTouch: Self { Self(rawValue: NG_REASON_MULTI_TOUCH) }
    @inlinable public static var withheld: Self { Self(rawValue: NG_REASON_WITHHELD) }
    @inlinable public static var cancelled: Self { Self(rawValue: NG_REASON_CANCELLED) }
    @inlinable public static var stale: Self { Self(rawValue: NG_REASON_STALE) }
    @inlinable public static var declined: Self { Self(rawValue: NG_REASON_DECLINED) }
    @inlinable public static var asking: Self { Self(rawValue: NG_REASON_ASKING) }
    @inlinable public static var unanswered: Self { Self(rawValue: NG_REASON_UNANSWERED) }

    /// One of the header's reasons (below NG_REASON_COUNT).
    @inlinable public var isKnown: Bool { rawValue >= 0 && rawValue < NG_REASON_COUNT }

    /// The reason a guard's refusal, defer-drop or event drop carries: the
    /// one it gave when that names a cause, else POLICY (its own rule).
    @inlinable @inline(__always)
    public init(givenByGuard raw: ng_reason) {
        var r = raw
        if r <= NG_REASON_NONE || r >= NG_REASON_COUNT { r = NG_REASON_POLICY }
        self.init(rawValue: r)
    }
}

/// What became of a request (ng_outcome_kind, NG_OUTCOME_*).
@frozen
public struct Outcome: RawRepresentable, Hashable, Sendable {
    public let rawValue: ng_outcome_kind
    @inlinable @inline(__always)
    public init(rawValue: ng_outcome_kind) { self.rawValue = rawValue }

    @inlinable public static var applied: Self { Self(rawValue: NG_OUTCOME_APPLIED) }
    @inlinable public static var refused: Self { Self(rawValue: NG_OUTCOME_REFUSED) }
    @inlinable public static var deferred: Self { Self(rawValue: NG_OUTCOME_DEFERRED) }
    @inlinable public static var dropped: Self { Self(rawValue: NG_OUTCOME_DROPPED) }
    @inlinable public static var queued: Self { Self(rawValue: NG_OUTCOME_QUEUED) }
}

/// A transition track (ng_track, NG_TRACK_*).
@frozen
public struct Track: RawRepresentable, Hashable, Sendable {
    public let rawValue: ng_track
    @inlinable @inline(__always)
    public init(rawValue: ng_track) { self.rawValue = rawValue }

    @inlinable public static var screen: Self { Self(rawValue: NG_TRACK_SCREEN) }
    @inlinable public static var bar: Self { Self(rawValue: NG_TRACK_BAR) }
    /// Both tracks: only as what to finish (ng_transition_finish).
    @inlinable public static var all: Self { Self(rawValue: NG_TRACK_ALL) }

    /// SCREEN, BAR or ALL.
    @inlinable public var isKnown: Bool { rawValue >= NG_TRACK_SCREEN && rawValue <= NG_TRACK_ALL }
    /// SCREEN or BAR: one track, what a read of a track takes.
    @inlinable public var isOne: Bool { self == .screen || self == .bar }
}

/// A phase of a transition track (ng_phase, NG_PHASE_*).
@frozen
public struct TransitionPhase: RawRepresentable, Hashable, Sendable {
    public let rawValue: ng_phase
    @inlinable @inline(__always)
    public init(rawValue: ng_phase) { self.rawValue = rawValue }

    @inlinable public static var will: Self { Self(rawValue: NG_PHASE_WILL) }
    @inlinable public static var did: Self { Self(rawValue: NG_PHASE_DID) }
    @inlinable public static var cancelled: Self { Self(rawValue: NG_PHASE_CANCELLED) }
}

/// A touch's phase (ng_event.phase of an NG_EVENT_TOUCH, NG_TOUCH_*).
@frozen
public struct TouchPhase: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int32
    @inlinable @inline(__always)
    public init(rawValue: Int32) { self.rawValue = rawValue }

    @inlinable public static var began: Self { Self(rawValue: NG_TOUCH_BEGAN) }
    @inlinable public static var moved: Self { Self(rawValue: NG_TOUCH_MOVED) }
    @inlinable public static var ended: Self { Self(rawValue: NG_TOUCH_ENDED) }
    @inlinable public static var cancelled: Self { Self(rawValue: NG_TOUCH_CANCELLED) }

    /// BEGAN through CANCELLED.
    @inlinable public var isKnown: Bool { rawValue >= NG_TOUCH_BEGAN && rawValue <= NG_TOUCH_CANCELLED }
}

/// How a hold ended (ng_hold_end_reason, NG_HOLD_*).
@frozen
public struct HoldEndReason: RawRepresentable, Hashable, Sendable {
    public let rawValue: ng_hold_end_reason
    @inlinable @inline(__always)
    public init(rawValue: ng_hold_end_reason) { self.rawValue = rawValue }

    @inlinable public static var ended: Self { Self(rawValue: NG_HOLD_ENDED) }
    @inlinable public static var expired: Self { Self(rawValue: NG_HOLD_EXPIRED) }
    @inlinable public static var released: Self { Self(rawValue: NG_HOLD_RELEASED) }
}

/// The host's answer to a question, or how it ended unanswered (ng_answer,
/// NG_ANSWER_*).
@frozen
public struct Answer: RawRepresentable, Hashable, Sendable {
    public let rawValue: ng_answer
    @inlinable @inline(__always)
    public init(rawValue: ng_answer) { self.rawValue = rawValue }

    @inlinable public static var yes: Self { Self(rawValue: NG_ANSWER_YES) }
    @inlinable public static var no: Self { Self(rawValue: NG_ANSWER_NO) }
    @inlinable public static var timeout: Self { Self(rawValue: NG_ANSWER_TIMEOUT) }
    @inlinable public static var withdrawn: Self { Self(rawValue: NG_ANSWER_WITHDRAWN) }
}

/// What becomes of an event (ng_verdict_kind, NG_VERDICT_*).
@frozen
public struct Verdict: RawRepresentable, Hashable, Sendable {
    public let rawValue: ng_verdict_kind
    @inlinable @inline(__always)
    public init(rawValue: ng_verdict_kind) { self.rawValue = rawValue }

    @inlinable public static var deliver: Self { Self(rawValue: NG_VERDICT_DELIVER) }
    @inlinable public static var drop: Self { Self(rawValue: NG_VERDICT_DROP) }
}

/// A guard option's type (plugin.h, ng_option_type, NG_OPT_*).
@frozen
public struct OptionType: RawRepresentable, Hashable, Sendable {
    public let rawValue: ng_option_type
    @inlinable @inline(__always)
    public init(rawValue: ng_option_type) { self.rawValue = rawValue }

    @inlinable public static var int: Self { Self(rawValue: NG_OPT_INT) }
    @inlinable public static var bool: Self { Self(rawValue: NG_OPT_BOOL) }
    @inlinable public static var double: Self { Self(rawValue: NG_OPT_DOUBLE) }
    @inlinable public static var string: Self { Self(rawValue: NG_OPT_STRING) }
    @inlinable public static var `enum`: Self { Self(rawValue: NG_OPT_ENUM) }
    @inlinable public static var strings: Self { Self(rawValue: NG_OPT_STRINGS) }

    /// One of the header's types (below NG_OPT_TYPE_COUNT).
    @inlinable public var isKnown: Bool { rawValue >= 0 && rawValue < NG_OPT_TYPE_COUNT }
}
