// SPDX-License-Identifier: Apache-2.0
import CNavGuard

/// A request whose guards voted longer than Limits.slowVoteNs.
public struct SlowVote: Sendable {
    /// The slowest guard's chain slot and its own time.
    public var slot: Int
    public var ns: Int64
    /// All the request's votes.
    public var totalNs: Int64
    public var requestID: UInt64
    /// The instant of the call that made the request evaluate.
    public var at: Int64
}

/// How long the guards take to vote on a request, and the slow requests
/// since the last report. Measured on the request path only (the event path
/// reads no clock): the engine's stopwatch (a coarse reading of an external
/// clock; the clock itself otherwise) is read before the first vote and after
/// each, so each guard is charged with its own hook's time.
///
/// Invariants: `lap` durations are never negative (a clock that went back
/// counts 0) and sums saturate; `slowCount` and `slowest` cover the slow
/// requests since the last `takeSlow`.
struct VoteTimes {
    private var last: Int64 = 0
    private var total: Int64 = 0
    private var worst = (slot: -1, ns: Int64(0))
    private(set) var slowCount = 0
    private(set) var slowest: SlowVote?

    mutating func begin(at t: Int64) {
        last = t
        total = 0
        worst = (-1, 0)
    }

    mutating func lap(_ slot: Int, at t: Int64) {
        let (d, o) = t.subtractingReportingOverflow(last)
        let ns = o || d < 0 ? 0 : d
        let (sum, o2) = total.addingReportingOverflow(ns)
        total = o2 ? Int64.max : sum
        if ns > worst.ns || worst.slot < 0 { worst = (slot, ns) }
        last = t
    }

    /// The request's votes are in: the slow vote, when they took too long.
    mutating func end(requestID: UInt64, at t: Int64) -> SlowVote? {
        guard total > Limits.slowVoteNs, worst.slot >= 0 else { return nil }
        let v = SlowVote(slot: worst.slot, ns: worst.ns, totalNs: total, requestID: requestID, at: t)
        slowCount += 1
        if slowest.map({ v.ns > $0.ns }) ?? true { slowest = v }
        return v
    }

    /// The slow requests since the last call, and forget them.
    mutating func takeSlow() -> (count: Int, slowest: SlowVote)? {
        defer { slowCount = 0; slowest = nil }
        return slowest.map { (slowCount, $0) }
    }
}
