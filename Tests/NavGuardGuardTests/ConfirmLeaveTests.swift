// SPDX-License-Identifier: Apache-2.0
// org.navguard.confirm-leave on the default chain: every path that removes a
// screen marked NG_SCREENF_CONFIRM_LEAVE asks the host first.
import CNavGuard
import NavGuardBuiltins
import Testing
@testable import NavGuardCore

private let confirm = UInt32(NG_SCREENF_CONFIRM_LEAVE)

/// The default chain, in its order (ffi-predicate is not in it).
private func defaultChain(confirmConfig: String = "{}") -> [GuardSpec] {
    [GuardSpec(ngg_watchdog_descriptor()), GuardSpec(ngg_global_ignore_descriptor()),
     GuardSpec(ngg_exclusive_touch_descriptor()), GuardSpec(ngg_throttle_descriptor()),
     GuardSpec(ngg_dedupe_descriptor()), GuardSpec(ngg_transition_descriptor()),
     GuardSpec(ngg_bar_should_descriptor()), GuardSpec(ngg_confirm_leave_descriptor(), confirmConfig)]
}

/// home, menu, item, checkout (marked) on the stack, nothing in flight.
private func atCheckout(_ config: String = "{}") throws -> (Engine, GuardRecorder) {
    let (e, rec) = try makeGuardEngine(defaultChain(confirmConfig: config))
    for (id, route) in [(UInt64(2), "menu"), (3, "item")] {
        #expect(e.submit(.push(Screen(id: id, route: route))).status == .applied)
    }
    #expect(e.submit(.push(Screen(id: 4, route: "checkout", flags: confirm))).status == .applied)
    return (e, rec)
}

private func answer(_ e: Engine, _ rec: GuardRecorder, _ a: Int32) {
    #expect(engineStatus { () throws(EngineError) in try e.answerQuestion(rec.questions.last!.id, a) } == NG_OK)
}

@Suite("confirm-leave")
struct ConfirmLeaveTests {
    @Test func everyPathThatRemovesTheScreenAsksAndTheAnswerDecides() throws {
        let paths: [(String, Request)] = [
            ("back button", Request(kind: .back, flags: animatedFlag)),
            ("back key", Request(kind: .pop, flags: animatedFlag)),
            ("timer's pop-to-root", Request(kind: .popToRoot, flags: animatedFlag)),
            ("pop-to menu", .popTo(2, flags: animatedFlag)),
            ("deep link", .replace([Screen(id: 1, route: "home"), Screen(id: 9, route: "promo")], flags: animatedFlag)),
        ]
        for (name, request) in paths {
            for yes in [true, false] {
                let (e, rec) = try atCheckout()
                let r = e.submit(request)
                #expect(r.status == .deferred && r.guardID.map { String(cString: $0) } == "org.navguard.confirm-leave", "\(name)")
                let q = try #require(rec.questions.first)
                #expect(q.topic == "org.navguard.confirm-leave" && q.text == "Leave checkout?" && q.request == r.requestID, "\(name)")
                #expect(q.screen == 4 && q.kind == request.kind.rawValue)
                #expect(e.stackIDs == [1, 2, 3, 4], "\(name): nothing moves while the host is asked")
                answer(e, rec, yes ? NG_ANSWER_YES : NG_ANSWER_NO)
                let o = try #require(rec.outcome(of: r.requestID))
                if yes {
                    #expect(o.outcome == .applied && !e.stackIDs.contains(4), "\(name)")
                } else {
                    #expect(o.outcome == .dropped && o.reason == .declined, "\(name)")
                    #expect(o.message?.string == "the host answered no to leaving checkout")
                    #expect(e.stackIDs == [1, 2, 3, 4])
                }
                #expect(rec.questionEnds.map(\.answer) == [yes ? NG_ANSWER_YES : NG_ANSWER_NO])
                e.destroy()
            }
        }
    }

    @Test func aSwipeDoesNotStartAndYesMakesABack() throws {
        for yes in [true, false] {
            let (e, rec) = try atCheckout()
            let swipe = e.submit(Request(kind: .interactiveBack, flags: animatedFlag, source: 3))
            #expect(swipe.status == .refused && swipe.reason == .asking)
            #expect(!e.isInteractive && e.stackIDs == [1, 2, 3, 4])
            #expect(rec.questions.first?.kind == NG_REQ_INTERACTIVE_BACK && rec.questions.first?.request == swipe.requestID)
            answer(e, rec, yes ? NG_ANSWER_YES : NG_ANSWER_NO)
            let backs = rec.outcomes.filter { $0.kind == .back }
            if yes {
                #expect(backs.count == 1 && backs[0].outcome == .applied && backs[0].source == 3)
                #expect(backs[0].requestID >= Limits.guardRequestIDBase, "made by the guard")
                #expect(e.stackIDs == [1, 2, 3])
            } else {
                #expect(backs.isEmpty && e.stackIDs == [1, 2, 3, 4])
            }
            e.destroy()
        }
    }

