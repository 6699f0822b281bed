// SPDX-License-Identifier: Apache-2.0
// Swift views of the structs plugin.h hands to hooks. They copy the C struct
// (no allocation) and keep its string pointers: those are valid as long as
// the C struct's documentation says (usually: during the hook).
import CNavGuard

/// A NUL-terminated string owned by the host (or static), compared and read
/// without copying. Valid as long as the struct it came from says.
public struct CString: Hashable, CustomStringConvertible, @unchecked Sendable {
    public let pointer: UnsafePointer<CChar>

    public init(_ pointer: UnsafePointer<CChar>) { self.pointer = pointer }

    /// The text as a Swift String. Allocates (for more than 15 bytes):
    /// avoid it on the vote and event paths; compare with `==` instead.
    public var string: String { String(cString: pointer) }
    public var description: String { string }

    /// Length in bytes, without the NUL.
    public var utf8Count: Int {
        var n = 0
        while pointer[n] != 0 { n += 1 }
        return n
    }

    public var isEmpty: Bool { pointer[0] == 0 }

    /// Byte-wise equality with a Swift string, without allocating.
    public static func == (a: CString, b: String) -> Bool {
        var i = 0
        for byte in b.utf8 {
            guard UInt8(bitPattern: a.pointer[i]) == byte, byte != 0 else { return false }
            i += 1
        }
        return a.pointer[i] == 0
    }

    /// Byte-wise equality with a string literal.
    public static func == (a: CString, b: StaticString) -> Bool {
        b.withUTF8Buffer { buf in
            var i = 0
            for byte in buf {
                guard UInt8(bitPattern: a.pointer[i]) == byte, byte != 0 else { return false }
                i += 1
            }
            return a.pointer[i] == 0
        }
    }

    /// Byte-wise equality of two C strings.
    public static func == (a: CString, b: CString) -> Bool {
        var i = 0
        while a.pointer[i] == b.pointer[i] {
            if a.pointer[i] == 0 { return true }
            i += 1
        }
        return false
    }

    /// Hashes the bytes (content, like ==).
    public func hash(into hasher: inout Hasher) {
        var i = 0
        while pointer[i] != 0 {
            hasher.combine(UInt8(bitPattern: pointer[i]))
            i += 1
        }
        hasher.combine(0 as UInt8)
    }

    public static func != (a: CString, b: String) -> Bool { !(a == b) }
    public static func != (a: CString, b: StaticString) -> Bool { !(a == b) }

    /// Whether the string starts with `prefix`, without allocating.
    public func hasPrefix(_ prefix: StaticString) -> Bool {
        prefix.withUTF8Buffer { buf in
            var i = 0
            for byte in buf {
                guard UInt8(bitPattern: pointer[i]) == byte, byte != 0 else { return false }
                i += 1
            }
            return true
        }
    }

    static let empty = CString(permanentCString(""))

    init(orEmpty p: UnsafePointer<CChar>?) { self = p.map(CString.init) ?? .empty }
}

/// A screen: in a request, or read back from the stack.
public struct GuardScreen: Sendable {
    public var id: UInt64
    public var route: CString
    /// The dedupe identity (the route when the host gave none).
    public var identity: CString
    /// NG_SCREENF_* (read from the stack; 0 for a request's screen or a host
    /// older than plugin ABI 1.2).
    public var flags: UInt32 = 0

    init(_ s: ng_screen) {
        id = s.id
        route = CString(orEmpty: s.route)
        identity = s.identity.map(CString.init) ?? route
    }

    init(_ s: ng_screen_info) {
        id = s.id
        route = CString(orEmpty: s.route)
        identity = s.identity.map(CString.init) ?? route
        flags = s.flags
    }
}

/// A question this guard asked, as it ended (on_answer). Its strings are
/// valid during the hook only.
public struct GuardQuestion {
    public let raw: ng_question
    public init(_ raw: ng_question) { self.raw = raw }
    public var id: UInt64 { raw.question_id }
    public var topic: CString { CString(orEmpty: raw.topic) }
    /// The request it concerns, or 0.
    public var requestID: UInt64 { raw.request_id }
    public var screenID: UInt64 { raw.screen_id }
}

/// The screens of a replace-stack request, bottom first, read in place.
public struct GuardScreens: RandomAccessCollection {
    let base: UnsafePointer<ng_screen>?
    public let count: Int
    public var startIndex: Int { 0 }
    public var endIndex: Int { count }
    public subscript(i: Int) -> GuardScreen { GuardScreen(base![i]) }
}

/// A request as guards see it (ng_guard_request).
public struct GuardRequest {
    /// The C struct, for fields the kit does not name.
    public let raw: ng_guard_request

    public init(_ raw: ng_guard_request) { self.raw = raw }

