// SPDX-License-Identifier: Apache-2.0
// The host contract of NavGuard 0.3: stale requests, questions to the host,
// requests and transition-tied holds of guards, the order of a request's
// rules, what destroy ends, transition depth, retired and evicted touches,
// screen flags.
import CNavGuard
@testable import NavGuardCore
import Testing

private func scoped(_ r: Request, from screen: UInt64) -> Request {
    var r = r
    r.fromScreen = screen
    return r
}

private func touch(_ e: Engine, _ phase: Int32, _ id: UInt64, view: UInt64 = 0) -> EventVerdict {
    var ev = ng_event()
    ev.size = UInt32(MemoryLayout<ng_event>.size)
    ev.type = NG_EVENT_TOUCH
    ev.phase = phase
    ev.touch_id = id
    if view != 0 {
        ev.flags = UInt32(NG_EVF_HAS_TARGET)
        ev.target_view = view
    }
    return withUnsafePointer(to: &ev) { e.submitEvent($0) }
}

/// A cancel as a guard makes it (touch_cancel): queued, then delivered.
@discardableResult
private func cancel(_ e: Engine, _ id: UInt64) -> Int {
    let n = e.cancelTouches(id)
    e.drain()
    return n
}

@Suite("stale requests (from_screen)")
struct StaleTests {
    @Test func aRequestFromAScreenNoLongerOnTopIsRefusedStale() {
        let (e, rec) = makeEngine()
        e.push(2, "menu")
        let stale = e.submit(scoped(.push(Screen(id: 3, route: "reply")), from: 1))
        #expect(stale.status == .refused && stale.reason == .stale && stale.guardID == nil)
        #expect(stale.message?.string == "issued from screen 1, which is no longer on top (the top is 2)")
        let gone = e.submit(scoped(Request(kind: .pop), from: 7))
        #expect(gone.reason == .stale && gone.message?.string.contains("no longer on the stack") == true)
        let fresh = e.submit(scoped(.push(Screen(id: 3, route: "reply")), from: 2))
        #expect(fresh.status == .applied)
        #expect(e.ids == [1, 2, 3])
        expectClean(rec)
        e.destroy()
    }

    @Test func aDeferredRequestGoneStaleIsDroppedWhenItWouldApply() {
        let (e, rec) = makeEngine()
        let q = QueueGuard(descriptor: makeDescriptor(id: "test.queue"))
        try! q.g.add(to: e)
        e.push(2, "menu")
        let push = e.push(3, "item", flags: ANIMATED)                 // in flight
        // Issued from the top (item), both wait for the transition; the
        // back applies first, so item has gone when the reply would apply.
        let back = e.request(.back)
        let reply = e.submit(scoped(.push(Screen(id: 9, route: "reply")), from: 3))
        #expect(push.status == .applied && back.status == .deferred && reply.status == .deferred)
        try! e.finishTransition(.all)
        let o = rec.outcomes[reply.requestID]
        #expect(o?.outcome == .dropped && o?.reason == .stale && o?.guardID == nil)
        #expect(e.ids == [1, 2])
        // Issued from a screen already gone: stale at once, no guard asked.
        let seen = q.g.seen.count
        let late = e.submit(scoped(.push(Screen(id: 10, route: "reply")), from: 3))
        #expect(late.status == .refused && late.reason == .stale && q.g.seen.count == seen)
        expectClean(rec)
        e.destroy()
    }

    @Test func theScopeIsJudgedOnTheStackTheRequestAppliesTo() {
        // A swipe back from item released to cancel settles back on item: a
        // reply scoped to item waits for the swipe, then applies.
        let (e, rec) = makeEngine()
        e.push(2, "menu")
        e.push(3, "item")
        _ = e.request(.interactiveBack, flags: ANIMATED)
        try! e.releaseInteractive(finish: false)
        let reply = e.submit(scoped(.push(Screen(id: 9, route: "reply")), from: 3))
        #expect(reply.status == .deferred && reply.guardID == nil)
        try! e.completeInteractive()
        #expect(rec.outcomes[reply.requestID]?.outcome == .applied)
        #expect(e.ids == [1, 2, 3, 9])
        // Released to finish: the reply waits, and is dropped stale once
        // the reply screen has gone.
        _ = e.request(.interactiveBack, flags: ANIMATED)
        try! e.releaseInteractive(finish: true)
        let late = e.submit(scoped(.push(Screen(id: 10, route: "reply")), from: 9))
        #expect(late.status == .deferred && rec.outcomes[late.requestID] == nil)
        try! e.completeInteractive()
        #expect(rec.outcomes[late.requestID]?.outcome == .dropped && rec.outcomes[late.requestID]?.reason == .stale)
        #expect(e.ids == [1, 2, 3])
        expectClean(rec)
        e.destroy()
    }
}

