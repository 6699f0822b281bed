// SPDX-License-Identifier: Apache-2.0
// GuardHost: the ng_guard_host table, typed.
import CNavGuard

/// A failed host action: the NG_E_* status the host returned.
public struct GuardError: Error, Equatable, Sendable, CustomStringConvertible {
    public var status: ng_status

    public init(_ status: ng_status) { self.status = status }

    public static let null = GuardError(NG_E_NULL)
    public static let range = GuardError(NG_E_RANGE)
    public static let utf8 = GuardError(NG_E_UTF8)
    public static let tooLong = GuardError(NG_E_TOO_LONG)
    public static let state = GuardError(NG_E_STATE)
    public static let notFound = GuardError(NG_E_NOT_FOUND)
    public static let noMemory = GuardError(NG_E_NO_MEMORY)

    /// The status's name ("NG_E_NOT_FOUND"). A plugin does not link
    /// libnavguard, so ng_strstatus is not available to it.
    public var description: String {
        switch status {
        case NG_OK: return "NG_OK"
        case NG_E_NULL: return "NG_E_NULL"
        case NG_E_HANDLE: return "NG_E_HANDLE"
        case NG_E_SIZE: return "NG_E_SIZE"
        case NG_E_RANGE: return "NG_E_RANGE"
        case NG_E_UTF8: return "NG_E_UTF8"
        case NG_E_TOO_LONG: return "NG_E_TOO_LONG"
        case NG_E_STATE: return "NG_E_STATE"
        case NG_E_NOT_FOUND: return "NG_E_NOT_FOUND"
        case NG_E_THREAD: return "NG_E_THREAD"
        case NG_E_NO_MEMORY: return "NG_E_NO_MEMORY"
        case NG_E_PARSE: return "NG_E_PARSE"
        case NG_E_CALLBACK: return "NG_E_CALLBACK"
        case NG_E_GUARD: return "NG_E_GUARD"
        case NG_E_LOAD: return "NG_E_LOAD"
        case NG_E_ENTRY: return "NG_E_ENTRY"
        case NG_E_ABI: return "NG_E_ABI"
        case NG_E_IO: return "NG_E_IO"
        default: return "status \(status)"
        }
    }
}

/// Log severities (NG_LOG_*).
public enum LogLevel: Int32, Sendable {
    case debug = 0, info = 1, warn = 2, error = 3
}

@inline(__always)
private func check(_ status: ng_status) throws(GuardError) {
    if status != NG_OK { throw GuardError(status) }
}

/// The host-services table handed to `init?(host:)`: the guard's only view
/// of and handle on its context. Valid until the instance is released; keep
/// it in the instance. Actions taken inside a hook are applied after the
/// hook returns, in order. Calls never allocate, except where a method says
/// so (configuration getters returning String, and `log`/`report` with a
/// String that is not a literal or small).
public struct GuardHost {
    /// The C table, for functions the kit does not wrap (e.g. ones added by
    /// a later ABI minor: check `raw.pointee.size` first).
    public let raw: UnsafePointer<ng_guard_host>

    public init(_ raw: UnsafePointer<ng_guard_host>) { self.raw = raw }

    /// The host's plugin ABI version.
    public var abiVersion: (major: UInt32, minor: UInt32) { (raw.pointee.abi_major, raw.pointee.abi_minor) }

    // MARK: Configuration (the guard's own config object, typed)

    /// The configuration value under `key`: nil when the key is missing or
    /// holds another type (or a number outside Int's range).
    public func int(_ key: String) -> Int? { config(key, readInt) ?? nil }
    /// As `int(_:)`, but `default` when the key is missing; nil only for a
    /// value of another type. (A key of the wrong type is an error, not a
    /// default: fail `init?` for it.)
    public func int(_ key: String, default value: Int) -> Int? { config(key, readInt) ?? value }

    public func bool(_ key: String) -> Bool? { config(key, readBool) ?? nil }
    public func bool(_ key: String, default value: Bool) -> Bool? { config(key, readBool) ?? value }

    /// A number (integers too).
    public func double(_ key: String) -> Double? { config(key, readDouble) ?? nil }
    public func double(_ key: String, default value: Double) -> Double? { config(key, readDouble) ?? value }

    /// A string, copied (allocates: read configuration in init).
    public func string(_ key: String) -> String? { config(key, readString) ?? nil }
    public func string(_ key: String, default value: String) -> String? { config(key, readString) ?? value }

