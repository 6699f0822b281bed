// SPDX-License-Identifier: Apache-2.0
import CNavGuard

/// One transition track in flight.
struct TrackInFlight {
    var requestID: UInt64
    var kind: RequestKind
    var flags: UInt32
    var beganNs: Int64
    var deadlineNs: Int64
    var fromID: UInt64
    var toID: UInt64
    /// Screens on the stack it shows.
    var depth: UInt32
}

/// The two transition tracks (screen and bar) and the swipe back, if any.
///
/// Invariants:
///  * a request starts both tracks together; each then ends on its own
///    (the bar's DID before the screen's when both end at once);
///  * `swipe` is non-nil only while a track is in flight, and an interactive
///    back's tracks end (or roll back) together;
///  * `before` (the stack a cancelled swipe restores) is set exactly while
///    `swipe` is;
///  * `waiters` is non-empty only while `swipe` is, or until the engine
///    takes them right after the swipe ends;
///  * an interactive back has no deadline: only its release and completion,
///    a newer request or a guard end it.
struct Transitions {
    private(set) var screen: TrackInFlight?
    private(set) var bar: TrackInFlight?
    var swipe: Swipe?
    private(set) var before: ScreenStack?
    /// Requests scoped to an end of the swipe, waiting for it to complete
    /// (the engine re-judges them once `swipe` is nil; only then are they
    /// taken).
    var waiters: [Request] = []

    var isIdle: Bool { screen == nil && bar == nil }
    /// The transition in flight on either track.
    var current: TrackInFlight? { screen ?? bar }

    func track(_ which: Track) -> TrackInFlight? {
        switch which {
        case .screen: return screen
        case .bar: return bar
        default: return current
        }
    }

    /// When a timed transition in flight is due, or NG_NO_DEADLINE.
    var deadline: Int64 {
        guard swipe == nil, let t = current else { return Limits.noDeadline }
        return t.deadlineNs
    }

    /// Whether a timed transition in flight has reached its deadline.
    func isDue(at t: Int64) -> Bool {
        guard swipe == nil, let c = current else { return false }
        return c.deadlineNs <= t
    }

    mutating func takeWaiters() -> [Request] {
        defer { waiters.removeAll() }
        return waiters
    }

    /// Start both tracks (WILL on each); a swipe keeps the stack before it.
    mutating func start(_ t: TrackInFlight, swipe s: (Swipe, before: ScreenStack)?, into q: inout RunQueue) {
        screen = t
        bar = t
        swipe = s?.0
        before = s?.before
        q.noteTransition(.screen, .will, flags: t.flags, t)
        q.noteTransition(.bar, .will, flags: t.flags, t)
    }

    /// End a track (or both: `.all`, and always for a swipe). Returns
    /// the request id of the screen track it ended (its tied holds end with
    /// it), or nil when the screen track was not ended.
    @discardableResult
    mutating func end(_ which: Track, extraFlags: UInt32, into q: inout RunQueue) -> UInt64? {
        let both = which == .all || swipe != nil
        var endedScreen: UInt64?
        if both || which == .bar, let t = bar {
            bar = nil
            q.noteTransition(.bar, .did, flags: t.flags | extraFlags, t)
        }
        if both || which == .screen, let t = screen {
            screen = nil
            q.noteTransition(.screen, .did, flags: t.flags | extraFlags, t)
            endedScreen = t.requestID
        }
        if isIdle {
            swipe = nil
            before = nil
        }
        return endedScreen
    }

    /// Roll a swipe back: CANCELLED on both tracks (to = from). Returns the
    /// stack to restore and the request id rolled back, or nil when no
    /// swipe is in flight.
    mutating func rollBack(extraFlags: UInt32, into q: inout RunQueue) -> (stack: ScreenStack, requestID: UInt64)? {
        guard let s = swipe, let restored = before else { return nil }
        swipe = nil
        before = nil
        let depth = UInt32(restored.count)
        if let t = bar {
            bar = nil
            q.noteTransition(.bar, .cancelled, flags: t.flags | extraFlags, t, to: t.fromID, depth: depth)
        }
        if let t = screen {
            screen = nil
            q.noteTransition(.screen, .cancelled, flags: t.flags | extraFlags, t, to: t.fromID, depth: depth)
        }
        return (restored, s.requestID)
    }

    /// The tracks in flight began `delta` later than recorded (the call that
    /// began them returned then): their begin, deadline and swipe move too.
    mutating func restamp(by delta: Int64) {
        func moved(_ t: inout Int64) {
            if t == Limits.noDeadline { return }
            let (x, o) = t.addingReportingOverflow(delta)
            t = o || x == Limits.noDeadline ? Limits.noDeadline - 1 : x
        }
        if screen != nil {
            moved(&screen!.beganNs)
            moved(&screen!.deadlineNs)
        }
        if bar != nil {
            moved(&bar!.beganNs)
            moved(&bar!.deadlineNs)
        }
        swipe?.restamp(by: delta)
    }

    /// A screen's flags changed: the stack a swipe would restore keeps them.
    mutating func setFlags(_ flags: UInt32, of id: UInt64) -> Bool {
        before?.setFlags(flags, of: id) ?? false
    }

    /// A screen's focus token changed: the stack a swipe would restore keeps it.
    mutating func setFocus(_ token: UInt64, of id: UInt64) -> Bool {
        before?.setFocus(token, of: id) ?? false
    }

    /// A track in flight as hosts and guards see it (ng_track_info).
    func view(_ which: Track) -> ng_track_info? {
        guard let t = track(which) else { return nil }
        var info = ng_track_info()
        info.size = UInt32(MemoryLayout<ng_track_info>.size)
        info.request_id = t.requestID
        info.kind = t.kind.rawValue
        info.flags = t.flags
        info.began_ns = t.beganNs
        info.deadline_ns = swipe == nil ? t.deadlineNs : Limits.noDeadline
        if let s = swipe {
            info.progress = s.progress
            info.driving_touch = s.namedTouch ?? 0
            info.swipe_since_ns = s.sinceNs
            info.swipe = s.state
        }
        return info
    }
}