/// Issue 28: a request scoped to either end of a swipe in flight (the screen
/// swiped away, or the target) waits until the swipe completes, and is
/// judged against the stack it settled to, however it completes.
@Suite("stale requests during a swipe (from_screen)")
struct SwipeScopeTests {
    /// home, menu, item; a swipe back from item (3) to menu (2) in flight,
    /// driven by touch 7 when `driven`.
    private func swiping(driven: Bool = true) -> (Engine, CallbackLog) {
        let (e, rec) = makeEngine()
        e.push(2, "menu")
        e.push(3, "item")
        var r = Request(kind: .interactiveBack, flags: ANIMATED)
        if driven {
            _ = touch(e, NG_TOUCH_BEGAN, 7)
            r.flags |= UInt32(NG_REQF_TOUCH_DRIVEN)
            r.drivingTouch = 7
        }
        #expect(e.submit(r).status == .applied && e.isInteractive)
        return (e, rec)
    }

    private func reply(_ e: Engine, from screen: UInt64, id: UInt64 = 9) -> SubmitResult {
        e.submit(scoped(.push(Screen(id: id, route: "reply")), from: screen))
    }

    private func outcome(_ rec: CallbackLog, _ r: SubmitResult) -> (Outcome, Reason)? {
        let all = rec.outcomeEvents(r.requestID)
        #expect(all.count <= 1, "one outcome per request")
        return all.first.map { ($0.outcome, $0.reason) }
    }

    @Test func aReplyForTheSwipedAwayScreenWaitsAndAppliesWhenTheSwipeRollsBack() {
        let (e, rec) = swiping()
        let r = reply(e, from: 3)
        #expect(r.status == .deferred && r.guardID == nil)
        #expect(outcome(rec, r) == nil, "not judged while the finger is down")
        try! e.releaseInteractive(finish: false)
        #expect(outcome(rec, r) == nil, "not judged while the swipe settles")
        try! e.completeInteractive()
        #expect(outcome(rec, r)! == (.applied, .none))
        #expect(e.ids == [1, 2, 3, 9])
        _ = touch(e, NG_TOUCH_ENDED, 7)
        expectClean(rec)
        e.destroy()
    }

    @Test func aReplyForTheSwipedAwayScreenIsDroppedStaleWhenTheSwipeFinishes() {
        let (e, rec) = swiping()
        let r = reply(e, from: 3)
        #expect(r.status == .deferred)
        try! e.releaseInteractive(finish: true)
        try! e.completeInteractive()
        #expect(outcome(rec, r)! == (.dropped, .stale))
        #expect(rec.outcomes[r.requestID]?.message?.string.contains("no longer on the stack") == true)
        #expect(e.ids == [1, 2])
        _ = touch(e, NG_TOUCH_ENDED, 7)
        expectClean(rec)
        e.destroy()
    }

    @Test func aReplyForTheTargetFollowsTheSameRuleTheOtherWay() {
        // Rolled back: the target (menu) is not the top, the reply is stale.
        do {
            let (e, rec) = swiping()
            let r = reply(e, from: 2)
            #expect(r.status == .deferred)
            try! e.cancelInteractive()
            #expect(outcome(rec, r)! == (.dropped, .stale))
            #expect(e.ids == [1, 2, 3])
            _ = touch(e, NG_TOUCH_ENDED, 7)
            expectClean(rec)
            e.destroy()
        }
        // Finished: the target is the top, the reply applies.
        do {
            let (e, rec) = swiping()
            let r = reply(e, from: 2)
            #expect(r.status == .deferred)
            try! e.finishTransition(.all)
            #expect(outcome(rec, r)! == (.applied, .none))
            #expect(e.ids == [1, 2, 9])
            _ = touch(e, NG_TOUCH_ENDED, 7)
            expectClean(rec)
            e.destroy()
        }
    }

    @Test func everySwipeStateWaitsAndAScreenAtNeitherEndIsStaleAtOnce() {
        for state in ["undriven", "finishing", "cancelling"] {
            let (e, rec) = swiping(driven: false)
            if state != "undriven" { try! e.releaseInteractive(finish: state == "finishing") }
            let away = reply(e, from: 3, id: 9)
            let target = reply(e, from: 2, id: 10)
            let neither = reply(e, from: 1, id: 11)
            #expect(away.status == .deferred && target.status == .deferred, "\(state)")
            #expect(neither.status == .refused && neither.reason == .stale, "\(state)")
            let finished = state == "finishing"
            if state == "undriven" { try! e.cancelInteractive() } else { try! e.completeInteractive() }
            #expect(outcome(rec, away)! == (finished ? (.dropped, .stale) : (.applied, .none)), "\(state)")
            #expect(outcome(rec, target)! == (finished ? (.applied, .none) : (.dropped, .stale)), "\(state)")
            #expect(e.ids == (finished ? [1, 2, 10] : [1, 2, 3, 9]), "\(state)")
            expectClean(rec)
            e.destroy()
        }
    }

