// SPDX-License-Identifier: Apache-2.0
// The core's navigation rules, tested on `Engine` directly with a manual
// clock: stack, outcomes, transitions, interactive back, run to completion,
// holds, the guard chain and snapshots. Behaviour only, never timing.
import CNavGuard
@testable import NavGuardCore
import Testing


// MARK: - 1. Stack

@Suite("Stack")
struct StackTests {
    @Test("requests before the root is set are refused as invalid")
    func rootRequired() {
        let (e, rec) = makeEngine(root: nil)
        let g = TestGuard(id: "test.seen")
        try! g.add(to: e)
        for kind: RequestKind in [.pop, .back, .popToRoot, .interactiveBack] {
            let r = e.request(kind)
            #expect(r.status == .refused)
            #expect(r.reason == .invalid)
            #expect(r.guardID == nil)
            #expect(rec.outcomes[r.requestID]?.reason == .invalid)
        }
        let p = e.push(2)
        #expect(p.status == .refused && p.reason == .invalid)
        #expect(e.stackCount == 0)
        #expect(g.seen.isEmpty, "the chain is not consulted before the root exists")
        #expect(statusOf { () throws(EngineError) in try e.setRoot(Screen(id: 0, route: "zero")) } == NG_E_RANGE)
        #expect(e.stackCount == 0)
        #expect(statusOf { () throws(EngineError) in try e.setRoot(Screen(id: 1, route: "root")) } == NG_OK)
        #expect(statusOf { () throws(EngineError) in try e.setRoot(Screen(id: 5, route: "again")) } == NG_E_STATE)
        #expect(e.ids == [1])
        #expect(e.push(2).status == .applied)
        #expect(e.ids == [1, 2])
        expectClean(rec)
        e.destroy()
    }

    @Test("push, pop, pop-to, pop-to-root, replace-stack and back change the stack")
    func effects() {
        let (e, rec) = makeEngine()
        #expect(e.push(2).status == .applied)
        #expect(e.push(3).status == .applied)
        #expect(e.push(4).status == .applied)
        #expect(e.ids == [1, 2, 3, 4])
        #expect(e.request(.pop).status == .applied)
        #expect(e.ids == [1, 2, 3])
        #expect(e.request(.back).status == .applied)
        #expect(e.ids == [1, 2])
        e.push(3); e.push(4); e.push(5)
        #expect(e.submit(.popTo(3)).status == .applied)
        #expect(e.ids == [1, 2, 3])
        #expect(e.request(.popToRoot).status == .applied)
        #expect(e.ids == [1])
        let r = e.submit(.replace([Screen(id: 10, route: "a"), Screen(id: 11, route: "b", identity: "B"),
                                   Screen(id: 12, route: "c")]))
        #expect(r.status == .applied)
        #expect(e.fullStack == ["10|a|a", "11|b|B", "12|c|c"])
        #expect(e.topID == 12)
        #expect(e.request(.back).status == .applied)
        #expect(e.ids == [10, 11])
        // The root can be replaced by a one-screen stack.
        #expect(e.submit(.replace([Screen(id: 20, route: "new-root")])).status == .applied)
        #expect(e.ids == [20])
        // Each applied non-animated request reports its from/to top.
        let pushed = e.push(21)
        #expect(rec.transitions.suffix(4) == [tr(S, WILL, pushed.requestID, 20, 21), tr(B, WILL, pushed.requestID, 20, 21),
                                              tr(B, DID, pushed.requestID, 20, 21), tr(S, DID, pushed.requestID, 20, 21)])
        expectClean(rec)
        e.destroy()
    }

    @Test("pop, back, interactive back and pop-to-root at the root are refused AT_ROOT once the guards allowed them",
          arguments: [RequestKind.pop, .back, .interactiveBack, .popToRoot])
    func atRoot(kind: RequestKind) {
        let (e, rec) = makeEngine()
        let g = TestGuard(id: "test.seen")
        try! g.add(to: e)
        let r = e.request(kind, flags: ANIMATED)
        #expect(r.status == .refused)
        #expect(r.reason == .atRoot)
        #expect(r.guardID == nil)
        let o = rec.outcomes[r.requestID]
        #expect(o?.outcome == .refused)
        #expect(o?.reason == .atRoot)
        #expect(o?.guardID == nil)
        #expect(o?.kind == kind)
        #expect(g.seen.map(\.kind) == [kind.rawValue], "the stack's rules are judged when it would apply, after the guards")
        #expect(e.ids == [1])
        #expect(rec.transitions.isEmpty)
        #expect(e.inFlight(.screen) == 0 && e.inFlight(.bar) == 0)
        expectClean(rec)
        e.destroy()
    }

    @Test("core refusals: unknown pop-to target, duplicate push id, malformed requests (content before the chain, stack after)")
    func coreRefusals() {
        let (e, rec) = makeEngine()
        let g = TestGuard(id: "test.seen")
        try! g.add(to: e)
        e.push(2); e.push(3)
        g.seen.removeAll()
        let before = e.fullStack

        let nf = e.submit(.popTo(77))
        #expect(nf.status == .refused && nf.reason == .notFound && nf.guardID == nil)
        let top = e.submit(.popTo(3))
        #expect(top.status == .refused && top.reason == .invalid, "pop-to the top screen")

        for dup: UInt64 in [1, 2, 3] {
            let r = e.push(dup, "again")
            #expect(r.status == .refused && r.reason == .duplicate, "push of id \(dup) already stacked")
        }
        let zero = e.push(0)
        #expect(zero.status == .refused && zero.reason == .invalid)
        var noScreen = Request(kind: .push)
        noScreen.screen = nil
        #expect(e.submit(noScreen).reason == .invalid)

        #expect(e.submit(.replace([])).reason == .invalid)
        #expect(e.submit(.replace([Screen(id: 5, route: "a"), Screen(id: 5, route: "b")])).reason == .invalid)
        #expect(e.submit(.replace([Screen(id: 5, route: "a"), Screen(id: 0, route: "b")])).reason == .invalid)
        #expect(e.submit(Request(kind: RequestKind(rawValue: 99))).reason == .invalid)
        #expect(e.submit(Request(kind: RequestKind(rawValue: -1))).reason == .invalid)
        var marked = Request.push(Screen(id: 50, route: "ok"))
        marked.invalidMessage = "route is not valid UTF-8"
        let inv = e.submit(marked)
        #expect(inv.status == .refused && inv.reason == .invalid)
        #expect(rec.outcomes[inv.requestID]?.message?.string == "route is not valid UTF-8")

        #expect(e.fullStack == before)
        // A request's content is judged before the chain; the stack it
        // applies to (pop-to's target) after.
        #expect(g.seen.map(\.kind) == [NG_REQ_POP_TO, NG_REQ_POP_TO], "only the two pop-to requests reached the chain")
        #expect(rec.outcomes.values.allSatisfy { $0.outcome == .applied || $0.guardID == nil })
        expectClean(rec)
        e.destroy()
    }

    @Test("the stack is never empty")
    func neverEmpty() {
        let (e, rec) = makeEngine()
        var rng = SplitMix64(seed: 7)
        var next: UInt64 = 2
        for _ in 0..<500 {
            switch rng.int(0...5) {
            case 0, 1: e.push(next); next += 1
            case 2: e.request(.pop)
            case 3: e.request(.back)
            case 4: e.request(.popToRoot)
            default:
                let r = e.request(.interactiveBack, flags: 0)
                if r.status == .applied {
                    if rng.chance(50) { try! e.cancelInteractive() } else { try! e.finishTransition(.all) }
                }
            }
            #expect(e.stackCount >= 1)
            #expect(e.screen(at: 0)?.id == 1, "only replace-stack changes the root")
        }
        expectClean(rec)
        e.destroy()
    }
}

// MARK: - 2. Outcomes

@Suite("Outcomes")
struct OutcomeTests {
    @Test("every request gets exactly one outcome, with the id submit returned")
    func exactlyOne() {
        let (e, rec) = makeEngine()
        var results: [SubmitResult] = []
        results.append(e.push(2, source: 7))
        results.append(e.push(2))                       // duplicate id: refused
        results.append(e.request(.pop))
        results.append(e.request(.pop))           // at root
        results.append(e.submit(.popTo(9)))             // not found
        results.append(e.push(3, flags: ANIMATED))
        results.append(e.request(.back, flags: ANIMATED))
        results.append(e.submit(.replace([Screen(id: 4, route: "x")])))
        let ids = results.map(\.requestID)
        #expect(!ids.contains(0))
        #expect(Set(ids).count == ids.count, "request ids are distinct")
        for r in results {
            let o = rec.outcomes[r.requestID]
            #expect(o != nil, "request \(r.requestID) has an outcome")
            #expect(o?.outcome == r.status, "the final outcome matches the immediate status")
            #expect(o?.reason == r.reason)
        }
        #expect(rec.outcomes[results[0].requestID]?.source == 7)
        #expect(rec.outcomes[results[0].requestID]?.kind == .push)
        #expect(rec.outcomes[results[6].requestID]?.kind == .back)
        #expect(rec.outcomeOrder == ids, "outcomes arrive in submission order")
        #expect(rec.outcomes.count == results.count)
        expectClean(rec)
        e.destroy()
        #expect(rec.outcomes.count == results.count, "destroy adds no outcome for finished requests")
    }

