// SPDX-License-Identifier: Apache-2.0
// Input routing: verdicts, hit-tested targets, touch binding, UIKit's
// exclusive-touch and multi-touch rules, cancel on block, and a property
// test of the touch invariants.
import CNavGuard
import NavGuardBuiltins
@testable import NavGuardCore
import Testing

private func view(_ id: UInt64, parent: UInt64 = 0, _ x: Double, _ y: Double, _ w: Double, _ h: Double,
                  order: Int32 = 0, flags: ViewFlags = [.interactionEnabled]) -> ViewSpec {
    ViewSpec(id: id, parent: parent, frame: Rect(x: x, y: y, width: w, height: h), order: order, flags: flags)
}

/// A guard that drops every event of one type, to check chain order.
private final class DropType {
    let type: Int32
    let reason: Int32
    init(type: Int32, reason: Int32) { self.type = type; self.reason = reason }
}

private func dropTypeDescriptor(_ id: StaticString) -> UnsafePointer<ng_plugin_descriptor> {
    let d = UnsafeMutablePointer<ng_plugin_descriptor>.allocate(capacity: 1)
    d.initialize(to: ng_plugin_descriptor())
    d.pointee.abi_major = UInt32(NG_PLUGIN_ABI_MAJOR)
    d.pointee.abi_minor = UInt32(NG_PLUGIN_ABI_MINOR)
    d.pointee.size = UInt32(MemoryLayout<ng_plugin_descriptor>.size)
    let cid = UnsafeRawPointer(id.utf8Start).assumingMemoryBound(to: CChar.self)
    d.pointee.id = cid
    d.pointee.name = cid
    d.pointee.version = cid
    d.pointee.description = cid
    d.pointee.create = { host, config in
        var t: Int64 = 0
        var r: Int64 = 0
        _ = host!.pointee.config_int(host, "type", &t)
        _ = host!.pointee.config_int(host, "reason", &r)
        return Unmanaged.passRetained(DropType(type: Int32(t), reason: Int32(r))).toOpaque()
    }
    d.pointee.destroy = { inst in Unmanaged<DropType>.fromOpaque(inst!).release() }
    d.pointee.on_event = { inst, ev, verdict in
        let g = Unmanaged<DropType>.fromOpaque(inst!).takeUnretainedValue()
        guard ev!.pointee.event.pointee.type == g.type else { return NG_VOTE_ALLOW }
        verdict!.pointee.reason = g.reason
        return NG_VOTE_REFUSE
    }
    return UnsafePointer(d)
}

@Suite struct EventVerdictTests {
    @Test func firstDropInChainOrderWins() throws {
        let a = dropTypeDescriptor("org.test.drop-a")
        let b = dropTypeDescriptor("org.test.drop-b")
        let (e, _) = try makeGuardEngine([
            GuardSpec(a, #"{"type":3,"reason":11}"#),     // keys
            GuardSpec(b, #"{"type":3,"reason":1}"#),
        ])
        let v = e.submitTestEvent(type: NG_EVENT_KEY, code: 13)
        #expect(v.verdict == .drop && v.reason == .policy)
        #expect(String(cString: v.guardID!) == "org.test.drop-a")
        #expect(e.submitTestEvent(type: NG_EVENT_SCROLL).verdict == .deliver)
    }

    @Test func everyEventTypeGetsAVerdict() throws {
        let (e, _) = try makeGuardEngine([])
        for t in [NG_EVENT_MOTION, NG_EVENT_REMOTE, NG_EVENT_KEY, NG_EVENT_SCROLL, NG_EVENT_HOVER] {
            #expect(e.submitTestEvent(type: t).verdict == .deliver)
        }
    }

    @Test func holdMaskDropsOnlyItsTypes() throws {
        let (e, _) = try makeGuardEngine([])
        let tok = try e.beginHold(label: CStr("cache purge"), mask: UInt32(NG_MASK_REMOTE | NG_MASK_KEY), maxDurationNs: 0)
        #expect(e.submitTestEvent(type: NG_EVENT_REMOTE).reason == .ignoring)
        #expect(e.submitTestEvent(type: NG_EVENT_KEY).verdict == .drop)
        #expect(e.submitTestEvent(type: NG_EVENT_MOTION).verdict == .deliver)
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 1, view: 4).verdict == .deliver)
        try e.endHold(tok)
        #expect(e.submitTestEvent(type: NG_EVENT_KEY).verdict == .deliver)
    }
}