    @Test func aSwipeEndedByANewerRequestByAGuardOrByDestroyStillJudgesItsWaiters() {
        // A newer unscoped request commits the undecided swipe: item has gone.
        do {
            let (e, rec) = swiping(driven: false)
            let r = reply(e, from: 3)
            #expect(e.push(20, "deep").status == .applied)
            #expect(outcome(rec, r)! == (.dropped, .stale))
            #expect(e.ids == [1, 2, 20])
            expectClean(rec)
            e.destroy()
        }
        // A guard (the watchdog's recovery) rolls it back: the reply applies.
        do {
            let (e, rec) = swiping(driven: false)
            let r = reply(e, from: 3)
            try! e.cancelInteractive(forced: true)
            #expect(outcome(rec, r)! == (.applied, .none))
            #expect(e.ids == [1, 2, 3, 9])
            expectClean(rec)
            e.destroy()
        }
        // Destroy: the swipe rolls back and the waiting reply is dropped
        // destroyed, once.
        do {
            let (e, rec) = swiping()
            let r = reply(e, from: 3)
            e.destroy()
            #expect(outcome(rec, r)! == (.dropped, .destroyed))
        }
    }
}

@Suite("the order of a request's rules")
struct RuleOrderTests {
    @Test func aBackDuringASwipeOnTwoScreensIsRefusedBusyNotAtRoot() {
        let (e, rec) = makeEngine()
        let busy = busyRefuser()
        try! busy.add(to: e)
        e.push(2, "menu")
        let swipe = e.request(.interactiveBack, flags: ANIMATED)
        #expect(swipe.status == .applied && e.stackCount == 1)
        for kind: RequestKind in [.pop, .back, .popToRoot, .interactiveBack] {
            let r = e.request(kind, flags: ANIMATED)
            #expect(r.status == .refused && r.reason == .busy, "kind \(kind): \(r.reason)")
            #expect(r.guardID.map { String(cString: $0) } == "test.busy")
        }
        try! e.cancelInteractive()
        #expect(e.ids == [1, 2])
        expectClean(rec)
        e.destroy()

        // With no guard deciding first, the stack it would apply to decides.
        let (f, frec) = makeEngine()
        f.push(2, "menu")
        _ = f.request(.interactiveBack, flags: ANIMATED)
        #expect(f.request(.pop).reason == .atRoot)
        expectClean(frec)
        f.destroy()
    }
}

@Suite("questions to the host")
struct QuestionTests {
    /// A guard that holds every back and asks; it applies or drops the held
    /// request by the answer.
    private func asker(timeoutNs: Int64 = 0) -> TestGuard {
        let g = TestGuard(id: "test.asker")
        var held: UInt64 = 0
        g.vote = { g, r, v in
            guard r.kind == NG_REQ_BACK, r.attempt == 0 else { return NG_VOTE_ALLOW }
            let (st, _) = g.ask("org.example.leave", text: "Leave?", request: r.request_id, kind: r.kind, screen: 2,
                                timeoutNs: timeoutNs)
            if st != NG_OK { return refuse(v, NG_REASON_ASKING, "another question is open") }
            held = r.request_id
            return NG_VOTE_DEFER
        }
        g.onAnswer = { g, _, a in
            if a == NG_ANSWER_YES { _ = g.deferredApply(held) } else { _ = g.deferredDrop(held, NG_REASON_DECLINED, "no") }
        }
        return g
    }

    @Test func theHostIsAskedAndItsAnswerDecides() throws {
        for answer in [NG_ANSWER_YES, NG_ANSWER_NO] {
            let (e, rec) = makeEngine()
            let g = asker()
            try g.add(to: e)
            e.push(2, "checkout")
            let back = e.request(.back)
            #expect(back.status == .deferred)
            let q = try #require(rec.questions.values.first)
            #expect(String(cString: q.topic) == "org.example.leave" && String(cString: q.text) == "Leave?")
            #expect(String(cString: q.guard_id) == "test.asker" && q.request_id == back.requestID && q.kind == NG_REQ_BACK)
            #expect(q.screen_id == 2 && q.deadline_ns == Limits.noDeadline)
            #expect(e.openQuestion?.question_id == q.question_id)
            #expect(statusOf { () throws(EngineError) in try e.answerQuestion(q.question_id, answer) } == NG_OK)
            #expect(g.answers.map(\.answer) == [answer])
            #expect(rec.questionEnds[q.question_id] == answer)
            let o = rec.outcomes[back.requestID]
            if answer == NG_ANSWER_YES {
                #expect(o?.outcome == .applied && e.ids == [1])
            } else {
                #expect(o?.outcome == .dropped && o?.reason == .declined && e.ids == [1, 2])
            }
            // A late answer is harmless.
            #expect(statusOf { () throws(EngineError) in try e.answerQuestion(q.question_id, answer) } == NG_E_NOT_FOUND)
            #expect(e.openQuestion == nil)
            expectClean(rec)
            e.destroy()
        }
    }