    @Test("APPLIED and REFUSED outcomes arrive before submit returns")
    func beforeSubmitReturns() {
        let (e, rec) = makeEngine()
        rec.mark("before push")
        let a = e.push(2, flags: ANIMATED)
        rec.mark("after push")
        let b = e.push(2)
        rec.mark("after refused")
        #expect(a.status == .applied && b.status == .refused)
        let outcome = { (id: UInt64) in rec.events.firstIndex { if case .outcome(let x, _, _, _, _) = $0 { x == id } else { false } }! }
        let mark = { (s: String) in rec.events.firstIndex(of: .mark(s))! }
        #expect(mark("before push") < outcome(a.requestID))
        #expect(outcome(a.requestID) < mark("after push"))
        #expect(mark("after push") < outcome(b.requestID))
        #expect(outcome(b.requestID) < mark("after refused"))
        // The outcome comes before the transition it starts.
        #expect(rec.events[outcome(a.requestID) + 1] == tr(S, WILL, a.requestID, flags: ANIM, 1, 2))
        expectClean(rec)
        e.destroy()
    }
}

// MARK: - 3. Transitions

@Suite("Transitions")
struct TransitionTests {
    @Test("animated push: screen WILL, bar WILL; finish(ALL): bar DID, then screen DID")
    func animatedOrder() throws {
        let (e, rec) = makeEngine()
        let r = e.push(2, flags: ANIMATED)
        let id = r.requestID
        #expect(r.status == .applied)
        #expect(rec.transitions == [tr(S, WILL, id, flags: ANIM, 1, 2), tr(B, WILL, id, flags: ANIM, 1, 2)])
        #expect(e.inFlight(.screen) == id && e.inFlight(.bar) == id)
        #expect(e.ids == [1, 2], "the stack changes when the request is applied")
        try e.finishTransition(.all)
        #expect(rec.transitions == [tr(S, WILL, id, flags: ANIM, 1, 2), tr(B, WILL, id, flags: ANIM, 1, 2),
                                    tr(B, DID, id, flags: ANIM, 1, 2), tr(S, DID, id, flags: ANIM, 1, 2)])
        #expect(e.inFlight(.screen) == 0 && e.inFlight(.bar) == 0)
        #expect(statusOf { () throws(EngineError) in try e.finishTransition(.all) } == NG_E_NOT_FOUND)
        expectClean(rec)
        e.destroy()
    }

    @Test("each track ends on its own")
    func perTrack() throws {
        let (e, rec) = makeEngine()
        let id = e.push(2, flags: ANIMATED).requestID
        try e.finishTransition(.bar)
        #expect(rec.transitions.last == tr(B, DID, id, flags: ANIM, 1, 2))
        #expect(e.inFlight(.bar) == 0 && e.inFlight(.screen) == id)
        #expect(statusOf { () throws(EngineError) in try e.finishTransition(.bar) } == NG_E_NOT_FOUND,
                "a late completion is harmless")
        #expect(rec.transitions.count == 3)
        try e.finishTransition(.screen)
        #expect(rec.transitions.last == tr(S, DID, id, flags: ANIM, 1, 2))
        #expect(statusOf { () throws(EngineError) in try e.finishTransition(.screen) } == NG_E_NOT_FOUND)
        // Screen first, then bar.
        let id2 = e.push(3, flags: ANIMATED).requestID
        try e.finishTransition(.screen)
        #expect(e.inFlight(.screen) == 0 && e.inFlight(.bar) == id2)
        try e.finishTransition(.all)
        #expect(rec.transitions.suffix(2) == [tr(S, DID, id2, flags: ANIM, 2, 3), tr(B, DID, id2, flags: ANIM, 2, 3)])
        expectClean(rec)
        e.destroy()
    }

    @Test("finish with nothing in flight is NOT_FOUND; a bad track is RANGE")
    func finishErrors() {
        let (e, rec) = makeEngine()
        for t: Track in [.screen, .bar, .all] {
            #expect(statusOf { () throws(EngineError) in try e.finishTransition(t) } == NG_E_NOT_FOUND)
        }
        e.push(2, flags: ANIMATED)
        for t: Int32 in [-1, 3, 99] {
            #expect(statusOf { () throws(EngineError) in try e.finishTransition(Track(rawValue: t)) } == NG_E_RANGE)
        }
        #expect(e.inFlight(.screen) != 0, "a refused finish ends nothing")
        expectClean(rec)
        e.destroy()
    }

    @Test("non-animated requests complete synchronously with all four phases")
    func nonAnimated() {
        let (e, rec) = makeEngine()
        rec.mark("submit")
        let id = e.push(2).requestID
        rec.mark("returned")
        let i = rec.events.firstIndex(of: .mark("submit"))!
        #expect(Array(rec.events[(i + 1)...]) == [
            .outcome(id: id, kind: .push, outcome: .applied, reason: .none, guardID: nil),
            tr(S, WILL, id, 1, 2), tr(B, WILL, id, 1, 2), tr(B, DID, id, 1, 2), tr(S, DID, id, 1, 2),
            .mark("returned"),
        ])
        #expect(e.inFlight(.screen) == 0 && e.inFlight(.bar) == 0)
        expectClean(rec)
        e.destroy()
    }

    @Test("a timed transition ends at its deadline on tick, not before")
    func timed() throws {
        let (e, rec) = makeEngine()
        var r = Request.push(Screen(id: 2, route: "two"), flags: ANIMATED | TIMED)
        r.durationNs = 100 * ms
        let id = e.submit(r).requestID
        #expect(e.nextDeadline() == 100 * ms)
        try e.advanceTime(99 * ms)
        try e.tick()
        #expect(e.inFlight(.screen) == id && e.inFlight(.bar) == id, "not before the deadline")
        #expect(rec.transitions.count == 2)
        try e.advanceTime(1 * ms)
        try e.tick()
        #expect(e.inFlight(.screen) == 0 && e.inFlight(.bar) == 0)
        #expect(rec.transitions.suffix(2) == [tr(B, DID, id, flags: ANIM, 1, 2), tr(S, DID, id, flags: ANIM, 1, 2)])
        #expect(e.nextDeadline() == Int64.max)

        // Duration 0 takes the context default; untimed animations never end by themselves.
        let id2 = e.push(3, flags: ANIMATED | TIMED).requestID
        #expect(e.nextDeadline() == 100 * ms + 350 * ms)
        try e.setTime(100 * ms + 349 * ms)
        try e.tick()
        #expect(e.inFlight(.screen) == id2)
        try e.setTime(100 * ms + 350 * ms)
        try e.tick()
        #expect(e.inFlight(.screen) == 0)
        let id3 = e.push(4, flags: ANIMATED).requestID
        #expect(e.nextDeadline() == Int64.max)
        try e.advanceTime(3_600_000 * ms)
        try e.tick()
        #expect(e.inFlight(.screen) == id3)
        // A timed transition whose screen track the host ended still ends its bar at the deadline.
        try e.finishTransition(.all)
        var r5 = Request.push(Screen(id: 5, route: "five"), flags: ANIMATED | TIMED)
        r5.durationNs = 10 * ms
        let id5 = e.submit(r5).requestID
        try e.finishTransition(.screen)
        #expect(e.nextDeadline() == e.now + 10 * ms)
        try e.advanceTime(10 * ms)
        try e.tick()
        #expect(e.inFlight(.bar) == 0)
        #expect(rec.transitions.last == tr(B, DID, id5, flags: ANIM, 4, 5))
        expectClean(rec)
        e.destroy()
    }

    @Test("the clock is manual: never backwards, no overflow")
    func manualClock() {
        let (e, _) = makeEngine()
        #expect(e.isManualClock)
        #expect(statusOf { () throws(EngineError) in try e.setTime(10) } == NG_OK)
        #expect(statusOf { () throws(EngineError) in try e.setTime(9) } == NG_E_RANGE)
        #expect(statusOf { () throws(EngineError) in try e.advanceTime(-1) } == NG_E_RANGE)
        #expect(statusOf { () throws(EngineError) in try e.advanceTime(Int64.max) } == NG_E_RANGE)
        #expect(e.now == 10)
        e.destroy()
    }

    @Test("back (the implicit path) passes exactly the guards an explicit pop passes")
    func backPassesSameGuards() throws {
        let (e, rec) = makeEngine()
        let busy = busyRefuser()
        try busy.add(to: e)
        e.push(2)
        e.push(3, flags: ANIMATED)
        busy.seen.removeAll()

        let pop = e.request(.pop)
        let back = e.request(.back)
        let swipe = e.request(.interactiveBack)
        for r in [pop, back, swipe] {
            #expect(r.status == .refused)
            #expect(r.reason == .busy)
            #expect(r.guardID.map { String(cString: $0) } == "test.busy")
            #expect(rec.outcomes[r.requestID]?.guardID.map { String(cString: $0) } == "test.busy")
            #expect(rec.outcomes[r.requestID]?.message?.string == "a transition is in flight")
        }
        #expect(busy.seen.map(\.kind) == [NG_REQ_POP, NG_REQ_BACK, NG_REQ_INTERACTIVE_BACK])
        #expect(e.ids == [1, 2, 3])

        // Idle: back pops exactly as pop does.
        try e.finishTransition(.all)
        let back2 = e.request(.back)
        #expect(back2.status == .applied)
        #expect(e.ids == [1, 2])
        #expect(busy.seen.last?.kind == NG_REQ_BACK)

        // A guard whose policy is "no pops" refuses back too: it sees the
        // same request shape (no screen, no target) for both.
        let (e2, rec2) = makeEngine()
        let noPops = TestGuard(id: "test.nopops")
        noPops.vote = { _, r, v in
            r.kind == NG_REQ_POP || r.kind == NG_REQ_BACK ? refuse(v, NG_REASON_POLICY, "no pops") : NG_VOTE_ALLOW
        }
        try noPops.add(to: e2)
        e2.push(2)
        let p2 = e2.request(.pop)
        let b2 = e2.request(.back)
        #expect(p2.status == .refused && b2.status == .refused)
        #expect(p2.reason == b2.reason)
        #expect(e2.ids == [1, 2])
        expectClean(rec)
        expectClean(rec2)
        e.destroy()
        e2.destroy()
    }

    @Test("without a refusing guard, a request applied mid-transition ends it (INTERRUPTED) before the next WILL")
    func interrupted() {
        let (e, rec) = makeEngine()
        let a = e.push(2, flags: ANIMATED).requestID
        let b = e.push(3, flags: ANIMATED).requestID
        #expect(rec.transitions == [
            tr(S, WILL, a, flags: ANIM, 1, 2), tr(B, WILL, a, flags: ANIM, 1, 2),
            tr(B, DID, a, flags: ANIM | INTERRUPTED, 1, 2), tr(S, DID, a, flags: ANIM | INTERRUPTED, 1, 2),
            tr(S, WILL, b, flags: ANIM, 2, 3), tr(B, WILL, b, flags: ANIM, 2, 3),
        ])
        #expect(e.inFlight(.screen) == b)
        expectClean(rec)
        e.destroy()
    }
}

