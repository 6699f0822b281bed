// SPDX-License-Identifier: Apache-2.0
import CNavGuard

/// A question a guard asked the host (plugin.h `ask`).
struct Question {
    var id: UInt64
    var slot: Int
    var guardID: UnsafePointer<CChar>
    var topic: CStr
    var text: CStr?
    var requestID: UInt64
    var kind: RequestKind
    var source: UInt32
    var screenID: UInt64
    var askedNs: Int64
    var deadlineNs: Int64
    /// The generation of the stack it was asked about (the settled stack,
    /// the one requests apply to).
    var stackGeneration: UInt64

    /// It names a request or a screen: its answer is about the stack.
    var isAboutStack: Bool { requestID != 0 || screenID != 0 }

    /// As the host sees it; its pointers are valid while this value lives.
    var cValue: ng_question {
        var q = ng_question()
        q.size = UInt32(MemoryLayout<ng_question>.size)
        q.question_id = id
        q.topic = UnsafePointer(topic.pointer)
        q.text = text.map { UnsafePointer($0.pointer) }
        q.guard_id = guardID
        q.request_id = requestID
        q.kind = kind.rawValue
        q.source = source
        q.screen_id = screenID
        q.asked_ns = askedNs
        q.deadline_ns = deadlineNs
        return q
    }
}

/// The open question, if any, and the numbering of questions.
///
/// Invariants:
///  * at most one question is open per context;
///  * ids are unique, increasing, never 0 (and far below 2^53);
///  * every question asked is closed exactly once, with one answer: the
///    host's YES or NO, TIMEOUT once its deadline passed, or WITHDRAWN (by
///    its guard, by a change of the stack, or destroy). `close` is the only
///    way out;
///  * the stack the host was asked about is the stack the answer applies
///    to: a question about the stack (it names a request or a screen) is
///    withdrawn as soon as the stack's screens change by anything but its
///    own answer (a restore, another request applied, a swipe rolled back),
///    and the request it holds is dropped, NG_REASON_STALE. The whole stack,
///    not only the asked screen: a screen pushed above "shop" is what a
///    held Back would pop. Its own answer cannot trip this: the question is
///    closed before its asker hears the answer and lets the request go on.
///    The engine looks at every change of the stack (its `stack` observer)
///    and asks `outdated`; a change of flags is none (the host may mark or
///    unmark screens meanwhile).
struct QuestionDesk {
    private(set) var open: Question? { didSet { isOpen = open != nil } }
    /// `open != nil`, stored: the stack's observer asks it at every change,
    /// and reading `open` would copy the question.
    private(set) var isOpen = false
    /// The id the next question gets (a mid-session replay continues it).
    var nextID: UInt64 = 1

    var deadline: Int64 { open?.deadlineNs ?? Limits.noDeadline }

    mutating func ask(_ q: Question) throws(EngineError) -> Question {
        if let o = open {
            throw EngineError(NG_E_STATE, "question \(o.id) (\(o.topic.string)) is still open; one question is open at a time")
        }
        var q = q
        q.id = nextID
        nextID += 1
        open = q
        return q
    }

    /// The open question, if it is about the stack and was asked about
    /// another generation of it than `generation` (the settled stack's now).
    func outdated(stackGeneration generation: UInt64) -> Question? {
        guard let q = open, q.isAboutStack, q.stackGeneration != generation else { return nil }
        return q
    }

    /// Close the open question (the caller delivers its answer).
    mutating func close() -> Question? {
        defer { open = nil }
        return open
    }
}
