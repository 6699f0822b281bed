// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardLibc
import NavGuardCore

// The calls a trace records (docs/trace-format.md, "Calls"): for each, its
// arguments written three ways side by side (`encode` by the export that
// makes the call, `format` as JSON, `read` back for replay, the timeline
// and stats), then the results a call returns beside its status.
//
// A new recorded call is one case of CallFn, one enum here, one
// `box.recordArgs` in its export and one case in Replayer.perform.

/// A recorded host call: the `fn` of its lines.
public enum CallFn: UInt8, CaseIterable {
    case root = 1, submit, event, viewSet, viewRemove, holdBegin, holdEnd, finish,
         interactiveUpdate, interactiveCancel, interactiveRelease, interactiveComplete,
         screenFlags, questionAnswer, restore, tick, clockSet, clockAdvance, chain, destroy,
         screenFocus

    public var name: StaticString {
        switch self {
        case .root: return "root"
        case .submit: return "submit"
        case .event: return "event"
        case .viewSet: return "view_set"
        case .viewRemove: return "view_remove"
        case .holdBegin: return "hold_begin"
        case .holdEnd: return "hold_end"
        case .finish: return "finish"
        case .interactiveUpdate: return "interactive_update"
        case .interactiveCancel: return "interactive_cancel"
        case .interactiveRelease: return "interactive_release"
        case .interactiveComplete: return "interactive_complete"
        case .screenFlags: return "screen_flags"
        case .questionAnswer: return "question_answer"
        case .restore: return "restore"
        case .tick: return "tick"
        case .clockSet: return "clock_set"
        case .clockAdvance: return "clock_advance"
        case .chain: return "chain"
        case .destroy: return "destroy"
        case .screenFocus: return "screen_focus"
        }
    }

    public init?(name: String) {
        guard let f = CallFn.allCases.first(where: { $0.name.description == name }) else { return nil }
        self = f
    }
}

/// A call's arguments, read back from a trace.
///
/// `indirect`: each case's payload is boxed, so every value is one word the
/// compiler writes whole. Inline, the cases share a 0x68-byte layout whose
/// tag sits in the spare bits of the word at 0x60; a short case (`.finish`,
/// `.chain`) leaves the rest of that word unwritten. The tag read is right
/// (it tests only written bits), but valgrind's memcheck judges the test by
/// the whole word and reported "use of uninitialised value" in
/// Replayer.perform's switch on every replayed chain and finish call (issue 26,
/// item 11); `make test-sanitize` runs the C tests under memcheck. Traces are
/// read once per replay or drawing, so a box per call costs nothing that
/// matters; the recorder never makes these.
public indirect enum CallArgs {
    case root(TraceScreen)
    /// `invalid`: the request was malformed (SubmitCall says how replay
    /// makes it again).
    case submit(TraceRequest, invalid: String?)
    case event(ng_event)
    case viewSet(TraceView)
    case viewRemove(UInt64)
    case holdBegin(label: String?, mask: UInt32, maxNs: Int64)
    case holdEnd(UInt64)
    case finish(track: Track)
    case interactiveUpdate(Double)
    case interactiveCancel
    case interactiveRelease(finish: Bool)
    case interactiveComplete
    case screenFlags(id: UInt64, flags: UInt32)
    case screenFocus(id: UInt64, token: UInt64)
    case questionAnswer(id: UInt64, answer: Answer)
    case restore([UInt8])
    case tick
    case clockSet(Int64)
    case clockAdvance(Int64)
    /// `via`: the function (ng_chain_configure, _file, ng_plugin_load, ng_chain_add).
    case chain(via: String, path: String?, config: String?)
    case destroy

    /// The arguments of a `fn` record (`v`: the whole line).
    static func read(_ fn: CallFn, _ v: JSONValue) throws(FieldError) -> CallArgs {
        switch fn {
        case .root: return try RootCall.read(v)
        case .submit: return try SubmitCall.read(v)
        case .event: return try EventCall.read(v)
        case .viewSet: return try ViewSetCall.read(v)
        case .viewRemove: return .viewRemove(try ViewRemoveCall.read(v))
        case .holdBegin: return try HoldBeginCall.read(v)
        case .holdEnd: return .holdEnd(try HoldEndCall.read(v))
        case .finish: return try FinishCall.read(v)
        case .interactiveUpdate: return .interactiveUpdate(try InteractiveUpdateCall.read(v))
        case .interactiveCancel: return .interactiveCancel
        case .interactiveRelease: return .interactiveRelease(finish: InteractiveReleaseCall.read(v))
        case .interactiveComplete: return .interactiveComplete
        case .screenFlags: return try ScreenFlagsCall.read(v)
        case .screenFocus: return try ScreenFocusCall.read(v)
        case .questionAnswer: return try QuestionAnswerCall.read(v)
        case .restore: return try RestoreCall.read(v)
        case .tick: return .tick
        case .clockSet: return .clockSet(try ClockCall.read(v))
        case .clockAdvance: return .clockAdvance(try ClockCall.read(v))
        case .chain: return ChainCall.read(v)
        case .destroy: return .destroy
        }
    }

    /// The arguments in a binary record, as JSON members.
    public static func format(_ fn: CallFn, _ r: inout RecordReader, _ w: TraceLine) {
        switch fn {
        case .root: RootCall.format(&r, w)
        case .submit: SubmitCall.format(&r, w)
        case .event: EventCall.format(&r, w)
        case .viewSet: ViewSetCall.format(&r, w)
        case .viewRemove: ViewRemoveCall.format(&r, w)
        case .holdBegin: HoldBeginCall.format(&r, w)
        case .holdEnd: HoldEndCall.format(&r, w)
        case .finish: FinishCall.format(&r, w)
        case .interactiveUpdate: InteractiveUpdateCall.format(&r, w)
        case .interactiveRelease: InteractiveReleaseCall.format(&r, w)
        case .screenFlags: ScreenFlagsCall.format(&r, w)
        case .screenFocus: ScreenFocusCall.format(&r, w)
        case .questionAnswer: QuestionAnswerCall.format(&r, w)
        case .restore: RestoreCall.format(&r, w)
        case .clockSet, .clockAdvance: ClockCall.format(&r, w)
        case .chain: ChainCall.format(&r, w)
        case .interactiveCancel, .interactiveComplete, .tick, .destroy: NoArgsCall.format(&r, w)
        }
    }
}