// MARK: - 4. Interactive back

@Suite("Interactive back")
struct InteractiveTests {
    @Test("cancel restores the exact stack, fires CANCELLED on both tracks and no DID")
    func cancelRestores() throws {
        let (e, rec) = makeEngine()
        e.submit(.replace([Screen(id: 1, route: "home"), Screen(id: 7, route: "list", identity: "list#a"),
                           Screen(id: 9, route: "détail ✓", identity: "item-42")]))
        let before = e.fullStack
        let r = e.request(.interactiveBack)
        let id = r.requestID
        #expect(r.status == .applied)
        #expect(e.ids == [1, 7], "tentatively popped")
        #expect(e.isInteractive)
        #expect(e.inFlight(.screen) == id && e.inFlight(.bar) == id)
        let f = ANIM | INTER
        #expect(rec.transitions.suffix(2) == [tr(S, WILL, id, flags: f, 9, 7), tr(B, WILL, id, flags: f, 9, 7)])
        #expect(e.nextDeadline() == Int64.max, "an interactive back has no deadline")

        try e.updateInteractive(0.25)
        #expect(e.interactiveProgress == 0.25)
        try e.updateInteractive(1)
        try e.updateInteractive(0)
        for bad in [Double.nan, -0.01, 1.01, .infinity] {
            #expect(statusOf { () throws(EngineError) in try e.updateInteractive(bad) } == NG_E_RANGE)
        }
        #expect(e.interactiveProgress == 0)
        try e.updateInteractive(0.4)

        let n = rec.transitions.count
        try e.cancelInteractive()
        #expect(e.fullStack == before, "ids, routes and identities are restored")
        #expect(e.ids == [1, 7, 9])
        #expect(Array(rec.transitions[n...]) == [tr(B, CANCELLED, id, flags: f, 9, 9), tr(S, CANCELLED, id, flags: f, 9, 9)])
        #expect(!rec.transitions.contains { if case .transition(_, DID, id, _, _, _) = $0 { true } else { false } })
        #expect(e.inFlight(.screen) == 0 && e.inFlight(.bar) == 0, "nothing stays in flight")
        #expect(!e.isInteractive)
        #expect(rec.outcomes[id]?.outcome == .applied, "the outcome stays APPLIED")
        #expect(statusOf { () throws(EngineError) in try e.cancelInteractive() } == NG_E_NOT_FOUND)
        #expect(statusOf { () throws(EngineError) in try e.updateInteractive(0.5) } == NG_E_NOT_FOUND)
        #expect(statusOf { () throws(EngineError) in try e.finishTransition(.all) } == NG_E_NOT_FOUND)

        // Nothing is stuck: the next request works without interruption.
        let p = e.push(10, flags: ANIMATED)
        #expect(p.status == .applied)
        #expect(rec.transitions.suffix(2) == [tr(S, WILL, p.requestID, flags: ANIM, 9, 10), tr(B, WILL, p.requestID, flags: ANIM, 9, 10)])
        expectClean(rec)
        e.destroy()
    }

    @Test("finishing commits the pop (either track ends both)", arguments: [Track.screen, .bar, .all])
    func finishCommits(track: Track) throws {
        let (e, rec) = makeEngine()
        e.push(2); e.push(3)
        let id = e.request(.interactiveBack).requestID
        try e.updateInteractive(0.9)
        try e.finishTransition(track)
        #expect(e.ids == [1, 2])
        #expect(!e.isInteractive)
        #expect(e.inFlight(.screen) == 0 && e.inFlight(.bar) == 0)
        let f = ANIM | INTER
        #expect(rec.transitions.suffix(2) == [tr(B, DID, id, flags: f, 3, 2), tr(S, DID, id, flags: f, 3, 2)])
        #expect(statusOf { () throws(EngineError) in try e.cancelInteractive() } == NG_E_NOT_FOUND, "committed: nothing to cancel")
        expectClean(rec)
        e.destroy()
    }

    @Test("a guard sees the interactive progress through track_get")
    func progressVisibleToGuards() throws {
        let (e, rec) = makeEngine()
        let g = TestGuard(id: "test.observer")
        try g.add(to: e)
        e.push(2)
        let id = e.request(.interactiveBack).requestID
        try e.updateInteractive(0.6)
        var info = ng_track_info()
        info.size = UInt32(MemoryLayout<ng_track_info>.size)
        #expect(g.h.pointee.track_get!(g.h, NG_TRACK_SCREEN, &info))
        #expect(info.request_id == id)
        #expect(info.progress == 0.6)
        #expect(info.kind == NG_REQ_INTERACTIVE_BACK)
        #expect(info.flags == ANIM | INTER)
        #expect(info.deadline_ns == Int64.max)
        try e.cancelInteractive()
        #expect(!g.h.pointee.track_get!(g.h, NG_TRACK_SCREEN, &info))
        #expect(!g.h.pointee.track_get!(g.h, NG_TRACK_BAR, nil))
        expectClean(rec)
        e.destroy()
    }
}

// MARK: - 5. Run to completion

@Suite("Run to completion")
struct RunToCompletionTests {
    @Test("a request made in an outcome callback is QUEUED and evaluated after the callback returns")
    func fromOutcome() {
        let (e, rec) = makeEngine()
        var inner: SubmitResult?
        var stackInside: [UInt64] = []
        var first: UInt64 = 0
        rec.onOutcome = { o in
            guard o.requestID == first, inner == nil else { return }
            inner = e.push(3)
            stackInside = e.ids
            #expect(rec.outcomes[inner!.requestID] == nil, "not evaluated inside the callback")
            rec.mark("callback for \(o.requestID) returns")
        }
        first = e.allocateRequestID()
        var r = Request.push(Screen(id: 2, route: "two"))
        r.id = first
        let outer = e.submit(r)
        #expect(outer.status == .applied)
        let q = try! #require(inner)
        #expect(q.status == .queued)
        #expect(q.requestID != 0 && q.requestID != first)
        #expect(stackInside == [1, 2])
        #expect(e.ids == [1, 2, 3], "evaluated before the outer submit returned")
        let markAt = rec.events.firstIndex(of: .mark("callback for \(first) returns"))!
        let innerAt = rec.events.firstIndex { if case .outcome(let id, _, _, _, _) = $0 { id == q.requestID } else { false } }!
        #expect(markAt < innerAt, "the inner outcome comes after the callback that made it finished")
        #expect(rec.outcomes[q.requestID]?.outcome == .applied)
        #expect(rec.maxDepth == 1, "never recursive")
        expectClean(rec)
        e.destroy()
    }

