// SPDX-License-Identifier: Apache-2.0
// Swipe back as a real finger does it: the interactive back names the touch
// that drives it (followed through the transition's hold), the host releases
// it in a direction and completes it after the settle animation, and the
// watchdog never times out a swipe whose finger is down.
import CNavGuard
import NavGuardBuiltins
import Testing
@testable import NavGuardCore

private let watchdogID = "org.navguard.watchdog"
private let edgeTouch: UInt64 = 7
private let buttonTouch: UInt64 = 8
private let buttonView: UInt64 = 42

/// An interactive back driven by `touch`.
private func swipe(_ touch: UInt64?, flags: UInt32 = animatedFlag) -> Request {
    var r = Request(kind: .interactiveBack, flags: flags)
    r.drivingTouch = touch
    return r
}

private func advance(_ e: Engine, ms: Int64) throws {
    try e.advanceTime(ms * msNs)
    try e.tick()
}

/// A touch phase at a point (hit-tested by the engine, view 0 when nothing is registered there).
@discardableResult
private func touch(_ e: Engine, _ phase: Int32, _ id: UInt64, x: Double = 5, y: Double = 300) -> EventVerdict {
    e.submitTestEvent(type: NG_EVENT_TOUCH, phase: phase, touchID: id, x: x, y: y)
}

/// The default chain's guards that matter for a swipe, in the default order.
private func defaultishChain(_ watchdogConfig: String = "{}") -> [GuardSpec] {
    [GuardSpec(ngg_watchdog_descriptor(), watchdogConfig), GuardSpec(ngg_global_ignore_descriptor()),
     GuardSpec(ngg_exclusive_touch_descriptor()), GuardSpec(ngg_bar_should_descriptor()),
     GuardSpec(ngg_transition_descriptor())]
}

/// home, menu, item on the stack (non-animated pushes).
private func threeScreens(_ guards: [GuardSpec]) throws -> (Engine, GuardRecorder) {
    let (e, rec) = try makeGuardEngine(guards)
    #expect(e.submit(.push(Screen(id: 2, route: "menu"))).status == .applied)
    #expect(e.submit(.push(Screen(id: 3, route: "item"), source: 1)).status == .applied)
    rec.transitions.removeAll()
    return (e, rec)
}

@Suite("swipe back: the driving touch (3a)")
struct DrivingTouchTests {
    @Test func theNamedTouchMustBeLiveAndDelivered() throws {
        let (e, rec) = try threeScreens([])
        // Unknown touch.
        var r = e.submit(swipe(edgeTouch))
        #expect(r.status == .refused && r.reason == .invalid)
        #expect(r.message?.string.contains("not a live touch") == true)
        // Withheld: its began was dropped by a hold.
        let hold = try e.beginHold(label: CStr("purge"), mask: UInt32(NG_MASK_TOUCH), maxDurationNs: 0)
        #expect(touch(e, NG_TOUCH_BEGAN, edgeTouch).reason == .ignoring)
        try e.endHold(hold)
        r = e.submit(swipe(edgeTouch))
        #expect(r.status == .refused && r.reason == .invalid)
        #expect(r.message?.string.contains("withheld") == true)
        touch(e, NG_TOUCH_ENDED, edgeTouch)
        // Cancelled (awaiting its end).
        #expect(touch(e, NG_TOUCH_BEGAN, edgeTouch).verdict == .deliver)
        #expect(e.cancelTouches(edgeTouch) == 1)
        r = e.submit(swipe(edgeTouch))
        #expect(r.status == .refused && r.message?.string.contains("cancelled") == true)
        touch(e, NG_TOUCH_ENDED, edgeTouch)
        #expect(e.stackIDs == [1, 2, 3])
        // Live and delivered: applied, touch-driven, DRIVEN.
        #expect(touch(e, NG_TOUCH_BEGAN, edgeTouch).verdict == .deliver)
        r = e.submit(swipe(edgeTouch))
        #expect(r.status == .applied)
        let will = rec.phases(NG_PHASE_WILL)
        #expect(will.count == 2 && will.allSatisfy { $0.flags & UInt32(NG_TRANSF_TOUCH_DRIVEN | NG_TRANSF_INTERACTIVE) == UInt32(NG_TRANSF_TOUCH_DRIVEN | NG_TRANSF_INTERACTIVE) })
        let info = try #require(e.trackView(.screen))
        #expect(info.swipe == NG_SWIPE_DRIVEN && info.driving_touch == edgeTouch && info.swipe_since_ns == 0)
        #expect(info.deadline_ns == Limits.noDeadline)
        // An interactive back that names no touch is UNDRIVEN from the start.
        try e.finishTransition(.all)
        r = e.submit(swipe(nil))
        #expect(r.status == .applied)
        let plain = try #require(e.trackView(.bar))
        #expect(plain.swipe == NG_SWIPE_UNDRIVEN && plain.flags & UInt32(NG_TRANSF_TOUCH_DRIVEN) == 0)
    }

