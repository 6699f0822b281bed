import CNavGuard

/// A question a guard asked the host (plugin.h `ask`).
struct Question {
    var id: UInt64
    var slot: Int
    var guardID: UnsafePointer<CChar>
    var topic: CStr
    var text: CStr?
    var requestID: UInt64
    var kind: Int32
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
        q.kind = kind
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

extension Engine {
    // MARK: Questions

    public var openQuestion: ng_question? { questions.open?.cValue }

    /// A guard asks (host->ask). `spec` was checked by the host table.
    func ask(topic: CStr, text: CStr?, requestID: UInt64, kind: Int32, source: UInt32, screenID: UInt64,
             timeoutNs: Int64, slot: Int) throws(EngineError) -> UInt64 {
        guard !destroying else { throw EngineError(NG_E_STATE, "the context is being destroyed") }
        guard timeoutNs >= 0 else { throw EngineError(NG_E_RANGE, "negative question timeout") }
        let t = now
        var deadline = Limits.noDeadline
        if timeoutNs > 0 {
            let (sum, o) = t.addingReportingOverflow(timeoutNs)
            deadline = o ? Limits.noDeadline - 1 : sum
        }
        let q = try questions.ask(Question(id: 0, slot: slot, guardID: chain[slot].guardID, topic: topic, text: text,
                                           requestID: requestID, kind: kind, source: source, screenID: screenID,
                                           askedNs: t,
                                           deadlineNs: deadline))
        run.append(.note(.questionAsked(q)))
        drain()
        return q.id
    }

    /// The host answers the open question (YES or NO).
    public func answerQuestion(_ id: UInt64, _ answer: Int32) throws(EngineError) {
        guard answer == NG_ANSWER_YES || answer == NG_ANSWER_NO else {
            throw EngineError(NG_E_RANGE, "answer \(answer) is not NG_ANSWER_YES or NG_ANSWER_NO")
        }
        guard let q = questions.open, q.id == id else {
            throw EngineError(NG_E_NOT_FOUND, "question \(id) is not open (it timed out, was withdrawn or answered)")
        }
        closeQuestion(q, answer)
        drain()
    }

    /// The asking guard withdraws its question.
    func withdrawQuestion(_ id: UInt64, slot: Int) -> Bool {
        guard let q = questions.open, q.id == id, q.slot == slot else { return false }
        closeQuestion(q, NG_ANSWER_WITHDRAWN)
        drain()
        return true
    }

    /// A question past its deadline ends TIMEOUT (from tick).
    func expireQuestion(at t: Int64) {
        if let q = questions.open, q.deadlineNs <= t { closeQuestion(q, NG_ANSWER_TIMEOUT) }
    }

    func closeQuestion(_ q: Question, _ answer: Int32) {
        _ = questions.close()
        run.append(.note(.questionEnded(q, answer: answer)))
    }

    /// The asker hears the answer first (its held request goes on or is
    /// refused), then the host closes its dialog.
    func deliverAnswer(_ q: Question, _ answer: Int32) {
        var c = q.cValue
        if q.slot < chain.count, chain[q.slot].guardID == q.guardID, let f = chain[q.slot].d.on_answer,
           let inst = chain[q.slot].instance {
            f(inst, &c, answer)
        }
        observer?.engineQuestionEnded(c, answer: answer)
    }
}
