// The core's side of the third hardening round: the cap on the work one call
// may set off.
import CNavGuard
import Testing
@testable import NavGuardCore

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
        #expect(queued != 0 && rec.outcomes[queued] != nil && rec.outcomes[queued]!.outcome == NG_OUTCOME_APPLIED)
        #expect(rec.violations.isEmpty, "\(rec.violations)")
        #expect(e.holdCount == 1 && e.holdView(at: 0)?.token == token, "only the host's hold is live")
        #expect(!e.isCuttingWork, "the queue is empty: the next call may add work again")
        // Usable afterwards: a request with no hold in play is untouched.
        notices = 0
        let r = e.push(3, flags: 0)
        #expect(r.status == NG_OUTCOME_APPLIED && e.takeWorkCut() == nil && notices == 0)
        // The runaway starts again at the next hold notice, and is cut again.
        try e.endHold(token)
        #expect(e.takeWorkCut() != nil && e.holdCount == 0)
        #expect(counter.holdNotices.count > 0)
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
}
