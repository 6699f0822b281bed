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
///    its guard, or destroy). `close` is the only way out.
struct QuestionDesk {
    private(set) var open: Question?
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

    /// Close the open question (the caller delivers its answer).
    mutating func close() -> Question? {
        defer { open = nil }
        return open
    }
}