// Each recorded call has a type below with its three forms side by side:
// `encode` (the binary record, called by its export), `format` (the
// record as JSON members) and `read` (those members back, for replay).

/// ng_tick, ng_interactive_cancel, ng_interactive_complete,
/// ng_context_destroy: no arguments.
public enum NoArgsCall {
    @inline(__always)
    public static func encode(_ w: inout RecordWriter) {}
    public static func format(_ r: inout RecordReader, _ w: TraceLine) {}
}

/// ng_view_remove: `"id"`.
public enum ViewRemoveCall {
    public static func encode(_ w: inout RecordWriter, id: UInt64) { w.u64(id) }
    public static func format(_ r: inout RecordReader, _ w: TraceLine) { w.field("id", r.u64()) }
    static func read(_ v: JSONValue) throws(FieldError) -> UInt64 { try integer(v["id"], "id") }
}

/// ng_hold_end: `"token"`.
public enum HoldEndCall {
    public static func encode(_ w: inout RecordWriter, token: UInt64) { w.u64(token) }
    public static func format(_ r: inout RecordReader, _ w: TraceLine) { w.field("token", r.u64()) }
    static func read(_ v: JSONValue) throws(FieldError) -> UInt64 { try integer(v["token"], "token") }
}

/// ng_interactive_update: `"progress"`.
public enum InteractiveUpdateCall {
    public static func encode(_ w: inout RecordWriter, progress: Double) { w.f64(progress) }
    public static func format(_ r: inout RecordReader, _ w: TraceLine) { w.field("progress", r.f64()) }
    static func read(_ v: JSONValue) throws(FieldError) -> Double { try real(v["progress"], "progress") }
}

/// ng_interactive_release: `"finish"`.
public enum InteractiveReleaseCall {
    public static func encode(_ w: inout RecordWriter, finish: Bool) { w.bool(finish) }
    public static func format(_ r: inout RecordReader, _ w: TraceLine) { w.field("finish", r.bool()) }
    static func read(_ v: JSONValue) -> Bool { v["finish"]?.bool ?? false }
}

/// ng_screen_set_flags: `"id"`, `"flags"`.
public enum ScreenFlagsCall {
    public static func encode(_ w: inout RecordWriter, id: UInt64, flags: UInt32) {
        w.u64(id)
        w.u32(flags)
    }
    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        w.field("id", r.u64())
        w.field("flags", r.u32())
    }
    static func read(_ v: JSONValue) throws(FieldError) -> CallArgs {
        .screenFlags(id: try integer(v["id"], "id"), flags: try integer(v["flags"], "flags"))
    }
}

