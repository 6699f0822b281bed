// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore

// The callbacks a trace records (docs/trace-format.md, "Callbacks"), and
// posted requests: each written three ways side by side, as the calls are
// (TraceCalls.swift). Reading them back is lenient (the timeline and stats
// draw hand-edited traces too): replay compares callbacks as written.

/// A recorded callback to the host: the `fn` of its `cb` lines.
public enum CallbackFn: UInt8, CaseIterable {
    case outcome = 1, transition, holdEnd, report, log, touchCancel, question, questionEnd
    /// 0.4. A reader that predates it passes its records and lines over.
    case pressCancel

    public var name: StaticString {
        switch self {
        case .outcome: return "outcome"
        case .transition: return "transition"
        case .holdEnd: return "hold_end"
        case .report: return "report"
        case .log: return "log"
        case .touchCancel: return "touch_cancel"
        case .question: return "question"
        case .questionEnd: return "question_end"
        case .pressCancel: return "press_cancel"
        }
    }

    public init?(name: String) {
        guard let f = CallbackFn.allCases.first(where: { $0.name.description == name }) else { return nil }
        self = f
    }
}

/// A callback, read back.
public enum TraceCallback {
    case outcome(TraceOutcome)
    case transition(TraceTransition)
    case holdEnd(TraceHoldEnd)
    case report(guardID: String?, text: String)
    case log(severity: Int32, guardID: String?, message: String)
    case touchCancel(TraceTouchCancel)
    case question(TraceQuestion)
    case questionEnd(id: UInt64, answer: Answer)
    case pressCancel(TracePressCancel)

    static func read(_ fn: CallbackFn, _ v: JSONValue) -> TraceCallback {
        switch fn {
        case .outcome: return .outcome(TraceOutcome(json: v))
        case .transition: return .transition(TraceTransition(json: v))
        case .holdEnd: return .holdEnd(TraceHoldEnd(json: v))
        case .report: return ReportCallback.read(v)
        case .log: return LogCallback.read(v)
        case .touchCancel: return .touchCancel(TraceTouchCancel(json: v))
        case .question: return .question(TraceQuestion(json: v))
        case .questionEnd: return QuestionEndCallback.read(v)
        case .pressCancel: return .pressCancel(TracePressCancel(json: v))
        }
    }

    public static func format(_ fn: CallbackFn, _ r: inout RecordReader, _ w: TraceLine) {
        switch fn {
        case .outcome: TraceOutcome.format(&r, w)
        case .transition: TraceTransition.format(&r, w)
        case .holdEnd: TraceHoldEnd.format(&r, w)
        case .report: ReportCallback.format(&r, w)
        case .log: LogCallback.format(&r, w)
        case .touchCancel: TraceTouchCancel.format(&r, w)
        case .question: TraceQuestion.format(&r, w)
        case .questionEnd: QuestionEndCallback.format(&r, w)
        case .pressCancel: TracePressCancel.format(&r, w)
        }
    }
}

/// on_outcome: `"id"`, `"kind"`, `"outcome"`, `"reason"` (names), `"source"`
/// (when not 0), `"guard"`, `"message"` (when there is one).
public struct TraceOutcome {
    public var id: UInt64
    public var kind: RequestKind
    public var outcome: Outcome
    public var reason: Reason
    public var source: UInt32
    public var guardID: String?
    public var message: String?

    public var kindName: String { enumName(kind.rawValue, ng_request_kind_name) }
    public var outcomeName: String { enumName(outcome.rawValue, ng_outcome_name) }
    public var reasonName: String { enumName(reason.rawValue, ng_reason_name) }