    @Test func whileAskingASecondBackIsRefusedAndOtherRequestsWait() throws {
        let (e, rec) = try atCheckout()
        let back = e.submit(Request(kind: .back, flags: animatedFlag))
        let again = e.submit(Request(kind: .back, flags: animatedFlag))
        #expect(again.status == .refused && again.reason == .asking)
        // A network reply for checkout, and one unscoped: both wait.
        var scoped = Request.push(Screen(id: 20, route: "receipt"))
        scoped.fromScreen = 4
        let reply = e.submit(scoped)
        let other = e.submit(.push(Screen(id: 21, route: "notice")))
        #expect(reply.status == .deferred && other.status == .deferred)
        #expect(rec.questions.count == 1)
        answer(e, rec, NG_ANSWER_YES)
        #expect(rec.outcome(of: back.requestID)?.outcome == .applied)
        // The reply was for checkout, which has gone: stale, whatever a
        // guard would say. The other waits for the back's transition.
        let stale = try #require(rec.outcome(of: reply.requestID))
        #expect(stale.outcome == .dropped && stale.reason == .stale)
        #expect(rec.outcome(of: other.requestID) == nil)
        try e.finishTransition(.all)
        #expect(rec.outcome(of: other.requestID)?.outcome == .applied)
        #expect(e.stackIDs == [1, 2, 3, 21])
        e.destroy()
    }