/// ng_screen_set_focus: `"id"`, `"token"`.
public enum ScreenFocusCall {
    public static func encode(_ w: inout RecordWriter, id: UInt64, token: UInt64) {
        w.u64(id)
        w.u64(token)
    }
    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        w.field("id", r.u64())
        w.field("token", r.u64())
    }
    static func read(_ v: JSONValue) throws(FieldError) -> CallArgs {
        .screenFocus(id: try integer(v["id"], "id"), token: try integer(v["token"], "token"))
    }
}

/// ng_clock_set and ng_clock_advance: `"ns"` (the instant, or the step).
public enum ClockCall {
    public static func encode(_ w: inout RecordWriter, ns: Int64) { w.i64(ns) }
    public static func format(_ r: inout RecordReader, _ w: TraceLine) { w.field("ns", r.i64()) }
    static func read(_ v: JSONValue) throws(FieldError) -> Int64 { try integer(v["ns"], "ns") }
}

/// ng_stack_set_root: `"screen"`.
public enum RootCall {
    public static func encode(_ w: inout RecordWriter, _ s: Screen) { TraceScreen.encode(&w, s) }
    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        w.key("screen")
        TraceScreen.format(&r, w)
    }
    static func read(_ v: JSONValue) throws(FieldError) -> CallArgs {
        guard let s = v["screen"] else { throw FieldError(message: "root without \"screen\"") }
        return .root(try TraceScreen(json: s))
    }
}

/// ng_request_submit: `"req"`, and `"invalid"` when its content was
/// malformed.
///
/// The malformed-request rule: ng_request_submit refuses a request whose
/// content is malformed (a string that is not UTF-8, unknown flags, a screen
/// id of 0...) with NG_REASON_INVALID, and still gives it an id and an
/// outcome. The recorder cannot keep the bad bytes as JSON; it keeps the
/// kind, flags and source the host gave and, in `invalid`, why it was
/// refused (the outcome's message). Replay submits that same malformed
/// request to the engine with that reason (Replayer.submitMalformed), so
/// its outcome, message included, is the recorded one.
public enum SubmitCall {
    public static func encode(_ w: inout RecordWriter, _ r: Request) {
        TraceRequest.encode(&w, r)
        w.text(r.invalidMessage)
    }
    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        w.object("req") { TraceRequest.format(&r, $0) }
        if let why = r.text() { w.field("invalid", text: why) }
    }
    static func read(_ v: JSONValue) throws(FieldError) -> CallArgs {
        guard let req = v["req"] else { throw FieldError(message: "submit without \"req\"") }
        let invalid = v["invalid"]?.string
        // A malformed request's content is not replayed: only its kind,
        // flags and source, which stand as the host gave them.
        if invalid != nil {
            guard let kind = enumValue(req["kind"], ng_request_kind_name, 0..<NG_REQ_KIND_COUNT) else {
                throw FieldError(message: "a request with an unknown kind")
            }
            var r = TraceRequest(kind: kind)
            r.flags = try integer(req["flags"], "flags")
            r.source = try integer(req["source"], "source")
            return .submit(r, invalid: invalid)
        }
        return .submit(try TraceRequest(json: req), invalid: invalid)
    }
}

/// ng_event_submit: `"ev"`.
public enum EventCall {
    @inline(__always)
    public static func encode(_ w: inout RecordWriter, _ e: ng_event) { TraceEvent.encode(&w, e) }
    public static func format(_ r: inout RecordReader, _ w: TraceLine) { w.object("ev") { TraceEvent.format(&r, $0) } }
    static func read(_ v: JSONValue) throws(FieldError) -> CallArgs {
        guard let ev = v["ev"] else { throw FieldError(message: "event without \"ev\"") }
        return .event(try TraceEvent.read(json: ev))
    }
}

/// ng_view_set: `"view"`.
public enum ViewSetCall {
    public static func encode(_ w: inout RecordWriter, _ v: ViewSpec) { TraceView.encode(&w, v) }
    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        w.key("view")
        TraceView.format(&r, w)
    }
    static func read(_ v: JSONValue) throws(FieldError) -> CallArgs {
        guard let view = v["view"] else { throw FieldError(message: "view_set without \"view\"") }
        return .viewSet(try TraceView(json: view))
    }
}

