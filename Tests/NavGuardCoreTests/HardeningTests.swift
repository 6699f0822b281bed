// SPDX-License-Identifier: Apache-2.0
// The core's side of the third hardening round: the cap on the work one call
// may set off, the time guards take to vote, and a transition's age counted
// from when the call that began it returned.
import CNavGuard
import Testing
@testable import NavGuardCore

/// An external clock the tests move by hand: the engine reads it as it
/// reads the monotonic clock (once per call, cached), unlike a manual clock.
nonisolated(unsafe) private var fakeNowNs: Int64 = 0
private let fakeClock: @convention(c) () -> Int64 = { fakeNowNs }

@Suite("hardening", .serialized)
struct HardeningTests {
    // MARK: Work cap

    /// A guard whose on_hold begins and ends a hold for every notice: two
    /// notices per notice, without end. Before the cap, memory grew until
    /// the process aborted.
    @Test func aRunawayGuardIsCutAtTheCap() throws {
        let (e, rec) = makeEngine()
        let runaway = TestGuard(id: "org.test.runaway")
        var notices = 0
        var refused = 0
        runaway.onHold = { g, _ in
            notices += 1
            let h = g.host!
            var token: UInt64 = 0
            let st = h.pointee.hold_begin!(h, "again", 0, 0, &token)
            if st == NG_E_NO_MEMORY { refused += 1; return }
            _ = h.pointee.hold_end!(h, token)
        }
        let counter = TestGuard(id: "org.test.counter")
        try runaway.add(to: e)
        try counter.add(to: e)
        // The host also asks for a push from inside a callback: queued, it must
        // still get its outcome however the burst ends.
        var queued: UInt64 = 0
        rec.onHoldEnded = { _ in
            if queued == 0 { queued = e.push(2, flags: 0).requestID }
        }
        let token = try e.beginHold(label: CStr("start"), mask: 0, maxDurationNs: 0)
        // Bounded: about two notices per piece of work, up to the cap.
        #expect(notices > Limits.maxWork / 2 && notices < 2 * Limits.maxWork + 64, "\(notices) notices")
        #expect(refused >= 1)
        // The error for the call's status names the guard, and so does a log.
        let cut = try #require(e.takeWorkCut())
        #expect(cut.status == NG_E_NO_MEMORY && cut.message.contains("guard org.test.runaway's hooks"), "\(cut.message)")
        #expect(e.takeWorkCut() == nil, "consumed")
        let logs = rec.events.compactMap { ev -> (Int32, String?, String)? in
            if case .log(let s, let g, let m) = ev { return (s, g, m) }
            return nil
        }
        #expect(logs.contains { $0.0 == NG_LOG_ERROR && $0.1 == "org.test.runaway" && $0.2.contains("NG_MAX_WORK") })
        // Every request got its one outcome, every hold begun ended.
        #expect(queued != 0 && rec.outcomes[queued] != nil && rec.outcomes[queued]!.outcome == .applied)
        #expect(rec.violations.isEmpty, "\(rec.violations)")
        #expect(e.holdCount == 1 && e.holdView(at: 0)?.token == token, "only the host's hold is live")
        #expect(!e.isCuttingWork, "the queue is empty: the next call may add work again")
        // Usable afterwards: a request with no hold in play is untouched.
        notices = 0
        let r = e.push(3, flags: 0)
        #expect(r.status == .applied && e.takeWorkCut() == nil && notices == 0)
        // The runaway starts again at the next hold notice, and is cut again.
        try e.endHold(token)
        #expect(e.takeWorkCut() != nil && e.holdCount == 0)
        #expect(counter.holdNotices.count > 0)
    }

    /// A guard that makes a request (request_submit) for every outcome it
    /// hears: each request's evaluation and outcome notice are its work, not
    /// the host's. Before work was counted to who set it off, the outcome
    /// notices counted to the host and the log blamed "the host's
    /// callbacks" (guard_id NULL). The host doing the same is still named
    /// the host.
    @Test func aGuardWhoseRequestsFeedTheRunawayIsNamed() throws {
        let (e, rec) = makeEngine()
        let quiet = TestGuard(id: "org.test.quiet")
        let resubmit = TestGuard(id: "org.test.resubmit")
        var made = 0
        var refused = 0
        resubmit.onOutcome = { g, _ in
            let (st, _) = g.submit(NG_REQ_POP)                 // at the root: refused, another outcome
            if st == NG_OK { made += 1 } else if st == NG_E_NO_MEMORY { refused += 1 }
        }
        try quiet.add(to: e)
        try resubmit.add(to: e)
        let first = e.push(2, flags: 0)
        #expect(first.status == .applied)
        #expect(made > Limits.maxWork / 4 && made < Limits.maxWork + 64, "bounded: \(made) requests")
        #expect(refused >= 1)
        let cut = try #require(e.takeWorkCut())
        #expect(cut.message.contains("guard org.test.resubmit's hooks"), "\(cut.message)")
        let logs = rec.events.compactMap { ev -> (Int32, String?, String)? in
            if case .log(let s, let g, let m) = ev { return (s, g, m) }
            return nil
        }
        #expect(logs.filter { $0.0 == NG_LOG_ERROR }.map(\.1) == ["org.test.resubmit"], "\(logs.map(\.1))")
        // Every request it made got its one outcome (the CallbackLog checks one
        // each), and so did the host's.
        #expect(rec.outcomes.count == made + 1 && rec.outcomes[first.requestID]?.outcome == .applied)
        expectClean(rec)
        #expect(!e.isCuttingWork)
        e.destroy()

        // The host's on_outcome doing the same is the host's work.
        let (f, frec) = makeEngine()
        let bystander = TestGuard(id: "org.test.bystander")
        bystander.onOutcome = { g, _ in _ = g.h.pointee.hold_mask!(g.h) }   // reads only
        try bystander.add(to: f)
        var hostMade = 0
        frec.onOutcome = { _ in
            if f.isCuttingWork { return }                      // the C API's door refuses it then
            if f.request(.pop).status == .queued { hostMade += 1 }
        }
        f.push(2, flags: 0)
        #expect(hostMade > Limits.maxWork / 4, "\(hostMade)")
        let hostCut = try #require(f.takeWorkCut())
        #expect(hostCut.message.contains("the host's callbacks"), "\(hostCut.message)")
        frec.onOutcome = nil
        f.destroy()
    }