    public static func encode(_ w: inout RecordWriter, _ o: OutcomeRecord) {
        w.fixed(24) { f in
            f.u64(o.requestID)
            f.i32(o.kind.rawValue)
            f.i32(o.outcome.rawValue)
            f.i32(o.reason.rawValue)
            f.u32(o.source)
        }
        w.text(o.guardID)
        w.text(o.message)
    }

    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        w.field("id", r.u64())
        w.field("kind", r.i32(), .requestKind)
        w.field("outcome", r.i32(), .outcome)
        w.field("reason", r.i32(), .reason)
        let source = r.u32()
        if source != 0 { w.field("source", source) }
        if let g = r.text() { w.field("guard", text: g) }
        if let m = r.text() { w.field("message", text: m) }
    }

    init(json v: JSONValue) {
        id = v["id"]?.uint64 ?? 0
        kind = RequestKind(rawValue: enumOrUnknown(v["kind"], ng_request_kind_name, 0..<NG_REQ_KIND_COUNT))
        outcome = Outcome(rawValue: enumOrUnknown(v["outcome"], ng_outcome_name, 0..<NG_OUTCOME_COUNT))
        reason = Reason(rawValue: enumOrUnknown(v["reason"], ng_reason_name, 0..<NG_REASON_COUNT))
        source = UInt32(clamping: v["source"]?.int64 ?? 0)
        guardID = v["guard"]?.string
        message = v["message"]?.string
    }
}

/// on_transition: `"track"`, `"phase"` (names), `"flags"`, `"id"`, `"kind"`,
/// `"from"`, `"to"`.
public struct TraceTransition {
    public var track: Track
    public var phase: TransitionPhase
    public var flags: UInt32
    public var id: UInt64
    public var kind: RequestKind
    public var from: UInt64
    public var to: UInt64
    /// The focus token handed back (0.4; absent: 0).
    public var focus: UInt64

    public var kindName: String { enumName(kind.rawValue, ng_request_kind_name) }

    /// Fixed fields, with one check of room (a request's transition
    /// callbacks are most of what a ring records for it).
    @inline(__always)
    public static func encode(_ w: inout RecordWriter, _ e: ng_transition_event) {
        w.fixed(48) { f in
            f.i32(e.track)
            f.i32(e.phase)
            f.u32(e.flags)
            f.u64(e.request_id)
            f.i32(e.kind)
            f.u64(e.from_id)
            f.u64(e.to_id)
            f.u64(e.focus_token)
        }
    }

    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        w.field("track", r.i32(), .track)
        w.field("phase", r.i32(), .phase)
        w.field("flags", r.u32())
        w.field("id", r.u64())
        w.field("kind", r.i32(), .requestKind)
        w.field("from", r.u64())
        w.field("to", r.u64())
        // The record's last field since 0.4: a 0.3 record ends before it
        // (its payload's padding is under 8 bytes), so 0.3's rings and crash
        // dumps read as before. Written only when set.
        let focus: UInt64 = r.remaining >= 8 ? r.u64() : 0
        if focus != 0 { w.field("focus", focus) }
    }

    init(json v: JSONValue) {
        track = Track(rawValue: enumValue(v["track"], ng_track_name, 0..<NG_TRACK_COUNT) ?? NG_TRACK_SCREEN)
        phase = TransitionPhase(rawValue: enumOrUnknown(v["phase"], ng_phase_name, 0..<NG_PHASE_COUNT))
        flags = UInt32(truncatingIfNeeded: v["flags"]?.int64 ?? 0)
        id = v["id"]?.uint64 ?? 0
        kind = RequestKind(rawValue: enumOrUnknown(v["kind"], ng_request_kind_name, 0..<NG_REQ_KIND_COUNT))
        from = v["from"]?.uint64 ?? 0
        to = v["to"]?.uint64 ?? 0
        focus = v["focus"]?.uint64 ?? 0
    }
}

/// on_hold_end: `"token"`, `"label"`, `"mask"`, `"reason"` (name), `"began"`,
/// `"ended"`.
public struct TraceHoldEnd {
    public var token: UInt64
    public var label: String?
    public var mask: UInt32
    public var reason: HoldEndReason
    public var began: Int64?
    public var ended: Int64?

    public var reasonName: String { enumName(reason.rawValue, ng_hold_end_reason_name) }