/// ng_hold_begin: `"label"` (null for none), `"mask"`, `"max_ns"`.
public enum HoldBeginCall {
    public static func encode(_ w: inout RecordWriter, label: CStr?, mask: UInt32, maxNs: Int64) {
        w.text(label)
        w.u32(mask)
        w.i64(maxNs)
    }
    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        w.field("label", text: r.text())
        w.field("mask", r.u32())
        w.field("max_ns", r.i64())
    }
    static func read(_ v: JSONValue) throws(FieldError) -> CallArgs {
        .holdBegin(label: v["label"]?.string, mask: try integer(v["mask"], "mask"), maxNs: try integer(v["max_ns"], "max_ns"))
    }
}

/// ng_transition_finish: `"track"` by name.
public enum FinishCall {
    public static func encode(_ w: inout RecordWriter, track: Int32) { w.i32(track) }
    public static func format(_ r: inout RecordReader, _ w: TraceLine) { w.field("track", r.i32(), .track) }
    static func read(_ v: JSONValue) throws(FieldError) -> CallArgs {
        guard let track = enumValue(v["track"], ng_track_name, 0..<NG_TRACK_COUNT) else { throw FieldError(message: "finish without a track") }
        return .finish(track: Track(rawValue: track))
    }
}

/// ng_question_answer: `"id"`, `"answer"` by name.
public enum QuestionAnswerCall {
    public static func encode(_ w: inout RecordWriter, id: UInt64, answer: Int32) {
        w.u64(id)
        w.i32(answer)
    }
    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        w.field("id", r.u64())
        w.field("answer", r.i32(), .answer)
    }
    static func read(_ v: JSONValue) throws(FieldError) -> CallArgs {
        guard let answer = enumValue(v["answer"], ng_answer_name, 0..<NG_ANSWER_COUNT) else {
            throw FieldError(message: "question_answer without an answer")
        }
        return .questionAnswer(id: try integer(v["id"], "id"), answer: Answer(rawValue: answer))
    }
}

/// ng_stack_restore: `"snapshot"` (the text), or `"snapshot_hex"` when it is
/// not UTF-8.
public enum RestoreCall {
    public static func encode(_ w: inout RecordWriter, _ bytes: UnsafeRawBufferPointer) { w.text(bytes) }
    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        guard let bytes = r.text() else { return }
        if isValidUTF8(bytes) { w.key("snapshot"); w.string(bytes) } else { w.key("snapshot_hex"); w.hex(bytes) }
    }
    static func read(_ v: JSONValue) throws(FieldError) -> CallArgs {
        if let hex = v["snapshot_hex"]?.string {
            guard let b = bytesFromHex(hex) else { throw FieldError(message: "snapshot_hex is not hex") }
            return .restore(b)
        }
        return .restore(Array((v["snapshot"]?.string ?? "").utf8))
    }
}

/// A chain change (ng_chain_configure, _file, ng_plugin_load, ng_chain_add):
/// `"via"` (the function), `"path"`, `"config"`; its result lists the
/// guards it added.
public enum ChainCall {
    public static func encode(_ w: inout RecordWriter, via: StaticString, path: String?, config: String?) {
        w.text(UnsafeRawBufferPointer(start: via.utf8Start, count: via.utf8CodeUnitCount))
        w.text(path)
        w.text(config)
    }
    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        w.field("via", text: r.text())
        if let p = r.text() { w.field("path", text: p) }
        if let c = r.text() { w.field("config", text: c) }
    }
    static func read(_ v: JSONValue) -> CallArgs {
        .chain(via: v["via"]?.string ?? "ng_chain_configure", path: v["path"]?.string, config: v["config"]?.string)
    }
}

func bytesFromHex(_ s: String) -> [UInt8]? {
    var out: [UInt8] = []
    var hi: UInt8?
    for c in s.utf8 {
        let v: UInt8
        switch c {
        case 0x30...0x39: v = c - 0x30
        case 0x61...0x66: v = c - 0x57
        default: return nil
        }
        if let h = hi { out.append(h << 4 | v); hi = nil } else { hi = v }
    }
    return hi == nil ? out : nil
}

// MARK: Results

