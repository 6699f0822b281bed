// SPDX-License-Identifier: Apache-2.0
import NavGuardCore

/// What `navguard timeline` draws of one trace: its transitions, holds,
/// touches, presses (per device) and request waits as spans on lanes, its
/// requests, focus tokens, reports and logs as instants, and a headline of what went wrong and when. Built by
/// TimelineBuilder; drawn by ChromeTrace and TimelineSVG; counted by
/// StatsBuilder. Times are nanoseconds since `originNs`, never negative.
struct TimelineModel {
    enum Lane: Hashable {
        case screen, bar
        /// Holds, touches and waits get one sub-lane per overlap, so no two
        /// spans of a lane overlap (Chrome's complete events on one thread must nest).
        case holds(Int), touches(Int), waits(Int)
        /// Key and button presses: one lane per device (index into
        /// `pressLanes`), more where its presses overlap (A held under B).
        case presses(Int)
        case requests, input, reports
    }

    /// How an item is drawn: what needs a look stands out.
    enum Mark {
        case normal
        /// A touch or event NavGuard dropped, a request it refused or dropped.
        case dropped
        /// Worth a look: an interrupted transition, a hold that expired or
        /// was released at destroy, a touch still down at the end.
        case warning
        /// Stuck: a transition never finished or forced, a hold that outlived
        /// its limit, a watchdog report, a crash.
        case alarm
    }

    struct Phase {
        var name: String
        var start: Int64
        var end: Int64
    }

    struct Span {
        var lane: Lane
        var name: String
        var category: String
        var start: Int64
        var end: Int64
        var mark = Mark.normal
        /// Why it stands out, written beside it ("FORCED by the watchdog after 2000 ms").
        var flag: String?
        /// What a picture writes in the span when its name does not fit
        /// (a transition's destination).
        var short: String?
        var args: [(String, JSONValue)] = []
        /// Parts drawn inside the span: a swipe's driven, finishing or
        /// cancelling stretch, a touch's time after NavGuard cancelled it.
        var phases: [Phase] = []
        /// The screen on top when it began (stats: holds per screen).
        var screen: String?
        /// Who ended it when a guard did ("the watchdog"), for the headline.
        var endedBy: String?
        /// A swipe back rolled back (its phase CANCELLED): `screen` is the
        /// screen it stayed on, not its destination.
        var cancelled = false
        /// A press's device ("controller 3"): which press lane it goes on.
        var device: String?
    }

    struct Instant {
        var lane: Lane
        var t: Int64
        var name: String
        var category: String
        var mark = Mark.normal
        /// A word drawn beside the marker (a refusal's reason).
        var label: String?
        var args: [(String, JSONValue)] = []
        /// On a press lane: its device (a device removed).
        var device: String?
    }

    struct Report {
        var t: Int64
        var guardID: String
        var text: String
    }

    /// A line of the headline: when something went wrong and what was done.
    struct Headline {
        var t: Int64
        var text: String
    }

    /// A stretch where nothing happened, drawn narrow.
    struct Fold {
        var start: Int64
        var end: Int64
    }

    /// The file drawn (its name, for titles and fleet lanes).
    var source: String
    var header: JSONValue
    /// The trace's `start`: create, mid-session or ring.
    var start: String
    var originNs: Int64
    /// The end of what is drawn.
    var duration: Int64
    /// The window drawn (--from/--to), within 0...duration.
    var viewStart: Int64 = 0
    var spans: [Span] = []
    var instants: [Instant] = []
    /// An interactive back's progress (0 when none is in flight).
    var swipeProgress: [(t: Int64, value: Double)] = []
    var reports: [Report] = []
    /// What a reader must know before trusting the picture (a ring dump
    /// shows only the newest records, a cut-off last line, ...).
    var notes: [String] = []
    /// What the watchdog (or another guard) did and when, what never
    /// finished, a crash: in time order.
    var headline: [Headline] = []
    var folds: [Fold] = []
    /// A crash dump: the signal's name.
    var crash: String?
    /// Input events submitted in the trace, and those NavGuard dropped
    /// (a touch's began, moves and end, other input).
    var events = 0
    var eventsDropped = 0
    var holdLanes = 1
    var touchLanes = 1
    var waitLanes = 0
    /// The device of each press lane, top to bottom (a device's lanes together).
    var pressLanes: [String] = []
    var hasInput = false

    /// The lanes drawn, with their names, top to bottom.
    var lanes: [(Lane, String)] {
        var l: [(Lane, String)] = [(.screen, "screen transitions"), (.bar, "bar transitions")]
        for i in 0..<holdLanes { l.append((.holds(i), holdLanes == 1 ? "holds" : "holds \(i + 1)")) }
        for i in 0..<touchLanes { l.append((.touches(i), touchLanes == 1 ? "touches" : "touches \(i + 1)")) }
        for (i, d) in pressLanes.enumerated() { l.append((.presses(i), "presses: \(d)")) }
        l.append((.requests, "requests"))
        for i in 0..<waitLanes { l.append((.waits(i), waitLanes == 1 ? "request waits" : "request waits \(i + 1)")) }
        if hasInput { l.append((.input, "other input")) }
        l.append((.reports, "watchdog reports and logs"))
        return l
    }

    /// What was stuck, in time order, for a summary: a transition's bar
    /// span says what its screen span says, so it is left out.
    var alarms: [(t: Int64, text: String)] {
        spans.filter { $0.mark == .alarm && $0.lane != .bar }.map { (t: $0.start, text: "\($0.name): \($0.flag ?? "")") }
    }
}