    /// Issue 28, item 2: a person's Back that nobody answers stays on the
    /// screen, dropped UNANSWERED (not declined: nobody said no), and files no
    /// report unless nobody answering is configured a fault.
    @Test func aPersonsRequestUnansweredIsDroppedUnansweredWithoutAReport() throws {
        for reportIt in [false, true] {
            let (e, rec) = try atCheckout(#"{"timeout_ms":5000,"report_unanswered":\#(reportIt)}"#)
            let back = e.submit(Request(kind: .back, flags: animatedFlag))
            #expect(e.nextDeadline() == 5000 * msNs)
            #expect(rec.questions.first?.deadline == 5000 * msNs, "the question tells its deadline")
            try e.advanceTime(5000 * msNs)
            try e.tick()
            let o = try #require(rec.outcome(of: back.requestID))
            #expect(o.outcome == .dropped && o.reason == .unanswered)
            #expect(o.message?.string == "no answer about leaving checkout within 5000 ms")
            #expect(rec.questionEnds.map(\.answer) == [NG_ANSWER_TIMEOUT])
            if reportIt {
                let report = try #require(rec.reports.first)
                #expect(report.guardID == "org.navguard.confirm-leave" && report.text.contains("the back (request \(back.requestID)) was dropped unanswered and checkout stays"))
            } else {
                #expect(rec.reports.isEmpty)
            }
            #expect(e.stackIDs == [1, 2, 3, 4])
            e.destroy()
        }
    }

    /// Issue 28, item 2: a request made with nobody present is asked with
    /// the shorter unattended time limit and, unanswered, goes on: one log
    /// line, no report.
    @Test func anUnattendedRequestUnansweredGoesOnWithoutAReport() throws {
        let (e, rec) = try atCheckout(#"{"timeout_ms":30000,"unattended_timeout_ms":10000}"#)
        let home = e.submit(Request(kind: .popToRoot, flags: UInt32(NG_REQF_UNATTENDED)))
        #expect(home.status == .deferred)
        #expect(rec.questions.first?.deadline == 10000 * msNs)
        try e.advanceTime(9999 * msNs)
        try e.tick()
        #expect(rec.outcome(of: home.requestID) == nil && e.stackIDs == [1, 2, 3, 4])
        try e.advanceTime(1 * msNs)
        try e.tick()
        #expect(rec.outcome(of: home.requestID)?.outcome == .applied)
        #expect(e.stackIDs == [1])
        #expect(rec.questionEnds.map(\.answer) == [NG_ANSWER_TIMEOUT])
        #expect(rec.reports.isEmpty)
        let lines = rec.logs.filter { $0.guardID == "org.navguard.confirm-leave" }
        #expect(lines.count == 1 && lines[0].message.contains("the unattended pop-to-root (request \(home.requestID)) goes on"))
        e.destroy()
    }

    /// Someone who answers still decides an unattended request.
    @Test func anUnattendedRequestAnsweredNoStays() throws {
        let (e, rec) = try atCheckout()
        let home = e.submit(Request(kind: .popToRoot, flags: UInt32(NG_REQF_UNATTENDED)))
        answer(e, rec, NG_ANSWER_NO)
        #expect(rec.outcome(of: home.requestID)?.reason == .declined && e.stackIDs == [1, 2, 3, 4])
        e.destroy()
    }

    /// Issue 26, item 5: "Leave shop?" is open when the host restores
    /// [home, pay, receipt] and marks receipt. Before, the host's YES then
    /// popped receipt, which nobody was asked about. The restore withdraws
    /// the question and drops the held Back (stale); a late YES is refused
    /// and pops nothing; a Back on receipt asks about receipt.
    @Test func aRestoreWithdrawsTheQuestionAboutTheOldStack() throws {
        let (e, rec) = try makeGuardEngine(defaultChain())
        #expect(e.submit(.push(Screen(id: 2, route: "shop", flags: confirm))).status == .applied)
        let back = e.submit(Request(kind: .back))
        #expect(back.status == .deferred)
        let asked = try #require(rec.questions.first)
        #expect(asked.text == "Leave shop?")
        try e.restore([Screen(id: 1, route: "home"), Screen(id: 5, route: "pay"), Screen(id: 6, route: "receipt")])
        try e.setScreenFlags(6, confirm)
        #expect(rec.questionEnds.map(\.answer) == [NG_ANSWER_WITHDRAWN])
        let o = try #require(rec.outcome(of: back.requestID))
        #expect(o.outcome == .dropped && o.reason == .stale && o.guardID == nil)
        #expect(rec.outcomes.filter { $0.requestID == back.requestID }.count == 1)
        #expect(engineStatus { () throws(EngineError) in try e.answerQuestion(asked.id, NG_ANSWER_YES) } == NG_E_NOT_FOUND)
        #expect(e.stackIDs == [1, 5, 6], "receipt stays")
        // Requests are no longer held for an answer that cannot come.
        try e.advanceTime(1000 * msNs)                           // past any throttle
        let again = e.submit(Request(kind: .back))
        #expect(again.status == .deferred && rec.questions.count == 2 && rec.questions.last?.text == "Leave receipt?")
        answer(e, rec, NG_ANSWER_YES)
        #expect(rec.outcome(of: again.requestID)?.outcome == .applied && e.stackIDs == [1, 5])
        e.destroy()
        #expect(rec.questionEnds.count == 2)
    }

    @Test func anUnmarkedScreenAndAPushAreNotAsked() throws {
        let (e, rec) = try atCheckout()
        try e.setScreenFlags(4, 0)                             // the cart was emptied
        #expect(e.submit(Request(kind: .pop)).status == .applied)
        #expect(e.submit(.push(Screen(id: 5, route: "x"))).status == .applied)
        // A deep link that keeps checkout does not ask either.
        try e.setScreenFlags(5, confirm)
        #expect(e.submit(.replace([Screen(id: 1, route: "home"), Screen(id: 5, route: "x")])).status == .applied)
        #expect(rec.questions.isEmpty)
        e.destroy()
    }
}

@Suite("dedupe: a push already queued")
struct DedupeQueuedTests {
    @Test func aPushWithTheIdentityOfAQueuedPushIsRefusedAtOnce() throws {
        let (e, rec) = try makeGuardEngine(defaultChain())
        #expect(e.submit(.push(Screen(id: 2, route: "menu"), flags: animatedFlag)).status == .applied)
        let queued = e.submit(.push(Screen(id: 3, route: "item"), flags: animatedFlag, source: 1))
        #expect(queued.status == .deferred)
        let dup = e.submit(.push(Screen(id: 4, route: "item"), flags: animatedFlag, source: 2))
        #expect(dup.status == .refused && dup.reason == .duplicate)
        #expect(dup.guardID.map { String(cString: $0) } == "org.navguard.dedupe")
        #expect(rec.outcome(of: dup.requestID)?.message?.string == "the screen is already queued")
        e.destroy()
    }
}