    @Test func oneQuestionAtATimeAndBadAnswersAreRefused() throws {
        let (e, rec) = makeEngine()
        let g = asker()
        try g.add(to: e)
        e.push(2, "checkout")
        let first = e.request(.back)
        let second = e.request(.back)
        #expect(first.status == .deferred)
        #expect(second.status == .refused && second.reason == .asking)
        #expect(rec.questions.count == 1)
        let id = rec.questionOrder[0]
        #expect(statusOf { () throws(EngineError) in try e.answerQuestion(id, NG_ANSWER_TIMEOUT) } == NG_E_RANGE)
        #expect(statusOf { () throws(EngineError) in try e.answerQuestion(id + 1, NG_ANSWER_YES) } == NG_E_NOT_FOUND)
        // A topic that is not a reverse-DNS id, and a negative timeout.
        let other = TestGuard(id: "test.other")
        try other.add(to: e)
        #expect(other.ask("org.example.x").0 == NG_E_STATE, "one question is open")
        try e.answerQuestion(id, NG_ANSWER_NO)
        #expect(other.ask("not an id").0 == NG_E_PARSE)
        #expect(other.ask("org.example.x", timeoutNs: -1).0 == NG_E_RANGE)
        // Withdrawing: only the asker's own open question.
        let (st, q2) = other.ask("org.example.pin", text: "PIN?")
        #expect(st == NG_OK)
        #expect(g.h.pointee.withdraw!(g.h, q2) == NG_E_NOT_FOUND)
        #expect(other.h.pointee.withdraw!(other.h, q2) == NG_OK)
        #expect(other.answers.map(\.answer) == [NG_ANSWER_WITHDRAWN] && rec.questionEnds[q2] == NG_ANSWER_WITHDRAWN)
        #expect(other.h.pointee.withdraw!(other.h, q2) == NG_E_NOT_FOUND)
        expectClean(rec)
        e.destroy()
    }

    @Test func noAnswerInTimeEndsItTimeout() throws {
        let (e, rec) = makeEngine()
        let g = asker(timeoutNs: 500 * ms)
        try g.add(to: e)
        e.push(2, "checkout")
        let back = e.request(.back)
        let q = try #require(rec.questions.values.first)
        #expect(q.deadline_ns == 500 * ms && e.nextDeadline() == 500 * ms)
        try e.advanceTime(499 * ms)
        try e.tick()
        #expect(rec.questionEnds.isEmpty)
        try e.advanceTime(1 * ms)
        try e.tick()
        #expect(rec.questionEnds[q.question_id] == NG_ANSWER_TIMEOUT && g.answers.map(\.answer) == [NG_ANSWER_TIMEOUT])
        #expect(rec.outcomes[back.requestID]?.reason == .declined)
        #expect(e.nextDeadline() == Limits.noDeadline)
        expectClean(rec)
        e.destroy()
    }

    @Test func theHostMayAnswerFromInsideOnQuestion() throws {
        let (e, rec) = makeEngine()
        let g = asker()
        try g.add(to: e)
        e.push(2, "checkout")
        rec.onQuestion = { q in try! e.answerQuestion(q.question_id, NG_ANSWER_YES) }
        let back = e.request(.back)
        #expect(back.status == .deferred)
        #expect(rec.outcomes[back.requestID]?.outcome == .applied && e.ids == [1])
        expectClean(rec)
        e.destroy()
    }

    // MARK: The stack the host was asked about (issue 26, item 5)

