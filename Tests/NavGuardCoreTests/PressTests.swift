// SPDX-License-Identifier: Apache-2.0
// Keys and controller buttons have a life, as touches do (navguard.h,
// "Presses"): one end each, lost ups, removed devices, transitions, holds,
// repeats held through a transition, the down that starts its own
// transition, a full table, destroy.
import CNavGuard
@testable import NavGuardCore
import Testing

/// Records on_press_cancel notices (the core's observer).
final class PressLedger: EngineObserver {
    var cancels: [ng_press_info] = []
    func engineOutcome(_ outcome: OutcomeRecord) {}
    func enginePressCancelled(_ press: ng_press_info) { cancels.append(press) }
    var causes: [Int32] { cancels.map(\.cause) }
}

@Suite struct PressTests {
    let A: Int64 = Int64(NG_BUTTON_A)
    let DOWN = Int64(NG_BUTTON_DPAD_DOWN)

    func engine() -> (Engine, PressLedger) {
        let e = Engine(EngineConfig(clock: .manual(startNs: 0)))
        let l = PressLedger()
        e.observer = l
        try! e.setRoot(Screen(id: 1, route: "title"))
        return (e, l)
    }

    @discardableResult
    func press(_ e: Engine, _ phase: Int32, pad: UInt64 = 0, _ code: Int64, type: Int32 = NG_EVENT_REMOTE) -> EventVerdict {
        var ev = ng_event()
        ev.size = UInt32(MemoryLayout<ng_event>.size)
        ev.type = type
        ev.phase = phase
        ev.touch_id = pad
        ev.code = code
        return withUnsafePointer(to: &ev) { e.submitEvent($0) }
    }

    @Test func aPressEndsOnceByItsUp() {
        let (e, l) = engine()
        #expect(press(e, NG_KEY_DOWN, A).verdict == .deliver)
        #expect(e.pressCount == 1)
        #expect(press(e, NG_KEY_REPEAT, A).verdict == .deliver)
        #expect(press(e, NG_KEY_UP, A).verdict == .deliver)
        #expect(e.pressCount == 0)
        e.destroy()
        #expect(l.cancels.isEmpty)
    }

    @Test func aDownOnAKeyStillDownEndsTheOldPressFirst() {
        let (e, l) = engine()
        press(e, NG_KEY_DOWN, A)
        #expect(press(e, NG_KEY_DOWN, A).verdict == .deliver)
        #expect(l.causes == [NG_PRESS_LOST])
        #expect(e.pressCount == 1)
        #expect(press(e, NG_KEY_UP, A).verdict == .deliver)
        #expect(l.cancels.count == 1)
    }

    @Test func aRemovedControllerEndsItsButtonsOnly() {
        let (e, l) = engine()
        press(e, NG_KEY_DOWN, pad: 0, A)
        press(e, NG_KEY_DOWN, pad: 1, A)
        press(e, NG_KEY_DOWN, pad: 0, 13, type: NG_EVENT_KEY)   // keyboard 0, same id as pad 0
        var gone = Engine.deviceRemovedEvent(type: NG_EVENT_REMOTE, device: 0)
        _ = withUnsafePointer(to: &gone) { e.submitEvent($0) }
        #expect(l.causes == [NG_PRESS_DEVICE_REMOVED])
        #expect(l.cancels.first?.device == 0 && l.cancels.first?.type == NG_EVENT_REMOTE)
        #expect(e.pressCount == 2)
        #expect(press(e, NG_KEY_UP, pad: 1, A).verdict == .deliver)
        #expect(press(e, NG_KEY_UP, pad: 0, 13, type: NG_EVENT_KEY).verdict == .deliver)
    }