@Suite struct TouchTrackingTests {
    @Test func targetIsHitTestedAtBeganAndKeptUntilTheEnd() throws {
        let (e, _) = try makeGuardEngine([])
        try e.setView(view(10, 0, 0, 100, 100))
        try e.setView(view(11, parent: 10, 10, 10, 20, 20))
        let began = e.submitTestEvent(type: NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touchID: 1, x: 15, y: 15)
        #expect(began.target == 11)
        // The view moves away; the touch is not re-hit-tested.
        try e.setView(view(11, parent: 10, 60, 60, 20, 20))
        let moved = e.submitTestEvent(type: NG_EVENT_TOUCH, phase: NG_TOUCH_MOVED, touchID: 1, x: 15, y: 15)
        #expect(moved.target == 11 && moved.verdict == .deliver)
        let ended = e.submitTestEvent(type: NG_EVENT_TOUCH, phase: NG_TOUCH_ENDED, touchID: 1, x: 90, y: 90)
        #expect(ended.target == 11 && ended.verdict == .deliver)
        #expect(e.touchCount == 0)
    }

    @Test func missAtRootHasNoTarget() throws {
        let (e, _) = try makeGuardEngine([])
        try e.setView(view(10, 0, 0, 100, 100))
        #expect(e.submitTestEvent(type: NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touchID: 1, x: 150, y: 5).target == 0)
    }

    @Test func protocolErrorsAreDroppedNotCrashed() throws {
        let (e, _) = try makeGuardEngine([])
        #expect(e.submitTestTouch(NG_TOUCH_MOVED, id: 77, view: 1).reason == .invalid)
        #expect(e.submitTestTouch(NG_TOUCH_ENDED, id: 77, view: 1).reason == .invalid)
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 1, view: 1).verdict == .deliver)
        // Began twice: the first touch's end was lost. It ends with a cancel
        // and the second is a new touch, never blocked.
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 1, view: 1).verdict == .deliver)
        #expect(e.touchCount == 1)
        #expect(e.submitTestTouch(NG_TOUCH_CANCELLED, id: 1, view: 1).verdict == .deliver)
        #expect(e.touchCount == 0)
    }

    @Test func removingAViewCancelsItsTouches() throws {
        let (e, rec) = try makeGuardEngine([])
        try e.setView(view(10, 0, 0, 100, 100))
        try e.setView(view(11, parent: 10, 0, 0, 50, 50))
        _ = e.submitTestEvent(type: NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touchID: 1, x: 5, y: 5)
        _ = e.submitTestTouch(NG_TOUCH_BEGAN, id: 2, view: 999)           // host-targeted, not in the tree
        try e.removeView(10)
        #expect(rec.touchCancels.map(\.touch_id) == [1])
        #expect(e.submitTestTouch(NG_TOUCH_ENDED, id: 1, view: 0).reason == .cancelled)
        #expect(e.submitTestTouch(NG_TOUCH_ENDED, id: 2, view: 0).verdict == .deliver)
    }
}

@Suite struct ExclusiveTouchTests {
    func engine(_ config: String = "{}") throws -> Engine {
        let (e, _) = try makeGuardEngine([GuardSpec(ngg_exclusive_touch_descriptor(), config)])
        try e.setView(view(1, 0, 0, 100, 50))                                          // plain
        try e.setView(view(2, 0, 50, 100, 50, flags: [.interactionEnabled, .exclusiveTouch]))
        try e.setView(view(3, 100, 0, 100, 100, flags: [.interactionEnabled, .multipleTouch]))
        return e
    }

