// SPDX-License-Identifier: Apache-2.0
import NavGuardCore

/// Counts what TimelineBuilder made of each trace into one StatsModel: the
/// timeline has already paired every begin with its end and named who ended
/// what, so stats and pictures never disagree.
enum StatsBuilder {
    static let holdsKept = 3

    static func build(_ models: [TimelineModel]) -> StatsModel {
        var m = StatsModel()
        var guards: [String: StatsModel.GuardRow] = [:]
        var screens: [String: StatsModel.ScreenRow] = [:]
        func guardRow(_ g: String) -> StatsModel.GuardRow { guards[g] ?? StatsModel.GuardRow(guardID: g) }
        func screenRow(_ s: String) -> StatsModel.ScreenRow { screens[s] ?? StatsModel.ScreenRow(screen: s) }
        for t in models {
            m.files.append(t.source)
            if let c = t.crash { m.crashes.append((t.source, c)) }
            for r in t.reports { m.reports[r.guardID, default: 0] += 1 }
            for i in t.instants {
                let g = arg(i.args, "guard") ?? "the core"
                let reason = arg(i.args, "reason") ?? "?"
                switch i.category {
                case "request.refused":
                    var row = guardRow(g)
                    row.refused[reason, default: 0] += 1
                    guards[g] = row
                case "request.dropped":
                    var row = guardRow(g)
                    row.dropped[reason, default: 0] += 1
                    guards[g] = row
                case "input" where i.mark == .dropped:
                    var row = guardRow(g)
                    row.eventsDropped[reason, default: 0] += 1
                    guards[g] = row
                case "touch.cancel" where arg(i.args, "by") == "the watchdog":
                    m.watchdogActions["touch", default: 0] += 1
                default:
                    break
                }
            }
            for s in t.spans {
                // A transition counts once (its screen lane; the bar's is the same request).
                if s.endedBy == "the watchdog", (s.category == "transition" && s.lane == .screen) || s.category == "hold" {
                    m.watchdogActions[s.category, default: 0] += 1
                }
                switch s.category {
                case "touch.dropped":
                    let g = arg(s.args, "guard") ?? "the core"
                    let reason = s.name.components(separatedBy: "dropped: ").last ?? "?"
                    var row = guardRow(g)
                    row.eventsDropped[reason, default: 0] += 1
                    guards[g] = row
                case "transition" where s.lane == .screen && s.cancelled:
                    // A swipe rolled back: no transition to its destination;
                    // counted on the screen it stayed on.
                    let name = s.screen ?? "?"
                    var row = screenRow(name)
                    row.cancelled += 1
                    screens[name] = row
                case "transition" where s.lane == .screen:
                    let name = s.screen ?? "?"
                    var row = screenRow(name)
                    row.transitions += 1
                    if s.mark == .alarm {
                        if s.endedBy != nil { row.forced += 1 } else { row.stuck += 1 }
                    }
                    screens[name] = row
                case "hold":
                    let name = s.screen ?? "?"
                    var row = screenRow(name)
                    let label = s.name.hasPrefix("… ") ? String(s.name.dropFirst(2)) : s.name
                    let end = s.endedBy.map { "released by \($0)" } ?? (s.flag?.hasPrefix("STILL HELD") == true ? "still held" : arg(s.args, "end") ?? "?")
                    m.longestHoldByLabel[label] = max(m.longestHoldByLabel[label] ?? 0, s.end - s.start)
                    row.longestHolds.append(.init(label: label, ns: s.end - s.start, file: t.source, end: end))
                    row.longestHolds.sort { $0.ns > $1.ns }
                    if row.longestHolds.count > holdsKept { row.longestHolds.removeLast(row.longestHolds.count - holdsKept) }
                    screens[name] = row
                default:
                    break
                }
            }
        }
        m.guards = guards.values.sorted { ($1.total, $0.guardID) < ($0.total, $1.guardID) }
        m.screens = screens.values.sorted { ($1.stuck + $1.forced, $1.transitions, $0.screen) < ($0.stuck + $0.forced, $0.transitions, $1.screen) }
        return m
    }

    private static func arg(_ args: [(String, JSONValue)], _ key: String) -> String? {
        args.first { $0.0 == key }?.1.string
    }
}