    @Test("requests and finishes made in transition callbacks run after the callback, in order")
    func fromTransition() throws {
        let (e, rec) = makeEngine()
        var queued: [SubmitResult] = []
        var did = false
        rec.onTransition = { ev in
            guard !did, ev.track == NG_TRACK_SCREEN, ev.phase == NG_PHASE_WILL else { return }
            did = true
            try! e.finishTransition(.all)          // callback-safe
            queued.append(e.request(.pop))
            queued.append(e.push(5))
            rec.mark("screen WILL callback returns")
        }
        let id = e.push(2, flags: ANIMATED).requestID
        #expect(queued.map(\.status) == [.queued, .queued])
        let pop = queued[0].requestID, push = queued[1].requestID
        #expect(rec.events == [
            .outcome(id: id, kind: .push, outcome: .applied, reason: .none, guardID: nil),
            tr(S, WILL, id, flags: ANIM, 1, 2),
            .mark("screen WILL callback returns"),
            tr(B, WILL, id, flags: ANIM, 1, 2),
            tr(B, DID, id, flags: ANIM, 1, 2),
            tr(S, DID, id, flags: ANIM, 1, 2),
            .outcome(id: pop, kind: .pop, outcome: .applied, reason: .none, guardID: nil),
            tr(S, WILL, pop, 2, 1), tr(B, WILL, pop, 2, 1), tr(B, DID, pop, 2, 1), tr(S, DID, pop, 2, 1),
            .outcome(id: push, kind: .push, outcome: .applied, reason: .none, guardID: nil),
            tr(S, WILL, push, 1, 5), tr(B, WILL, push, 1, 5), tr(B, DID, push, 1, 5), tr(S, DID, push, 1, 5),
        ])
        #expect(e.ids == [1, 5])
        #expect(rec.maxDepth == 1)
        expectClean(rec)
        e.destroy()
    }

    @Test("chains of callback requests never nest")
    func chainNoNesting() {
        let (e, rec) = makeEngine()
        var next: UInt64 = 3
        var engineDepths: [Int] = []
        rec.onOutcome = { _ in
            engineDepths.append(e.depth)
            if next < 40 {
                let r = e.push(next)
                #expect(r.status == .queued)
                next += 1
            }
        }
        e.push(2)
        #expect(e.ids == Array(1...39))
        #expect(rec.maxDepth == 1)
        #expect(engineDepths.allSatisfy { $0 == 1 })
        expectClean(rec)
        e.destroy()
    }

    @Test("holds and ticks from callbacks: holds are callback-safe, tick is not")
    func holdsInCallbacks() {
        let (e, rec) = makeEngine()
        var token: UInt64 = 0
        var tickStatus: Int32 = 0
        rec.onOutcome = { _ in
            token = try! e.beginHold(label: CStr("cb"), mask: 0, maxDurationNs: 0)
            tickStatus = statusOf { () throws(EngineError) in try e.tick() }
        }
        e.push(2)
        #expect(token != 0)
        #expect(e.holdCount == 1)
        #expect(tickStatus == NG_E_CALLBACK)
        expectClean(rec)
        e.destroy()
    }
}

// MARK: - 6. Holds

@Suite("Holds")
struct HoldTests {
    @Test("tokens are distinct and non-zero; masks are checked")
    func tokens() throws {
        let (e, rec) = makeEngine()
        var tokens: [UInt64] = []
        for i in 0..<20 {
            tokens.append(try e.beginHold(label: CStr("h\(i)"), mask: UInt32(NG_MASK_TOUCH), maxDurationNs: 0))
        }
        #expect(!tokens.contains(0))
        #expect(Set(tokens).count == tokens.count)
        for t in tokens { try e.endHold(t) }
        let later = try e.beginHold(label: nil, mask: 0, maxDurationNs: 0)
        #expect(!tokens.contains(later), "never reused within a context")
        #expect(e.holdMask == UInt32(NG_MASK_DEFAULT), "mask 0 means NG_MASK_DEFAULT")
        #expect(statusOf { () throws(EngineError) in _ = try e.beginHold(label: nil, mask: 0x40, maxDurationNs: 0) } == NG_E_RANGE)
        #expect(statusOf { () throws(EngineError) in _ = try e.beginHold(label: nil, mask: 1, maxDurationNs: -1) } == NG_E_RANGE)
        #expect(e.holdCount == 1)
        expectClean(rec)
        e.destroy()
    }

    @Test("ending an unknown or ended token is NOT_FOUND and releases nothing")
    func endUnknown() throws {
        let (e, rec) = makeEngine()
        let a = try e.beginHold(label: CStr("a"), mask: UInt32(NG_MASK_TOUCH), maxDurationNs: 0)
        let b = try e.beginHold(label: CStr("b"), mask: UInt32(NG_MASK_MOTION), maxDurationNs: 0)
        #expect(statusOf { () throws(EngineError) in try e.endHold(9999) } == NG_E_NOT_FOUND)
        #expect(statusOf { () throws(EngineError) in try e.endHold(0) } == NG_E_NOT_FOUND)
        #expect(e.holdCount == 2 && e.holdMask == UInt32(NG_MASK_TOUCH | NG_MASK_MOTION))
        try e.endHold(a)
        #expect(rec.endedHolds[a]?.reason == NG_HOLD_ENDED)
        #expect(rec.endedHolds[a]?.label?.string == "a")
        #expect(statusOf { () throws(EngineError) in try e.endHold(a) } == NG_E_NOT_FOUND, "an unbalanced end")
        #expect(e.holdCount == 1 && e.holdMask == UInt32(NG_MASK_MOTION), "b is still held")
        #expect(rec.endedHolds[b] == nil)
        expectClean(rec)
        e.destroy()
        #expect(rec.endedHolds[b]?.reason == NG_HOLD_RELEASED, "destroy releases live holds")
    }

    @Test("overlapping holds of 0.3 s and 1.3 s block until the longer one expires")
    func overlapping() throws {
        let (e, rec) = makeEngine()
        let short = try e.beginHold(label: CStr("0.3s"), mask: UInt32(NG_MASK_DEFAULT), maxDurationNs: 300 * ms)
        let long = try e.beginHold(label: CStr("1.3s"), mask: UInt32(NG_MASK_DEFAULT), maxDurationNs: 1300 * ms)
        #expect(e.nextDeadline() == 300 * ms)
        try e.setTime(299 * ms)
        try e.tick()
        #expect(e.holdCount == 2)
        try e.setTime(300 * ms)
        try e.tick()
        #expect(e.holdMask != 0, "still blocked after the short hold expired")
        #expect(e.holdCount == 1)
        let h = try #require(rec.endedHolds[short])
        #expect(h.reason == NG_HOLD_EXPIRED)
        #expect(h.endedNs == 300 * ms && h.beganNs == 0)
        #expect(e.nextDeadline() == 1300 * ms)
        try e.setTime(1299 * ms)
        try e.tick()
        #expect(e.holdMask != 0)
        try e.setTime(1300 * ms)
        try e.tick()
        #expect(e.holdMask == 0 && e.holdCount == 0, "unblocked when the longest ends")
        #expect(rec.endedHolds[long]?.reason == NG_HOLD_EXPIRED)
        #expect(rec.endedHolds[long]?.endedNs == 1300 * ms)
        #expect(e.nextDeadline() == Int64.max)
        #expect(statusOf { () throws(EngineError) in try e.endHold(long) } == NG_E_NOT_FOUND, "an expired hold cannot be ended")
        expectClean(rec)
        e.destroy()
    }

    @Test("expired holds end in deadline order at one tick; unlimited holds never expire")
    func expiryOrder() throws {
        let (e, rec) = makeEngine()
        let c = try e.beginHold(label: CStr("c"), mask: 1, maxDurationNs: 30 * ms)
        let a = try e.beginHold(label: CStr("a"), mask: 1, maxDurationNs: 10 * ms)
        let forever = try e.beginHold(label: CStr("forever"), mask: 2, maxDurationNs: 0)
        let b = try e.beginHold(label: CStr("b"), mask: 1, maxDurationNs: 20 * ms)
        try e.setTime(1_000_000 * ms)
        try e.tick()
        let ended = rec.events.compactMap { ev -> UInt64? in if case .holdEnded(let t, _, _, _, _, _) = ev { t } else { nil } }
        #expect(ended == [a, b, c])
        #expect(e.holdCount == 1 && e.holdMask == 2)
        #expect(rec.endedHolds[forever] == nil)
        expectClean(rec)
        e.destroy()
    }

