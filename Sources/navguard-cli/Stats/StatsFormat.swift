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
        let longest: JSONValue = .object(m.longestHoldByLabel.sorted { $0.key < $1.key }.map { ($0.key, .number(Double($0.value) / 1e6)) })
        return JSON.serialize(.object([("files", .array(m.files.map { .string($0) })), ("crashes", .array(crashes)),
                                       ("guards", .array(guards)), ("screens", .array(screens)),
                                       ("reports", dict(m.reports)), ("watchdog_actions", dict(m.watchdogActions)),
                                       ("longest_hold_ms_by_label", longest)])) + "\n"
    }

    /// The Prometheus text format (0.0.4) that node_exporter's textfile
    /// collector reads: every family with # HELP and # TYPE, even when it has
    /// no sample, so a dashboard's query finds the name; samples sorted by
    /// their labels, so two runs on the same traces give the same file.
    static func prometheus(_ m: StatsModel) -> String {
        var out = ""
        func family(_ name: String, _ type: String, _ help: String, _ samples: [(labels: [(String, String)], value: String)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            let lines = samples.map { s -> String in
                let labels = s.labels.isEmpty ? "" : "{" + s.labels.map { "\($0.0)=\"\(labelValue($0.1))\"" }.joined(separator: ",") + "}"
                return "\(name)\(labels) \(s.value)\n"
            }
            out += lines.sorted().joined()
        }
        func byGuardReason(_ pick: (StatsModel.GuardRow) -> [String: Int]) -> [(labels: [(String, String)], value: String)] {
            m.guards.flatMap { g in pick(g).map { (labels: [("guard", g.guardID), ("reason", $0.key)], value: String($0.value)) } }
        }
        family("navguard_refusals_total", "counter", "Requests refused, by the guard that refused them (\"the core\" for the engine itself) and reason.",
               byGuardReason { $0.refused })
        family("navguard_drops_total", "counter", "Requests and input events dropped, by guard and reason.",
               byGuardReason { g in g.dropped.merging(g.eventsDropped, uniquingKeysWith: +) })
        family("navguard_transitions_stuck_total", "counter", "Transitions to a route that never finished and that no guard ended.",
               m.screens.map { (labels: [("route", $0.screen)], value: String($0.stuck)) })
        family("navguard_transitions_forced_total", "counter", "Transitions to a route that a guard (the watchdog) forced to finish.",
               m.screens.map { (labels: [("route", $0.screen)], value: String($0.forced)) })
        let kinds = Set(["transition", "hold", "touch"]).union(m.watchdogActions.keys)
        family("navguard_watchdog_actions_total", "counter", "What the watchdog ended: a transition (forced or rolled back), a hold (released), a touch (cancelled).",
               kinds.map { (labels: [("kind", $0)], value: String(m.watchdogActions[$0] ?? 0)) })
        family("navguard_crash_dumps_total", "counter", "Crash dumps: among the traces read (navguard stats), or found at start-up (a kiosk).",
               [(labels: [], value: String(m.crashes.count))])
        family("navguard_longest_hold_seconds", "gauge", "The longest hold of each label, in seconds.",
               m.longestHoldByLabel.map { (labels: [("label", $0.key)], value: seconds($0.value)) })
        family("navguard_reports_total", "counter", "Reports posted by guards, by guard id.",
               m.reports.map { (labels: [("guard", $0.key)], value: String($0.value)) })
        return out
    }

    /// A label value as the text format wants it: backslash, double quote and
    /// line feed escaped; everything else (any UTF-8) as it is.
    static func labelValue(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// Nanoseconds as seconds, exactly (no float rounding): 1500000 -> 0.0015.
    static func seconds(_ ns: Int64) -> String {
        let neg = ns < 0, v = neg ? -ns : ns
        var frac = String(v % 1_000_000_000)
        frac = String(repeating: "0", count: 9 - frac.count) + frac
        while frac.hasSuffix("0") { frac.removeLast() }
        return (neg ? "-" : "") + String(v / 1_000_000_000) + (frac.isEmpty ? "" : "." + frac)
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
