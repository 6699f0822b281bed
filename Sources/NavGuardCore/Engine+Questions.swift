// SPDX-License-Identifier: Apache-2.0
import CNavGuard

// The engine's questions: asked by guards, answered by the host.

extension Engine {
    // MARK: Questions

    public var openQuestion: ng_question? { questions.open?.cValue }

    /// A guard asks (host->ask). `spec` was checked by the host table.
    func ask(topic: CStr, text: CStr?, requestID: UInt64, kind: RequestKind, source: UInt32, screenID: UInt64,
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
                                           askedNs: t, deadlineNs: deadline,
                                           stackGeneration: settledStack.generation))
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

    /// The stack's screens changed: a question about another generation of
    /// it is withdrawn, and the request it holds (deferred by its asker)
    /// gets its one outcome here, DROPPED and stale, whatever the asker
    /// does with WITHDRAWN (QuestionDesk states the rule). Only queues
    /// work: it runs from the `stack` observer, in the middle of a change.
    @inline(never)
    func withdrawQuestionIfStackMoved() {
        guard !destroying, let q = questions.outdated(stackGeneration: settledStack.generation) else { return }
        closeQuestion(q, NG_ANSWER_WITHDRAWN)
        if let r = deferred.take(q.requestID, slot: q.slot) {
            let why = "the stack changed while the host was asked about it (question \(q.id), withdrawn); "
                + "the top is now screen \(stack.topID)"
            finish(r, outcome: .dropped, reason: .stale, by: .host, message: CStr(why))
        }
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