    @Test func theTransitionHoldSparesTheDrivingTouchOnly() throws {
        let (e, rec) = try threeScreens(defaultishChain())
        try e.setView(ViewSpec(id: buttonView, parent: 0, frame: Rect(x: 300, y: 300, width: 100, height: 50),
                               order: 0, flags: [.interactionEnabled]))
        // A finger on a button and a finger at the left edge.
        #expect(touch(e, NG_TOUCH_BEGAN, buttonTouch, x: 320, y: 320).target == buttonView)
        #expect(touch(e, NG_TOUCH_BEGAN, edgeTouch).verdict == .deliver)
        #expect(touch(e, NG_TOUCH_MOVED, edgeTouch, x: 20).verdict == .deliver)
        let r = e.submit(swipe(edgeTouch))
        #expect(r.status == .applied)
        // global-ignore took its hold: the button's touch was cancelled, the
        // driving touch was not.
        #expect(e.holdMask & UInt32(NG_MASK_TOUCH) != 0)
        #expect(rec.touchCancels.map(\.touch_id) == [buttonTouch])
        for x in stride(from: 40.0, through: 400, by: 40) {
            let v = touch(e, NG_TOUCH_MOVED, edgeTouch, x: x)
            #expect(v.verdict == .deliver, "move to \(x): \(v.reason)")
            try e.updateInteractive(x / 800)
        }
        #expect(touch(e, NG_TOUCH_MOVED, buttonTouch, x: 330, y: 320).reason == .cancelled)
        // Every other touch is blocked as usual.
        #expect(touch(e, NG_TOUCH_BEGAN, 9, x: 320, y: 320).reason == .ignoring)
        #expect(touch(e, NG_TOUCH_MOVED, 9).reason == .withheld)
        // A guard cancelling "every delivered touch" spares it too.
        #expect(e.cancelTouches(0) == 0)
        // Its end is delivered, once; the swipe is no longer driven.
        try e.advanceTime(120 * msNs)
        #expect(touch(e, NG_TOUCH_ENDED, edgeTouch, x: 400).verdict == .deliver)
        let info = try #require(e.trackView(.screen))
        #expect(info.swipe == NG_SWIPE_UNDRIVEN && info.swipe_since_ns == 120 * msNs)
        #expect(info.driving_touch == edgeTouch, "the named touch stays in the track info")
        #expect(touch(e, NG_TOUCH_ENDED, edgeTouch).reason == .invalid, "ended twice")
        #expect(rec.touchCancels.count == 1)
        try e.releaseInteractive(finish: true)
        try e.completeInteractive()
        #expect(e.stackIDs == [1, 2])
        #expect(e.holdCount == 0)
    }

    @Test func removingItsViewDoesNotCancelIt() throws {
        let (e, rec) = try threeScreens([])
        try e.setView(ViewSpec(id: buttonView, parent: 0, frame: Rect(x: 0, y: 200, width: 100, height: 200),
                               order: 0, flags: [.interactionEnabled]))
        #expect(touch(e, NG_TOUCH_BEGAN, edgeTouch).target == buttonView)
        #expect(e.submit(swipe(edgeTouch)).status == .applied)
        // The host swaps the screens' views under the finger.
        try e.removeView(buttonView)
        #expect(rec.touchCancels.isEmpty)
        #expect(touch(e, NG_TOUCH_MOVED, edgeTouch, x: 90).verdict == .deliver)
        // Once the swipe is over it is an ordinary touch again.
        try e.finishTransition(.all)
        try e.setView(ViewSpec(id: buttonView, parent: 0, frame: Rect(x: 0, y: 200, width: 100, height: 200),
                               order: 0, flags: [.interactionEnabled]))
        #expect(touch(e, NG_TOUCH_BEGAN, buttonTouch).target == buttonView)
        #expect(e.cancelTouches(0) == 2, "no swipe in flight: both touches are cancelled")
    }