    /// A list of strings, copied; nil when an item is not a string.
    public func strings(_ key: String) -> [String]? { config(key, readStrings) ?? nil }
    public func strings(_ key: String, default value: [String]) -> [String]? { config(key, readStrings) ?? value }

    /// Whether the configuration has `key`, of any type.
    public func contains(_ key: String) -> Bool {
        var b = false
        return key.withCString { raw.pointee.config_bool?(raw, $0, &b) ?? NG_E_NOT_FOUND } != NG_E_NOT_FOUND
    }

    /// nil: missing; .some(nil): wrong type; .some(v): the value.
    private func config<T>(_ key: String, _ read: (UnsafePointer<CChar>) -> (ng_status, T?)) -> T?? {
        let (status, value) = key.withCString { read($0) }
        if status == NG_E_NOT_FOUND { return nil }
        return .some(status == NG_OK ? value : nil)
    }

    private func readInt(_ key: UnsafePointer<CChar>) -> (ng_status, Int?) {
        var v: Int64 = 0
        let st = raw.pointee.config_int?(raw, key, &v) ?? NG_E_NOT_FOUND
        guard st == NG_OK else { return (st, nil) }
        guard let i = Int(exactly: v) else { return (NG_E_RANGE, nil) }
        return (st, i)
    }

    private func readBool(_ key: UnsafePointer<CChar>) -> (ng_status, Bool?) {
        var v = false
        let st = raw.pointee.config_bool?(raw, key, &v) ?? NG_E_NOT_FOUND
        return (st, st == NG_OK ? v : nil)
    }

    private func readDouble(_ key: UnsafePointer<CChar>) -> (ng_status, Double?) {
        var v = 0.0
        let st = raw.pointee.config_double?(raw, key, &v) ?? NG_E_NOT_FOUND
        return (st, st == NG_OK ? v : nil)
    }

    private func readString(_ key: UnsafePointer<CChar>) -> (ng_status, String?) {
        var p: UnsafePointer<CChar>?
        let st = raw.pointee.config_string?(raw, key, &p) ?? NG_E_NOT_FOUND
        guard st == NG_OK, let p else { return (st == NG_OK ? NG_E_RANGE : st, nil) }
        return (st, String(cString: p))
    }

    private func readStrings(_ key: UnsafePointer<CChar>) -> (ng_status, [String]?) {
        var n = 0
        let st = raw.pointee.config_list_count?(raw, key, &n) ?? NG_E_NOT_FOUND
        guard st == NG_OK else { return (st, nil) }
        var out: [String] = []
        out.reserveCapacity(n)
        for i in 0..<n {
            var p: UnsafePointer<CChar>?
            let s = raw.pointee.config_list_get?(raw, key, i, &p) ?? NG_E_NOT_FOUND
            guard s == NG_OK, let p else { return (NG_E_RANGE, nil) }
            out.append(String(cString: p))
        }
        return (NG_OK, out)
    }

    // MARK: Reading state

    /// The context's clock, nanoseconds.
    public var now: Int64 { raw.pointee.now?(raw) ?? 0 }

    /// Screens on the stack.
    public var stackCount: Int { raw.pointee.stack_count?(raw) ?? 0 }

    /// The screen at `index` (0 = root), or nil out of range. Its strings are
    /// valid until the stack changes.
    public func screen(at index: Int) -> GuardScreen? {
        guard index >= 0 else { return nil }
        var info = ng_screen_info()
        info.size = UInt32(MemoryLayout<ng_screen_info>.size)
        guard raw.pointee.stack_get?(raw, index, &info) == NG_OK else { return nil }
        return GuardScreen(info)
    }

    /// The top screen, or nil before the root is set.
    public var top: GuardScreen? { screen(at: stackCount - 1) }

    /// The transition in flight on NG_TRACK_SCREEN or NG_TRACK_BAR, or nil.
    public func track(_ track: ng_track) -> ng_track_info? {
        var info = ng_track_info()
        info.size = UInt32(MemoryLayout<ng_track_info>.size)
        guard raw.pointee.track_get?(raw, track, &info) == true else { return nil }
        return info
    }

    /// Whether a transition is in flight on a track (reads nothing else).
    public func isInFlight(_ track: ng_track) -> Bool {
        raw.pointee.track_get?(raw, track, nil) ?? false
    }

    /// Union of the live holds' masks (NG_MASK_*).
    public var holdMask: UInt32 { raw.pointee.hold_mask?(raw) ?? 0 }
    public var holdCount: Int { raw.pointee.hold_count?(raw) ?? 0 }

