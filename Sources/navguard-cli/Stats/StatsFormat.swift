// SPDX-License-Identifier: Apache-2.0
import NavGuardCore

/// A StatsModel as text: a table for a person, JSON for a fleet's own
/// dashboards (`--json`; its keys are stable).
enum StatsFormat {
    static func table(_ m: StatsModel) -> String {
        var out = "\(m.files.count) trace\(m.files.count == 1 ? "" : "s")"
        if !m.crashes.isEmpty { out += ", \(m.crashes.count) from a crash (\(m.crashes.map { "\($0.file): \($0.signal)" }.joined(separator: ", ")))" }
        out += "\n\nper guard: requests refused and dropped, events dropped, by reason\n"
        var rows: [[String]] = [["guard", "refused", "dropped", "events dropped"]]
        for g in m.guards {
            rows.append([g.guardID, counts(g.refused), counts(g.dropped), counts(g.eventsDropped)])
        }
        if m.guards.isEmpty { rows.append(["(none)", "", "", ""]) }
        out += grid(rows)
        out += "\nper screen: transitions to it, stuck (never finished) or forced, swipes back cancelled on it (rolled back: "
            + "it stayed on top), and the longest holds while it was on top\n"
        rows = [["screen", "transitions", "stuck", "forced", "cancelled", "longest holds"]]
        for s in m.screens {
            rows.append([s.screen, String(s.transitions), String(s.stuck), String(s.forced), String(s.cancelled),
                         s.longestHolds.map { "\($0.label) \(TimelineFormat.ms($0.ns)) (\($0.end))" }.joined(separator: "; ")])
        }
        if m.screens.isEmpty { rows.append(["(none)", "", "", "", "", ""]) }
        out += grid(rows)
        return out
    }

    static func json(_ m: StatsModel) -> String {
        func dict(_ d: [String: Int]) -> JSONValue { .object(d.sorted { $0.key < $1.key }.map { ($0.key, .integer(Int64($0.value))) }) }
        let guards: [JSONValue] = m.guards.map { g in
            .object([("guard", .string(g.guardID)), ("refused", dict(g.refused)), ("dropped", dict(g.dropped)),
                     ("events_dropped", dict(g.eventsDropped))])
        }
        let screens: [JSONValue] = m.screens.map { s in
            .object([("screen", .string(s.screen)), ("transitions", .integer(Int64(s.transitions))),
                     ("stuck", .integer(Int64(s.stuck))), ("forced", .integer(Int64(s.forced))),
                     ("cancelled", .integer(Int64(s.cancelled))),
                     ("longest_holds", .array(s.longestHolds.map { h in
                         .object([("label", .string(h.label)), ("ms", .number(Double(h.ns) / 1e6)), ("end", .string(h.end)),
                                  ("file", .string(h.file))])
                     }))])
        }
        let crashes: [JSONValue] = m.crashes.map { .object([("file", .string($0.file)), ("signal", .string($0.signal))]) }
        return JSON.serialize(.object([("files", .array(m.files.map { .string($0) })), ("crashes", .array(crashes)),
                                       ("guards", .array(guards)), ("screens", .array(screens))])) + "\n"
    }

    private static func counts(_ d: [String: Int]) -> String {
        d.isEmpty ? "-" : d.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
    }

    private static func grid(_ rows: [[String]]) -> String {
        var widths = [Int](repeating: 0, count: rows[0].count)
        for r in rows { for (i, c) in r.enumerated() { widths[i] = max(widths[i], c.count) } }
        var out = ""
        for (n, r) in rows.enumerated() {
            var line = ""
            for (i, c) in r.enumerated() {
                line += i == r.count - 1 ? c : c + String(repeating: " ", count: widths[i] - c.count + 2)
            }
            out += line + "\n"
            if n == 0 { out += widths.enumerated().map { String(repeating: "-", count: $0.element) + ($0.offset == widths.count - 1 ? "" : "  ") }.joined() + "\n" }
        }
        return out
    }
}
