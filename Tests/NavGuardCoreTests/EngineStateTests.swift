// SPDX-License-Identifier: Apache-2.0
// Engine.State, the engine's state as one value: taken from one engine and
// restored into another it carries the stack (flags, focus tokens), the
// views, the live presses and the ids handed out next; what it cannot
// recreate (live holds, touches, transitions, deferred requests, a
// question) it refuses, and a refused restore changes nothing.
import CNavGuard
@testable import NavGuardCore
import Testing

@Suite struct EngineStateTests {
    func keyDown(_ e: Engine, _ code: Int64) -> EventVerdict {
        var ev = ng_event()
        ev.size = UInt32(MemoryLayout<ng_event>.size)
        ev.type = NG_EVENT_KEY
        ev.phase = NG_KEY_DOWN
        ev.touch_id = 5
        ev.code = code
        return withUnsafePointer(to: &ev) { e.submitEvent($0) }
    }

    @Test func aStateTakenFromOneEngineRestoresIntoAnother() throws {
        let (a, _) = makeEngine()
        a.push(2, "menu", flags: 0)
        try a.setScreenFocus(1, 0xF00D)
        #expect(keyDown(a, 13).verdict == .deliver)
        let s = a.state
        #expect(s.parts == .all && s.stackCount == 2 && s.pressCount == 1)
        #expect(s.liveCounts.presses == 1 && s.liveCounts.holds == 0)

        // Only what restore can recreate: the live parts are empty here.
        var portable = s
        portable.parts = portable.parts.intersection(Engine.State.Parts.restorable)
        let (b, _) = makeEngine()
        try b.restore(portable)
        #expect(try b.ids == [1, 2] && b.screenFocus(1) == 0xF00D)
        #expect(b.counters.requestID == a.counters.requestID && b.counters.holdToken == a.counters.holdToken)
        #expect(b.pressCount == 1 && b.state.press(at: 0) == s.press(at: 0))
        a.destroy()
        b.destroy()
    }

    @Test func liveHoldsAreRefusedAndARefusalChangesNothing() throws {
        let (a, _) = makeEngine()
        _ = try a.beginHold(label: nil, mask: UInt32(NG_MASK_TOUCH), maxDurationNs: 0)
        let held = a.state
        #expect(held.holdCount == 1)
        let (b, _) = makeEngine(root: 7, route: "other")
        let before = b.counters
        #expect(statusOf { () throws(EngineError) in try b.restore(held) } == NG_E_STATE)
        #expect(b.ids == [7] && b.counters.requestID == before.requestID)

        // Nor into an engine with a live hold of its own, even an empty state's parts.
        var empty = Engine.State(stack: [Screen(id: 3, route: "x")])
        empty.parts.formUnion(Engine.State.Parts.live)
        #expect(statusOf { () throws(EngineError) in try a.restore(empty) } == NG_E_STATE)
        #expect(a.ids == [1])
        a.destroy()
        b.destroy()
    }

    @Test func pressesAreRestoredOnlyIntoAnEngineThatKnowsNone() throws {
        let (a, _) = makeEngine()
        #expect(keyDown(a, 13).verdict == .deliver)
        var s = Engine.State(stack: [Screen(id: 9, route: "nine")])
        try s.addPress(a.state.press(at: 0)!)
        // The same key twice, or a state outside PressTable's rules, is refused by the builder.
        #expect(statusOf { () throws(EngineError) in try s.addPress(a.state.press(at: 0)!) } == NG_E_RANGE)
        var bad = a.state.press(at: 0)!
        bad.state = 7
        bad.code = 14
        #expect(statusOf { () throws(EngineError) in try s.addPress(bad) } == NG_E_RANGE)
        // The stack is checked with the presses: nothing changes.
        #expect(statusOf { () throws(EngineError) in try a.restore(s) } == NG_E_STATE)
        #expect(a.ids == [1])
        a.destroy()
    }

    @Test func aBadStackOrCounterChangesNothing() throws {
        let (e, _) = makeEngine()
        let before = e.counters
        var dup = Engine.State(stack: [Screen(id: 2, route: "a"), Screen(id: 2, route: "b")])
        dup.counters = Engine.Counters(requestID: 99, holdToken: 99, guardRequestID: before.guardRequestID, questionID: 99)
        #expect(statusOf { () throws(EngineError) in try e.restore(dup) } == NG_E_RANGE)
        #expect(e.ids == [1] && e.counters.requestID == before.requestID)
        var zero = Engine.State(stack: [Screen(id: 2, route: "a")])
        zero.counters = Engine.Counters(requestID: 0, holdToken: 1, guardRequestID: before.guardRequestID, questionID: 1)
        #expect(statusOf { () throws(EngineError) in try e.restore(zero) } == NG_E_RANGE)
        #expect(e.ids == [1])
        // In flight: refused, and the counters are not set either.
        #expect(e.push(3, flags: ANIMATED).status == .applied)
        var ok = Engine.State(stack: [Screen(id: 4, route: "d")])
        ok.counters = Engine.Counters(requestID: 500, holdToken: 1, guardRequestID: before.guardRequestID, questionID: 1)
        #expect(statusOf { () throws(EngineError) in try e.restore(ok) } == NG_E_STATE)
        #expect(e.counters.requestID != 500)
        e.destroy()
    }

    @Test func aSnapshotIsTheStatesStack() throws {
        let (e, _) = makeEngine()
        e.push(2, "menu")
        try e.setScreenFocus(2, 5)
        #expect(e.snapshot() == e.state.snapshot())
        var bytes = Array(e.snapshot().utf8)
        let s = try bytes.withUnsafeMutableBufferPointer { b throws(EngineError) in
            try Engine.State(snapshot: UnsafeBufferPointer(b))
        }
        #expect(s.parts == .stack && s.stack.map(\.id) == [1, 2] && s.stack[1].focus == 5)
        e.destroy()
    }
}