    @Test func anExplicitCancelOfItsIdEndsIt() throws {
        let (e, rec) = try threeScreens([])
        touch(e, NG_TOUCH_BEGAN, edgeTouch)
        #expect(e.submit(swipe(edgeTouch)).status == .applied)
        try e.advanceTime(500 * msNs)
        #expect(e.guardCancelTouch(edgeTouch))
        #expect(rec.touchCancels.map(\.touch_id) == [edgeTouch])
        let info = try #require(e.trackView(.screen))
        #expect(info.swipe == NG_SWIPE_UNDRIVEN && info.swipe_since_ns == 500 * msNs)
        #expect(touch(e, NG_TOUCH_MOVED, edgeTouch).reason == .cancelled)
    }

    @Test func destroyCancelsTheDrivingTouch() throws {
        let (e, rec) = try threeScreens(defaultishChain())
        touch(e, NG_TOUCH_BEGAN, edgeTouch)
        #expect(e.submit(swipe(edgeTouch)).status == .applied)
        e.destroy()
        #expect(rec.touchCancels.map(\.touch_id) == [edgeTouch])
        #expect(e.holdCount == 0)
    }
}

@Suite("swipe back: release and complete (3b)")
struct SwipeReleaseTests {
    @Test func releasedToFinishCommitsOnComplete() throws {
        let (e, rec) = try threeScreens([])
        touch(e, NG_TOUCH_BEGAN, edgeTouch)
        let r = e.submit(swipe(edgeTouch))
        try e.updateInteractive(0.7)
        try e.advanceTime(300 * msNs)
        touch(e, NG_TOUCH_ENDED, edgeTouch, x: 560)
        try e.advanceTime(10 * msNs)
        try e.releaseInteractive(finish: true)
        let info = try #require(e.trackView(.screen))
        #expect(info.swipe == NG_SWIPE_FINISHING && info.swipe_since_ns == 310 * msNs)
        #expect(rec.phases(NG_PHASE_DID).isEmpty, "a release fires nothing")
        // The decision is kept.
        #expect(engineStatus { () throws(EngineError) in try e.releaseInteractive(finish: false) } == NG_E_STATE)
        #expect(engineStatus { () throws(EngineError) in try e.releaseInteractive(finish: true) } == NG_E_STATE)
        #expect(engineStatus { () throws(EngineError) in try e.cancelInteractive() } == NG_E_STATE)
        try e.updateInteractive(0.9)                        // the settle may report progress
        try e.completeInteractive()
        let dids = rec.phases(NG_PHASE_DID)
        #expect(dids.count == 2 && dids.allSatisfy { $0.request_id == r.requestID && $0.flags & UInt32(NG_TRANSF_FORCED) == 0 })
        #expect(rec.phases(NG_PHASE_CANCELLED).isEmpty)
        #expect(e.stackIDs == [1, 2] && !e.isInteractive)
        #expect(engineStatus { () throws(EngineError) in try e.completeInteractive() } == NG_E_NOT_FOUND)
    }