    /// The live hold at `index`, or nil out of range.
    public func hold(at index: Int) -> GuardHold? {
        guard index >= 0 else { return nil }
        var v = ng_hold_view()
        v.size = UInt32(MemoryLayout<ng_hold_view>.size)
        guard raw.pointee.hold_get?(raw, index, &v) == NG_OK else { return nil }
        return GuardHold(v)
    }

    /// Requests deferred by any guard, oldest first.
    public var deferredCount: Int { raw.pointee.deferred_count?(raw) ?? 0 }

    /// The deferred request at `index`, or nil. Its screen pointers are valid
    /// until the next `deferred(at:)` call.
    public func deferred(at index: Int) -> GuardRequest? {
        guard index >= 0 else { return nil }
        var r = ng_guard_request()
        r.size = UInt32(MemoryLayout<ng_guard_request>.size)
        guard raw.pointee.deferred_get?(raw, index, &r) == NG_OK else { return nil }
        return GuardRequest(r)
    }

    /// Live touches (delivered or withheld; a cancelled touch is retired).
    public var touchCount: Int { raw.pointee.touch_count?(raw) ?? 0 }

    /// The live touch at `index`, or nil.
    public func touch(at index: Int) -> ng_touch_info? {
        guard index >= 0 else { return nil }
        var t = ng_touch_info()
        t.size = UInt32(MemoryLayout<ng_touch_info>.size)
        guard raw.pointee.touch_get?(raw, index, &t) == NG_OK else { return nil }
        return t
    }

    /// Delivered live touches bound to a view.
    public func touchCount(onView view: UInt64) -> Int { raw.pointee.view_touch_count?(raw, view) ?? 0 }

    /// A view's NG_VIEWF_* flags, or nil when the host registered no such view.
    public func viewFlags(_ view: UInt64) -> UInt32? {
        var f: UInt32 = 0
        guard raw.pointee.view_flags?(raw, view, &f) == NG_OK else { return nil }
        return f
    }

    // MARK: Acting (applied after the current hook returns)

    /// Begin a hold over `mask` (NG_MASK_*; 0: NG_MASK_DEFAULT), unlimited
    /// when `maxDurationNs` is 0. The label is copied. Returns the token.
    @discardableResult
    public func beginHold(label: String? = nil, mask: UInt32, maxDurationNs: Int64 = 0) throws(GuardError) -> UInt64 {
        var token: UInt64 = 0
        let st: ng_status
        if let label {
            st = label.withCString { raw.pointee.hold_begin?(raw, $0, mask, maxDurationNs, &token) ?? NG_E_NULL }
        } else {
            st = raw.pointee.hold_begin?(raw, nil, mask, maxDurationNs, &token) ?? NG_E_NULL
        }
        try check(st)
        return token
    }

    /// End a live hold (any hold; NG_HOLD_RELEASED when not the guard's own).
    /// Throws .notFound for an unknown or ended token.
    public func endHold(_ token: UInt64) throws(GuardError) {
        try check(raw.pointee.hold_end?(raw, token) ?? NG_E_NULL)
    }

    /// End a track of the transition in flight (NG_TRACK_ALL: both), marked
    /// NG_TRANSF_FORCED. Throws .notFound when nothing is in flight.
    public func finish(_ track: ng_track) throws(GuardError) {
        try check(raw.pointee.transition_finish?(raw, track) ?? NG_E_NULL)
    }

    /// Cancel the interactive back in flight.
    public func cancelInteractive() throws(GuardError) {
        try check(raw.pointee.interactive_cancel?(raw) ?? NG_E_NULL)
    }

    /// Have the chain evaluate again a request this guard deferred.
    /// Throws .notFound when the id is not deferred by this guard.
    public func applyDeferred(_ requestID: UInt64) throws(GuardError) {
        try check(raw.pointee.deferred_apply?(raw, requestID) ?? NG_E_NULL)
    }

    /// Drop a request this guard deferred (its outcome: DROPPED, `reason`).
    /// The message is copied.
    public func dropDeferred(_ requestID: UInt64, reason: ng_reason, message: String? = nil) throws(GuardError) {
        let st: ng_status
        if let message {
            st = message.withCString { raw.pointee.deferred_drop?(raw, requestID, reason, $0) ?? NG_E_NULL }
        } else {
            st = raw.pointee.deferred_drop?(raw, requestID, reason, nil) ?? NG_E_NULL
        }
        try check(st)
    }

