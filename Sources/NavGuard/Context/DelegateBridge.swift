// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardLibc
import NavGuardCore
import NavGuardTrace

/// What the host hears: the engine's callbacks handed to the C delegate, the
/// deadline and wake-up the host's loop runs on, and the flight recorder,
/// which writes down every callback before the host sees it.
///
/// Owner thread only, except `wake`.
final class DelegateBridge: EngineObserver {
    let delegate: ng_delegate
    unowned(unsafe) let engine: Engine
    var handle: OpaquePointer?
    /// The flight recorder, while recording (held here).
    var recorder: Recorder? { didSet { rec = recorder.map { Unmanaged.passUnretained($0) } } }
    /// The same, unretained: every recorded call and callback reaches it
    /// through `recording`, which costs no reference counting (the recorder
    /// is never released while a call is inside it: stopping is refused in
    /// callbacks and in the writer).
    private(set) var rec: Unmanaged<Recorder>?

    @inline(__always)
    func recording(_ body: (Recorder) -> Void) {
        if let rec { rec._withUnsafeGuaranteedRef(body) }
    }
    /// The deadline last given to the host's on_deadline.
    private var reportedDeadline = Limits.noDeadline

    init(engine: Engine, delegate: ng_delegate) {
        self.engine = engine
        self.delegate = delegate
    }

    // MARK: The host's loop

    /// At the end of a call that changed state: tell the host's on_deadline
    /// when the next deadline moved (not from inside a callback: the outer
    /// call tells it once, at its end).
    @inline(__always)
    func reportDeadline() {
        guard let f = delegate.on_deadline, !engine.isInsideCallback else { return }
        let d = engine.nextDeadline()
        guard d != reportedDeadline else { return }
        reportedDeadline = d
        engine.callback { f(delegate.user, handle, d) }
    }

    /// [any-thread] The host's on_wake, called by the thread that claimed the
    /// wake-up (Mailbox).
    func wake() {
        delegate.on_wake?(delegate.user, handle)
    }

    // MARK: EngineObserver

    func engineOutcome(_ o: OutcomeRecord) {
        recording { r in r.callback(.outcome) { TraceOutcome.encode(&$0, o) } }
        guard let f = delegate.on_outcome else { return }
        var c = o.cValue
        f(delegate.user, handle, &c)
    }

    func engineTransition(_ event: ng_transition_event) {
        recording { r in r.callback(.transition) { TraceTransition.encode(&$0, event) } }
        guard let f = delegate.on_transition else { return }
        var e = event
        f(delegate.user, handle, &e)
    }

    func engineHoldEnded(_ h: HoldEndRecord) {
        var c = h.cValue
        recording { r in r.callback(.holdEnd) { TraceHoldEnd.encode(&$0, c) } }
        guard let f = delegate.on_hold_end else { return }
        f(delegate.user, handle, &c)
    }

    func engineTouchCancelled(_ touch: ng_touch_info) {
        recording { r in r.callback(.touchCancel) { TraceTouchCancel.encode(&$0, touch) } }
        guard let f = delegate.on_touch_cancel else { return }
        var t = touch
        f(delegate.user, handle, &t)
    }

    func enginePressCancelled(_ press: ng_press_info) {
        recording { r in r.callback(.pressCancel) { TracePressCancel.encode(&$0, press) } }
        // A delegate from an older header was copied by its size: the
        // field is NULL.
        guard let f = delegate.on_press_cancel else { return }
        var p = press
        f(delegate.user, handle, &p)
    }

    func engineQuestion(_ q: ng_question) {
        recording { r in r.callback(.question) { TraceQuestion.encode(&$0, q) } }
        guard let f = delegate.on_question else { return }
        var c = q
        f(delegate.user, handle, &c)
    }

    func engineQuestionEnded(_ q: ng_question, answer: Int32) {
        recording { r in r.callback(.questionEnd) { QuestionEndCallback.encode(&$0, q, answer: answer) } }
        guard let f = delegate.on_question_end else { return }
        var c = q
        f(delegate.user, handle, &c, answer)
    }

    /// A guard's report: something went wrong. The host gets the guard's
    /// text and, after it, the library's notes: slow votes since the last
    /// report, and where the flight recorder keeps what led to it (a ring is
    /// dumped to a file for it). The trace keeps the guard's text only: the
    /// notes depend on timing and files, which replay does not reproduce.
    func engineReport(guardID: UnsafePointer<CChar>?, text: CStr) {
        recording { r in r.callback(.report) { ReportCallback.encode(&$0, guardID: guardID, text: UnsafePointer(text.pointer)) } }
        var notes: [String] = []
        if let slow = engine.takeSlowVoteNote() { notes.append(slow) }
        if let rec = recorder { notes.append(rec.noteForReport()) }
        guard !notes.isEmpty else {
            delegate.on_report?(delegate.user, handle, guardID, UnsafePointer(text.pointer))
            return
        }
        let full = CStr(text.string + (text.string.hasSuffix("\n") ? "" : "\n") + notes.joined(separator: "\n") + "\n")
        delegate.on_report?(delegate.user, handle, guardID, UnsafePointer(full.pointer))
    }

    func engineLog(severity: Int32, guardID: UnsafePointer<CChar>?, message: CStr) {
        recording { r in r.callback(.log) { LogCallback.encode(&$0, severity: severity, guardID: guardID, message: UnsafePointer(message.pointer)) } }
        delegate.on_log?(delegate.user, handle, severity, guardID, UnsafePointer(message.pointer))
    }

    /// Told through on_log when the recorder stops by itself.
    func logError(_ message: String) {
        let m = CStr(message)
        delegate.on_log?(delegate.user, handle, NG_LOG_ERROR, nil, UnsafePointer(m.pointer))
    }
}
