// SPDX-License-Identifier: Apache-2.0
// org.navguard.watchdog: ends what outlives its limit and reports.
import CNavGuard
import Glibc
import NavGuardBuiltins
import Testing
@testable import NavGuardCore

private let watchdogID = "org.navguard.watchdog"

private func watchdog(_ config: String = "{}") -> GuardSpec { GuardSpec(ngg_watchdog_descriptor(), config) }
private func exclusiveTouch(_ config: String = "{}") -> GuardSpec { GuardSpec(ngg_exclusive_touch_descriptor(), config) }

private func push(_ id: UInt64, _ route: String, animated: Bool = true, source: UInt32 = 0) -> Request {
    Request.push(Screen(id: id, route: route), flags: animated ? animatedFlag : 0, source: source)
}

private func advance(_ e: Engine, ms: Int64) throws {
    try e.advanceTime(ms * msNs)
    try e.tick()
}

/// The lines of a report.
private func lines(_ text: String) -> [String] { text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

@Suite("watchdog guard")
struct WatchdogTests {
    @Test func descriptorIdentity() {
        let d = ngg_watchdog_descriptor()!.pointee
        #expect(String(cString: d.id) == watchdogID)
        #expect(d.on_request == nil)
        #expect(d.on_event != nil && d.on_outcome != nil && d.on_tick != nil && d.next_deadline != nil)
        #expect(Engine.validate(ngg_watchdog_descriptor()) == nil)
    }

    @Test func badConfigurationsFail() {
        let cases: [(String, String)] = [
            (#"{"transition_limit_ms":"2s"}"#, "transition_limit_ms"),
            (#"{"transition_limit_ms":-1}"#, "transition_limit_ms"),
            (#"{"hold_limit_ms":86400001}"#, "hold_limit_ms"),
            (#"{"hold_limit_ms":1.5}"#, "hold_limit_ms"),
            (#"{"touch_limit_ms":true}"#, "touch_limit_ms"),
            (#"{"report":1}"#, "\"report\" must be true or false"),
            (#"{"report":"yes"}"#, "\"report\" must be true or false"),
        ]
        for (config, fragment) in cases {
            let e = Engine(EngineConfig(clock: .manual(startNs: 0)))
            let rec = GuardRecorder()
            e.observer = rec
            // Refused by the host against the declared options: create never runs.
            do { try e.addGuard(ngg_watchdog_descriptor(), configText: config); Issue.record("\(config) accepted") } catch {
                #expect(error.status == NG_E_PARSE, "config \(config)")
                #expect(error.message.hasPrefix("guard org.navguard.watchdog: option \"") && error.message.contains(fragment),
                        "config \(config): \(error.message)")
            }
            #expect(rec.logs.isEmpty)
            #expect(e.guardCount == 0)
        }
        let e = Engine(EngineConfig(clock: .manual(startNs: 0)))
        #expect(addGuardStatus(e, ngg_watchdog_descriptor(),
                               #"{"transition_limit_ms":0,"hold_limit_ms":86400000,"touch_limit_ms":1,"report":false}"#) == NG_OK)
    }

    // MARK: transitions

    @Test func stuckTransitionIsFinishedAndReported() throws {
        let (e, rec) = try makeGuardEngine([watchdog()])
        let r = e.submit(push(2, "detail"))
        #expect(r.status == .applied)
        #expect(e.nextDeadline() == 2000 * msNs)
        try advance(e, ms: 1999)
        #expect(e.inFlight(.screen) == r.requestID)
        #expect(rec.reports.isEmpty)
        try advance(e, ms: 1)
        #expect(e.inFlight(.screen) == 0 && e.inFlight(.bar) == 0)
        let dids = rec.phases(NG_PHASE_DID)
        #expect(dids.count == 2)
        #expect(dids.allSatisfy { $0.flags & UInt32(NG_TRANSF_FORCED) != 0 && $0.request_id == r.requestID })
        #expect(e.stackIDs == [1, 2])
        #expect(e.nextDeadline() == Limits.noDeadline)

        #expect(rec.reports.count == 1)
        let report = try #require(rec.reports.first)
        #expect(report.guardID == watchdogID)
        let l = lines(report.text)
        #expect(l[0] == "NavGuard watchdog: recovered 1 stuck item at t=2000 ms (round 1)")
        #expect(l[1] == "recovered:")
        #expect(l[2] == "  transition: request \(r.requestID) (push) in flight for 2000 ms (limit 2000 ms): finished (forced)")
        #expect(l.contains("stack (2 screens, root first):"))
        #expect(l.contains("  0: id 1 route \"home\""))
        #expect(l.contains("  1: id 2 route \"detail\""))
        #expect(l.contains("transitions in flight:"))
        #expect(l.contains("  screen: request \(r.requestID) (push) age 2000 ms animated"))
        #expect(l.contains("  bar: request \(r.requestID) (push) age 2000 ms animated"))
        #expect(l.contains("holds (0, mask 0x00)"))
        #expect(l.contains("live touches (0)"))
        #expect(l.contains("history (last 1 of 1 requests and events, newest first):"))
        #expect(l.contains("  t=0 ms request \(r.requestID) push applied"))

        // A late completion by the host is harmless: not found, no second DID.
        #expect(engineStatus { () throws(EngineError) in try e.finishTransition(.all) } == NG_E_NOT_FOUND)
        #expect(engineStatus { () throws(EngineError) in try e.finishTransition(.screen) } == NG_E_NOT_FOUND)
        #expect(rec.phases(NG_PHASE_DID).count == 2)
        try advance(e, ms: 60_000)
        #expect(rec.reports.count == 1)
    }

    @Test func customTransitionLimitAndHalfFinishedTransition() throws {
        let (e, rec) = try makeGuardEngine([watchdog(#"{"transition_limit_ms":500}"#)])
        let r = e.submit(push(2, "detail"))
        try advance(e, ms: 100)
        try e.finishTransition(.screen)            // the bar track never ends
        #expect(e.nextDeadline() == 500 * msNs)
        try advance(e, ms: 400)
        #expect(e.inFlight(.bar) == 0)
        let bar = rec.phases(NG_PHASE_DID, track: NG_TRACK_BAR)
        #expect(bar.count == 1 && bar[0].flags & UInt32(NG_TRANSF_FORCED) != 0)
        #expect(rec.phases(NG_PHASE_DID, track: NG_TRACK_SCREEN).count == 1)
        let text = try #require(rec.reports.first?.text)
        #expect(text.contains("  transition: request \(r.requestID) (push) in flight for 500 ms (limit 500 ms): finished (forced)"))
        #expect(text.contains("  bar: request \(r.requestID) (push) age 500 ms animated"))
        #expect(!text.contains("  screen: request"))
        #expect(engineStatus { () throws(EngineError) in try e.finishTransition(.bar) } == NG_E_NOT_FOUND)
    }

    @Test func stuckInteractiveBackIsRolledBack() throws {
        let (e, rec) = try makeGuardEngine([watchdog()])
        #expect(e.submit(push(2, "detail", animated: false)).status == .applied)
        let back = e.submit(Request(kind: .interactiveBack))
        #expect(back.status == .applied)
        try e.updateInteractive(0.4)
        #expect(e.stackIDs == [1])
        try advance(e, ms: 2000)
        #expect(e.stackIDs == [1, 2])                       // rolled back
        #expect(!e.isInteractive && e.inFlight(.screen) == 0)
        let cancelled = rec.phases(NG_PHASE_CANCELLED)
        #expect(cancelled.count == 2 && cancelled.allSatisfy { $0.request_id == back.requestID })
        #expect(!rec.phases(NG_PHASE_DID).contains { $0.request_id == back.requestID })
        let text = try #require(rec.reports.first?.text)
        #expect(text.contains("  transition: request \(back.requestID) (interactive-back) in flight for 2000 ms, undecided 2000 ms (limit 2000 ms): interactive back cancelled, stack rolled back"))
        #expect(text.contains("  screen: request \(back.requestID) (interactive-back) age 2000 ms animated interactive progress 0.40 swipe undriven unattended 2000 ms"))
        #expect(text.contains("stack (1 screen, root first):"))    // as found, before the rollback
        // The gesture's late end is harmless.
        #expect(engineStatus { () throws(EngineError) in try e.cancelInteractive() } == NG_E_NOT_FOUND)
        #expect(engineStatus { () throws(EngineError) in try e.finishTransition(.all) } == NG_E_NOT_FOUND)
        #expect(rec.phases(NG_PHASE_CANCELLED).count == 2)
        #expect(rec.phases(NG_PHASE_DID).count == 2)        // only the non-animated push's
    }

    @Test func timedTransitionsAreLeftToTheCore() throws {
        let (e, rec) = try makeGuardEngine([watchdog()])
        _ = e.submit(push(2, "detail", animated: true).with(flags: UInt32(NG_REQF_ANIMATED | NG_REQF_TIMED)))
        #expect(e.nextDeadline() == 350 * msNs)
        try advance(e, ms: 350)
        #expect(e.inFlight(.screen) == 0)
        #expect(rec.phases(NG_PHASE_DID).allSatisfy { $0.flags & UInt32(NG_TRANSF_FORCED) == 0 })
        try advance(e, ms: 5000)
        #expect(rec.reports.isEmpty)
    }

    // MARK: holds

    @Test func stuckHoldIsReleased() throws {
        let (e, rec) = try makeGuardEngine([watchdog()])
        let token = try e.beginHold(label: CStr("loading"), mask: 0, maxDurationNs: 0)
        #expect(e.nextDeadline() == 10_000 * msNs)
        try advance(e, ms: 9999)
        #expect(e.holdCount == 1)
        try advance(e, ms: 1)
        #expect(e.holdCount == 0 && e.holdMask == 0)
        #expect(rec.holdEnds.count == 1)
        #expect(rec.holdEnds.first?.token == token && rec.holdEnds.first?.reason == NG_HOLD_RELEASED)
        let text = try #require(rec.reports.first?.text)
        #expect(text.contains("  hold: token \(token) \"loading\" by the host live for 10000 ms (limit 10000 ms): released"))
        #expect(text.contains("holds (1, mask 0x03):"))
        #expect(text.contains("  token \(token) \"loading\" by the host mask 0x03 age 10000 ms"))
        // The holder's late end is harmless.
        #expect(engineStatus { () throws(EngineError) in try e.endHold(token) } == NG_E_NOT_FOUND)
        #expect(rec.holdEnds.count == 1)
        #expect(e.nextDeadline() == Limits.noDeadline)
    }

    @Test func holdThatExpiresByItselfIsNotReported() throws {
        let (e, rec) = try makeGuardEngine([watchdog()])
        let token = try e.beginHold(label: nil, mask: UInt32(NG_MASK_KEY), maxDurationNs: 3000 * msNs)
        try advance(e, ms: 3000)
        #expect(rec.holdEnds.first?.token == token && rec.holdEnds.first?.reason == NG_HOLD_EXPIRED)
        try advance(e, ms: 20_000)
        #expect(rec.reports.isEmpty)
    }

    @Test func labelsAreQuotedAndSanitized() throws {
        let (e, rec) = try makeGuardEngine([watchdog(#"{"hold_limit_ms":100}"#)])
        let token = try e.beginHold(label: CStr("bad\nlabel\u{7}é"), mask: UInt32(NG_MASK_KEY), maxDurationNs: 0)
        let unlabelled = try e.beginHold(label: nil, mask: UInt32(NG_MASK_KEY), maxDurationNs: 0)
        try advance(e, ms: 100)
        let text = try #require(rec.reports.first?.text)
        #expect(text.contains("  hold: token \(token) \"bad?label?é\" by the host live for 100 ms"))
        #expect(text.contains("  hold: token \(unlabelled) (none) by the host live for 100 ms"))
        #expect(text.contains("recovered 2 stuck items"))
    }

    // MARK: touches

    @Test func aFingerRestingOnAButtonIsLeftAlone() throws {
        // A touch held still for a minute blocks nothing: it is not
        // cancelled, nothing is reported, and its release is delivered.
        let (e, rec) = try makeGuardEngine([watchdog(), exclusiveTouch()])
        try e.advanceTime(1000 * msNs)
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 7, view: 3).verdict == .deliver)
        #expect(e.nextDeadline() == Limits.noDeadline)
        try advance(e, ms: 60_000)
        #expect(rec.touchCancels.isEmpty && rec.reports.isEmpty && rec.logs.isEmpty)
        // A touch on another (non-exclusive) view is not refused: still nothing.
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 8, view: 4).verdict == .deliver)
        #expect(e.submitTestTouch(NG_TOUCH_ENDED, id: 8, view: 4).verdict == .deliver)
        try advance(e, ms: 60_000)
        #expect(rec.touchCancels.isEmpty && rec.reports.isEmpty)
        #expect(e.submitTestTouch(NG_TOUCH_ENDED, id: 7, view: 3).verdict == .deliver)
    }

    @Test func aStillTouchInTheWayIsCancelled() throws {
        // Multiple touch off: a second finger on the same button is refused
        // because of the first, which has been still since 1000 ms. At its
        // limit (11000 ms) the first is cancelled, and the next touch works.
        let (e, rec) = try makeGuardEngine([watchdog(), exclusiveTouch()])
        try e.advanceTime(1000 * msNs)
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 7, view: 3).verdict == .deliver)
        try advance(e, ms: 3000)
        let second = e.submitTestTouch(NG_TOUCH_BEGAN, id: 8, view: 3)
        #expect(second.verdict == .drop && second.reason == .multiTouch)
        #expect(e.touch(at: 0)?.in_way_ns == 4000 * msNs)
        e.submitTestTouch(NG_TOUCH_ENDED, id: 8, view: 3)
        #expect(e.nextDeadline() == 11_000 * msNs)
        try advance(e, ms: 6999)
        #expect(rec.touchCancels.isEmpty)
        try advance(e, ms: 1)
        #expect(rec.touchCancels.map(\.touch_id) == [7] && rec.reports.count == 1)
        let text = try #require(rec.reports.first?.text)
        #expect(text.contains("  touch: 7 on view 3 live for 10000 ms, idle 10000 ms (limit 10000 ms), in the way: a touch refused because of it at 4000 ms: cancelled"), "\(text)")
        #expect(text.contains("  touch 7 view 3 delivered age 10000 ms idle 10000 ms in the way at 4000 ms"), "\(text)")
        #expect(text.contains("  t=1000 ms event touch began touch 7 view 3"))
        // The cancelled touch is retired: its end is dropped; no new deadline.
        #expect(e.nextDeadline() == Limits.noDeadline)
        let end = e.submitTestTouch(NG_TOUCH_ENDED, id: 7, view: 3)
        #expect(end.verdict == .drop && end.reason == .cancelled)
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 9, view: 3).verdict == .deliver)
        #expect(rec.touchCancels.count == 1)
    }

    @Test func aTouchGettingInTheWayAfterItsLimitIsCancelledAtOnce() throws {
        // Exclusive touch: still for 30 s and in nobody's way, then a tap on
        // another view is refused because of it: it is cancelled at once.
        let (e, rec) = try makeGuardEngine([watchdog(), exclusiveTouch(#"{"every_view_exclusive":true}"#)])
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 1, view: 2).verdict == .deliver)
        try advance(e, ms: 30_000)
        #expect(rec.touchCancels.isEmpty && rec.reports.isEmpty)
        let tap = e.submitTestTouch(NG_TOUCH_BEGAN, id: 2, view: 5)
        #expect(tap.verdict == .drop && tap.reason == .exclusive)
        #expect(e.nextDeadline() == 10_000 * msNs, "overdue: the next tick")
        try e.tick()
        #expect(rec.touchCancels.map(\.touch_id) == [1] && rec.reports.count == 1)
        #expect(rec.reports[0].text.contains("  touch: 1 on view 2 live for 30000 ms, idle 30000 ms (limit 10000 ms), in the way: a touch refused because of it at 30000 ms: cancelled"), "\(rec.reports[0].text)")
        // The refused tap stays withheld; the next one is delivered.
        e.submitTestTouch(NG_TOUCH_ENDED, id: 2, view: 5)
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 3, view: 5).verdict == .deliver)
    }

    @Test func aTouchInTheWayThatMovesAgainIsAlive() throws {
        // In the way while it was moving, then still: the refusal came
        // before it came to rest, so its rest blocks nothing.
        let (e, rec) = try makeGuardEngine([watchdog(), exclusiveTouch()])
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 4, view: 1).verdict == .deliver)
        try advance(e, ms: 500)
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 5, view: 1).reason == .multiTouch)
        try advance(e, ms: 500)
        #expect(e.submitTestTouch(NG_TOUCH_MOVED, id: 4, view: 1).verdict == .deliver)
        try advance(e, ms: 1)
        #expect(e.nextDeadline() == Limits.noDeadline)
        try advance(e, ms: 60_000)
        #expect(rec.touchCancels.isEmpty && rec.reports.isEmpty)
    }

    @Test func theRestingLimitCancelsAnyStillTouch() throws {
        // resting_touch_limit_ms (off by default): a toolkit that never
        // reuses ids and can lose an end. A moving finger is still alive.
        let (e, rec) = try makeGuardEngine([watchdog(#"{"resting_touch_limit_ms":20000}"#)])
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 4, view: 1).verdict == .deliver)
        for _ in 0..<12 {
            try advance(e, ms: 1000)
            #expect(e.submitTestTouch(NG_TOUCH_MOVED, id: 4, view: 1).verdict == .deliver)
        }
        #expect(e.nextDeadline() == 32_000 * msNs, "20 s after its last move")
        try advance(e, ms: 19_999)
        #expect(rec.touchCancels.isEmpty && rec.reports.isEmpty)
        try advance(e, ms: 1)
        #expect(rec.touchCancels.map(\.touch_id) == [4])
        let text = try #require(rec.reports.first?.text)
        #expect(text.contains("  touch: 4 on view 1 live for 32000 ms, idle 20000 ms (resting limit 20000 ms): cancelled"), "\(text)")
    }

    @Test func aGuardsHoldIsNamedByItsOwnerAndATiedHoldIsLeftToItsTransition() throws {
        holderTokens = (0, 0)
        let (e, rec) = try makeGuardEngine([watchdog(#"{"hold_limit_ms":1000,"transition_limit_ms":5000}"#),
                                            GuardSpec(holderDescriptor)])
        _ = e.submit(.push(Screen(id: 2, route: "menu"), flags: UInt32(NG_REQF_ANIMATED)))
        let (tied, free) = holderTokens
        #expect(tied != 0 && free != 0 && e.holdCount == 2)
        try advance(e, ms: 1000)
        // The free hold is released and named by its owner; the tied one
        // lives as long as its transition.
        #expect(rec.reports.count == 1 && e.holdCount == 1)
        let text = try #require(rec.reports.first?.text)
        #expect(text.contains("  hold: token \(free) \"free\" by test.holder live for 1000 ms (limit 1000 ms): released"), "\(text)")
        #expect(!text.contains("  hold: token \(tied) "), "\(text)")
        #expect(text.contains("\"tied\" by test.holder mask 0x01 age 1000 ms (ends with request 1's transition)"), "\(text)")
        try advance(e, ms: 4000)
        // The transition's limit ends it, and its tied hold with it: one report.
        #expect(rec.reports.count == 2 && e.holdCount == 0)
        #expect(rec.holdEnds.last?.token == tied && rec.holdEnds.last?.reason == NG_HOLD_ENDED)
        #expect(!rec.reports[1].text.contains("  hold: token"), "\(rec.reports[1].text)")
    }

    @Test func onlyDeliveredTouchesAreWatched() throws {
        // A touch withheld by a hold is not the watchdog's business.
        let (e, rec) = try makeGuardEngine([watchdog(#"{"hold_limit_ms":0}"#)])
        _ = try e.beginHold(label: CStr("modal"), mask: UInt32(NG_MASK_TOUCH), maxDurationNs: 0)
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 1, view: 2).verdict == .drop)
        #expect(e.nextDeadline() == Limits.noDeadline)
        try advance(e, ms: 60_000)
        #expect(rec.reports.isEmpty && rec.touchCancels.isEmpty && rec.holdEnds.isEmpty)
        // A touch that ends in time is not cancelled either.
        let (f, frec) = try makeGuardEngine([watchdog()])
        f.submitTestTouch(NG_TOUCH_BEGAN, id: 4, view: 5)
        try advance(f, ms: 9000)
        f.submitTestTouch(NG_TOUCH_ENDED, id: 4, view: 5)
        try advance(f, ms: 9000)
        #expect(frec.reports.isEmpty && frec.touchCancels.isEmpty)
    }

    // MARK: rounds and deadlines

    @Test func oneReportPerRound() throws {
        let (e, rec) = try makeGuardEngine([watchdog(#"{"transition_limit_ms":10000}"#), exclusiveTouch()])
        let r = e.submit(push(2, "detail"))
        let token = try e.beginHold(label: CStr("sync"), mask: UInt32(NG_MASK_KEY), maxDurationNs: 0)
        e.submitTestTouch(NG_TOUCH_BEGAN, id: 9, view: 4)
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 10, view: 4).reason == .multiTouch)
        try advance(e, ms: 10_000)
        #expect(rec.reports.count == 1)
        let text = try #require(rec.reports.first?.text)
        #expect(text.hasPrefix("NavGuard watchdog: recovered 3 stuck items at t=10000 ms (round 1)\n"))
        #expect(text.contains("  transition: request \(r.requestID) (push)"))
        #expect(text.contains("  hold: token \(token) \"sync\""))
        #expect(text.contains("  touch: 9 on view 4"))
        #expect(!text.contains("note:"))
        #expect(e.inFlight(.screen) == 0 && e.holdCount == 0 && rec.touchCancels.count == 1)
        #expect(e.nextDeadline() == Limits.noDeadline)
    }

    @Test func nextDeadlineIsTheEarliestLimit() throws {
        let (e, rec) = try makeGuardEngine([watchdog(), exclusiveTouch()])
        _ = try e.beginHold(label: CStr("h"), mask: UInt32(NG_MASK_KEY), maxDurationNs: 0)   // due 10 s
        try e.advanceTime(3000 * msNs)
        e.submitTestTouch(NG_TOUCH_BEGAN, id: 1, view: 1)
        e.submitTestTouch(NG_TOUCH_BEGAN, id: 2, view: 1)                                     // in the way: due 13 s
        try e.advanceTime(2000 * msNs)
        _ = e.submit(push(2, "detail"))                                                        // due 7 s
        #expect(e.nextDeadline() == 7000 * msNs)
        try e.setTime(7000 * msNs)
        try e.tick()
        #expect(rec.reports.count == 1 && e.inFlight(.screen) == 0)
        #expect(e.nextDeadline() == 10_000 * msNs)
        try e.setTime(10_000 * msNs)
        try e.tick()
        #expect(rec.reports.count == 2 && e.holdCount == 0)
        #expect(e.nextDeadline() == 13_000 * msNs)
        try e.setTime(13_000 * msNs)
        try e.tick()
        #expect(rec.reports.count == 3 && rec.touchCancels.count == 1)
        #expect(rec.reports[2].text.contains("(round 3)"))
        #expect(e.nextDeadline() == Limits.noDeadline)
    }

    @Test func zeroDisablesACheck() throws {
        let (e, rec) = try makeGuardEngine([watchdog(#"{"transition_limit_ms":0,"hold_limit_ms":0,"touch_limit_ms":0}"#)])
        _ = e.submit(push(2, "detail"))
        _ = try e.beginHold(label: CStr("h"), mask: UInt32(NG_MASK_KEY), maxDurationNs: 0)
        e.submitTestTouch(NG_TOUCH_BEGAN, id: 1, view: 1)
        #expect(e.nextDeadline() == Limits.noDeadline)
        try advance(e, ms: 3_600_000)
        #expect(rec.reports.isEmpty && rec.touchCancels.isEmpty && rec.holdEnds.isEmpty)
        #expect(e.inFlight(.screen) != 0)
    }

    @Test func reportFalseLogsAWarningInstead() throws {
        let (e, rec) = try makeGuardEngine([watchdog(#"{"report":false}"#)])
        _ = e.submit(push(2, "detail"))
        try advance(e, ms: 2000)
        #expect(e.inFlight(.screen) == 0)
        #expect(rec.reports.isEmpty)
        let warn = rec.logs.filter { $0.severity == NG_LOG_WARN }
        #expect(warn.count == 1 && warn[0].guardID == watchdogID)
        #expect(warn.first?.message == "watchdog: recovered 1 stuck item: 1 transition, 0 holds, 0 touches")
    }

    // MARK: history and state

    @Test func historyRecordsRequestsAndEvents() throws {
        let (e, rec) = try makeGuardEngine([GuardSpec(ngg_transition_descriptor(), #"{"mode":"refuse"}"#), watchdog()])
        let a = e.submit(push(2, "detail", source: 4))
        let b = e.submit(push(3, "other"))
        #expect(b.status == .refused)
        try e.advanceTime(10 * msNs)
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 5, view: 9).verdict == .deliver)
        #expect(e.submitTestTouch(NG_TOUCH_MOVED, id: 5, view: 9).verdict == .deliver)
        try e.advanceTime(10 * msNs)
        #expect(e.submitTestTouch(NG_TOUCH_ENDED, id: 5, view: 9).verdict == .deliver)
        #expect(e.submitTestEvent(type: NG_EVENT_KEY, phase: 1, view: 6).verdict == .deliver)
        try advance(e, ms: 1980)
        let l = lines(try #require(rec.reports.first?.text))
        // Moves are not kept (the watchdog's event_mask): a moving finger
        // would push out everything before it.
        let h = try #require(l.firstIndex(of: "history (last 5 of 5 requests and events, newest first):"))
        #expect(Array(l[(h + 1)...(h + 5)]) == [
            "  t=20 ms event key phase 1 device 0 view 6",
            "  t=20 ms event touch ended touch 5 view 9 (final)",
            "  t=10 ms event touch began touch 5 view 9",
            "  t=0 ms request \(b.requestID) push refused busy by org.navguard.transition",
            "  t=0 ms request \(a.requestID) push applied source 4",
        ])
    }

    @Test func deferredRequestsAreListedAndReleasedAfterRecovery() throws {
        let (e, rec) = try makeGuardEngine([GuardSpec(ngg_transition_descriptor(), #"{"mode":"queue"}"#), watchdog()])
        _ = e.submit(push(2, "detail"))
        let q = e.submit(push(3, "next", source: 2))
        #expect(q.status == .deferred)
        try advance(e, ms: 2000)
        let text = try #require(rec.reports.first?.text)
        #expect(text.contains("deferred requests (1):\n  request \(q.requestID) (push) source 2 attempt 0\n"))
        // The forced end lets the queue go on: the deferred push is applied.
        #expect(rec.outcome(of: q.requestID)?.outcome == .applied)
        #expect(e.stackIDs == [1, 2, 3])
        try advance(e, ms: 2000)                      // its own transition got stuck too
        #expect(rec.reports.count == 2)
        #expect(rec.reports[1].text.contains("  t=2000 ms request \(q.requestID) push applied source 2"))
    }

    @Test func historyKeepsTheLast64() throws {
        let (e, rec) = try makeGuardEngine([watchdog()])
        var ids: [UInt64] = []
        for i in 0..<100 {
            let r = i % 2 == 0 ? e.submit(push(2, "detail", animated: false)) : e.submit(Request(kind: .pop))
            #expect(r.status == .applied)
            ids.append(r.requestID)
            try e.advanceTime(msNs)
        }
        _ = try e.beginHold(label: CStr("h"), mask: UInt32(NG_MASK_KEY), maxDurationNs: 0)
        try advance(e, ms: 10_000)
        let text = try #require(rec.reports.first?.text)
        let l = lines(text)
        let h = try #require(l.firstIndex(of: "history (last 64 of 100 requests and events, newest first):"))
        // Newest first: the 100th request (made at t=99 ms) leads.
        #expect(l[h + 1] == "  t=99 ms request \(ids[99]) pop applied")
        #expect(l[h + 2] == "  t=98 ms request \(ids[98]) push applied")
        if text.hasSuffix("\n...\n") {
            // The host took a shorter report: cut at a line end, oldest lost.
            #expect(!text.contains("request \(ids[36]) "))
        } else {
            // The oldest kept is the 37th request (made at t=36 ms).
            #expect(l[h + 64] == "  t=36 ms request \(ids[36]) push applied")
            #expect(!text.contains("request \(ids[35]) "))
        }
    }

    @Test func longReportsAreCutAtALineEnd() throws {
        let (e, rec) = try makeGuardEngine([watchdog()])
        let pad = String(repeating: "x", count: 100)
        var tokens: [UInt64] = []
        for i in 0..<260 {
            tokens.append(try e.beginHold(label: CStr("hold-\(i)-\(pad)"), mask: UInt32(NG_MASK_KEY), maxDurationNs: 0))
        }
        try advance(e, ms: 10_000)
        // At most 256 holds per round; the rest in the next round.
        #expect(e.holdCount == 4)
        #expect(rec.reports.count == 1)
        let text = try #require(rec.reports.first?.text)
        #expect(text.hasPrefix("NavGuard watchdog: recovered 256 stuck items"))
        #expect(text.hasSuffix("\n...\n"))
        #expect(text.utf8.count <= 16384)
        try e.tick()
        #expect(e.holdCount == 0)
        #expect(rec.reports.count == 2)
        #expect(rec.reports[1].text.hasPrefix("NavGuard watchdog: recovered 4 stuck items"))
        #expect(rec.holdEnds.count == 260 && rec.holdEnds.allSatisfy { $0.reason == NG_HOLD_RELEASED })
        #expect(Set(rec.holdEnds.map(\.token)) == Set(tokens))
    }

    @Test func eventsAreAlwaysAllowed() throws {
        let (e, _) = try makeGuardEngine([watchdog()])
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 1, view: 2).verdict == .deliver)
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 2, view: 2).verdict == .deliver)
        #expect(e.submitTestTouch(NG_TOUCH_MOVED, id: 1, view: 2).verdict == .deliver)
        #expect(e.submitTestTouch(NG_TOUCH_CANCELLED, id: 1, view: 2).verdict == .deliver)
        for type in [NG_EVENT_MOTION, NG_EVENT_REMOTE, NG_EVENT_KEY, NG_EVENT_SCROLL, NG_EVENT_HOVER] {
            #expect(e.submitTestEvent(type: type).verdict == .deliver, "type \(type)")
        }
    }
}

private extension Request {
    func with(flags: UInt32) -> Request {
        var r = self
        r.flags = flags
        return r
    }
}

/// test.holder: at each screen will-show, a hold tied to the transition
/// ("tied") and a hold of its own with no limit ("free"). Its instance is
/// the host table.
private nonisolated(unsafe) var holderTokens: (tied: UInt64, free: UInt64) = (0, 0)
private nonisolated(unsafe) let holderDescriptor: UnsafePointer<ng_plugin_descriptor> = {
    var d = ng_plugin_descriptor()
    d.abi_major = UInt32(NG_PLUGIN_ABI_MAJOR)
    d.abi_minor = UInt32(NG_PLUGIN_ABI_MINOR)
    d.size = UInt32(MemoryLayout<ng_plugin_descriptor>.size)
    d.id = UnsafePointer(strdup("test.holder")!)
    d.name = UnsafePointer(strdup("holder")!)
    d.version = UnsafePointer(strdup("1")!)
    d.description = UnsafePointer(strdup("holds during transitions")!)
    d.create = { host, _ in UnsafeMutableRawPointer(mutating: host) }
    d.destroy = { _ in }
    d.on_transition = { inst, ev in
        guard let ev, ev.pointee.phase == NG_PHASE_WILL, ev.pointee.track == NG_TRACK_SCREEN else { return }
        let h = UnsafePointer(inst!.assumingMemoryBound(to: ng_guard_host.self))
        _ = h.pointee.hold_begin_transition!(h, "tied", UInt32(NG_MASK_TOUCH), &holderTokens.tied)
        _ = h.pointee.hold_begin!(h, "free", UInt32(NG_MASK_KEY), 0, &holderTokens.free)
    }
    let p = UnsafeMutablePointer<ng_plugin_descriptor>.allocate(capacity: 1)
    p.initialize(to: d)
    return UnsafePointer(p)
}()