    /// Cancel a delivered live touch (0: every delivered live touch).
    public func cancelTouch(_ touchID: UInt64) throws(GuardError) {
        try check(raw.pointee.touch_cancel?(raw, touchID) ?? NG_E_NULL)
    }

    /// Hand a report (copied; up to 64 KiB) to the host's report callback.
    public func report(_ text: String) throws(GuardError) {
        try check(text.withCString { raw.pointee.report?(raw, $0) ?? NG_E_NULL })
    }

    /// Log a message (copied).
    public func log(_ level: LogLevel, _ message: String) {
        message.withCString { raw.pointee.log?(raw, level.rawValue, $0) }
    }

    // MARK: Plugin ABI 1.2 (a host of NavGuard 0.3 or later)

    /// Whether the host has the 1.2 table (questions, requests, tied holds).
    public var hasQuestions: Bool {
        // The offset of `wake`, the 1.2 table's last function, read from its
        // address in a scratch table: Embedded Swift has no key paths for
        // MemoryLayout.offset(of:). Optimized, it is a constant.
        let wake = withUnsafeTemporaryAllocation(of: ng_guard_host.self, capacity: 1) { scratch in
            offset(of: &scratch.baseAddress!.pointee.wake, in: scratch.baseAddress!)
        }
        return Int(raw.pointee.size) >= wake + MemoryLayout<UnsafeRawPointer>.size
    }

    /// Make a navigation request as this guard, evaluated after the hook
    /// through the whole chain. `request` as for ng_request_post (set
    /// `size`, e.g. with the request's own initialiser). Returns its id.
    @discardableResult
    public func submit(_ request: ng_request) throws(GuardError) -> UInt64 {
        guard hasQuestions else { throw GuardError.state }
        var r = request
        var id: UInt64 = 0
        try check(raw.pointee.request_submit?(raw, &r, &id) ?? NG_E_NULL)
        return id
    }

    /// Ask the host a question (topic: a reverse-DNS id). The answer comes
    /// to `observe(answer:to:)` (AnswerObserving) exactly once. Returns the
    /// question's id; throws .state while another question is open.
    @discardableResult
    public func ask(topic: String, text: String? = nil, requestID: UInt64 = 0, kind: ng_request_kind = 0,
                    screenID: UInt64 = 0, timeoutNs: Int64 = 0) throws(GuardError) -> UInt64 {
        guard hasQuestions else { throw GuardError.state }
        var id: UInt64 = 0
        let st = topic.withCString { t in
            withOptionalCString(text) { x in
                var q = ng_question_spec()
                q.size = UInt32(MemoryLayout<ng_question_spec>.size)
                q.topic = t
                q.text = x
                q.request_id = requestID
                q.kind = kind
                q.screen_id = screenID
                q.timeout_ns = timeoutNs
                return raw.pointee.ask?(raw, &q, &id) ?? NG_E_NULL
            }
        }
        try check(st)
        return id
    }

    /// Withdraw this guard's open question (it ends WITHDRAWN).
    public func withdraw(_ questionID: UInt64) throws(GuardError) {
        guard hasQuestions else { throw GuardError.state }
        try check(raw.pointee.withdraw?(raw, questionID) ?? NG_E_NULL)
    }

    /// Begin a hold tied to the transition in flight: it ends with it.
    @discardableResult
    public func beginTransitionHold(label: String? = nil, mask: UInt32) throws(GuardError) -> UInt64 {
        guard hasQuestions else { throw GuardError.state }
        var token: UInt64 = 0
        try check(withOptionalCString(label) { raw.pointee.hold_begin_transition?(raw, $0, mask, &token) ?? NG_E_NULL })
        return token
    }

    /// [any thread] Wake the host's loop, for a result this guard's own
    /// thread has for its next tick.
    public func wake() {
        guard hasQuestions else { return }
        raw.pointee.wake?(raw)
    }
}

private func withOptionalCString<T>(_ s: String?, _ body: (UnsafePointer<CChar>?) -> T) -> T {
    guard let s else { return body(nil) }
    return s.withCString { body($0) }
}

/// How far `field` (`&p.pointee.name`) lies from the start of `base`.
@inline(__always)
func offset<T>(of field: UnsafeMutableRawPointer, in base: UnsafeMutablePointer<T>) -> Int {
    field - UnsafeMutableRawPointer(base)
}
