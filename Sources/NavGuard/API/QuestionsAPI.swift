// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore
import NavGuardTrace

// navguard.h, "Questions": answering what a guard asked the host.

@c @implementation
public func ng_question_answer(_ ctx: OpaquePointer?, _ questionID: UInt64, _ answer: ng_answer) -> ng_status {
    withContext(ctx, record: .questionAnswer) { box throws(EngineError) in
        box.recordArgs { QuestionAnswerCall.encode(&$0, id: questionID, answer: answer) }
        try box.engine.answerQuestion(questionID, answer)
    }
}

@c @implementation
public func ng_question_get(_ ctx: OpaquePointer?, _ out: UnsafeMutablePointer<ng_question>?) -> ng_status {
    withContext(ctx) { box throws(EngineError) in
        guard let out else { throw .null("out") }
        try box.checkSize(out.pointee.size, NG_QUESTION_MIN_SIZE, "ng_question")
        guard let q = box.engine.openQuestion else { throw EngineError(NG_E_NOT_FOUND, "no question is open") }
        writeSized(q, to: out)
    }
}