    @Test func aTransitionCancelsHeldButtonsAndTheirRepeats() {
        let (e, l) = engine()
        press(e, NG_KEY_DOWN, DOWN)
        #expect(press(e, NG_KEY_REPEAT, DOWN).verdict == .deliver)
        #expect(e.push(2, flags: ANIMATED).status == .applied)
        #expect(l.causes == [NG_PRESS_TRANSITION])
        #expect(l.cancels.first?.screen_id == 1)
        #expect(press(e, NG_KEY_REPEAT, DOWN).reason == .cancelled)
        try! e.finishTransition(.all)
        #expect(press(e, NG_KEY_REPEAT, DOWN).reason == .cancelled)
        #expect(press(e, NG_KEY_UP, DOWN).reason == .cancelled)
        #expect(press(e, NG_KEY_DOWN, DOWN).verdict == .deliver)
        #expect(press(e, NG_KEY_REPEAT, DOWN).verdict == .deliver)
        #expect(l.cancels.count == 1)
    }

    @Test func aNonAnimatedTransitionCancelsToo() {
        let (e, l) = engine()
        press(e, NG_KEY_DOWN, A)
        #expect(e.push(2).status == .applied)
        #expect(l.causes == [NG_PRESS_TRANSITION])
        #expect(press(e, NG_KEY_UP, A).reason == .cancelled)
    }

    @Test func holdsBlockDownsAndCancelPressesOfTheirTypes() throws {
        let (e, l) = engine()
        press(e, NG_KEY_DOWN, 119, type: NG_EVENT_KEY)
        press(e, NG_KEY_DOWN, A)
        let tok = try e.beginHold(label: nil, mask: UInt32(NG_MASK_KEY), maxDurationNs: 0)
        #expect(l.causes == [NG_PRESS_HOLD] && l.cancels.first?.type == NG_EVENT_KEY)
        let blocked = press(e, NG_KEY_DOWN, 115, type: NG_EVENT_KEY)
        #expect(blocked.reason == .ignoring && blocked.holdToken == tok)
        #expect(press(e, NG_KEY_UP, A).verdict == .deliver)
        try e.endHold(tok)
        #expect(press(e, NG_KEY_UP, 115, type: NG_EVENT_KEY).reason == .withheld)
        #expect(press(e, NG_KEY_UP, 119, type: NG_EVENT_KEY).reason == .cancelled)
        #expect(e.pressCount == 0)
    }

    @Test func aDownWhoseOwnVoteStartsATransitionIsDropped() throws {
        let (e, l) = engine()
        #expect(e.push(2).status == .applied)
        // A guard that turns B into a Back: the host never sees B go down.
        let g = TestGuard(id: "test.b-is-back")
        g.onEvent = { g, ev in
            let x = ev.event.pointee
            if x.type == NG_EVENT_REMOTE && x.phase == NG_KEY_DOWN && x.code == Int64(NG_BUTTON_B) {
                _ = g.submit(NG_REQ_POP)
            }
            return NG_VOTE_ALLOW
        }
        try g.add(to: e)
        let v = press(e, NG_KEY_DOWN, Int64(NG_BUTTON_B))
        #expect(v.verdict == .drop && v.reason == .cancelled)
        #expect(e.ids == [1])
        #expect(l.cancels.isEmpty)
        #expect(press(e, NG_KEY_UP, Int64(NG_BUTTON_B)).reason == .cancelled)
    }

    @Test func aFullTableEndsTheOldestFirst() {
        let (e, l) = engine()
        for k in 0..<Int64(maxLivePresses) { press(e, NG_KEY_DOWN, 1000 + k, type: NG_EVENT_KEY) }
        #expect(l.cancels.isEmpty)
        press(e, NG_KEY_DOWN, 5000, type: NG_EVENT_KEY)
        #expect(l.causes == [NG_PRESS_LOST] && l.cancels.first?.code == 1000)
        #expect(e.pressCount == maxLivePresses)
        e.destroy()
        #expect(l.cancels.count == 1 + maxLivePresses)
        #expect(l.cancels.dropFirst().allSatisfy { $0.cause == NG_PRESS_DESTROYED })
    }

    @Test func aStrayUpPassesAsBefore() {
        let (e, _) = engine()
        #expect(press(e, NG_KEY_UP, A).verdict == .deliver)
        #expect(press(e, NG_KEY_REPEAT, A).verdict == .deliver)
        #expect(e.pressCount == 0)
    }
}
