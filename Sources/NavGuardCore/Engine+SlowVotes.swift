// SPDX-License-Identifier: Apache-2.0
import CNavGuard

// The engine's slow votes: timed, named in the log and in the next report.

extension Engine {
    /// The log line of a slow vote begins with this (replay, which runs
    /// every call in no time, knows such lines by it).
    public static let slowVotePrefix = "slow vote: "

    /// The clock read afresh, not this call's instant (callTime): to time
    /// votes, and to date a transition from when its call returned.
    var clockReading: Int64 {
        switch clock {
        case .manual: return manualNow
        case .external(let f): return f()
        }
    }

    /// What votes are timed with: the stopwatch (a coarse reading of the
    /// external clock, a few ns instead of ~20 per vote), else the clock.
    @inline(__always)
    var voteReading: Int64 {
        if let s = stopwatch, case .external = clock { return s() }
        return clockReading
    }

    func votesBegin() { votes.begin(at: voteReading) }

    func voteLap(_ slot: Int) { votes.lap(slot, at: voteReading) }

    /// After the last vote on a request: a warning naming the slowest guard
    /// when the votes took longer than NG_SLOW_VOTE_MS.
    func votesEnd(_ g: ng_guard_request) {
        guard let v = votes.end(requestID: g.request_id, at: g.now_ns) else { return }
        let id = chain[v.slot].guardID
        let text = Engine.slowVotePrefix + "guard \(String(cString: id)) took \(Engine.ms(v.ns)) ms to vote on request "
            + "\(g.request_id) (the chain \(Engine.ms(v.totalNs)) ms, over the \(NG_SLOW_VOTE_MS) ms limit): on_request must not block"
        run.append(.note(.log(guardID: id, severity: NG_LOG_WARN, message: CStr(text))))
    }

    /// What a guard report adds (the host's copy): the slow votes since the
    /// last report, or nil. Consumed.
    public func takeSlowVoteNote() -> String? {
        guard let (count, v) = votes.takeSlow(), v.slot < chain.count else { return nil }
        let id = String(cString: chain[v.slot].guardID)
        let many = count == 1 ? "1 request" : "\(count) requests"
        return "slow votes since the last report: \(many) over \(NG_SLOW_VOTE_MS) ms; the slowest: guard \(id), "
            + "\(Engine.ms(v.ns)) ms on request \(v.requestID) (t=\(v.at))"
    }

    /// A transition began during this call: its age counts from when the
    /// call returns, not from when it started (a slow vote or callback must
    /// not count as time in flight), so its times move to now.
    func restampStartedTrack() {
        run.trackStarted = false
        let replayed = replayTrackDatedAt
        replayTrackDatedAt = nil
        guard let began = transitions.current?.beganNs else { return }
        let t = replayed ?? clockReading
        guard t > began else { return }
        transitions.restamp(by: t - began)
        trackDatedAt = t
        if case .external = clock {
            callTime = t
            lastCallTime = max(lastCallTime, t)
        }
    }

    /// Nanoseconds as milliseconds with one decimal ("3000.0"; no libm).
    static func ms(_ ns: Int64) -> String {
        "\(ns / 1_000_000).\(ns % 1_000_000 / 100_000)"
    }
}