    public static func encode(_ w: inout RecordWriter, _ h: ng_hold_info) {
        w.u64(h.token)
        w.text(h.label)
        w.fixed(24) { f in
            f.u32(h.mask)
            f.i32(h.reason)
            f.i64(h.began_ns)
            f.i64(h.ended_ns)
        }
    }

    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        w.field("token", r.u64())
        w.field("label", text: r.text())
        w.field("mask", r.u32())
        w.field("reason", r.i32(), .holdEndReason)
        w.field("began", r.i64())
        w.field("ended", r.i64())
    }

    init(json v: JSONValue) {
        token = v["token"]?.uint64 ?? 0
        label = v["label"]?.string
        mask = UInt32(truncatingIfNeeded: v["mask"]?.int64 ?? 0)
        reason = HoldEndReason(rawValue: enumOrUnknown(v["reason"], ng_hold_end_reason_name, 0..<NG_HOLD_END_REASON_COUNT))
        began = v["began"]?.int64
        ended = v["ended"]?.int64
    }
}

/// on_report: `"guard"`, `"text"` (the guard's text; the library's notes for
/// the host are not recorded).
public enum ReportCallback {
    public static func encode(_ w: inout RecordWriter, guardID: UnsafePointer<CChar>?, text: UnsafePointer<CChar>?) {
        w.text(guardID)
        w.text(text)
    }
    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        w.field("guard", text: r.text())
        w.field("text", text: r.text())
    }
    static func read(_ v: JSONValue) -> TraceCallback { .report(guardID: v["guard"]?.string, text: v["text"]?.string ?? "") }
}

/// on_log: `"severity"` (name), `"guard"`, `"message"`.
public enum LogCallback {
    public static func encode(_ w: inout RecordWriter, severity: Int32, guardID: UnsafePointer<CChar>?, message: UnsafePointer<CChar>?) {
        w.i32(severity)
        w.text(guardID)
        w.text(message)
    }
    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        w.field("severity", r.i32(), .severity)
        w.field("guard", text: r.text())
        w.field("message", text: r.text())
    }
    static func read(_ v: JSONValue) -> TraceCallback {
        .log(severity: enumOrUnknown(v["severity"], ng_severity_name, 0..<NG_SEVERITY_COUNT), guardID: v["guard"]?.string,
             message: v["message"]?.string ?? "")
    }
}

/// on_touch_cancel: `"touch"`, `"view"`, `"state"` (name), `"began"`.
public struct TraceTouchCancel {
    public var touch: UInt64
    public var view: UInt64
    public var state: Int32
    public var began: Int64?

    public static func encode(_ w: inout RecordWriter, _ t: ng_touch_info) {
        w.u64(t.touch_id)
        w.u64(t.view_id)
        w.i32(t.state)
        w.i64(t.began_ns)
    }

    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        w.field("touch", r.u64())
        w.field("view", r.u64())
        w.field("state", r.i32(), .touchState)
        w.field("began", r.i64())
    }

    init(json v: JSONValue) {
        touch = v["touch"]?.uint64 ?? 0
        view = v["view"]?.uint64 ?? 0
        state = enumOrUnknown(v["state"], ng_touch_state_name, 0..<NG_TOUCH_STATE_COUNT)
        began = v["began"]?.int64
    }
}

/// on_press_cancel (0.4): `"type"` (name), `"device"`, `"code"`, `"view"`
/// and `"screen"` (when not 0), `"down"` (when it went down), `"cause"` (name).
public struct TracePressCancel {
    public var type: Int32
    public var device: UInt64
    public var code: Int64
    public var view: UInt64
    public var screen: UInt64
    public var down: Int64?
    public var cause: Int32

    public var causeName: String { enumName(cause, ng_press_cause_name) }

    public static func encode(_ w: inout RecordWriter, _ p: ng_press_info) {
        w.i32(p.type)
        w.u64(p.device)
        w.i64(p.code)
        w.u64(p.view_id)
        w.u64(p.screen_id)
        w.i64(p.down_ns)
        w.i32(p.cause)
    }

    static func format(_ r: inout RecordReader, _ w: TraceLine) {
        w.field("type", r.i32(), .eventType)
        w.field("device", r.u64())
        w.field("code", r.i64())
        let view = r.u64()
        if view != 0 { w.field("view", view) }
        let screen = r.u64()
        if screen != 0 { w.field("screen", screen) }
        w.field("down", r.i64())
        w.field("cause", r.i32(), .pressCause)
    }

