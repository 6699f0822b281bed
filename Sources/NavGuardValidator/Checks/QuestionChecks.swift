// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore

// hooks.questions: screens that ask before they are left (what the
// confirm-leave guard asks about), scoped requests, and a host that answers
// yes, no, late or never. A guard that asks must hear every answer, and
// every question must end exactly once (checked again at destroy).

func questionChecks(_ h: Harness) {
    let confirm = UInt32(NG_SCREENF_CONFIRM_LEAVE)
    check("question.answers") {
        let m = h.mark()
        for (name, answer) in [("yes", NG_ANSWER_YES), ("no", NG_ANSWER_NO)] {
            step("push a screen that asks before it is left; back, the host answers \(name)")
            h.ensureDepth(2)
            h.submit(NG_REQ_PUSH, screen: h.newScreen("asks-\(name)"), screenFlags: confirm)
            h.answerPolicy = [answer]
            h.submit(NG_REQ_BACK)
            h.settle()
        }
        step("pop-to-root and a replace-stack over it, answered yes from inside on_question")
        h.submit(NG_REQ_PUSH, screen: h.newScreen("asks-root"), screenFlags: confirm)
        h.answerPolicy = [NG_ANSWER_YES, NG_ANSWER_YES]
        h.submit(NG_REQ_POP_TO_ROOT, animated: true)
        h.settle()
        h.submit(NG_REQ_PUSH, screen: h.newScreen("asks-link"), screenFlags: confirm)
        h.submit(NG_REQ_REPLACE_STACK, stack: [h.newScreen("home2"), h.newScreen("promo")])
        h.settle()
        return finishQuestions(h, m)
    }
    check("question.unanswered") {
        let m = h.mark()
        step("a back on a screen that asks, never answered: other requests meanwhile; 2 minutes pass")
        h.ensureDepth(2)
        h.submit(NG_REQ_PUSH, screen: h.newScreen("asks-late"), screenFlags: confirm)
        h.answerPolicy = [nil]
        h.submit(NG_REQ_BACK)
        h.submit(NG_REQ_BACK)
        h.submit(NG_REQ_PUSH, screen: h.newScreen("during"))
        h.submit(NG_REQ_INTERACTIVE_BACK, animated: true)
        for _ in 0..<120 { h.advance(Harness.second); h.tick() }
        h.settle()
        return finishQuestions(h, m)
    }
    check("question.stale") {
        let m = h.mark()
        step("requests scoped to a screen that is no longer on top, and to the top")
        h.ensureDepth(3)
        let below = h.screenID(at: h.depth - 2), top = h.screenID(at: h.depth - 1)
        h.submit(NG_REQ_PUSH, screen: h.newScreen("stale"), fromScreen: below)
        h.submit(NG_REQ_POP, fromScreen: below)
        h.submit(NG_REQ_PUSH, screen: h.newScreen("fresh"), fromScreen: top)
        h.settle()
        return finish(h, m)
    }
}

/// As `finish`, and every question asked so far has ended, except one still
/// open (which destroy ends, checked by `hooks.questions.destroy`).
private func finishQuestions(_ h: Harness, _ m: Harness.Mark) -> CheckResult {
    var q = NG_QUESTION_INIT_VALUE
    let open = ng_question_get(h.ctx, &q) == NG_OK ? q.question_id : 0
    let unended = h.questions.filter { $0 != open && h.questionEnds[$0] == nil }
    let asked = "\(h.questions.count) questions asked, \(h.questionEnds.count) ended"
    if !unended.isEmpty { return .fail("\(asked); never ended: \(unended.prefix(3))") }
    return finish(h, m, extra: asked)
}

private var NG_QUESTION_INIT_VALUE: ng_question {
    var q = ng_question()
    q.size = UInt32(MemoryLayout<ng_question>.size)
    return q
}
