// SPDX-License-Identifier: Apache-2.0
// org.navguard.idle-return (issue 28, item 3): an unattended kiosk returns
// to its start once, through the whole chain, and never loops.
import CNavGuard
import NavGuardBuiltins
import Testing
@testable import NavGuardCore

private let confirm = UInt32(NG_SCREENF_CONFIRM_LEAVE)

/// The default chain with idle-return appended (as the "insert" edit does).
private func kioskChain(_ idleConfig: String) -> [GuardSpec] {
    [GuardSpec(ngg_watchdog_descriptor()), GuardSpec(ngg_global_ignore_descriptor()),
     GuardSpec(ngg_exclusive_touch_descriptor()), GuardSpec(ngg_throttle_descriptor()),
     GuardSpec(ngg_dedupe_descriptor()), GuardSpec(ngg_transition_descriptor()),
     GuardSpec(ngg_bar_should_descriptor()), GuardSpec(ngg_confirm_leave_descriptor()),
     GuardSpec(ngg_idle_return_descriptor(), idleConfig)]
}

/// home, menu, item (and checkout, marked, when asked) pushed at time 0.
private func kiosk(_ idleConfig: String = #"{"after_ms":1000,"animated":false,"source":7}"#,
                   checkout: Bool = false) throws -> (Engine, GuardRecorder) {
    let (e, rec) = try makeGuardEngine(kioskChain(idleConfig))
    #expect(e.submit(.push(Screen(id: 2, route: "menu"))).status == .applied)
    #expect(e.submit(.push(Screen(id: 3, route: "item"))).status == .applied)
    if checkout { #expect(e.submit(.push(Screen(id: 4, route: "checkout", flags: confirm))).status == .applied) }
    return (e, rec)
}

private func at(_ e: Engine, ms: Int64) throws {
    try e.setTime(ms * msNs)
    try e.tick()
}

private func idleReturns(_ rec: GuardRecorder) -> [OutcomeRecord] {
    rec.outcomes.filter { $0.requestID >= Limits.guardRequestIDBase }
}

@Suite("idle-return")
struct IdleReturnTests {
    @Test func returnsToRootAfterTheIdleTimeOnceThenWaitsForSomeone() throws {
        let (e, rec) = try kiosk()
        #expect(e.nextDeadline() == 1000 * msNs)
        try at(e, ms: 999)
        #expect(e.stackIDs == [1, 2, 3])
        try at(e, ms: 1000)
        #expect(e.stackIDs == [1])
        let r = try #require(idleReturns(rec).first)
        #expect(r.kind == .popToRoot && r.outcome == .applied && r.source == 7)
        // Home, and nobody came: no deadline, nothing more, ever.
        #expect(e.nextDeadline() == Limits.noDeadline)
        try at(e, ms: 3_600_000)
        #expect(idleReturns(rec).count == 1)
        // Someone uses it: the idle time counts again.
        #expect(e.submit(.push(Screen(id: 5, route: "menu"))).status == .applied)
        #expect(e.nextDeadline() == (3_600_000 + 1000) * msNs)
        try at(e, ms: 3_601_000)
        #expect(e.stackIDs == [1] && idleReturns(rec).count == 2)
        e.destroy()
    }

    @Test func deliveredInputResetsTheTimeDroppedInputDoesNot() throws {
        let (e, rec) = try kiosk()
        try e.setTime(600 * msNs)
        #expect(e.submitTestEvent(type: NG_EVENT_KEY, code: 13).verdict == .deliver)
        try at(e, ms: 1000)                     // the old deadline: not yet
        #expect(e.stackIDs == [1, 2, 3] && idleReturns(rec).isEmpty)
        // A move of a touch NavGuard never saw began is dropped: nobody there.
        try e.setTime(1200 * msNs)
        #expect(e.submitTestTouch(NG_TOUCH_MOVED, id: 99, view: 1).verdict == .drop)
        try at(e, ms: 1599)
        #expect(e.stackIDs == [1, 2, 3])
        try at(e, ms: 1600)
        #expect(e.stackIDs == [1] && idleReturns(rec).count == 1)
        e.destroy()
    }

    @Test func anAppliedRequestResetsTheTime() throws {
        let (e, rec) = try kiosk()
        try e.setTime(700 * msNs)
        #expect(e.submit(.push(Screen(id: 4, route: "more"))).status == .applied)
        try at(e, ms: 1000)
        try at(e, ms: 1699)
        #expect(e.stackIDs == [1, 2, 3, 4] && idleReturns(rec).isEmpty)
        try at(e, ms: 1700)
        #expect(e.stackIDs == [1])
        e.destroy()
    }

    /// The issue's kiosk: the unattended Checkout is asked about, nobody
    /// answers, it goes home after the idle time plus the unattended timeout,
    /// files no report and does not ask again.
    @Test func theUnattendedCheckoutGoesHomeWithoutAReportAndAsksOnce() throws {
        let (e, rec) = try kiosk(checkout: true)
        try at(e, ms: 1000)
        let q = try #require(rec.questions.first)
        #expect(q.topic == "org.navguard.confirm-leave" && q.kind == NG_REQ_POP_TO_ROOT)
        #expect(q.deadline == (1000 + 10000) * msNs)
        #expect(e.stackIDs == [1, 2, 3, 4])
        try at(e, ms: 10999)
        #expect(e.stackIDs == [1, 2, 3, 4])
        try at(e, ms: 11000)
        #expect(e.stackIDs == [1])
        #expect(rec.questionEnds.map(\.answer) == [NG_ANSWER_TIMEOUT])
        #expect(idleReturns(rec).map(\.outcome) == [.applied])
        #expect(rec.reports.isEmpty)
        try at(e, ms: 600_000)
        #expect(rec.questions.count == 1 && e.nextDeadline() == Limits.noDeadline)
        e.destroy()
    }

    /// A person answering No keeps the screen, and the next return waits
    /// a whole idle time after that person's last input.
    @Test func someoneAnsweringNoKeepsTheScreen() throws {
        let (e, rec) = try kiosk(checkout: true)
        try at(e, ms: 1000)
        try e.setTime(3000 * msNs)
        #expect(e.submitTestEvent(type: NG_EVENT_KEY, code: 13).verdict == .deliver)
        #expect(engineStatus { () throws(EngineError) in try e.answerQuestion(rec.questions[0].id, NG_ANSWER_NO) } == NG_OK)
        #expect(idleReturns(rec).first?.reason == .declined && e.stackIDs == [1, 2, 3, 4])
        #expect(e.nextDeadline() == 4000 * msNs)
        try at(e, ms: 4000)
        #expect(rec.questions.count == 2)
        e.destroy()
    }

    @Test func exceptAndToARoute() throws {
        let (e, rec) = try kiosk(#"{"after_ms":1000,"animated":false,"to":"menu","except":["video"]}"#)
        try at(e, ms: 1000)
        let r = try #require(idleReturns(rec).first)
        #expect(r.kind == .popTo && e.stackIDs == [1, 2])
        #expect(e.submit(.push(Screen(id: 6, route: "video"))).status == .applied)
        try at(e, ms: 5000)
        #expect(e.stackIDs == [1, 2, 6] && idleReturns(rec).count == 1, "the kiosk may sit on the video")
        #expect(e.nextDeadline() == Limits.noDeadline)
        e.destroy()
    }

    /// An animated transition in flight at the deadline is someone's doing:
    /// the time counts again from then.
    @Test func aTransitionInFlightPostpones() throws {
        let (e, rec) = try kiosk(#"{"after_ms":1000}"#)
        try e.setTime(900 * msNs)
        #expect(e.submit(.push(Screen(id: 4, route: "more"), flags: animatedFlag)).status == .applied)
        try at(e, ms: 1900)
        #expect(idleReturns(rec).isEmpty)
        try e.finishTransition(.all)
        try at(e, ms: 2900)
        let r = try #require(idleReturns(rec).first)
        #expect(r.outcome == .applied)
        #expect(e.inFlight(.screen) == r.requestID, "an animated return, as configured by default")
        e.destroy()
    }
}