    init(json v: JSONValue) {
        type = enumOrUnknown(v["type"], ng_event_type_name, 0..<16)
        device = v["device"]?.uint64 ?? 0
        code = v["code"]?.int64 ?? 0
        view = v["view"]?.uint64 ?? 0
        screen = v["screen"]?.uint64 ?? 0
        down = v["down"]?.int64
        cause = enumOrUnknown(v["cause"], ng_press_cause_name, 0..<16)
    }
}

/// on_question: `"id"`, `"topic"`, `"text"`, `"guard"`; with a request,
/// `"request"`, `"kind"` and `"source"` (when not 0); `"screen"` (when not
/// 0), `"deadline"` (when it has one).
public struct TraceQuestion {
    public var id: UInt64
    public var topic: String?
    public var text: String?
    public var guardID: String?
    public var request: UInt64
    public var kind: Int32
    public var source: UInt32
    public var screen: UInt64
    public var deadline: Int64?

    public static func encode(_ w: inout RecordWriter, _ q: ng_question) {
        w.u64(q.question_id)
        w.text(q.topic)
        w.text(q.text)
        w.text(q.guard_id)
        w.u64(q.request_id)
        w.i32(q.kind)
        w.u32(q.source)
        w.u64(q.screen_id)
        w.i64(q.deadline_ns)
    }

    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        w.field("id", r.u64())
        w.field("topic", text: r.text())
        w.field("text", text: r.text())
        w.field("guard", text: r.text())
        let request = r.u64()
        let kind = r.i32()
        let source = r.u32()
        if request != 0 {
            w.field("request", request)
            w.field("kind", kind, .requestKind)
            if source != 0 { w.field("source", source) }
        }
        let screen = r.u64()
        if screen != 0 { w.field("screen", screen) }
        let deadline = r.i64()
        if deadline != Limits.noDeadline { w.field("deadline", deadline) }
    }

    init(json v: JSONValue) {
        id = v["id"]?.uint64 ?? 0
        topic = v["topic"]?.string
        text = v["text"]?.string
        guardID = v["guard"]?.string
        request = v["request"]?.uint64 ?? 0
        kind = enumOrUnknown(v["kind"], ng_request_kind_name, 0..<NG_REQ_KIND_COUNT)
        source = UInt32(clamping: v["source"]?.int64 ?? 0)
        screen = v["screen"]?.uint64 ?? 0
        deadline = v["deadline"]?.int64
    }
}

/// on_question_end: `"id"`, `"answer"` (name).
public enum QuestionEndCallback {
    public static func encode(_ w: inout RecordWriter, _ q: ng_question, answer: Int32) {
        w.u64(q.question_id)
        w.i32(answer)
    }
    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        w.field("id", r.u64())
        w.field("answer", r.i32(), .answer)
    }
    static func read(_ v: JSONValue) -> TraceCallback {
        .questionEnd(id: v["id"]?.uint64 ?? 0, answer: Answer(rawValue: enumOrUnknown(v["answer"], ng_answer_name, 0..<NG_ANSWER_COUNT)))
    }
}

/// A request posted from another thread, recorded inside the tick that
/// applied it (or the destroy that dropped it), right after that call's
/// line: `"id"`, `"req"`, and `"posted_ns"`, when it was posted on the
/// context's clock (how long it waited for that tick; replay posts it again
/// just before the tick and does not compare this).
public enum PostedRecord {
    public static func encode(_ w: inout RecordWriter, _ r: Request, postedNs: Int64) {
        w.u64(r.id)
        TraceRequest.encode(&w, r)
        w.i64(postedNs)
    }
    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        w.field("id", r.u64())
        w.object("req") { TraceRequest.format(&r, $0) }
        let at = r.i64()
        if at >= 0 { w.field("posted_ns", at) }
    }
    static func read(_ v: JSONValue) throws(FieldError) -> (id: UInt64, request: TraceRequest, postedNs: Int64?) {
        guard let req = v["req"] else { throw FieldError(message: "a posted record without \"req\"") }
        return (try integer(v["id"], "id"), try TraceRequest(json: req), v["posted_ns"]?.int64)
    }
}