    @Test("nextDeadline is the earliest hold or transition deadline")
    func nextDeadline() throws {
        let (e, rec) = makeEngine()
        #expect(e.nextDeadline() == Int64.max)
        _ = try e.beginHold(label: nil, mask: 0, maxDurationNs: 1300 * ms)
        let id = e.push(2, flags: ANIMATED | TIMED).requestID     // default 350 ms
        #expect(e.nextDeadline() == 350 * ms)
        _ = try e.beginHold(label: nil, mask: 0, maxDurationNs: 300 * ms)
        #expect(e.nextDeadline() == 300 * ms)
        try e.setTime(300 * ms); try e.tick()
        #expect(e.nextDeadline() == 350 * ms)
        try e.setTime(350 * ms); try e.tick()
        #expect(e.inFlight(.screen) == 0)
        #expect(rec.transitions.last == tr(S, DID, id, flags: ANIM, 1, 2))
        #expect(e.nextDeadline() == 1300 * ms)
        try e.setTime(1300 * ms); try e.tick()
        #expect(e.nextDeadline() == Int64.max)
        // A guard's wake-up counts too.
        let g = TestGuard(id: "test.waker")
        g.nextDeadline = { _ in 2000 * ms }
        try g.add(to: e)
        #expect(e.nextDeadline() == 2000 * ms)
        try e.tick()
        #expect(g.ticks == 0, "not called before its time")
        try e.setTime(2000 * ms); try e.tick()
        #expect(g.ticks == 1)
        expectClean(rec)
        e.destroy()
    }

    @Test("guards see holds begin and end; a guard's own end is ENDED, someone else's is RELEASED")
    func guardHolds() throws {
        let (e, rec) = makeEngine()
        let g = TestGuard(id: "test.holder")
        try g.add(to: e)
        var own: UInt64 = 0
        #expect(g.h.pointee.hold_begin!(g.h, "guard's", UInt32(NG_MASK_KEY), 0, &own) == NG_OK)
        let hosts = try e.beginHold(label: CStr("host's"), mask: 0, maxDurationNs: 0)
        #expect(g.h.pointee.hold_mask!(g.h) == UInt32(NG_MASK_KEY | NG_MASK_DEFAULT))
        #expect(g.h.pointee.hold_count!(g.h) == 2)
        var view = ng_hold_view()
        view.size = UInt32(MemoryLayout<ng_hold_view>.size)
        #expect(g.h.pointee.hold_get!(g.h, 0, &view) == NG_OK)
        #expect(view.token == own && String(cString: view.label) == "guard's" && view.deadline_ns == Int64.max)
        #expect(g.h.pointee.hold_get!(g.h, 2, &view) == NG_E_NOT_FOUND)
        #expect(g.h.pointee.hold_end!(g.h, own) == NG_OK)
        #expect(g.h.pointee.hold_end!(g.h, hosts) == NG_OK)
        #expect(g.h.pointee.hold_end!(g.h, hosts) == NG_E_NOT_FOUND)
        #expect(rec.endedHolds[own]?.reason == NG_HOLD_ENDED)
        #expect(rec.endedHolds[hosts]?.reason == NG_HOLD_RELEASED)
        #expect(g.holdNotices.map(\.token) == [own, hosts, own, hosts])
        #expect(g.holdNotices.map(\.ended) == [false, false, true, true])
        expectClean(rec)
        e.destroy()
    }
}

// MARK: - 7. Guard chain

@Suite("Guard chain")
struct ChainTests {
    @Test("the first refusal in chain order wins")
    func firstRefusalWins() throws {
        for order in [["test.a", "test.b"], ["test.b", "test.a"]] {
            let (e, rec) = makeEngine()
            let allow = TestGuard(id: "test.allow")
            let guards = [
                "test.a": refuser(id: "test.a", reason: NG_REASON_THROTTLED),
                "test.b": refuser(id: "test.b", reason: NG_REASON_DUPLICATE),
            ]
            try allow.add(to: e)
            for id in order { try guards[id]!.add(to: e) }
            #expect((0..<e.guardCount).map { String(cString: e.guardID(at: $0)!) } == ["test.allow"] + order)
            let r = e.push(2, source: 4)
            #expect(r.status == .refused)
            #expect(r.guardID.map { String(cString: $0) } == order[0])
            let o = try #require(rec.outcomes[r.requestID])
            #expect(o.guardID.map { String(cString: $0) } == order[0])
            #expect(o.reason == (order[0] == "test.a" ? .throttled : .duplicate))
            #expect(o.message?.string == "refused by test")
            #expect(o.source == 4)
            #expect(allow.seen.count == 1)
            #expect(guards[order[0]]!.seen.count == 1)
            #expect(guards[order[1]]!.seen.isEmpty, "the chain stops at the first refusal")
            // Every guard observes every outcome.
            #expect(allow.outcomesSeen == [r.requestID] && guards[order[1]]!.outcomesSeen == [r.requestID])
            #expect(e.ids == [1])
            expectClean(rec)
            e.destroy()
        }
    }

    @Test("guards see the request's fields")
    func requestFields() throws {
        let (e, rec) = makeEngine()
        var got: [ng_guard_request] = []
        var routes: [String] = []
        let g = TestGuard(id: "test.fields")
        g.vote = { _, r, _ in
            got.append(r)
            if let s = r.screen { routes.append(String(cString: s.pointee.route) + "/" + String(cString: s.pointee.identity)) }
            for i in 0..<r.screen_count { routes.append(String(cString: r.screens[i].route)) }
            return NG_VOTE_ALLOW
        }
        try g.add(to: e)
        try e.setTime(5 * ms)
        e.push(2, "two", identity: "ID2", flags: ANIMATED, source: 9)
        e.submit(.popTo(1))
        e.submit(.replace([Screen(id: 3, route: "r3"), Screen(id: 4, route: "r4")]))
        #expect(got.count == 3)
        #expect(got[0].kind == NG_REQ_PUSH && got[0].flags == ANIMATED && got[0].source == 9 && got[0].now_ns == 5 * ms)
        #expect(got[0].screen_count == 0 && got[0].attempt == 0)
        #expect(got[1].kind == NG_REQ_POP_TO && got[1].target_id == 1)
        #expect(got[2].kind == NG_REQ_REPLACE_STACK && got[2].screen_count == 2)
        #expect(routes == ["two/ID2", "r3", "r4"])
        expectClean(rec)
        e.destroy()
    }