    /// Asked "Leave shop?" about [home, shop]; the stack changes under the
    /// open question by `change`. The question must end WITHDRAWN, once,
    /// before the held Back's one outcome (DROPPED, stale); a late YES finds
    /// nothing and pops nothing.
    private func expectWithdrawn(_ label: String, after change: (Engine) throws -> Void,
                                 leaves expected: [UInt64]) throws {
        let (e, rec) = makeEngine()
        let g = asker()
        var dropStatus: ng_status?
        g.onAnswer = { g, q, a in dropStatus = g.deferredDrop(q.request_id, NG_REASON_DECLINED, "no") }
        try g.add(to: e)
        e.push(2, "shop")
        let back = e.request(.back)
        #expect(back.status == .deferred, "\(label)")
        let q = try #require(rec.questions.values.first)
        var outcomeBeforeEnd = true
        rec.onQuestionEnded = { _, _ in outcomeBeforeEnd = rec.outcomes[back.requestID] != nil }
        try change(e)
        #expect(rec.questionEnds[q.question_id] == NG_ANSWER_WITHDRAWN, "\(label): the question is withdrawn")
        #expect(g.answers.map(\.answer) == [NG_ANSWER_WITHDRAWN], "\(label): the asker hears it once")
        #expect(!outcomeBeforeEnd, "\(label): the dialog closes first, then the held request ends")
        let o = try #require(rec.outcomes[back.requestID], "\(label)")
        #expect(o.outcome == .dropped && o.reason == .stale && o.guardID == nil, "\(label)")
        #expect(o.message?.string.contains("the stack changed while the host was asked about it") == true,
                "\(label): \(o.message?.string ?? "-")")
        #expect(dropStatus == NG_E_NOT_FOUND, "\(label): ended by the core already, not twice")
        #expect(e.openQuestion == nil && e.deferredCount == 0)
        // The host's dialog answers late: nothing is popped.
        #expect(statusOf { () throws(EngineError) in try e.answerQuestion(q.question_id, NG_ANSWER_YES) } == NG_E_NOT_FOUND)
        #expect(e.ids == expected, "\(label): \(e.ids)")
        #expect(rec.questions.count == 1 && rec.questionEnds.count == 1)
        expectClean(rec)
        e.destroy()
        #expect(rec.questionEnds.count == 1, "\(label): destroy does not end it again")
        expectClean(rec)
    }

    @Test func aRestoreWithdrawsTheQuestionAndDropsTheHeldRequest() throws {
        let receipt = [Screen(id: 1, route: "home"), Screen(id: 5, route: "pay"), Screen(id: 6, route: "receipt")]
        try expectWithdrawn("restore without shop", after: { e in
            try e.restore(receipt)
            try e.setScreenFlags(6, UInt32(NG_SCREENF_CONFIRM_LEAVE))
        }, leaves: [1, 5, 6])
        // Shop is still there, but a Back would now pop receipt: the whole
        // stack is what the host was asked about, not the screen alone.
        try expectWithdrawn("restore keeping shop below a new top", after: { e in
            try e.restore([Screen(id: 1, route: "home"), Screen(id: 2, route: "shop"), Screen(id: 6, route: "receipt")])
        }, leaves: [1, 2, 6])
    }

    @Test func anyRequestThatChangesTheStackWithdrawsTheQuestion() throws {
        // The asker holds backs only: other requests pass while it asks.
        try expectWithdrawn("replace-stack", after: { e in
            #expect(e.submit(.replace([Screen(id: 1, route: "home"), Screen(id: 7, route: "promo")])).status == .applied)
        }, leaves: [1, 7])
        try expectWithdrawn("push", after: { e in
            #expect(e.push(8, "notice").status == .applied)
        }, leaves: [1, 2, 8])
        try expectWithdrawn("pop-to-root", after: { e in
            #expect(e.request(.popToRoot).status == .applied)
        }, leaves: [1])
    }

    @Test func changesMadeInsideCallbacksWithdrawOnceAndARestoreThereIsRefused() throws {
        let (e, rec) = makeEngine()
        let g = asker()
        try g.add(to: e)
        e.push(2, "shop")
        var restoreStatus: Int32?
        var replaced: SubmitResult?
        rec.onQuestion = { _ in
            // Not allowed inside a callback: the question stays as it is.
            restoreStatus = statusOf { () throws(EngineError) in try e.restore([Screen(id: 1, route: "home")]) }
            replaced = e.submit(.replace([Screen(id: 1, route: "home"), Screen(id: 9, route: "link")]))
        }
        let back = e.request(.back)
        #expect(restoreStatus == NG_E_CALLBACK)
        #expect(replaced?.status == .queued)
        let q = try #require(rec.questions.values.first)
        #expect(back.status == .deferred)
        // The replace-stack ran after on_question returned, and took the
        // question with it.
        #expect(rec.outcomes[replaced!.requestID]?.outcome == .applied && e.ids == [1, 9])
        #expect(rec.questionEnds == [q.question_id: NG_ANSWER_WITHDRAWN] && g.answers.count == 1)
        #expect(rec.outcomes[back.requestID]?.reason == .stale)
        expectClean(rec)
        e.destroy()
        #expect(rec.questionEnds.count == 1)
        expectClean(rec)
    }

    @Test func flagsAndQuestionsAboutNothingOnTheStackStay() throws {
        let (e, rec) = makeEngine()
        let g = asker()
        try g.add(to: e)
        e.push(2, "shop")
        let back = e.request(.back)
        let q = try #require(rec.questionOrder.first)
        // Marking or unmarking screens is no change of the stack.
        try e.setScreenFlags(2, UInt32(NG_SCREENF_CONFIRM_LEAVE))
        try e.setScreenFlags(1, UInt32(NG_SCREENF_CONFIRM_LEAVE))
        #expect(e.openQuestion?.question_id == q && rec.questionEnds.isEmpty)
        try e.answerQuestion(q, NG_ANSWER_YES)
        #expect(rec.outcomes[back.requestID]?.outcome == .applied && e.ids == [1])
        // A question that names neither a request nor a screen (a session
        // about to expire) is not about the stack: navigating leaves it open.
        let other = TestGuard(id: "test.session")
        try other.add(to: e)
        let (st, q2) = other.ask("org.example.session", text: "Still there?")
        #expect(st == NG_OK)
        e.push(3, "menu")
        try e.restore([Screen(id: 1, route: "home"), Screen(id: 4, route: "item")])
        #expect(e.openQuestion?.question_id == q2 && rec.questionEnds[q2] == nil)
        try e.answerQuestion(q2, NG_ANSWER_YES)
        #expect(other.answers.map(\.answer) == [NG_ANSWER_YES])
        expectClean(rec)
        e.destroy()
    }

    @Test func aSwipeRolledBackUnderTheQuestionWithdrawsIt() throws {
        // Asked during a swipe back from pay: the stack is [home, shop] while
        // it runs; the rollback puts pay back, which the held Back would pop
        // and nobody was asked about.
        let (e, rec) = makeEngine()
        let g = asker()
        try g.add(to: e)
        e.push(2, "shop")
        e.push(3, "pay")
        #expect(e.request(.interactiveBack, flags: ANIMATED).status == .applied)
        let back = e.request(.back)
        #expect(back.status == .deferred && e.ids == [1, 2])
        try e.cancelInteractive()
        #expect(e.ids == [1, 2, 3])
        #expect(rec.questionEnds.values.map { $0 } == [NG_ANSWER_WITHDRAWN])
        #expect(rec.outcomes[back.requestID]?.outcome == .dropped && rec.outcomes[back.requestID]?.reason == .stale)
        expectClean(rec)
        e.destroy()

        // Released to cancel first: requests are judged on the stack it
        // settles back to, and so is the question; the rollback keeps it.
        let (f, frec) = makeEngine()
        let h = asker()
        try h.add(to: f)
        f.push(2, "shop")
        f.push(3, "pay")
        #expect(f.request(.interactiveBack, flags: ANIMATED).status == .applied)
        try f.releaseInteractive(finish: false)
        let back2 = f.request(.back)
        #expect(back2.status == .deferred)
        try f.completeInteractive()
        #expect(f.ids == [1, 2, 3] && frec.questionEnds.isEmpty)
        try f.answerQuestion(try #require(frec.questionOrder.first), NG_ANSWER_YES)
        #expect(frec.outcomes[back2.requestID]?.outcome == .applied && f.ids == [1, 2])
        expectClean(frec)
        f.destroy()
    }

    @Test func destroyWithdrawsTheOpenQuestionOnce() throws {
        let (e, rec) = makeEngine()
        let g = asker()
        try g.add(to: e)
        e.push(2, "checkout")
        let back = e.request(.back)
        e.destroy()
        #expect(rec.questionEnds.values.map { $0 } == [NG_ANSWER_WITHDRAWN])
        #expect(g.answers.map(\.answer) == [NG_ANSWER_WITHDRAWN])
        #expect(rec.outcomes[back.requestID]?.outcome == .dropped)
        expectClean(rec)
    }
}