    @Test func exclusiveViewOnlyWhenNoOtherViewTracks() throws {
        let e = try engine()
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 1, view: 1).verdict == .deliver)
        let x = e.submitTestTouch(NG_TOUCH_BEGAN, id: 2, view: 2)
        #expect(x.verdict == .drop && x.reason == .exclusive)
        // Withheld for its whole life, even after the other touch ended.
        _ = e.submitTestTouch(NG_TOUCH_ENDED, id: 1, view: 1)
        #expect(e.submitTestTouch(NG_TOUCH_MOVED, id: 2, view: 2).reason == .withheld)
        #expect(e.submitTestTouch(NG_TOUCH_ENDED, id: 2, view: 2).reason == .withheld)
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 3, view: 2).verdict == .deliver)
    }

    @Test func anyViewWithheldWhileAnExclusiveViewTracks() throws {
        let e = try engine()
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 1, view: 2).verdict == .deliver)
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 2, view: 1).reason == .exclusive)
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 3, view: 3).reason == .exclusive)
    }

    @Test func multipleTouchOffWithholdsTheSecondTouch() throws {
        let e = try engine()
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 1, view: 1).verdict == .deliver)
        let second = e.submitTestTouch(NG_TOUCH_BEGAN, id: 2, view: 1)
        #expect(second.verdict == .drop && second.reason == .multiTouch)
        #expect(second.target == 1)                       // not passed to another view
        // Multiple touch on: both delivered.
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 3, view: 3).verdict == .deliver)
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 4, view: 3).verdict == .deliver)
    }

    @Test func everyViewExclusiveOption() throws {
        let e = try engine(#"{"every_view_exclusive":true}"#)
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 1, view: 3).verdict == .deliver)
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 2, view: 1).reason == .exclusive)
    }

    @Test func aRefusedBeganMarksTheTouchesInItsWay() throws {
        // ng_touch_info in_way_ns: MULTI_TOUCH blames the touches on its own
        // view, EXCLUSIVE those on other views; a delivery or another drop
        // blames nobody.
        let e = try engine()
        func inWay() -> [UInt64: Int64] {
            Dictionary(uniqueKeysWithValues: (0..<e.touchCount).compactMap { e.touch(at: $0) }.map { ($0.touch_id, $0.in_way_ns) })
        }
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 1, view: 1).verdict == .deliver)
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 2, view: 3).verdict == .deliver)
        #expect(inWay() == [1: 0, 2: 0])
        try e.advanceTime(5 * msNs)
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 3, view: 1).reason == .multiTouch)
        #expect(inWay() == [1: 5 * msNs, 2: 0, 3: 0], "its own view's touch")
        try e.advanceTime(5 * msNs)
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 4, view: 2).reason == .exclusive)
        #expect(inWay() == [1: 10 * msNs, 2: 10 * msNs, 3: 0, 4: 0], "the delivered touches on other views")
        _ = try e.beginHold(label: nil, mask: UInt32(NG_MASK_TOUCH), maxDurationNs: 0)   // cancels 1 and 2
        try e.advanceTime(5 * msNs)
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 5, view: 1).reason == .ignoring)
        #expect(inWay().values.allSatisfy { $0 == 0 }, "withheld touches are in nobody's way, and IGNORING blames none")
    }

    @Test func unregisteredViewsHaveUIKitDefaults() throws {
        let e = try engine()
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 1, view: 500).verdict == .deliver)
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 2, view: 500).reason == .multiTouch)
        #expect(e.submitTestTouch(NG_TOUCH_BEGAN, id: 3, view: 501).verdict == .deliver)
    }
}

@Suite struct CancelOnBlockTests {
    @Test func touchHoldCancelsEveryDeliveredTouchOnce() throws {
        let (e, rec) = try makeGuardEngine([])
        _ = e.submitTestTouch(NG_TOUCH_BEGAN, id: 1, view: 5)
        _ = e.submitTestTouch(NG_TOUCH_BEGAN, id: 2, view: 6)
        let tok = try e.beginHold(label: CStr("modal"), mask: 0, maxDurationNs: 0)
        #expect(Set(rec.touchCancels.map(\.touch_id)) == [1, 2])
        _ = try e.beginHold(label: nil, mask: UInt32(NG_MASK_TOUCH), maxDurationNs: 0)  // second block: nothing live
        #expect(rec.touchCancels.count == 2)
        #expect(e.submitTestTouch(NG_TOUCH_MOVED, id: 1, view: 5).reason == .cancelled)
        try e.endHold(tok)
        #expect(e.submitTestTouch(NG_TOUCH_ENDED, id: 2, view: 6).reason == .cancelled)
    }

    @Test func holdWithoutTouchesCancelsNothing() throws {
        let (e, rec) = try makeGuardEngine([])
        _ = e.submitTestTouch(NG_TOUCH_BEGAN, id: 1, view: 5)
        _ = try e.beginHold(label: nil, mask: UInt32(NG_MASK_MOTION), maxDurationNs: 0)
        #expect(rec.touchCancels.isEmpty)
        #expect(e.submitTestTouch(NG_TOUCH_ENDED, id: 1, view: 5).verdict == .deliver)
    }

    @Test func destroyCancelsLiveTouches() throws {
        let (e, rec) = try makeGuardEngine([])
        _ = e.submitTestTouch(NG_TOUCH_BEGAN, id: 1, view: 5)
        e.destroy()
        #expect(rec.touchCancels.map(\.touch_id) == [1])
    }
}

/// Invariants over random sequences of events, holds, requests and time.
@Suite struct InputPropertyTests {
    final class TouchLedger: EngineObserver {
        var cancelled: [UInt64: UInt64] = [:]     // touch → view of the cancel
        var cancelCount: [UInt64: Int] = [:]
        func engineOutcome(_ outcome: OutcomeRecord) {}
        func engineTouchCancelled(_ touch: ng_touch_info) {
            cancelled[touch.touch_id] = touch.view_id
            cancelCount[touch.touch_id, default: 0] += 1
        }
    }