    @Test func releasedToCancelRollsBackExactlyOnComplete() throws {
        let (e, rec) = try threeScreens([])
        touch(e, NG_TOUCH_BEGAN, edgeTouch)
        let r = e.submit(swipe(edgeTouch))
        try e.updateInteractive(0.3)
        try e.releaseInteractive(finish: false)             // before the touch ended: allowed
        #expect(e.trackView(.screen)?.swipe == NG_SWIPE_CANCELLING)
        #expect(touch(e, NG_TOUCH_MOVED, edgeTouch, x: 50).verdict == .deliver, "still its finger")
        touch(e, NG_TOUCH_ENDED, edgeTouch, x: 50)
        #expect(e.trackView(.screen)?.swipe == NG_SWIPE_CANCELLING, "the decision outlives the touch")
        #expect(engineStatus { () throws(EngineError) in try e.finishTransition(.all) } == NG_E_STATE)
        #expect(engineStatus { () throws(EngineError) in try e.finishTransition(.screen) } == NG_E_STATE)
        try e.completeInteractive()
        let cancelled = rec.phases(NG_PHASE_CANCELLED)
        #expect(cancelled.count == 2 && cancelled.allSatisfy { $0.request_id == r.requestID && $0.to_id == 3 })
        #expect(rec.phases(NG_PHASE_DID).isEmpty)
        #expect(e.stackIDs == [1, 2, 3])
        #expect(rec.outcome(of: r.requestID)?.outcome == .applied)
    }

    @Test func completeNeedsARelease() throws {
        let (e, _) = try threeScreens([])
        #expect(engineStatus { () throws(EngineError) in try e.releaseInteractive(finish: true) } == NG_E_NOT_FOUND)
        #expect(engineStatus { () throws(EngineError) in try e.completeInteractive() } == NG_E_NOT_FOUND)
        #expect(e.submit(swipe(nil)).status == .applied)
        #expect(engineStatus { () throws(EngineError) in try e.completeInteractive() } == NG_E_STATE)
        // Unreleased, the host may still end it either way (0.1 behaviour).
        try e.cancelInteractive()
        #expect(e.stackIDs == [1, 2, 3])
    }

    @Test func aRequestAppliedDuringTheSettleKeepsTheDecidedDirection() throws {
        // Empty chain: nothing refuses, so the new request interrupts the swipe.
        let (e, rec) = try threeScreens([])
        let back = e.submit(swipe(nil))
        try e.releaseInteractive(finish: false)
        // Judged against the stack the swipe settles to (item on top): pop-to
        // menu is valid there, though menu is on top mid-swipe.
        let popTo = e.submit(.popTo(2, flags: animatedFlag))
        #expect(popTo.status == .applied)
        let cancelled = rec.phases(NG_PHASE_CANCELLED)
        #expect(cancelled.count == 2 && cancelled.allSatisfy { $0.request_id == back.requestID && $0.flags & UInt32(NG_TRANSF_INTERRUPTED) != 0 })
        #expect(!rec.phases(NG_PHASE_DID).contains { $0.request_id == back.requestID })
        #expect(e.stackIDs == [1, 2])
        try e.finishTransition(.all)

        // Released to finish: the interruption commits it.
        let (f, frec) = try threeScreens([])
        let back2 = f.submit(swipe(nil))
        try f.releaseInteractive(finish: true)
        #expect(f.submit(.push(Screen(id: 9, route: "help"))).status == .applied)
        #expect(frec.phases(NG_PHASE_DID).filter { $0.request_id == back2.requestID }.allSatisfy { $0.flags & UInt32(NG_TRANSF_INTERRUPTED) != 0 })
        #expect(frec.phases(NG_PHASE_DID).filter { $0.request_id == back2.requestID }.count == 2)
        #expect(f.stackIDs == [1, 2, 9])
    }
}

@Suite("swipe back: the watchdog (3c) and a forgotten release (3d)")
struct SwipeWatchdogTests {
    @Test func aDrivenSwipeIsNeverTimedOut() throws {
        let (e, rec) = try threeScreens(defaultishChain())
        touch(e, NG_TOUCH_BEGAN, edgeTouch)
        let back = e.submit(swipe(edgeTouch))
        #expect(back.status == .applied)
        try e.updateInteractive(0.6)
        #expect(e.nextDeadline() == 60_000 * msNs, "only the driving touch's idle limit is pending")
        // The finger stays down, still, for 3 s (watchdog limit 2 s).
        for _ in 0..<30 { try advance(e, ms: 100) }
        #expect(e.isInteractive && rec.reports.isEmpty)
        #expect(rec.phases(NG_PHASE_CANCELLED).isEmpty && rec.touchCancels.isEmpty)
        #expect(touch(e, NG_TOUCH_MOVED, edgeTouch, x: 480).verdict == .deliver)
        #expect(touch(e, NG_TOUCH_ENDED, edgeTouch, x: 480).verdict == .deliver)
        try e.releaseInteractive(finish: true)
        // The settle animation takes 250 ms, then completes.
        try advance(e, ms: 250)
        try e.completeInteractive()
        #expect(e.stackIDs == [1, 2] && rec.reports.isEmpty)
        #expect(rec.phases(NG_PHASE_DID).filter { $0.request_id == back.requestID }.count == 2)
        #expect(e.holdCount == 0)
    }