@Suite("what guards may do since plugin ABI 1.2")
struct GuardActionTests {
    @Test func aGuardsRequestIsEvaluatedAfterItsHookWithAnIdOfItsOwnRange() throws {
        let (e, rec) = makeEngine()
        let g = TestGuard(id: "test.timer")
        var made: (ng_status, UInt64) = (NG_E_STATE, 0)
        g.onTick = { g, _ in made = g.submit(NG_REQ_POP_TO_ROOT, fromScreen: 3) }
        g.nextDeadline = { _ in 1000 * ms }
        try g.add(to: e)
        e.push(2); e.push(3)
        try e.advanceTime(1000 * ms)
        try e.tick()
        #expect(made.0 == NG_OK && made.1 == Limits.guardRequestIDBase)
        #expect(rec.outcomes[made.1]?.outcome == .applied && e.ids == [1])
        #expect(g.seen.last?.id == made.1, "it went through the chain, the maker included")
        // A scoped one made for a screen that has gone is stale.
        g.onTick = { g, _ in made = g.submit(NG_REQ_POP, fromScreen: 3) }
        e.push(4)
        try e.advanceTime(1000 * ms)
        try e.tick()
        #expect(made.1 == Limits.guardRequestIDBase + 1 && rec.outcomes[made.1]?.reason == .stale)
        expectClean(rec)
        e.destroy()
    }

