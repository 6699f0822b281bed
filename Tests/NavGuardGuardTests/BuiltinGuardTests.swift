// SPDX-License-Identifier: Apache-2.0
// The built-in request guards, each alone and within a chain, linked in by
// descriptor (the same sources CMake builds as plugins).
import CNavGuard
import NavGuardBuiltins
@testable import NavGuardCore
import Testing

private func push(_ id: UInt64, _ route: String, animated: Bool = true, source: UInt32 = 0, identity: String? = nil) -> Request {
    Request.push(Screen(id: id, route: route, identity: identity), flags: animated ? animatedFlag : 0, source: source)
}

@Suite struct BarShouldTests {
    @Test func refusesBarOpsWhileBarTrackInFlight() throws {
        let (e, rec) = try makeGuardEngine([GuardSpec(ngg_bar_should_descriptor())])
        #expect(e.submit(push(2, "menu")).status == .applied)
        for kind: RequestKind in [.push, .pop, .back, .interactiveBack, .popToRoot] {
            var r = Request(kind: kind)
            if kind == .push { r.screen = Screen(id: 9, route: "x") }
            let res = e.submit(r)
            #expect(res.status == .refused, "kind \(kind)")
            #expect(res.reason == .busy)
            #expect(String(cString: res.guardID!) == "org.navguard.bar-should")
        }
        // Replace-stack is not a bar push/pop: it passes.
        #expect(e.submit(Request.replace([Screen(id: 1, route: "home")])).status == .applied)
        #expect(rec.outcomes.count == 7)
    }

    @Test func backPassesTheSameGuardAsPop() throws {
        let (e, _) = try makeGuardEngine([GuardSpec(ngg_bar_should_descriptor())])
        _ = e.submit(push(2, "menu"))
        try e.finishTransition(.screen)          // bar track still animating
        let pop = e.submit(Request(kind: .pop))
        let back = e.submit(Request(kind: .back))
        #expect(pop.status == .refused && back.status == .refused)
        #expect(pop.reason == back.reason)
        try e.finishTransition(.bar)
        #expect(e.submit(Request(kind: .back)).status == .applied)
        #expect(e.stackIDs == [1])
    }
}

