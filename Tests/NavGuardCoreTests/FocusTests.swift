// SPDX-License-Identifier: Apache-2.0
// Focus that comes back: a screen keeps the host's focus token, and hands it
// back in its transition phases when it becomes the top again.
import CNavGuard
@testable import NavGuardCore
import Testing

@Suite struct FocusTests {
    /// The focus token of the last screen-track phase delivered.
    final class Shown {
        var phase: Int32 = -1
        var to: UInt64 = 0
        var focus: UInt64 = 0
    }

    func watch(_ rec: CallbackLog) -> Shown {
        let s = Shown()
        rec.onTransition = { e in
            guard e.track == NG_TRACK_SCREEN else { return }
            s.phase = e.phase
            s.to = e.to_id
            s.focus = e.focus_token
        }
        return s
    }

    @Test func popAndPopToHandTheTokenBack() throws {
        let (e, rec) = makeEngine()
        let shown = watch(rec)
        e.push(2, "menu")
        e.push(3, "options")
        #expect(shown.to == 3 && shown.focus == 0, "a pushed screen is new")
        try e.setScreenFocus(1, 11)
        try e.setScreenFocus(2, .max)
        try e.setScreenFocus(3, 33)
        #expect(try e.screenFocus(3) == 33 && e.screen(at: 1)!.info.focus_token == .max)
        #expect(e.request(.pop).status == .applied)
        #expect(shown.phase == NG_PHASE_DID && shown.to == 2 && shown.focus == .max)
        e.push(4)
        #expect(shown.to == 4 && shown.focus == 0)
        #expect(e.submit(.popTo(1)).status == .applied)
        #expect(shown.phase == NG_PHASE_DID && shown.to == 1 && shown.focus == 11)
        #expect(statusOf { () throws(EngineError) in try e.setScreenFocus(3, 1) } == NG_E_NOT_FOUND, "3 was popped")
        #expect(statusOf { () throws(EngineError) in _ = try e.screenFocus(9) } == NG_E_NOT_FOUND)
        expectClean(rec)
        e.destroy()
    }

    @Test func aRolledBackSwipeHandsBackTheTokenSetDuringIt() throws {
        let (e, rec) = makeEngine()
        let shown = watch(rec)
        e.push(2, "game")
        try e.setScreenFocus(1, 7)
        try e.setScreenFocus(2, 20)
        #expect(e.request(.interactiveBack, flags: ANIMATED).status == .applied)
        #expect(shown.phase == NG_PHASE_WILL && shown.to == 1 && shown.focus == 7)
        // The swiped screen is only in the stack a rollback restores.
        try e.setScreenFocus(2, 21)
        try e.cancelInteractive()
        #expect(shown.phase == NG_PHASE_CANCELLED && shown.to == 2 && shown.focus == 21)
        #expect(try e.screenFocus(2) == 21 && e.ids == [1, 2])
        expectClean(rec)
        e.destroy()
    }

    @Test func snapshotsCarryTheTokens() throws {
        let (e, _) = makeEngine()
        e.push(2, "menu")
        try e.setScreenFocus(1, 0x8000_0000_0000_0001)
        try e.setScreenFocus(2, 5)
        let text = e.snapshot()
        #expect(text.contains("\"focus\":5") && text.contains("\"focus\":-9223372036854775807"), "\(text)")
        var bytes = Array(text.utf8)
        let screens = try bytes.withUnsafeMutableBufferPointer { b throws(EngineError) in
            try Engine.parseSnapshot(UnsafeBufferPointer(b))
        }
        #expect(screens.map(\.focus) == [0x8000_0000_0000_0001, 5])
        let (other, _) = makeEngine()
        try other.restore(screens)
        #expect(try other.screenFocus(1) == 0x8000_0000_0000_0001 && other.screenFocus(2) == 5)
        // No token: no "focus" key, as before 0.4.
        let (plain, _) = makeEngine()
        #expect(!plain.snapshot().contains("focus"))
        e.destroy()
        other.destroy()
        plain.destroy()
    }
}