    @Test func aHoldTiedToATransitionEndsWithIt() throws {
        let (e, rec) = makeEngine()
        let g = TestGuard(id: "test.tied")
        var tokens: [UInt64] = []
        g.onTransition = { g, ev in
            guard ev.phase == NG_PHASE_WILL, ev.track == NG_TRACK_SCREEN else { return }
            var t: UInt64 = 0
            if g.h.pointee.hold_begin_transition!(g.h, "tied", UInt32(NG_MASK_TOUCH), &t) == NG_OK { tokens.append(t) }
        }
        try g.add(to: e)
        var t: UInt64 = 0
        #expect(g.h.pointee.hold_begin_transition!(g.h, "idle", 0, &t) == NG_E_STATE, "no transition in flight")
        let push = e.push(2, flags: ANIMATED)
        let v = try #require(e.holdView(at: 0))
        #expect(v.transition_id == push.requestID && v.deadline_ns == Limits.noDeadline)
        #expect(String(cString: v.owner_id) == "test.tied")
        try e.finishTransition(.bar)
        #expect(e.holdCount == 1, "the bar's end does not end it")
        try e.finishTransition(.screen)
        #expect(e.holdCount == 0 && rec.endedHolds[tokens[0]]?.reason == NG_HOLD_ENDED)
        // A swipe rolled back ends its hold too.
        _ = e.request(.interactiveBack, flags: ANIMATED)
        #expect(e.holdCount == 1)
        try e.cancelInteractive()
        #expect(e.holdCount == 0 && rec.endedHolds[tokens[1]]?.reason == NG_HOLD_ENDED)
        expectClean(rec)
        e.destroy()
    }

    @Test func aDropByTheHostsHoldNamesItsLabel() {
        let (e, rec) = makeEngine()
        let token = try! e.beginHold(label: CStr("loading"), mask: UInt32(NG_MASK_TOUCH), maxDurationNs: 0)
        let v = touch(e, NG_TOUCH_BEGAN, 1)
        #expect(v.reason == .ignoring && v.guardID == nil && v.holdToken == token)
        #expect(v.holdLabel.map { String(cString: $0) } == "loading")
        expectClean(rec)
        e.destroy()
    }
}

@Suite("transitions: depth, and what destroy ends")
struct TransitionEndTests {
    @Test func eachPhaseSaysTheDepthOfTheStackItShows() throws {
        let (e, rec) = makeEngine()
        var depths: [(Int32, UInt32)] = []
        rec.onTransition = { ev in if ev.track == NG_TRACK_SCREEN { depths.append((ev.phase, ev.depth)) } }
        e.push(2, flags: ANIMATED)
        e.push(3, flags: ANIMATED)                         // interrupts the first: its DID says depth 2
        try e.finishTransition(.all)
        _ = e.request(.interactiveBack, flags: ANIMATED)
        try e.cancelInteractive()
        #expect(depths.map(\.0) == [WILL, DID, WILL, DID, WILL, CANCELLED])
        #expect(depths.map(\.1) == [2, 2, 3, 3, 2, 3])
        expectClean(rec)
        e.destroy()
    }

    @Test func destroyEndsWhatIsInFlight() throws {
        let DESTROYED = UInt32(NG_TRANSF_DESTROYED)
        // An animated push: DID.
        let (a, arec) = makeEngine()
        let push = a.push(2, flags: ANIMATED)
        a.destroy()
        #expect(arec.events.filter { if case .transition(_, DID, push.requestID, let f, _, _) = $0 { return f & DESTROYED != 0 }; return false }.count == 2)
        expectClean(arec)
        // A swipe nobody decided rolls back; one released to finish commits.
        for finish in [false, true] {
            let (e, rec) = makeEngine()
            e.push(2)
            let swipe = e.request(.interactiveBack, flags: ANIMATED)
            if finish { try e.releaseInteractive(finish: true) }
            e.destroy()
            let phase = finish ? DID : CANCELLED
            #expect(rec.events.filter { if case .transition(_, phase, swipe.requestID, let f, _, _) = $0 { return f & DESTROYED != 0 }; return false }.count == 2)
            #expect(rec.open == [0, 0], "every WILL got its end")
            expectClean(rec)
        }
    }
}

