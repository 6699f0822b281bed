// SPDX-License-Identifier: Apache-2.0
import NavGuardCore
import NavGuardValidator

/// TimelineModels as a Chrome trace (the JSON object form of the Trace Event
/// Format), for Perfetto UI and chrome://tracing: one process per trace (a
/// fleet's dumps side by side), a named thread per lane (ordered by
/// thread_sort_index), complete events (`X`) for spans with their phases
/// nested inside, thread instants (`i`) for requests, input, reports and
/// logs, and a counter (`C`) for a swipe's progress. Times are microseconds
/// since each trace's start.
enum ChromeTrace {
    static func json(_ models: [TimelineModel]) -> String {
        var events: [JSONValue] = []
        var other: [(String, JSONValue)] = []
        for (k, m) in models.enumerated() {
            let pid = Int64(k + 1)
            events += self.events(m, pid: pid)
            let prefix = models.count == 1 ? "" : "trace\(k + 1)_"
            other.append((prefix + "source", .string(m.source)))
            other.append((prefix + "start", .string(m.start)))
            other.append((prefix + "duration", .string(TimelineFormat.ms(m.duration))))
            for (key, v) in m.header.object ?? [] where key != "state" { other.append((prefix + "trace_" + key, .string(text(v)))) }
            for (n, note) in m.notes.enumerated() { other.append((prefix + "note\(n + 1)", .string(note))) }
            for (n, h) in m.headline.enumerated() { other.append((prefix + "headline\(n + 1)", .string("at \(TimelineFormat.ms(h.t)): \(h.text)"))) }
        }
        return "{\"traceEvents\":[\n" + events.map(JSON.serialize).joined(separator: ",\n")
            + "\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":" + JSON.serialize(.object(other)) + "}\n"
    }

    private static func events(_ m: TimelineModel, pid: Int64) -> [JSONValue] {
        var events: [JSONValue] = []
        events.append(meta("process_name", pid: pid, tid: nil, ["name": .string("NavGuard trace \(m.source)")]))
        for (lane, name) in m.lanes {
            events.append(meta("thread_name", pid: pid, tid: tid(lane), ["name": .string(name)]))
            events.append(meta("thread_sort_index", pid: pid, tid: tid(lane), ["sort_index": .integer(tid(lane))]))
        }
        // Nesting on one thread is read from start and length: at equal
        // starts the longer (the parent) must come first.
        var slices: [(ts: Int64, dur: Int64, event: JSONValue)] = []
        for s in m.spans {
            var args = s.args
            if let f = s.flag { args.insert(("problem", .string(f)), at: 0) }
            let name = s.flag.map { s.name + " — " + $0 } ?? s.name
            slices.append((s.start, s.end - s.start, complete(name, s.category, s.start, s.end, pid, tid(s.lane), mark: s.mark, args)))
            for p in s.phases {
                slices.append((p.start, p.end - p.start, complete(p.name, s.category + ".phase", p.start, p.end, pid, tid(s.lane), mark: .normal, [])))
            }
        }
        slices.sort { ($0.ts, $1.dur) < ($1.ts, $0.dur) }
        events += slices.map(\.event)
        for i in m.instants {
            var e: [(String, JSONValue)] = [("name", .string(i.name)), ("cat", .string(i.category)), ("ph", "i"), ("s", "t"),
                                            ("ts", micros(i.t)), ("pid", .integer(pid)), ("tid", .integer(tid(i.lane)))]
            if let c = colour(i.mark) { e.append(("cname", .string(c))) }
            e.append(("args", .object(i.args)))
            events.append(.object(e))
        }
        for p in m.swipeProgress {
            events.append(.object([("name", "swipe"), ("ph", "C"), ("ts", micros(p.t)), ("pid", .integer(pid)),
                                   ("args", .object([("progress", .number(p.value))]))]))
        }
        return events
    }

    /// Thread ids in drawing order, also given as thread_sort_index: a
    /// viewer that orders tracks by either shows them as the page does.
    private static func tid(_ lane: TimelineModel.Lane) -> Int64 {
        switch lane {
        case .screen: return 1
        case .bar: return 2
        case .holds(let i): return 100 + Int64(i)
        case .touches(let i): return 10_000 + Int64(i)
        case .presses(let i): return 20_000 + Int64(i)
        case .waits(let i): return 500_000 + Int64(i)
        case .requests: return 1_000_000
        case .input: return 1_000_001
        case .reports: return 1_000_002
        }
    }

    /// chrome://tracing's reserved colour names (Perfetto picks its own).
    private static func colour(_ mark: TimelineModel.Mark) -> String? {
        switch mark {
        case .normal: return nil
        case .dropped: return "bad"
        case .warning: return "yellow"
        case .alarm: return "terrible"
        }
    }

    private static func meta(_ name: String, pid: Int64, tid: Int64?, _ args: JSONValue) -> JSONValue {
        var e: [(String, JSONValue)] = [("name", .string(name)), ("ph", "M"), ("pid", .integer(pid))]
        if let tid { e.append(("tid", .integer(tid))) }
        e.append(("args", args))
        return .object(e)
    }

    private static func complete(_ name: String, _ cat: String, _ start: Int64, _ end: Int64, _ pid: Int64, _ tid: Int64,
                                 mark: TimelineModel.Mark, _ args: [(String, JSONValue)]) -> JSONValue {
        var e: [(String, JSONValue)] = [("name", .string(name)), ("cat", .string(cat)), ("ph", "X"), ("ts", micros(start)),
                                        ("dur", micros(end - start)), ("pid", .integer(pid)), ("tid", .integer(tid))]
        if let c = colour(mark) { e.append(("cname", .string(c))) }
        e.append(("args", .object(args)))
        return .object(e)
    }

    /// Whole microseconds stay integers; the rest keeps its nanoseconds.
    private static func micros(_ ns: Int64) -> JSONValue {
        ns % 1_000 == 0 ? .integer(ns / 1_000) : .number(Double(ns) / 1_000)
    }

    private static func text(_ v: JSONValue) -> String {
        if let s = v.string { return s }
        return JSON.serialize(v)
    }
}
