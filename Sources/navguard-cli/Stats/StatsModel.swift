// SPDX-License-Identifier: Apache-2.0
/// What `navguard stats` counts over a fleet's traces: per guard, what it
/// refused and dropped and why; per screen, its transitions that were stuck
/// (never finished) or forced, the swipes back cancelled on it, and its
/// longest holds. Built by
/// StatsBuilder; written by StatsFormat as a table or JSON.
struct StatsModel {
    struct GuardRow {
        var guardID: String
        /// Requests refused or dropped, by reason.
        var refused: [String: Int] = [:]
        var dropped: [String: Int] = [:]
        /// Events (touches, other input) dropped, by reason.
        var eventsDropped: [String: Int] = [:]
        var total: Int { refused.values.reduce(0, +) + dropped.values.reduce(0, +) + eventsDropped.values.reduce(0, +) }
    }

    struct Hold {
        var label: String
        var ns: Int64
        var file: String
        /// How it ended ("ended", "expired", "released by the watchdog", "still held").
        var end: String
    }

    struct ScreenRow {
        var screen: String
        var transitions = 0
        var stuck = 0
        var forced = 0
        /// Swipes back rolled back while it was on top (it stayed there),
        /// by the user or by a guard.
        var cancelled = 0
        /// The longest first, at most `StatsBuilder.holdsKept`.
        var longestHolds: [Hold] = []
    }

    var files: [String] = []
    /// Notes per file (a ring dump, a crash), as the timeline gives them.
    var crashes: [(file: String, signal: String)] = []
    var guards: [GuardRow] = []
    var screens: [ScreenRow] = []
    /// Guard reports, by guard id.
    var reports: [String: Int] = [:]
    /// What the watchdog ended, by kind: "transition" (forced or rolled
    /// back), "hold" (released), "touch" (cancelled).
    var watchdogActions: [String: Int] = [:]
    /// The longest hold of each label, over every screen and file (ns).
    var longestHoldByLabel: [String: Int64] = [:]
}