@Suite("touches: lost ends, retired and evicted")
struct TouchLifeTests {
    @Test func aRetiredTouchsLatePhasesDropCancelledWhileRemembered() {
        let (e, rec) = makeEngine()
        #expect(touch(e, NG_TOUCH_BEGAN, 1).verdict == .deliver)
        #expect(cancel(e, 1) == 1 && rec.touchCancels == [1] && e.touchCount == 0)
        #expect(touch(e, NG_TOUCH_MOVED, 1).reason == .cancelled)
        #expect(touch(e, NG_TOUCH_ENDED, 1).reason == .cancelled)
        #expect(touch(e, NG_TOUCH_ENDED, 1).reason == .invalid, "its end came: forgotten")
        // Sixteen later retirements push an unfinished one out.
        #expect(touch(e, NG_TOUCH_BEGAN, 100).verdict == .deliver)
        cancel(e, 100)
        for id: UInt64 in 200..<216 {
            _ = touch(e, NG_TOUCH_BEGAN, id)
            cancel(e, id)
        }
        #expect(touch(e, NG_TOUCH_ENDED, 100).reason == .invalid)
        #expect(touch(e, NG_TOUCH_ENDED, 215).reason == .cancelled)
        // Its id is free at once.
        #expect(touch(e, NG_TOUCH_BEGAN, 214).verdict == .deliver && touch(e, NG_TOUCH_ENDED, 214).verdict == .deliver)
        expectClean(rec)
        e.destroy()
    }

    @Test func aFullTableEndsTheTouchIdleLongest() throws {
        let (e, rec) = makeEngine()
        for id: UInt64 in 0..<64 {
            try e.advanceTime(1 * ms)
            #expect(touch(e, NG_TOUCH_BEGAN, id).verdict == .deliver)
        }
        try e.advanceTime(1 * ms)
        _ = touch(e, NG_TOUCH_MOVED, 0)                      // touch 0 is alive: touch 1 is idle longest
        #expect(touch(e, NG_TOUCH_BEGAN, 64).verdict == .deliver)
        #expect(rec.touchCancels == [1] && e.touchCount == 64)
        expectClean(rec)
        e.destroy()
    }

    @Test func aWithheldTouchWhoseEndWasLostLeavesSilently() {
        let (e, rec) = makeEngine()
        let hold = try! e.beginHold(label: nil, mask: UInt32(NG_MASK_TOUCH), maxDurationNs: 0)
        #expect(touch(e, NG_TOUCH_BEGAN, 5).reason == .ignoring)
        try! e.endHold(hold)
        #expect(touch(e, NG_TOUCH_BEGAN, 5).verdict == .deliver, "the id is not blocked")
        #expect(rec.touchCancels.isEmpty && e.touchCount == 1)
        expectClean(rec)
        e.destroy()
    }
}

@Suite("screen flags")
struct ScreenFlagTests {
    @Test func flagsAreSetKeptAndRoundTripped() throws {
        let (e, rec) = makeEngine()
        e.submit(.push(Screen(id: 2, route: "checkout", flags: UInt32(NG_SCREENF_CONFIRM_LEAVE) | 0x10000)))
        #expect(e.screen(at: 1)?.flags == UInt32(NG_SCREENF_CONFIRM_LEAVE) | 0x10000)
        #expect(statusOf { () throws(EngineError) in try e.setScreenFlags(9, 0) } == NG_E_NOT_FOUND)
        #expect(statusOf { () throws(EngineError) in try e.setScreenFlags(2, 0x2) } == NG_E_RANGE)
        // A replace-stack keeps the flags of a screen that stays.
        e.submit(.replace([Screen(id: 1, route: "root"), Screen(id: 5, route: "x"), Screen(id: 2, route: "checkout")]))
        #expect(e.screen(at: 2)?.flags == UInt32(NG_SCREENF_CONFIRM_LEAVE) | 0x10000 && e.screen(at: 1)?.flags == 0)
        let text = e.snapshot()
        #expect(text.contains("\"flags\":65537"))
        try e.setScreenFlags(2, 0)
        var bytes = Array(text.utf8)
        try bytes.withUnsafeMutableBufferPointer { b throws(EngineError) in try e.restore(snapshot: UnsafeBufferPointer(b)) }
        #expect(e.screen(at: 2)?.flags == 65537)
        expectClean(rec)
        e.destroy()
    }
}