@Suite struct TransitionGuardTests {
    @Test func refuseMode() throws {
        let (e, _) = try makeGuardEngine([GuardSpec(ngg_transition_descriptor(), #"{"mode":"refuse"}"#)])
        _ = e.submit(push(2, "menu"))
        let r = e.submit(push(3, "item"))
        #expect(r.status == .refused && r.reason == .busy)
        try e.finishTransition(.all)
        #expect(e.submit(push(3, "item")).status == .applied)
    }

    @Test func queueKeepAllAppliesInOrderOneAtATime() throws {
        let (e, rec) = try makeGuardEngine([GuardSpec(ngg_transition_descriptor(), #"{"mode":"queue","keep":"all","limit":2}"#)])
        _ = e.submit(push(2, "menu"))
        let a = e.submit(push(3, "item"))
        let b = e.submit(push(4, "checkout"))
        let c = e.submit(push(5, "extra"))
        #expect(a.status == .deferred && b.status == .deferred)
        #expect(c.status == .refused && c.reason == .queueFull)
        try e.finishTransition(.all)              // menu shown → item applied
        #expect(rec.outcome(of: a.requestID)?.outcome == .applied)
        #expect(rec.outcome(of: b.requestID) == nil)
        #expect(e.stackIDs == [1, 2, 3])
        try e.finishTransition(.all)              // item shown → checkout applied
        #expect(rec.outcome(of: b.requestID)?.outcome == .applied)
        #expect(e.stackIDs == [1, 2, 3, 4])
    }

    @Test func queueKeepLastSupersedes() throws {
        let (e, rec) = try makeGuardEngine([GuardSpec(ngg_transition_descriptor(), #"{"mode":"queue","keep":"last"}"#)])
        _ = e.submit(push(2, "menu"))
        let a = e.submit(push(3, "item"))
        let b = e.submit(push(4, "checkout"))
        #expect(rec.outcome(of: a.requestID)?.outcome == .dropped)
        #expect(rec.outcome(of: a.requestID)?.reason == .superseded)
        try e.finishTransition(.all)
        #expect(rec.outcome(of: b.requestID)?.outcome == .applied)
        #expect(e.stackIDs == [1, 2, 4])
    }

    @Test func deferredRequestThatBecameInvalidIsDropped() throws {
        let (e, rec) = try makeGuardEngine([GuardSpec(ngg_transition_descriptor(), #"{"queue":["pop-to-root"]}"#)])
        _ = e.submit(push(2, "menu"))
        let first = e.submit(Request(kind: .popToRoot))     // both valid now, both deferred
        let second = e.submit(Request(kind: .popToRoot))
        #expect(first.status == .deferred && second.status == .deferred)
        try e.finishTransition(.all)
        // The first is not animated: it completes at once and the queue
        // releases the second, which now finds only the root.
        #expect(rec.outcome(of: first.requestID)?.outcome == .applied)
        let o = rec.outcome(of: second.requestID)
        #expect(o?.outcome == .dropped)
        #expect(o?.reason == .atRoot)
        #expect(e.stackIDs == [1])
    }

    @Test func destroyDropsQueuedRequests() throws {
        let (e, rec) = try makeGuardEngine([GuardSpec(ngg_transition_descriptor())])
        _ = e.submit(push(2, "menu"))
        let a = e.submit(push(3, "item"))
        e.destroy()
        #expect(rec.outcome(of: a.requestID)?.reason == .destroyed)
        #expect(rec.outcomes.filter { $0.requestID == a.requestID }.count == 1)
    }

    @Test func badConfigIsRefusedBeforeCreate() throws {
        let (e, rec) = try makeGuardEngine([])
        // Type and range errors: the declared options, checked by the host.
        for (config, says) in [(#"{"mode":"nonsense"}"#, #"option "mode" must be one of "refuse", "queue", not "nonsense""#),
                               (#"{"limit":0}"#, #"option "limit" must be an integer in 1..64, not 0"#),
                               (#"{"limit":"8"}"#, #"option "limit" must be an integer in 1..64, not "8""#),
                               (#"{"kep":"last"}"#, #"unknown option "kep"; valid keys: queue, mode, keep, limit"#)] {
            do { try e.addGuard(ngg_transition_descriptor(), configText: config); Issue.record("\(config) accepted") } catch {
                #expect(error.status == NG_E_PARSE && error.message == "guard org.navguard.transition: " + says, "\(error.message)")
            }
        }
        #expect(rec.logs.isEmpty, "create() never ran")
        // A list's items are declared too (the request kinds).
        do { try e.addGuard(ngg_transition_descriptor(), configText: #"{"queue":["jump"]}"#); Issue.record("accepted") } catch {
            #expect(error.status == NG_E_PARSE)
            #expect(error.message.hasPrefix(#"guard org.navguard.transition: option "queue" must be an array of 0..7 strings from push, pop,"#), "\(error.message)")
        }
        #expect(e.guardCount == 0)
    }

    @Test func perKindPolicyQueuesPushesAndRefusesPops() throws {
        let (e, rec) = try makeGuardEngine([GuardSpec(ngg_transition_descriptor())])
        _ = e.submit(push(2, "menu"))
        let back = e.submit(Request(kind: .back))
        #expect(back.status == .refused && back.reason == .busy)
        let p = e.submit(push(3, "item"))
        #expect(p.status == .deferred)
        // Busy until both tracks are idle: the bar still animates here.
        try e.finishTransition(.screen)
        #expect(rec.outcome(of: p.requestID) == nil)
        #expect(e.submit(Request(kind: .pop)).reason == .busy)
        try e.finishTransition(.bar)
        #expect(rec.outcome(of: p.requestID)?.outcome == .applied)
        #expect(e.stackIDs == [1, 2, 3])
    }
}

@Suite struct DedupeTests {
    @Test func topMode() throws {
        let (e, _) = try makeGuardEngine([GuardSpec(ngg_dedupe_descriptor())])
        _ = e.submit(push(2, "item", animated: false, identity: "item-42"))
        let dup = e.submit(push(3, "item", animated: false, identity: "item-42"))
        #expect(dup.status == .refused && dup.reason == .duplicate)
        #expect(e.submit(push(4, "item", animated: false, identity: "item-43")).status == .applied)
        // Identity of a lower screen is fine in mode top.
        #expect(e.submit(push(5, "item", animated: false, identity: "item-42")).status == .applied)
    }

    @Test func stackModeIncludesQueuedScreens() throws {
        let (e, _) = try makeGuardEngine([GuardSpec(ngg_dedupe_descriptor(), #"{"mode":"stack"}"#),
                                          GuardSpec(ngg_transition_descriptor())])
        _ = e.submit(push(2, "menu"))
        #expect(e.submit(push(3, "home")).reason == .duplicate)      // root's identity
        #expect(e.submit(push(4, "item")).status == .deferred)
        let again = e.submit(push(5, "item"))                               // already queued
        #expect(again.status == .refused && again.reason == .duplicate)
    }
}

@Suite struct ThrottleTests {
    @Test func perSourceInterval() throws {
        let (e, _) = try makeGuardEngine([GuardSpec(ngg_throttle_descriptor(), #"{"interval_ms":300}"#)])
        #expect(e.submit(push(2, "a", animated: false, source: 1)).status == .applied)
        try e.advanceTime(299 * msNs)
        let r = e.submit(push(3, "b", animated: false, source: 1))
        #expect(r.status == .refused && r.reason == .throttled)
        #expect(e.submit(push(4, "c", animated: false, source: 2)).status == .applied)
        try e.advanceTime(1 * msNs)
        #expect(e.submit(push(5, "d", animated: false, source: 1)).status == .applied)
    }

    @Test func refusedRequestsDoNotRestartTheInterval() throws {
        let (e, _) = try makeGuardEngine([GuardSpec(ngg_throttle_descriptor())])
        _ = e.submit(push(2, "a", animated: false))
        try e.advanceTime(200 * msNs)
        _ = e.submit(push(3, "b", animated: false))       // throttled, not applied
        try e.advanceTime(100 * msNs)
        #expect(e.submit(push(4, "c", animated: false)).status == .applied)
    }
}

@Suite struct GlobalIgnoreTests {
    @Test func holdsInputFromWillToDid() throws {
        let (e, rec) = try makeGuardEngine([GuardSpec(ngg_global_ignore_descriptor())])
        _ = e.submit(push(2, "menu"))
        #expect(e.holdMask == UInt32(NG_MASK_DEFAULT))
        let t = e.submitTestTouch(NG_TOUCH_BEGAN, id: 1, view: 7)
        #expect(t.verdict == .drop && t.reason == .ignoring)
        #expect(e.submitTestEvent(type: NG_EVENT_MOTION).verdict == .drop)
        #expect(e.submitTestEvent(type: NG_EVENT_KEY).verdict == .deliver)   // not in the mask
        try e.finishTransition(.all)
        #expect(e.holdMask == 0)
        #expect(rec.holdEnds.count == 1)
        // The touch withheld at began stays withheld after the block ends.
        #expect(e.submitTestTouch(NG_TOUCH_ENDED, id: 1, view: 7).reason == .withheld)
    }

    @Test func releasedWhenInteractiveBackIsCancelled() throws {
        let (e, _) = try makeGuardEngine([GuardSpec(ngg_global_ignore_descriptor())])
        _ = e.submit(push(2, "menu", animated: false))
        _ = e.submit(Request(kind: .interactiveBack))
        #expect(e.holdMask != 0)
        try e.cancelInteractive()
        #expect(e.holdMask == 0)
        #expect(e.stackIDs == [1, 2])
    }

    @Test func cancelsDeliveredTouchesWhenTheTransitionStarts() throws {
        let (e, rec) = try makeGuardEngine([GuardSpec(ngg_global_ignore_descriptor())])
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 5, view: 3).verdict == .deliver)
        _ = e.submit(push(2, "menu"))
        #expect(rec.touchCancels.map(\.touch_id) == [5])
        #expect(rec.touchCancels.first?.view_id == 3)
        let end = e.submitTestTouch(NG_TOUCH_ENDED, id: 5, view: 3)
        #expect(end.verdict == .drop && end.reason == .cancelled)
    }

    @Test func optionOffTakesNoHold() throws {
        let (e, _) = try makeGuardEngine([GuardSpec(ngg_global_ignore_descriptor(), #"{"hold_during_transitions":false}"#)])
        _ = e.submit(push(2, "menu"))
        #expect(e.holdMask == 0)
    }
}

/// Order is configurable and matters: the same push made during an animated
/// push is refused when bar-should comes first, deferred and later applied
/// when the transition queue comes first.
@Suite struct ChainOrderTests {
    @Test func twoOrdersGiveDifferentOutcomes() throws {
        let bar = GuardSpec(ngg_bar_should_descriptor())
        let queue = GuardSpec(ngg_transition_descriptor(), #"{"mode":"queue"}"#)

        let (e1, rec1) = try makeGuardEngine([bar, queue])
        _ = e1.submit(push(2, "menu"))
        let r1 = e1.submit(push(3, "item"))
        #expect(r1.status == .refused && r1.reason == .busy)
        #expect(String(cString: r1.guardID!) == "org.navguard.bar-should")
        try e1.finishTransition(.all)
        #expect(e1.stackIDs == [1, 2])
        #expect(rec1.outcome(of: r1.requestID)?.outcome == .refused)

        let (e2, rec2) = try makeGuardEngine([queue, bar])
        _ = e2.submit(push(2, "menu"))
        let r2 = e2.submit(push(3, "item"))
        #expect(r2.status == .deferred)
        #expect(String(cString: r2.guardID!) == "org.navguard.transition")
        try e2.finishTransition(.all)
        #expect(rec2.outcome(of: r2.requestID)?.outcome == .applied)
        #expect(e2.stackIDs == [1, 2, 3])
    }
}

/// The failure scenarios (double push, back during a transition, a cancelled
/// swipe, a stuck transition...) through the default chain's guards, in its order.
@Suite struct DefaultChainTests {
    static var chain: [GuardSpec] { [
        GuardSpec(ngg_global_ignore_descriptor()), GuardSpec(ngg_exclusive_touch_descriptor()),
        GuardSpec(ngg_throttle_descriptor()), GuardSpec(ngg_dedupe_descriptor()),
        GuardSpec(ngg_bar_should_descriptor()), GuardSpec(ngg_transition_descriptor(), #"{"mode":"queue"}"#),
    ] }

    @Test func doubleTapOnNextPushesOnce() throws {
        let (e, _) = try makeGuardEngine(Self.chain)
        #expect(e.submit(push(2, "menu", source: 1)).status == .applied)
        try e.advanceTime(80 * msNs)
        let second = e.submit(push(3, "menu", source: 1))
        #expect(second.status == .refused)
        try e.finishTransition(.all)
        #expect(e.stackIDs == [1, 2])
    }

    @Test func backDuringPushIsRefused() throws {
        let (e, _) = try makeGuardEngine(Self.chain)
        _ = e.submit(push(2, "menu", source: 1))
        let back = e.submit(Request(kind: .back, source: 2))
        #expect(back.status == .refused && back.reason == .busy)
        try e.finishTransition(.all)
        #expect(e.stackIDs == [1, 2])
    }

    @Test func networkReplyMidTransitionIsQueued() throws {
        let (e, rec) = try makeGuardEngine(Self.chain)
        _ = e.submit(push(2, "menu", source: 1))
        try e.finishTransition(.bar)              // the bar ends first
        let reply = e.submit(push(3, "item", source: 9))
        #expect(reply.status == .deferred)
        try e.finishTransition(.screen)
        #expect(rec.outcome(of: reply.requestID)?.outcome == .applied)
        #expect(e.stackIDs == [1, 2, 3])
    }
}