    @Test func touchInvariants() throws {
        var rng = SeededRNG(seed: 0x5EED_1234)
        for run in 0..<10_000 {
            let e = Engine(EngineConfig(clock: .manual(startNs: 0)))
            let ledger = TouchLedger()
            e.observer = ledger
            try e.setRoot(Screen(id: 1, route: "home"))
            if rng.next() % 2 == 0 { try e.addGuard(ngg_global_ignore_descriptor(), configText: "{}") }
            if rng.next() % 3 != 0 {
                try e.addGuard(ngg_exclusive_touch_descriptor(), configText: rng.next() % 4 == 0 ? #"{"every_view_exclusive":true}"# : "{}")
            }
            for v in 1...4 as ClosedRange<UInt64> {
                var flags: ViewFlags = [.interactionEnabled]
                if rng.next() % 3 == 0 { flags.insert(.exclusiveTouch) }
                if rng.next() % 3 == 0 { flags.insert(.multipleTouch) }
                try e.setView(view(v, Double(v - 1) * 50, 0, 50, 50, flags: flags))
            }
            var deliveredBegan: [UInt64: UInt64] = [:]     // touch → view
            var withheld: Set<UInt64> = []
            var ended: [UInt64: Int] = [:]
            var live: [UInt64] = []
            var nextTouch: UInt64 = 1
            var holds: [UInt64] = []
            var nextScreen: UInt64 = 2
            let steps = 10 + Int(rng.next() % 30)
            for _ in 0..<steps {
                switch rng.next() % 10 {
                case 0, 1, 2:
                    let id = nextTouch
                    nextTouch += 1
                    let x = Double(rng.next() % 220)
                    let v = e.submitTestEvent(type: NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touchID: id, x: x, y: 10)
                    if v.verdict == .deliver { deliveredBegan[id] = v.target } else { withheld.insert(id) }
                    live.append(id)
                case 3, 4:
                    guard !live.isEmpty else { continue }
                    let id = live[Int(rng.next() % UInt64(live.count))]
                    let v = e.submitTestEvent(type: NG_EVENT_TOUCH, phase: NG_TOUCH_MOVED, touchID: id, x: 1, y: 1)
                    if v.verdict == .deliver {
                        #expect(!withheld.contains(id), "run \(run): withheld touch moved")
                        #expect(deliveredBegan[id] == v.target, "run \(run): touch reached two views")
                    }
                case 5, 6:
                    guard !live.isEmpty else { continue }
                    let i = Int(rng.next() % UInt64(live.count))
                    let id = live.remove(at: i)
                    let phase = rng.next() % 4 == 0 ? NG_TOUCH_CANCELLED : NG_TOUCH_ENDED
                    let v = e.submitTestEvent(type: NG_EVENT_TOUCH, phase: phase, touchID: id, x: 500, y: 500)
                    if v.verdict == .deliver {
                        #expect(!withheld.contains(id), "run \(run): withheld touch ended delivered")
                        #expect(deliveredBegan[id] == v.target, "run \(run): end at another view")
                        ended[id, default: 0] += 1
                    }
                case 7:
                    if rng.next() % 2 == 0 || holds.isEmpty {
                        let mask = UInt32(rng.next() % 2 == 0 ? NG_MASK_TOUCH : NG_MASK_MOTION)
                        holds.append(try e.beginHold(label: nil, mask: mask, maxDurationNs: Int64(rng.next() % 3) * 100 * msNs))
                    } else {
                        try? e.endHold(holds.removeLast())
                    }
                case 8:
                    let r = Request.push(Screen(id: nextScreen, route: "s\(nextScreen)"), flags: animatedFlag)
                    nextScreen += 1
                    _ = e.submit(r)
                    if rng.next() % 2 == 0 { try? e.finishTransition(.all) }
                default:
                    try e.advanceTime(Int64(rng.next() % 200) * msNs)
                    try e.tick()
                }
            }
            e.destroy()
            for (id, view) in deliveredBegan {
                let ends = ended[id, default: 0] + ledger.cancelCount[id, default: 0]
                #expect(ends == 1, "run \(run): touch \(id) got \(ends) ends")
                if let cv = ledger.cancelled[id] { #expect(cv == view, "run \(run): cancel at another view") }
            }
            for id in withheld { #expect(ledger.cancelCount[id] == nil, "run \(run): withheld touch cancelled") }
        }
    }
}

/// SplitMix64, seeded: the same sequences on every run.
struct SeededRNG {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