/// What a call returns beside its status, as the recorder holds it until
/// the call returns (no text is built while it runs).
public enum CallResult {
    case none
    /// ng_request_submit: `"status"` (the outcome), `"id"`, `"reason"` (when
    /// not none), `"guard"` (when one decided).
    case submit(status: Int32, id: UInt64, reason: Int32, guardID: UnsafePointer<CChar>?)
    /// ng_event_submit: `"verdict"`, `"reason"`, `"view"`, `"guard"` (when one dropped it).
    case event(verdict: Int32, reason: Int32, view: UInt64, guardID: UnsafePointer<CChar>?)
    /// ng_hold_begin: `"token"`.
    case token(UInt64)
    /// A chain change: `"guards"`, the guards it added (the engine's
    /// `from..<to`).
    case chain(from: Int, to: Int)

    private static let noneTag: UInt8 = 0, submitTag: UInt8 = 1, eventTag: UInt8 = 2, tokenTag: UInt8 = 3, chainTag: UInt8 = 4
    /// Set on the tag when an i64 `tr` follows it.
    private static let datedTag: UInt8 = 0x80

    /// `ret`: u32 status, u8 tag (| 0x80 when `tr` follows), i64 `tr` (only
    /// then), the tag's fields, then the error text (null when the call
    /// succeeded). `datedAt` (`"tr"` beside `"ret"` on the line): a host
    /// call that began a transition while the clock moved, the instant that
    /// transition is dated from (when the call returned); replay dates it so.
    @inline(__always)
    public static func encode(_ w: inout RecordWriter, status: ng_status, _ result: CallResult, err: UnsafePointer<CChar>?,
                       datedAt: Int64? = nil, engine: Engine? = nil) {
        // The common rets, each with one check of room: status OK, no `tr`,
        // no deciding guard, nothing but fixed fields (the same bytes as
        // encodeGeneral's).
        if status == NG_OK, datedAt == nil {
            switch result {
            case .event(let verdict, let reason, let view, .none):
                return encodeEvent(&w, verdict: verdict, reason: reason, view: view)
            case .none:
                return w.fixed(9) { f in f.i32(NG_OK); f.u8(noneTag); f.u32(RecordWriter.nullText) }
            case .submit(let s, let id, let reason, .none):
                return w.fixed(29) { f in
                    f.i32(NG_OK); f.u8(submitTag); f.i32(s); f.u64(id); f.i32(reason)
                    f.u32(RecordWriter.nullText); f.u32(RecordWriter.nullText)
                }
            default: break
            }
        }
        encodeGeneral(&w, status: status, result, err: err, datedAt: datedAt, engine: engine)
    }

    /// The rest of `encode` (out of line: the common rets above are inlined where they are written).
    @inline(never)
    static func encodeGeneral(_ w: inout RecordWriter, status: ng_status, _ result: CallResult, err: UnsafePointer<CChar>?,
                              datedAt: Int64?, engine: Engine?) {
        w.i32(status)
        switch result {
        case .none:
            tag(&w, noneTag, datedAt)
        case .submit(let s, let id, let reason, let g):
            tag(&w, submitTag, datedAt); w.i32(s); w.u64(id); w.i32(reason); w.text(g)
        case .event(let verdict, let reason, let view, let g):
            tag(&w, eventTag, datedAt); w.i32(verdict); w.i32(reason); w.u64(view); w.text(g)
        case .token(let t):
            tag(&w, tokenTag, datedAt); w.u64(t)
        case .chain(let from, let to):
            tag(&w, chainTag, datedAt)
            w.u32(engine == nil ? 0 : UInt32(max(0, to - from)))
            var i = from
            while i < to {
                if let g = engine?.guardRecord(at: i) { TraceGuard.encode(&w, g) }
                i += 1
            }
        }
        w.text(status == NG_OK ? nil : err)
    }

    /// That common ret's bytes (a ring reserves them after an event's call).
    public static let eventSize = 29

    /// That common ret: status OK, no `tr`, no guard, no error text.
    @inline(__always)
    public static func encodeEvent(_ w: inout RecordWriter, verdict: Int32, reason: Int32, view: UInt64) {
        w.fixed(eventSize) { f in
            f.i32(NG_OK); f.u8(eventTag); f.i32(verdict); f.i32(reason); f.u64(view)
            f.u32(RecordWriter.nullText); f.u32(RecordWriter.nullText)
        }
    }

    @inline(__always)
    private static func tag(_ w: inout RecordWriter, _ tag: UInt8, _ datedAt: Int64?) {
        if let datedAt {
            w.u8(tag | datedTag)
            w.i64(datedAt)
        } else {
            w.u8(tag)
        }
    }

