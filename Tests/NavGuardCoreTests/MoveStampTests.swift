// SPDX-License-Identifier: Apache-2.0
// A moved touch reads no clock (the event path's cost, issue 27): it is dated
// by the engine's next reading of the clock, so a touch's last_ns is never
// earlier than its latest event, and a finger that keeps moving stays alive.
import CNavGuard
import Testing
@testable import NavGuardCore

/// An external clock moved by hand that counts its readings.
nonisolated(unsafe) private var clockNs: Int64 = 0
nonisolated(unsafe) private var clockReads = 0
private let countingClock: @convention(c) () -> Int64 = {
    clockReads += 1
    return clockNs
}

nonisolated(unsafe) private var coarseNs: Int64 = 0
private let coarseClock: @convention(c) () -> Int64 = { coarseNs }

@Suite("touches: a move's time", .serialized)
struct MoveStampTests {
    /// One host call submitting a touch phase.
    func touch(_ e: Engine, _ phase: Int32, id: UInt64 = 1, newCall: Bool = true) -> EventVerdict {
        var ev = ng_event()
        ev.size = UInt32(MemoryLayout<ng_event>.size)
        ev.type = NG_EVENT_TOUCH
        ev.phase = phase
        ev.touch_id = id
        if newCall { e.beginCall() }
        return withUnsafePointer(to: &ev) { e.submitEvent($0) }
    }

    func external() -> Engine {
        clockNs = 1_000
        clockReads = 0
        return Engine(EngineConfig(clock: .external(countingClock)))
    }

    @Test func aMoveReadsNoClockAndTheNextReadingDatesIt() throws {
        let e = external()
        #expect(touch(e, NG_TOUCH_BEGAN).verdict == .deliver)
        let reads = clockReads
        clockNs = 2_000
        #expect(touch(e, NG_TOUCH_MOVED).verdict == .deliver)
        #expect(touch(e, NG_TOUCH_MOVED).verdict == .deliver)
        #expect(clockReads == reads, "a moved event reads no clock")
        clockNs = 3_000
        e.beginCall()
        _ = e.now   // any call's reading
        clockNs = 9_000
        e.beginCall()
        let t = try #require(e.touch(at: 0))
        #expect(t.began_ns == 1_000)
        #expect(t.last_ns == 3_000, "the first reading after the move, not the reader's (9 s): \(t.last_ns)")
    }

    @Test func aReaderWithNoReadingSinceTheMoveReadsTheClock() throws {
        let e = external()
        _ = touch(e, NG_TOUCH_BEGAN)
        clockNs = 2_000
        _ = touch(e, NG_TOUCH_MOVED)
        clockNs = 4_000
        e.beginCall()
        let t = try #require(e.touch(at: 0))
        #expect(t.last_ns == 4_000, "never earlier than the move (2 s): \(t.last_ns)")
    }

    @Test func aMoveInACallThatReadTheClockTakesItsInstant() throws {
        let e = external()
        _ = touch(e, NG_TOUCH_BEGAN)
        clockNs = 5_000
        e.beginCall()
        _ = e.now
        let reads = clockReads
        clockNs = 6_000
        _ = touch(e, NG_TOUCH_MOVED, newCall: false)
        #expect(clockReads == reads)
        clockNs = 7_000
        e.beginCall()
        #expect(try #require(e.touch(at: 0)).last_ns == 5_000)
    }

    @Test func aManualClockDatesTheMoveAtOnce() throws {
        let e = Engine(EngineConfig(clock: .manual(startNs: 1_000)))
        _ = touch(e, NG_TOUCH_BEGAN)
        try e.advanceTime(1_000)
        _ = touch(e, NG_TOUCH_MOVED)
        try e.advanceTime(5_000)
        #expect(try #require(e.touch(at: 0)).last_ns == 2_000)
    }

    /// The flight recorder dates a continuous event with the stopwatch's
    /// coarse reading: never before the previous call's instant, and the
    /// move is stamped with it (so replay, which sets the clock to it, dates
    /// the move the same).
    @Test func continuousNowIsCoarseAndNeverGoesBack() throws {
        clockNs = 10_000
        coarseNs = 9_000
        clockReads = 0
        let e = Engine(EngineConfig(clock: .external(countingClock), stopwatch: coarseClock))
        _ = touch(e, NG_TOUCH_BEGAN)            // began reads the clock: 10 us
        e.beginCall()
        #expect(e.continuousNow == 10_000, "not before the previous call's instant")
        let reads = clockReads
        coarseNs = 12_000
        clockNs = 12_500
        e.beginCall()
        #expect(e.continuousNow == 12_000)
        #expect(e.now == 12_000, "the call's one instant")
        _ = touch(e, NG_TOUCH_MOVED, newCall: false)
        #expect(clockReads == reads, "no fine reading")
        e.beginCall()
        #expect(try #require(e.touch(at: 0)).last_ns == 12_000)
    }

    /// The idlest touch, evicted when a began finds the table full, is
    /// chosen by dated moves: a touch that moved (undated yet) is not idle.
    @Test func eviction_countsUndatedMoves() throws {
        let e = external()
        for id in 1...UInt64(maxLiveTouches) {
            clockNs = Int64(id) * 1_000
            _ = touch(e, NG_TOUCH_BEGAN, id: id)
        }
        clockNs = 100_000
        _ = touch(e, NG_TOUCH_MOVED, id: 1)   // the oldest moves: no longer the idlest
        clockNs = 200_000
        _ = touch(e, NG_TOUCH_BEGAN, id: 999)
        var live: [UInt64] = []
        for i in 0..<e.touchCount { live.append(try #require(e.touch(at: i)).touch_id) }
        #expect(live.contains(1), "the touch that moved stays")
        #expect(!live.contains(2), "the idlest (began at 2 s, never moved) was ended")
    }
}
