import NavGuardCore

/// What `navguard timeline` draws: a trace's transitions, holds and touches
/// as spans on lanes, its requests, reports and logs as instants. Built by
/// TimelineBuilder; drawn by ChromeTrace and TimelineSVG. Times are
/// nanoseconds since `originNs`, never negative.
struct TimelineModel {
    enum Lane: Hashable {
        case screen, bar
        /// Holds and touches get one sub-lane per overlap, so no two spans
        /// of a lane overlap (Chrome's complete events on one thread must nest).
        case holds(Int), touches(Int)
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
        /// its limit, a watchdog report.
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
    }

    struct Report {
        var t: Int64
        var guardID: String
        var text: String
    }

    var header: JSONValue
    /// The trace's `start`: create, mid-session or ring.
    var start: String
    var originNs: Int64
    var duration: Int64
    var spans: [Span] = []
    var instants: [Instant] = []
    /// An interactive back's progress (0 when none is in flight).
    var swipeProgress: [(t: Int64, value: Double)] = []
    var reports: [Report] = []
    /// What a reader must know before trusting the picture (a ring dump
    /// shows only the newest records, a cut-off last line, ...).
    var notes: [String] = []
    var holdLanes = 1
    var touchLanes = 1
    var hasInput = false

    /// The lanes drawn, with their names, top to bottom.
    var lanes: [(Lane, String)] {
        var l: [(Lane, String)] = [(.screen, "screen transitions"), (.bar, "bar transitions")]
        for i in 0..<holdLanes { l.append((.holds(i), holdLanes == 1 ? "holds" : "holds \(i + 1)")) }
        for i in 0..<touchLanes { l.append((.touches(i), touchLanes == 1 ? "touches" : "touches \(i + 1)")) }
        l.append((.requests, "requests"))
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