    @Test("a deferred request ends APPLIED after deferred_apply (re-evaluated, attempt 1)")
    func deferThenApply() throws {
        let (e, rec) = makeEngine()
        let g = TestGuard(id: "test.defer")
        var pending: [UInt64] = []
        g.vote = { g, r, _ in
            if r.attempt == 0 { pending.append(r.request_id); return NG_VOTE_DEFER }
            return NG_VOTE_ALLOW
        }
        g.nextDeadline = { _ in pending.isEmpty ? Int64.max : 10 * ms }
        g.onTick = { g, _ in
            for id in pending { #expect(g.deferredApply(id) == NG_OK) }
            pending.removeAll()
        }
        try g.add(to: e)
        let r = e.push(2, flags: ANIMATED)
        #expect(r.status == .deferred)
        #expect(r.guardID.map { String(cString: $0) } == "test.defer")
        #expect(rec.outcomes[r.requestID] == nil, "no outcome yet")
        #expect(e.deferredCount == 1 && g.deferredCount == 1)
        var gr = ng_guard_request()
        gr.size = UInt32(MemoryLayout<ng_guard_request>.size)
        #expect(g.h.pointee.deferred_get!(g.h, 0, &gr) == NG_OK)
        #expect(gr.request_id == r.requestID && gr.kind == NG_REQ_PUSH && String(cString: gr.screen.pointee.route) == "screen2")
        #expect(g.h.pointee.deferred_get!(g.h, 1, &gr) == NG_E_NOT_FOUND)
        #expect(e.ids == [1])
        #expect(e.nextDeadline() == 10 * ms)
        try e.setTime(10 * ms)
        try e.tick()
        #expect(rec.outcomes[r.requestID]?.outcome == .applied)
        #expect(g.seen.map(\.attempt) == [0, 1])
        #expect(e.ids == [1, 2])
        #expect(e.deferredCount == 0)
        #expect(e.inFlight(.screen) == r.requestID)
        #expect(g.deferredApply(r.requestID) == NG_E_NOT_FOUND, "no longer deferred")
        expectClean(rec)
        e.destroy()
    }

    @Test("deferred_drop ends a deferred request DROPPED with the guard's reason")
    func deferThenDrop() throws {
        let (e, rec) = makeEngine()
        let g = TestGuard(id: "test.defer")
        g.vote = { _, _, _ in NG_VOTE_DEFER }
        let other = TestGuard(id: "test.other")
        other.vote = { _, _, _ in NG_VOTE_DEFER }
        try g.add(to: e)
        try other.add(to: e)
        let a = e.push(2)
        let b = e.push(3)
        #expect(a.status == .deferred && b.status == .deferred)
        #expect(other.deferredDrop(a.requestID, NG_REASON_SUPERSEDED) == NG_E_NOT_FOUND, "only the deferring guard may drop it")
        #expect(other.deferredApply(a.requestID) == NG_E_NOT_FOUND)
        #expect(g.deferredDrop(a.requestID, NG_REASON_SUPERSEDED, "a newer request won") == NG_OK)
        let o = try #require(rec.outcomes[a.requestID])
        #expect(o.outcome == .dropped && o.reason == .superseded)
        #expect(o.guardID.map { String(cString: $0) } == "test.defer")
        #expect(o.message?.string == "a newer request won")
        #expect(g.deferredDrop(a.requestID, NG_REASON_SUPERSEDED) == NG_E_NOT_FOUND, "dropped once")
        #expect(g.deferredDrop(b.requestID, 99) == NG_OK)
        #expect(rec.outcomes[b.requestID]?.reason == .policy, "an invalid reason becomes POLICY")
        #expect(e.ids == [1] && e.deferredCount == 0)
        expectClean(rec)
        e.destroy()
    }

    @Test("a deferred request refused when re-evaluated ends DROPPED, not REFUSED")
    func reevaluationRefusal() throws {
        // Defer, start a transition, then apply: the busy guard refuses it -> DROPPED(BUSY).
        let (e2, rec2) = makeEngine()
        let d2 = TestGuard(id: "test.defer")
        var first = true
        d2.vote = { _, r, _ in
            if first && r.attempt == 0 { first = false; return NG_VOTE_DEFER }
            return NG_VOTE_ALLOW
        }
        let busy2 = busyRefuser()
        try d2.add(to: e2)
        try busy2.add(to: e2)
        let deferred = e2.push(2)
        #expect(deferred.status == .deferred)
        let anim = e2.push(3, flags: ANIMATED)
        #expect(anim.status == .applied)
        #expect(d2.deferredApply(deferred.requestID) == NG_OK)
        let o = try #require(rec2.outcomes[deferred.requestID])
        #expect(o.outcome == .dropped)
        #expect(o.reason == .busy)
        #expect(o.guardID.map { String(cString: $0) } == "test.busy")
        // A deferred push whose id got stacked meanwhile is dropped by the core rule.
        try e2.finishTransition(.all)
        first = true
        let again = e2.push(4)
        #expect(again.status == .deferred)
        e2.push(4)                                         // applied: first == false now
        #expect(d2.deferredApply(again.requestID) == NG_OK)
        #expect(rec2.outcomes[again.requestID]?.outcome == .dropped)
        #expect(rec2.outcomes[again.requestID]?.reason == .duplicate)
        expectClean(rec2)
        e2.destroy()
    }

    @Test("destroy drops deferred and queued requests with DESTROYED, exactly one outcome each")
    func destroyDrops() throws {
        let (e, rec) = makeEngine()
        let g = TestGuard(id: "test.defer")
        g.vote = { _, _, _ in NG_VOTE_DEFER }
        let second = TestGuard(id: "test.second")
        var destroyOrder: [String] = []
        g.onDestroy = { _ in destroyOrder.append("test.defer") }
        second.onDestroy = { _ in destroyOrder.append("test.second") }
        try g.add(to: e)
        try second.add(to: e)
        let d1 = e.push(2), d2 = e.push(5)
        #expect(d1.status == .deferred && d2.status == .deferred)
        _ = try e.beginHold(label: CStr("live"), mask: 0, maxDurationNs: 0)
        // A request made from a callback during destroy is queued, then dropped.
        var duringDestroy: SubmitResult?
        rec.onHoldEnded = { _ in duringDestroy = e.push(3) }
        var extra = Request.push(Screen(id: 4, route: "posted"))
        extra.id = 1 << 63 | 1
        e.destroy(dropping: [extra])
        let q = try #require(duringDestroy)
        #expect(q.status == .queued)
        for id in [d1.requestID, d2.requestID, q.requestID, extra.id] {
            let o = rec.outcomes[id]
            #expect(o?.outcome == .dropped, "request \(id)")
            #expect(o?.reason == .destroyed)
        }
        #expect(rec.outcomes.count == 4)
        #expect(g.destroyCount == 1 && second.destroyCount == 1)
        #expect(destroyOrder == ["test.second", "test.defer"], "reverse chain order")
        #expect(g.outcomesSeen.contains(d1.requestID), "guards see the drops before they are destroyed")
        expectClean(rec)
        e.destroy()
        #expect(g.destroyCount == 1, "destroy is idempotent")
    }

    @Test("a guard returning an unknown vote or reason is treated as a POLICY refusal")
    func invalidVote() throws {
        let (e, rec) = makeEngine()
        let g = TestGuard(id: "test.weird")
        var mode = 0
        g.vote = { _, _, v in
            switch mode {
            case 0: return 7
            case 1: return -1
            case 2: v.pointee.reason = NG_REASON_NONE; return NG_VOTE_REFUSE
            default: v.pointee.reason = 1234; return NG_VOTE_REFUSE
            }
        }
        try g.add(to: e)
        for m in 0..<4 {
            mode = m
            let r = e.push(UInt64(2 + m))
            #expect(r.status == .refused, "mode \(m)")
            #expect(r.reason == .policy, "mode \(m)")
            #expect(r.guardID.map { String(cString: $0) } == "test.weird")
            #expect(rec.outcomes[r.requestID]?.reason == .policy)
        }
        #expect(e.ids == [1])
        expectClean(rec)
        e.destroy()
    }

    @Test("descriptor validation: ABI, size, id, duplicate, create failure")
    func descriptorValidation() throws {
        let (e, rec) = makeEngine()
        let g = TestGuard(id: "test.valid")
        func add(_ d: UnsafePointer<ng_plugin_descriptor>) -> Int32 {
            statusOf { () throws(EngineError) in try e.addGuard(d, configText: g.config()) }
        }
        let cases: [(String, (inout ng_plugin_descriptor) -> Void)] = [
            ("ABI major mismatch", { $0.abi_major = UInt32(NG_PLUGIN_ABI_MAJOR) + 1 }),
            ("ABI major 0", { $0.abi_major = 0 }),
            ("newer minor", { $0.abi_minor = UInt32(NG_PLUGIN_ABI_MINOR) + 1 }),
            ("smaller than ABI 1.0's", { $0.size = UInt32(NG_PLUGIN_DESCRIPTOR_MIN_SIZE) - 8 }),
            ("size 0xFFFFFFFF but no name", { $0.size = UInt32.max; $0.name = nil }),
            ("size 0", { $0.size = 0 }),
            ("id without dots", { $0.id = leakedCString("noDots") }),
            ("empty label", { $0.id = leakedCString("a..b") }),
            ("empty id", { $0.id = leakedCString("") }),
            ("trailing dot", { $0.id = leakedCString("org.example.") }),
            ("leading dot", { $0.id = leakedCString(".org.example") }),
            ("space in id", { $0.id = leakedCString("org.exa mple") }),
            ("NULL id", { $0.id = nil }),
            ("NULL name", { $0.name = nil }),
            ("NULL create", { $0.create = nil }),
            ("NULL destroy", { $0.destroy = nil }),
        ]
        for (label, tweak) in cases {
            let d = makeDescriptor(id: "test.bad", tweak: tweak)
            let expected = label.hasPrefix("ABI") || label == "newer minor" ? NG_E_ABI : NG_E_GUARD
            #expect(add(d) == expected, "\(label)")
        }
        #expect(g.createCount == 0, "create is not called for an invalid descriptor")
        #expect(e.guardCount == 0)

        // An older-but-compatible descriptor is fine (ABI 1.0: no `options`,
        // the bytes past its size are never read); ids may use [A-Za-z0-9._-].
        let other = TestGuard(descriptor: makeDescriptor(id: "Org.Example-1.guard_2") {
            $0.abi_minor = 0
            $0.size = UInt32(NG_PLUGIN_DESCRIPTOR_MIN_SIZE)
            $0.options = UnsafePointer(bitPattern: 0x10)    // garbage past the size: must not be read
        })
        #expect(statusOf { () throws(EngineError) in try other.add(to: e) } == NG_OK)
        #expect(add(g.descriptor) == NG_OK)
        #expect(e.guardCount == 2)
        // A size ending inside `options` covers none of it: the partly
        // covered pointer is not read (NG_HAS_FIELD), so no declarations.
        for extra in 1..<MemoryLayout<UnsafeRawPointer>.size {
            let p = makeDescriptor(id: "test.partial-options") {
                $0.size = UInt32(NG_PLUGIN_DESCRIPTOR_MIN_SIZE) + UInt32(extra)
                $0.options = UnsafePointer(bitPattern: 0x10)
            }
            guard let read = try? GuardDescriptor.read(p) else {
                Issue.record("size MIN+\(extra) was refused")
                continue
            }
            #expect(read.d.options == nil, "size MIN+\(extra)")
        }
        // A size claiming more than the host knows is read up to the host's
        // own sizeof, never past it.
        let (e2, _) = makeEngine()
        let huge = TestGuard(descriptor: makeDescriptor(id: "test.huge-size") { $0.size = UInt32.max })
        #expect(statusOf { () throws(EngineError) in try huge.add(to: e2) } == NG_OK)
        #expect(e2.push(2).status == .applied)
        e2.destroy()
        let dup = TestGuard(id: "test.valid")
        #expect(statusOf { () throws(EngineError) in try dup.add(to: e) } == NG_E_GUARD, "duplicate id")
        #expect(statusOf { () throws(EngineError) in try g.add(to: e) } == NG_E_GUARD, "same descriptor twice")
        #expect(dup.createCount == 0)

        let failing = TestGuard(id: "test.failing")
        failing.onCreate = { g in
            g.h.pointee.log!(g.h, NG_LOG_ERROR, "cannot start")
            return false
        }
        #expect(statusOf { () throws(EngineError) in try failing.add(to: e) } == NG_E_GUARD)
        #expect(failing.createCount == 1 && failing.destroyCount == 0)
        #expect(e.guardCount == 2)
        #expect(rec.events.contains(.log(severity: NG_LOG_ERROR, guardID: nil, message: "cannot start")) ||
                rec.events.contains(.log(severity: NG_LOG_ERROR, guardID: "test.failing", message: "cannot start")),
                "the failing guard's log reaches the host")

        // Malformed config.
        let cfg = TestGuard(id: "test.cfg")
        for text in ["{", "[]", "42", "{\"a\":}", "{\"box\":1,}", "nul", ""] {
            #expect(statusOf { () throws(EngineError) in try e.addGuard(cfg.descriptor, configText: text) } == NG_E_PARSE, "config \(text)")
        }
        #expect(cfg.createCount == 0)
        // No config: create gets "{}" (and this guard then fails for lack of a box).
        #expect(statusOf { () throws(EngineError) in try e.addGuard(cfg.descriptor, configText: nil) } == NG_E_GUARD)
        #expect(e.guardCount == 2)

        // Chain limit.
        for i in 2..<Limits.maxGuards {
            #expect(statusOf { () throws(EngineError) in try TestGuard(id: "test.n\(i)").add(to: e) } == NG_OK)
        }
        #expect(e.guardCount == Limits.maxGuards)
        #expect(statusOf { () throws(EngineError) in try TestGuard(id: "test.toomany").add(to: e) } == NG_E_NO_MEMORY)
        // The chain still works after all the failures.
        #expect(e.push(2).status == .applied)
        expectClean(rec)
        e.destroy()
        #expect(g.destroyCount == 1)
    }