    @Test func workUnderTheCapIsNotCut() throws {
        let (e, _) = makeEngine()
        let g = TestGuard(id: "org.test.some")
        var left = 1000
        g.onHold = { g, n in
            // A chain of a thousand holds, one after another: long, not runaway.
            guard n.ended, left > 0 else {
                if !n.ended { _ = g.host!.pointee.hold_end!(g.host!, n.token) }
                return
            }
            left -= 1
            var t: UInt64 = 0
            _ = g.host!.pointee.hold_begin!(g.host!, nil, 0, 0, &t)
        }
        try g.add(to: e)
        _ = try e.beginHold(label: nil, mask: 0, maxDurationNs: 0, by: .host)
        #expect(left == 0 && e.takeWorkCut() == nil && e.holdCount == 0)
    }

    // MARK: Votes and transition age

    /// A guard that blocks 3 s in its vote, on a clock read once per call as
    /// the monotonic one is: a warning names it, the core keeps it for the
    /// next report, and the transition it let through is dated from when
    /// the call returned, not from before the vote.
    @Test func aSlowVoteIsLoggedAndDoesNotAgeTheTransition() throws {
        fakeNowNs = 10_000 * ms
        let e = Engine(EngineConfig(clock: .external(fakeClock)))
        let rec = CallbackLog(engine: e)
        e.observer = rec
        try e.setRoot(Screen(id: 1, route: "root"))
        let fast = TestGuard(id: "org.test.fast")
        let slow = TestGuard(id: "org.test.slow")
        slow.vote = { _, _, _ in
            fakeNowNs += 3_000 * ms   // blocks 3 s
            return NG_VOTE_ALLOW
        }
        try fast.add(to: e)
        try slow.add(to: e)
        e.beginCall()
        let r = e.push(2, flags: ANIMATED | TIMED)
        #expect(r.status == .applied)
        let logs = rec.events.compactMap { ev -> (Int32, String?, String)? in
            if case .log(let s, let g, let m) = ev { return (s, g, m) }
            return nil
        }
        #expect(logs.count == 1)
        #expect(logs.first?.0 == NG_LOG_WARN && logs.first?.1 == "org.test.slow", "\(logs)")
        #expect(logs.first?.2.hasPrefix(Engine.slowVotePrefix + "guard org.test.slow took 3000.0 ms to vote on request \(r.requestID)") == true,
                "\(logs)")
        let track = try #require(e.trackView(.screen))
        #expect(track.began_ns == 13_000 * ms, "began when the call returned, not at its start (10 s): \(track.began_ns)")
        #expect(track.deadline_ns == 13_000 * ms + 350 * ms, "a timed transition's duration counts from then too")
        let note = try #require(e.takeSlowVoteNote())
        #expect(note.contains("1 request over 100 ms") && note.contains("guard org.test.slow, 3000.0 ms on request \(r.requestID)"),
                "\(note)")
        #expect(e.takeSlowVoteNote() == nil, "consumed by the report")
        // A vote under the limit logs nothing.
        slow.vote = { _, _, _ in
            fakeNowNs += 99 * ms
            return NG_VOTE_ALLOW
        }
        _ = try? e.finishTransition(.all, forced: false)
        e.beginCall()
        #expect(e.push(3, flags: 0).status == .applied)
        #expect(rec.events.filter { if case .log = $0 { return true } else { return false } }.count == 1)
        #expect(e.takeSlowVoteNote() == nil)
    }

    @Test func theEventPathIsNotTimed() throws {
        fakeNowNs = 1_000 * ms
        let e = Engine(EngineConfig(clock: .external(fakeClock)))
        let rec = CallbackLog(engine: e)
        e.observer = rec
        try e.setRoot(Screen(id: 1, route: "root"))
        let slow = TestGuard(id: "org.test.slow-events")
        slow.onEvent = { _, _ in
            fakeNowNs += 3_000 * ms
            return NG_VOTE_ALLOW
        }
        try slow.add(to: e)
        var ev = ng_event()
        ev.size = UInt32(MemoryLayout<ng_event>.size)
        ev.type = NG_EVENT_KEY
        e.beginCall()
        _ = withUnsafePointer(to: &ev) { e.submitEvent($0) }
        #expect(rec.events.allSatisfy { if case .log = $0 { return false } else { return true } })
        #expect(e.takeSlowVoteNote() == nil)
    }
}