    public var id: UInt64 { raw.request_id }
    /// NG_REQ_*.
    public var kind: ng_request_kind { raw.kind }
    /// NG_REQF_*.
    public var flags: UInt32 { raw.flags }
    public var isAnimated: Bool { raw.flags & UInt32(NG_REQF_ANIMATED) != 0 }
    /// The host-defined origin.
    public var source: UInt32 { raw.source }
    /// 0 on first evaluation; n after the n-th applyDeferred.
    public var attempt: UInt32 { raw.attempt }
    /// PUSH: the screen; otherwise nil.
    public var screen: GuardScreen? { raw.screen.map { GuardScreen($0.pointee) } }
    /// POP_TO: the target screen id.
    public var targetID: UInt64 { raw.target_id }
    /// REPLACE_STACK: the new stack, bottom first; otherwise empty.
    public var screens: GuardScreens {
        GuardScreens(base: raw.screens, count: raw.screens == nil ? 0 : raw.screen_count)
    }
    /// The context's clock when the chain began voting.
    public var nowNs: Int64 { raw.now_ns }
    /// The device that made it (ABI 1.3), or 0 for none or an older host.
    public var device: UInt64 {
        // Read from a scratch struct's address: Embedded Swift has no key
        // paths for MemoryLayout.offset(of:).
        let end = withUnsafeTemporaryAllocation(of: ng_guard_request.self, capacity: 1) { scratch in
            offset(of: &scratch.baseAddress!.pointee.device, in: scratch.baseAddress!) + 8
        }
        return Int(raw.size) >= end ? raw.device : 0
    }
}

/// An input event as guards see it (ng_guard_event).
public struct GuardEvent: Sendable {
    /// The event (ng_event: type, phase, touch_id, x, y, code, ...).
    public let event: ng_event
    /// NG_GEVF_*.
    public let flags: UInt32
    /// The hit view or the host's target; 0 if none.
    public let targetView: UInt64

    public init(_ raw: ng_guard_event) {
        event = raw.event?.pointee ?? ng_event()
        flags = raw.flags
        targetView = raw.target_view
    }

    /// The ended/cancelled phase of a delivered touch: always delivered; the
    /// vote is not used.
    public var isFinal: Bool { flags & UInt32(NG_GEVF_FINAL) != 0 }
    /// NG_EVENT_*.
    public var type: ng_event_type { event.type }
    /// Touch: NG_TOUCH_*; others: host-defined.
    public var phase: Int32 { event.phase }
    public var touchID: UInt64 { event.touch_id }
    public var timestampNs: Int64 { event.timestamp_ns }
    public var x: Double { event.x }
    public var y: Double { event.y }
    public var code: Int64 { event.code }
}

/// The final outcome of a request (ng_outcome).
public struct GuardOutcome: Sendable {
    /// NG_OUTCOME_APPLIED, _REFUSED or _DROPPED.
    public var outcome: ng_outcome_kind
    public var requestID: UInt64
    public var kind: ng_request_kind
    public var reason: ng_reason
    public var source: UInt32
    /// The guard that decided, or nil. Valid until the context is destroyed.
    public var guardID: CString?
    /// Detail, or nil. Valid during the hook.
    public var message: CString?

    public init(_ o: ng_outcome) {
        outcome = o.outcome
        requestID = o.request_id
        kind = o.kind
        reason = o.reason
        source = o.source
        guardID = o.guard_id.map(CString.init)
        message = o.message.map(CString.init)
    }
}

/// A live hold (ng_hold_view).
public struct GuardHold: Sendable {
    public var token: UInt64
    /// Valid until the hold ends.
    public var label: CString?
    /// NG_MASK_* bits.
    public var mask: UInt32
    public var beganNs: Int64
    /// NG_NO_DEADLINE when unlimited.
    public var deadlineNs: Int64
    /// The guard that began it, nil for the host (plugin ABI 1.2).
    public var ownerID: CString?
    /// The request id of the transition it is tied to, or 0.
    public var transitionID: UInt64

    init(_ h: ng_hold_view) {
        token = h.token
        label = h.label.map(CString.init)
        mask = h.mask
        beganNs = h.began_ns
        deadlineNs = h.deadline_ns
        ownerID = h.owner_id.map(CString.init)
        transitionID = h.transition_id
    }
}

/// A hold began or ended (ng_hold_notice).
public struct GuardHoldNotice: Sendable {
    public var token: UInt64
    /// Valid during the hook.
    public var label: CString?
    public var mask: UInt32
    public var ended: Bool
    /// NG_HOLD_* when `ended`.
    public var reason: ng_hold_end_reason

    public init(_ n: ng_hold_notice) {
        token = n.token
        label = n.label.map(CString.init)
        mask = n.mask
        ended = n.ended
        reason = n.reason
    }
}

/// A string literal as a C string (static storage, valid forever), or nil
/// in the rare case of a StaticString without a pointer representation
/// (one built through ExpressibleByUnicodeScalarLiteral). Never allocates:
/// used on the vote path.
@inline(__always)
func staticCString(_ s: StaticString) -> UnsafePointer<CChar>? {
    guard s.hasPointerRepresentation else { return nil }
    // A literal's storage is NUL-terminated.
    return UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// As staticCString, copying a scalar-represented string once (never freed):
/// for descriptor strings, built once.
func permanentCString(_ s: StaticString) -> UnsafePointer<CChar> {
    if let p = staticCString(s) { return p }
    return s.withUTF8Buffer { buf in
        let p = UnsafeMutablePointer<CChar>.allocate(capacity: buf.count + 1)
        for (i, b) in buf.enumerated() { p[i] = CChar(bitPattern: b) }
        p[buf.count] = 0
        return UnsafePointer(p)
    }
}