    @Test("guards cannot be added from inside a callback")
    func addInCallback() {
        let (e, rec) = makeEngine()
        var st: Int32 = -1
        rec.onOutcome = { _ in st = statusOf { () throws(EngineError) in try TestGuard(id: "test.late").add(to: e) } }
        e.push(2)
        #expect(st == NG_E_CALLBACK)
        #expect(e.guardCount == 0)
        e.destroy()
    }

    @Test("typed config getters")
    func config() throws {
        let (e, rec) = makeEngine()
        let g = TestGuard(id: "test.config")
        var results: [String: Int32] = [:]
        var values: [String: String] = [:]
        g.onCreate = { g in
            let h = g.h
            var i: Int64 = 0, b = false, d = 0.0
            var s: UnsafePointer<CChar>?
            var n = 0
            func rec(_ k: String, _ st: Int32) { results[k] = st }
            rec("int i", h.pointee.config_int!(h, "i", &i)); values["i"] = "\(i)"
            rec("int neg", h.pointee.config_int!(h, "neg", &i)); values["neg"] = "\(i)"
            rec("int whole", h.pointee.config_int!(h, "whole", &i)); values["whole"] = "\(i)"
            rec("bool b", h.pointee.config_bool!(h, "b", &b)); values["b"] = "\(b)"
            rec("double d", h.pointee.config_double!(h, "d", &d)); values["d"] = "\(d)"
            rec("double i", h.pointee.config_double!(h, "i", &d)); values["di"] = "\(d)"
            rec("string s", h.pointee.config_string!(h, "s", &s)); values["s"] = s.map { String(cString: $0) }
            let first = s
            rec("string s again", h.pointee.config_string!(h, "s", &s))
            values["stable"] = "\(first == s)"
            rec("list l", h.pointee.config_list_count!(h, "l", &n)); values["l"] = "\(n)"
            rec("list l[1]", h.pointee.config_list_get!(h, "l", 1, &s)); values["l1"] = s.map { String(cString: $0) }
            rec("list empty", h.pointee.config_list_count!(h, "empty", &n)); values["empty"] = "\(n)"
            // Missing keys.
            rec("int missing", h.pointee.config_int!(h, "nope", &i))
            rec("bool missing", h.pointee.config_bool!(h, "nope", &b))
            rec("double missing", h.pointee.config_double!(h, "nope", &d))
            rec("string missing", h.pointee.config_string!(h, "nope", &s))
            rec("list missing", h.pointee.config_list_count!(h, "nope", &n))
            rec("list get missing", h.pointee.config_list_get!(h, "nope", 0, &s))
            // Wrong types / out of range.
            rec("int of string", h.pointee.config_int!(h, "s", &i))
            rec("int of fraction", h.pointee.config_int!(h, "d", &i))
            rec("int of huge", h.pointee.config_int!(h, "huge", &i))
            rec("int of bool", h.pointee.config_int!(h, "b", &i))
            rec("bool of int", h.pointee.config_bool!(h, "i", &b))
            rec("bool of null", h.pointee.config_bool!(h, "null", &b))
            rec("double of string", h.pointee.config_double!(h, "s", &d))
            rec("string of int", h.pointee.config_string!(h, "i", &s))
            rec("string of list", h.pointee.config_string!(h, "l", &s))
            rec("list of string", h.pointee.config_list_count!(h, "s", &n))
            rec("list of mixed", h.pointee.config_list_count!(h, "mixed", &n))
            rec("list get mixed[1]", h.pointee.config_list_get!(h, "mixed", 1, &s))
            rec("list get out of range", h.pointee.config_list_get!(h, "l", 2, &s))
            rec("list get of string", h.pointee.config_list_get!(h, "s", 0, &s))
            return true
        }
        try g.add(to: e, extra: "\"i\":42,\"neg\":-7,\"whole\":3.0,\"b\":true,\"d\":2.5,\"s\":\"héllo\",\"l\":[\"x\",\"y\"],\"empty\":[],\"mixed\":[\"x\",1],\"huge\":1e30,\"null\":null")
        #expect(g.configText == g.config("\"i\":42,\"neg\":-7,\"whole\":3.0,\"b\":true,\"d\":2.5,\"s\":\"héllo\",\"l\":[\"x\",\"y\"],\"empty\":[],\"mixed\":[\"x\",1],\"huge\":1e30,\"null\":null"),
                "create gets the config text")
        let ok = ["int i", "int neg", "int whole", "bool b", "double d", "double i", "string s", "string s again",
                  "list l", "list l[1]", "list empty"]
        for k in ok { #expect(results[k] == NG_OK, "\(k)") }
        #expect(values["i"] == "42" && values["neg"] == "-7" && values["whole"] == "3")
        #expect(values["b"] == "true" && values["d"] == "2.5" && values["di"] == "42.0")
        #expect(values["s"] == "héllo" && values["stable"] == "true")
        #expect(values["l"] == "2" && values["l1"] == "y" && values["empty"] == "0")
        for k in ["int missing", "bool missing", "double missing", "string missing", "list missing", "list get missing",
                  "list get out of range"] {
            #expect(results[k] == NG_E_NOT_FOUND, "\(k)")
        }
        for k in ["int of string", "int of fraction", "int of huge", "int of bool", "bool of int", "bool of null",
                  "double of string", "string of int", "string of list", "list of string", "list of mixed",
                  "list get mixed[1]", "list get of string"] {
            #expect(results[k] == NG_E_RANGE, "\(k)")
        }
        // NULL out pointers are refused, not dereferenced.
        #expect(g.h.pointee.config_int!(g.h, "i", nil) == NG_E_NULL)
        #expect(g.h.pointee.config_string!(g.h, nil, nil) == NG_E_NULL)
        expectClean(rec)
        e.destroy()
    }

    @Test("guards observe each transition phase before the delegate")
    func guardsBeforeDelegate() throws {
        let (e, rec) = makeEngine()
        var log: [String] = []
        let g = TestGuard(id: "test.order")
        g.onTransition = { _, ev in log.append("guard \(ev.track)/\(ev.phase)") }
        g.onOutcome = { _, o in log.append("guard outcome \(o.request_id)") }
        rec.onTransition = { ev in log.append("host \(ev.track)/\(ev.phase)") }
        rec.onOutcome = { o in log.append("host outcome \(o.requestID)") }
        try g.add(to: e)
        let id = e.push(2, flags: ANIMATED).requestID
        try e.finishTransition(.all)
        #expect(log == ["guard outcome \(id)", "host outcome \(id)",
                        "guard 0/0", "host 0/0", "guard 1/0", "host 1/0",
                        "guard 1/1", "host 1/1", "guard 0/1", "host 0/1"])
        expectClean(rec)
        e.destroy()
    }

    @Test("actions a guard takes inside its vote apply after the vote")
    func actionsInVote() throws {
        let (e, rec) = makeEngine()
        let g = TestGuard(id: "test.actor")
        var statuses: [Int32] = []
        var holdToken: UInt64 = 0
        g.vote = { g, r, _ in
            if r.kind == NG_REQ_POP {
                // Finish the in-flight push, start a hold, report: all after the vote.
                statuses.append(g.h.pointee.transition_finish!(g.h, NG_TRACK_ALL))
                statuses.append(g.h.pointee.hold_begin!(g.h, "in vote", 0, 0, &holdToken))
                statuses.append(g.h.pointee.report!(g.h, "finished it"))
                #expect(g.busy, "still in flight during the vote")
            }
            return NG_VOTE_ALLOW
        }
        try g.add(to: e)
        let push = e.push(2, flags: ANIMATED).requestID
        let pop = e.request(.pop)
        #expect(statuses == [NG_OK, NG_OK, NG_OK])
        #expect(pop.status == .applied)
        #expect(holdToken != 0 && e.holdCount == 1)
        // The pop interrupted the push; the guard's finish (for the push) is then stale and ignored.
        let pushDIDs = rec.transitions.filter { if case .transition(_, DID, push, _, _, _) = $0 { true } else { false } }
        #expect(pushDIDs.count == 2)
        #expect(rec.events.contains(.report(guardID: "test.actor", text: "finished it")))
        #expect(e.ids == [1])
        expectClean(rec)
        e.destroy()
    }
}

