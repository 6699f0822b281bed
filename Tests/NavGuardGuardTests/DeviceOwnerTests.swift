// SPDX-License-Identifier: Apache-2.0
// org.navguard.device-owner (issue 30, item 3): player 1's pause menu
// belongs to player 1 while it is the top.
import CNavGuard
import NavGuardBuiltins
import Testing
@testable import NavGuardCore

private let player1: UInt64 = 1
private let player2: UInt64 = 2
private let keyboard: UInt64 = 100

/// The game (1) with player 1's pause menu (2) pushed by device 1.
private func paused() throws -> (Engine, GuardRecorder) {
    let (e, rec) = try makeGuardEngine([GuardSpec(ngg_device_owner_descriptor(), #"{"shared":["100"]}"#)],
                                       root: Screen(id: 1, route: "game"))
    var pause = Request.push(Screen(id: 2, route: "pause"))
    pause.device = player1
    #expect(e.submit(pause).status == .applied)
    return (e, rec)
}

private func request(_ kind: RequestKind, device: UInt64, screen: Screen? = nil) -> Request {
    var r = Request(kind: kind)
    r.screen = screen
    r.device = device
    return r
}

private func press(_ e: Engine, _ phase: Int32, device: UInt64, type: Int32 = NG_EVENT_REMOTE) -> EventVerdict {
    e.submitTestEvent(type: type, phase: phase, touchID: device, code: Int64(NG_BUTTON_A))
}

@Suite("device-owner")
struct DeviceOwnerTests {
    @Test func anotherPlayersPressAndRequestInThePauseMenuAreRefused() throws {
        let (e, _) = try paused()
        let down = press(e, NG_KEY_DOWN, device: player2)
        #expect(down.verdict == .drop && down.reason == .policy)
        #expect(down.guardID.map { String(cString: $0) } == "org.navguard.device-owner")
        #expect(press(e, NG_KEY_UP, device: player2).verdict == .drop)
        let back = e.submit(request(.back, device: player2))
        #expect(back.status == .refused && back.reason == .policy)
        #expect(back.message?.string == "owned by controller 1")
        #expect(e.stackIDs == [1, 2])
        e.destroy()
    }

    @Test func theSharedKeyboardAndTheOwnerPass() throws {
        let (e, _) = try paused()
        #expect(press(e, NG_KEY_DOWN, device: keyboard, type: NG_EVENT_KEY).verdict == .deliver)
        #expect(press(e, NG_KEY_DOWN, device: player1).verdict == .deliver)
        // The keyboard's Options covers the pause menu and stays player 1's.
        #expect(e.submit(request(.push, device: keyboard, screen: Screen(id: 3, route: "options"))).status == .applied)
        #expect(press(e, NG_KEY_REPEAT, device: player2).verdict == .drop)
        #expect(e.submit(request(.back, device: player1)).status == .applied)
        #expect(e.stackIDs == [1, 2])
        // A request made by no device (a timer) is nobody's to refuse.
        #expect(e.submit(request(.back, device: 0)).status == .applied)
        e.destroy()
    }

    @Test func ownershipEndsWhenThePauseMenuLeavesTheTop() throws {
        let (e, _) = try paused()
        #expect(press(e, NG_KEY_DOWN, device: player2).verdict == .drop)
        #expect(e.submit(request(.back, device: player1)).status == .applied)
        #expect(e.stackIDs == [1])
        #expect(press(e, NG_KEY_DOWN, device: player2).verdict == .deliver)
        // Now player 2 pauses, and player 1 is the one left out.
        #expect(e.submit(request(.push, device: player2, screen: Screen(id: 4, route: "pause"))).status == .applied)
        #expect(e.submit(request(.back, device: player1)).status == .refused)
        e.destroy()
    }
}