    /// `"tr":...,"ret":{"st":...,<results>,"err":...}` (`tr` when recorded).
    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        var peek = r
        _ = peek.i32()
        if peek.u8() & datedTag != 0 { w.field("tr", peek.i64()) }
        w.key("ret")
        formatObject(&r, w)
    }

    /// The `ret` object alone (replay compares what happens now with it;
    /// `tr` is the line's, not the object's).
    public static func formatObject(_ r: inout RecordReader, _ w: TraceLine) {
        w.begin()
        let status = r.i32()
        w.field("st", status: status)
        let tag = r.u8()
        if tag & datedTag != 0 { _ = r.i64() }
        switch tag & ~datedTag {
        case submitTag:
            w.field("status", r.i32(), .outcome)
            w.field("id", r.u64())
            let reason = r.i32()
            if reason != NG_REASON_NONE { w.field("reason", reason, .reason) }
            if let g = r.text() { w.field("guard", text: g) }
        case eventTag:
            w.field("verdict", r.i32(), .verdict)
            w.field("reason", r.i32(), .reason)
            w.field("view", r.u64())
            if let g = r.text() { w.field("guard", text: g) }
        case tokenTag:
            w.field("token", r.u64())
        case chainTag:
            let n = r.u32()
            w.array("guards") { w in
                var i: UInt32 = 0
                while i < n && !r.bad {
                    w.element()
                    TraceGuard.format(&r, w)
                    i += 1
                }
            }
        default:
            break
        }
        if let err = r.text() { w.field("err", text: err) }
        w.end()
    }
}

/// A call's `ret`, read back.
public struct TraceResult {
    /// The status's name ("NG_OK").
    public var status: String
    public var err: String?
    /// ng_request_submit: the outcome (NG_OUTCOME_*) and request id.
    public var outcome: Int32 = -1
    public var id: UInt64 = 0
    /// ng_event_submit: the verdict; both: the reason and deciding guard.
    public var verdict: Int32 = -1
    public var reason: Int32 = NG_REASON_NONE
    public var view: UInt64 = 0
    public var guardID: String?
    /// ng_hold_begin.
    public var token: UInt64 = 0
    /// A chain change: the guards added, when the result lists them.
    public var guards: [TraceGuard] = []
    public var listsGuards = false
    /// As written (replay compares results as the recorder writes them).
    public var json: JSONValue
    /// `"tr"` on the line carrying the `ret`: the instant the transition
    /// this host call began is dated from (CallResult.encode), else nil.
    public var datedAt: Int64?

    public var ok: Bool { status == "NG_OK" }

    /// `v`: the `ret` object; `datedAt`: the line's `tr`.
    public init(json v: JSONValue, datedAt: Int64? = nil) {
        json = v
        self.datedAt = datedAt
        status = v["st"]?.string ?? "?"
        err = v["err"]?.string
        // Lenient: a result only describes; replay compares `json`.
        outcome = enumOrUnknown(v["status"], ng_outcome_name, 0..<NG_OUTCOME_COUNT)
        id = v["id"]?.uint64 ?? 0
        verdict = enumOrUnknown(v["verdict"], ng_verdict_name, 0..<NG_VERDICT_COUNT)
        reason = v["reason"] == nil ? NG_REASON_NONE : enumOrUnknown(v["reason"], ng_reason_name, 0..<NG_REASON_COUNT)
        view = v["view"]?.uint64 ?? 0
        guardID = v["guard"]?.string
        token = v["token"]?.uint64 ?? 0
        guards = (v["guards"]?.array ?? []).map { TraceGuard(json: $0) }
        listsGuards = v["guards"] != nil
    }

    /// A chain call's result as replay compares it: the status and the ids
    /// of the guards added (paths, versions and files differ between machines).
    public var chainComparison: JSONValue {
        TraceResult.chainComparison(status: json["st"]?.string, guardIDs: listsGuards ? guards.map { $0.id.isEmpty ? nil : $0.id } : nil)
    }

    public static func chainComparison(status: String?, guardIDs: [String?]?) -> JSONValue {
        var m: [(String, JSONValue)] = [("st", status.map { .string($0) } ?? .null)]
        if let g = guardIDs { m.append(("guards", .array(g.map { $0.map { .string($0) } ?? .null }))) }
        return .object(m)
    }
}