extension ChainTests {
    @Test("a guard ending a transition (vote or tick) marks it FORCED; the refused request changes nothing")
    func forcedFinish() throws {
        let (e, rec) = makeEngine()
        let g = TestGuard(id: "test.watchdog")
        var finishInVote = false
        g.vote = { g, _, v in
            if finishInVote { _ = g.h.pointee.transition_finish!(g.h, NG_TRACK_ALL) }
            return g.busy ? refuse(v, NG_REASON_BUSY) : NG_VOTE_ALLOW
        }
        g.nextDeadline = { g in g.busy ? 100 * ms : Int64.max }
        g.onTick = { g, _ in _ = g.h.pointee.transition_finish!(g.h, NG_TRACK_ALL) }
        try g.add(to: e)
        // In a vote: refused (busy during the vote), then the finish applies.
        let a = e.push(2, flags: ANIMATED).requestID
        finishInVote = true
        let r = e.push(3)
        finishInVote = false
        #expect(r.status == .refused && r.reason == .busy)
        #expect(e.ids == [1, 2])
        #expect(e.inFlight(.screen) == 0 && e.inFlight(.bar) == 0)
        #expect(rec.transitions.suffix(2) == [tr(B, DID, a, flags: ANIM | FORCED, 1, 2), tr(S, DID, a, flags: ANIM | FORCED, 1, 2)])
        // From on_tick (a watchdog): at its wake-up time.
        let b = e.push(3, flags: ANIMATED).requestID
        #expect(e.nextDeadline() == 100 * ms)
        try e.setTime(100 * ms)
        try e.tick()
        #expect(e.inFlight(.screen) == 0)
        #expect(rec.transitions.suffix(2) == [tr(B, DID, b, flags: ANIM | FORCED, 2, 3), tr(S, DID, b, flags: ANIM | FORCED, 2, 3)])
        // A guard cancelling an interactive back from a hook rolls it back.
        g.onTick = { g, _ in _ = g.h.pointee.interactive_cancel!(g.h) }
        let c = e.request(.interactiveBack).requestID
        #expect(e.ids == [1, 2])
        try e.setTime(200 * ms)
        try e.tick()
        #expect(e.ids == [1, 2, 3])
        #expect(rec.transitions.suffix(2) == [tr(B, CANCELLED, c, flags: ANIM | INTER | FORCED, 3, 3), tr(S, CANCELLED, c, flags: ANIM | INTER | FORCED, 3, 3)])
        expectClean(rec)
        e.destroy()
    }
}

// MARK: - 8. Snapshot

@Suite("Snapshot")
struct SnapshotTests {
    private func restore(_ e: Engine, _ text: String) -> Int32 {
        var bytes = Array(text.utf8)
        return statusOf { () throws(EngineError) in
            try bytes.withUnsafeMutableBufferPointer { b throws(EngineError) in
                try e.restore(snapshot: UnsafeBufferPointer(b))
            }
        }
    }

    @Test("round trip into a fresh engine gives the same stack")
    func roundTrip() {
        let (e, rec) = makeEngine(root: 1, route: "home")
        e.submit(.replace([Screen(id: 1, route: "home"),
                           Screen(id: 42, route: "détail ✓ 🚀", identity: "item-42"),
                           Screen(id: UInt64.max, route: "quote\"back\\slash\nnew\tline\u{1}", identity: "same"),
                           Screen(id: 1 << 63, route: "big")]))
        let text = e.snapshot()
        #expect(text.hasPrefix("{\"navguard_snapshot\":1,\"screens\":["))
        let (f, frec) = makeEngine(root: 99, route: "other")
        #expect(restore(f, text) == NG_OK)
        #expect(f.fullStack == e.fullStack)
        #expect(f.ids == [1, 42, UInt64.max, 1 << 63])
        #expect(f.snapshot() == text, "stable")
        #expect(frec.events.isEmpty, "restore fires no callbacks")
        // Identity defaults to the route.
        #expect(restore(f, "{\"navguard_snapshot\":1,\"screens\":[{\"id\":5,\"route\":\"r\"}]}") == NG_OK)
        #expect(f.fullStack == ["5|r|r"])
        expectClean(rec)
        e.destroy(); f.destroy()
    }

    @Test("malformed snapshots are refused and leave the stack unchanged", arguments: [
        ("not JSON", "hello"),
        ("truncated", "{\"navguard_snapshot\":1,\"screens\":["),
        ("empty text", ""),
        ("not an object", "[1,2]"),
        ("no version", "{\"screens\":[{\"id\":1,\"route\":\"a\"}]}"),
        ("wrong version", "{\"navguard_snapshot\":2,\"screens\":[{\"id\":1,\"route\":\"a\"}]}"),
        ("version as string", "{\"navguard_snapshot\":\"1\",\"screens\":[{\"id\":1,\"route\":\"a\"}]}"),
        ("missing screens", "{\"navguard_snapshot\":1}"),
        ("screens not a list", "{\"navguard_snapshot\":1,\"screens\":{}}"),
        ("empty list", "{\"navguard_snapshot\":1,\"screens\":[]}"),
        ("screen not an object", "{\"navguard_snapshot\":1,\"screens\":[7]}"),
        ("id 0", "{\"navguard_snapshot\":1,\"screens\":[{\"id\":0,\"route\":\"a\"}]}"),
        ("missing id", "{\"navguard_snapshot\":1,\"screens\":[{\"route\":\"a\"}]}"),
        ("fractional id", "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1.5,\"route\":\"a\"}]}"),
        ("string id", "{\"navguard_snapshot\":1,\"screens\":[{\"id\":\"1\",\"route\":\"a\"}]}"),
        ("duplicate ids", "{\"navguard_snapshot\":1,\"screens\":[{\"id\":3,\"route\":\"a\"},{\"id\":3,\"route\":\"b\"}]}"),
        ("non-string route", "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":5}]}"),
        ("missing route", "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1}]}"),
        ("empty route", "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"\"}]}"),
        ("route too long", "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"" + String(repeating: "r", count: 1025) + "\"}]}"),
        ("non-string identity", "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"a\",\"identity\":5}]}"),
        ("NUL in route", "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"a\\u0000b\"}]}"),
        ("NUL in identity", "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"a\",\"identity\":\"\\u0000\"}]}"),
        ("trailing garbage", "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"a\"}]} x"),
    ])
    func malformed(label: String, text: String) {
        let (e, rec) = makeEngine()
        e.push(2, "two", identity: "II")
        let before = e.fullStack
        let st = restore(e, text)
        #expect(st == NG_E_PARSE || st == NG_E_RANGE, "\(label): \(st)")
        if label == "not JSON" || label == "truncated" || label == "empty text" { #expect(st == NG_E_PARSE) }
        #expect(e.fullStack == before)
        expectClean(rec)
        e.destroy()
    }

    @Test("restore is refused during a transition (and inside a callback)")
    func restoreState() throws {
        let (e, rec) = makeEngine()
        let good = "{\"navguard_snapshot\":1,\"screens\":[{\"id\":8,\"route\":\"a\"}]}"
        e.push(2, flags: ANIMATED)
        let before = e.fullStack
        #expect(restore(e, good) == NG_E_STATE)
        #expect(e.fullStack == before)
        try e.finishTransition(.bar)
        #expect(restore(e, good) == NG_E_STATE, "one track still in flight")
        try e.finishTransition(.screen)
        e.request(.interactiveBack)
        #expect(restore(e, good) == NG_E_STATE, "interactive back in flight")
        try e.cancelInteractive()
        #expect(e.fullStack == before)
        var inside: Int32 = -1
        rec.onOutcome = { _ in inside = self.restore(e, good) }
        e.push(3)
        #expect(inside == NG_E_CALLBACK)
        rec.onOutcome = nil
        #expect(restore(e, good) == NG_OK)
        #expect(e.ids == [8])
        expectClean(rec)
        e.destroy()
    }
}