    @Test func afterTheReleaseTheLimitCountsFromItAndCompletesAsDecided() throws {
        for finish in [true, false] {
            let (e, rec) = try threeScreens(defaultishChain())
            touch(e, NG_TOUCH_BEGAN, edgeTouch)
            let back = e.submit(swipe(edgeTouch))
            try advance(e, ms: 3000)                             // finger down 3 s
            touch(e, NG_TOUCH_ENDED, edgeTouch, x: 500)
            try e.releaseInteractive(finish: finish)
            #expect(e.nextDeadline() == 5000 * msNs)
            try advance(e, ms: 1999)
            #expect(e.isInteractive, "finish \(finish): not before the limit from the release")
            try advance(e, ms: 1)                                 // the host never completed the settle
            #expect(!e.isInteractive)
            let ended = finish ? rec.phases(NG_PHASE_DID) : rec.phases(NG_PHASE_CANCELLED)
            #expect(ended.filter { $0.request_id == back.requestID && $0.flags & UInt32(NG_TRANSF_FORCED) != 0 }.count == 2)
            #expect((finish ? rec.phases(NG_PHASE_CANCELLED) : rec.phases(NG_PHASE_DID)).filter { $0.request_id == back.requestID }.isEmpty)
            #expect(e.stackIDs == (finish ? [1, 2] : [1, 2, 3]))
            let text = try #require(rec.reports.first?.text)
            #expect(rec.reports.first?.guardID == watchdogID)
            #expect(text.contains("(interactive-back) in flight for 5000 ms, released to \(finish ? "finish" : "cancel") 2000 ms (limit 2000 ms): "
                                  + (finish ? "interactive back completed, pop committed" : "interactive back cancelled, stack rolled back")), "\(text)")
            #expect(text.contains("swipe \(finish ? "finishing" : "cancelling") (touch \(edgeTouch)) unattended 2000 ms"))
            // The host's late completion is harmless.
            #expect(engineStatus { () throws(EngineError) in try e.completeInteractive() } == NG_E_NOT_FOUND)
            #expect(e.holdCount == 0)
        }
    }

    @Test func aForgottenReleaseIsRolledBackAtTheLimitFromTheTouchEnd() throws {
        let (e, rec) = try threeScreens(defaultishChain())
        touch(e, NG_TOUCH_BEGAN, edgeTouch)
        let back = e.submit(swipe(edgeTouch))
        try e.updateInteractive(0.8)
        try advance(e, ms: 4000)
        touch(e, NG_TOUCH_ENDED, edgeTouch, x: 640)           // no release call follows
        #expect(e.trackView(.screen)?.swipe == NG_SWIPE_UNDRIVEN)
        #expect(e.nextDeadline() == 6000 * msNs)
        // Still in flight and undecided: new touches stay blocked meanwhile.
        try advance(e, ms: 1999)
        #expect(e.isInteractive)
        #expect(touch(e, NG_TOUCH_BEGAN, 9, x: 320, y: 320).reason == .ignoring)
        touch(e, NG_TOUCH_ENDED, 9)
        try advance(e, ms: 1)
        #expect(!e.isInteractive && e.stackIDs == [1, 2, 3])
        #expect(rec.phases(NG_PHASE_CANCELLED).filter { $0.request_id == back.requestID }.count == 2)
        let text = try #require(rec.reports.first?.text)
        #expect(text.contains("in flight for 6000 ms, undecided since its touch ended 2000 ms (limit 2000 ms): interactive back cancelled, stack rolled back"), "\(text)")

        // Before the limit the host may still decide, either way.
        let (f, _) = try threeScreens(defaultishChain())
        touch(f, NG_TOUCH_BEGAN, edgeTouch)
        _ = f.submit(swipe(edgeTouch))
        touch(f, NG_TOUCH_ENDED, edgeTouch, x: 640)
        try advance(f, ms: 1000)
        try f.finishTransition(.all)
        #expect(f.stackIDs == [1, 2])
    }

    @Test func aHeldSwipeWhoseFingerKeepsMovingCompletesWithNoReport() throws {
        // A user drags from the edge, keeps the finger down 12 s (moving it
        // every second), holds it still 3 s, then lets go past half way.
        let (e, rec) = try threeScreens(defaultishChain())
        touch(e, NG_TOUCH_BEGAN, edgeTouch)
        let back = e.submit(swipe(edgeTouch))
        #expect(e.holdCount == 1, "global-ignore's hold, tied to the swipe")
        for s in 1...12 {
            try advance(e, ms: 1000)
            #expect(touch(e, NG_TOUCH_MOVED, edgeTouch, x: Double(20 + 20 * s)).verdict == .deliver)
        }
        try advance(e, ms: 3000)
        #expect(e.isInteractive && rec.touchCancels.isEmpty && rec.reports.isEmpty && e.holdCount == 1)
        #expect(touch(e, NG_TOUCH_ENDED, edgeTouch, x: 500).verdict == .deliver)
        try e.releaseInteractive(finish: true)
        try advance(e, ms: 250)
        try e.completeInteractive()
        #expect(e.stackIDs == [1, 2])
        #expect(rec.phases(NG_PHASE_DID).filter { $0.request_id == back.requestID }.count == 2)
        #expect(rec.reports.isEmpty, "no report: nothing was stuck")
        #expect(e.holdCount == 0 && rec.holdEnds.count == 1 && rec.holdEnds[0].reason == NG_HOLD_ENDED,
                "the hold ended with its swipe, not expired apart from it")
    }

    @Test func aDrivingTouchIdleForTheDriveLimitIsCancelledWithItsSwipeInOneReport() throws {
        let (e, rec) = try threeScreens(defaultishChain(#"{"drive_limit_ms":5000}"#))
        touch(e, NG_TOUCH_BEGAN, edgeTouch)
        let back = e.submit(swipe(edgeTouch))
        try advance(e, ms: 3000)
        touch(e, NG_TOUCH_MOVED, edgeTouch, x: 200)                 // alive: the limit counts from here
        try advance(e, ms: 4999)
        #expect(e.isInteractive && rec.touchCancels.isEmpty)
        try advance(e, ms: 1)
        #expect(rec.touchCancels.map(\.touch_id) == [edgeTouch])
        #expect(!e.isInteractive && e.stackIDs == [1, 2, 3], "rolled back in the same round")
        #expect(rec.phases(NG_PHASE_CANCELLED).filter { $0.request_id == back.requestID }.count == 2)
        #expect(rec.reports.count == 1, "one stuck gesture, one report")
        let text = try #require(rec.reports.first?.text)
        #expect(text.contains("its finger (touch \(edgeTouch)) still for 5000 ms (limit 5000 ms): interactive back cancelled, stack rolled back"), "\(text)")
        #expect(text.contains("(driving the swipe back) live for 8000 ms, idle 5000 ms (limit 5000 ms): cancelled"), "\(text)")
        try advance(e, ms: 20_000)
        #expect(rec.reports.count == 1 && e.holdCount == 0)
        #expect(touch(e, NG_TOUCH_ENDED, edgeTouch).reason == .cancelled, "its late end is dropped")
    }

    @Test func anUndrivenSwipeKeepsTheOldLimitFromItsBegin() throws {
        let (e, rec) = try threeScreens(defaultishChain())
        _ = e.submit(swipe(nil))
        #expect(e.nextDeadline() == 2000 * msNs)
        try advance(e, ms: 2000)
        #expect(!e.isInteractive && e.stackIDs == [1, 2, 3])
        #expect(rec.reports.count == 1)
    }
}
