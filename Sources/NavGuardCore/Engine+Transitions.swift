// SPDX-License-Identifier: Apache-2.0
import CNavGuard

// The engine's transitions: begun by requests, finished, swiped and cancelled.

extension Engine {
    // MARK: Transitions

    public var isInteractive: Bool { transitions.swipe != nil }
    public var interactiveProgress: Double { transitions.swipe?.progress ?? 0 }

    /// The request id of the transition in flight on a track, or 0.
    public func inFlight(_ track: Track) -> UInt64 {
        (track == .screen ? transitions.screen : transitions.bar)?.requestID ?? 0
    }

    /// A track in flight as hosts and guards see it (ng_track_info).
    public func trackView(_ track: Track) -> ng_track_info? {
        guard track.isOne else { return nil }
        return transitions.view(track)
    }

    /// The screens a track in flight goes from and to (ng_track_info has
    /// neither: a flight recorder's checkpoint names them).
    public func trackEnds(_ track: Track) -> (from: UInt64, to: UInt64)? {
        transitions.track(track).map { ($0.fromID, $0.toID) }
    }

    /// The host (or a guard, `forced`) ends a track. Inside a guard's vote
    /// the effect is applied after the vote.
    public func finishTransition(_ track: Track, forced: Bool = false) throws(EngineError) {
        guard track.isKnown else { throw EngineError(NG_E_RANGE, "track \(track.rawValue) is not NG_TRACK_SCREEN, NG_TRACK_BAR or NG_TRACK_ALL") }
        guard let t = transitions.track(track) else { throw EngineError(NG_E_NOT_FOUND, "no transition in flight on that track") }
        if transitions.swipe?.decision == .cancel {
            throw EngineError(NG_E_STATE, "the interactive back was released to cancel; complete it with ng_interactive_complete")
        }
        if forced {
            act(.finish(track: track, requestID: t.requestID))
        } else {
            endTracks(track, extraFlags: 0)
            drain()
        }
    }

    public func updateInteractive(_ progress: Double) throws(EngineError) {
        guard progress.isFinite, progress >= 0, progress <= 1 else { throw EngineError(NG_E_RANGE, "progress must be within 0...1") }
        guard transitions.swipe != nil else { throw EngineError(NG_E_NOT_FOUND, "no interactive back in flight") }
        transitions.swipe!.progress = progress
    }

    /// The host (or, `forced`, a guard) cancels the swipe: it rolls back.
    public func cancelInteractive(forced: Bool = false) throws(EngineError) {
        guard let s = transitions.swipe else { throw EngineError(NG_E_NOT_FOUND, "no interactive back in flight") }
        if s.decision == .finish {
            throw EngineError(NG_E_STATE, "the interactive back was released to finish; complete it with ng_interactive_complete")
        }
        if forced {
            act(.cancelInteractive(requestID: s.requestID))
        } else {
            rollBack(extraFlags: 0)
            drain()
        }
    }

    /// The host let go: record the decided direction (nothing fires yet).
    public func releaseInteractive(finish: Bool) throws(EngineError) {
        guard transitions.swipe != nil else { throw EngineError(NG_E_NOT_FOUND, "no interactive back in flight") }
        try transitions.swipe!.release(finish: finish, at: now)
    }

    /// The settle animation ended: complete in the decided direction.
    public func completeInteractive() throws(EngineError) {
        guard let s = transitions.swipe else { throw EngineError(NG_E_NOT_FOUND, "no interactive back in flight (a late completion after the watchdog's is harmless)") }
        switch s.decision {
        case .none:
            throw EngineError(NG_E_STATE, "the interactive back is not released; call ng_interactive_release first (or end it with ng_transition_finish / ng_interactive_cancel)")
        case .finish:
            try finishTransition(.all)
        case .cancel:
            try cancelInteractive()
        }
    }

    /// End a track (or both) with DID; holds tied to the transition end
    /// with its screen track.
    func endTracks(_ which: Track, extraFlags: UInt32) {
        if let id = transitions.end(which, extraFlags: extraFlags, into: &run) { endHolds(tiedTo: id) }
        rejudgeSwipeWaiters()
    }

    func rollBack(extraFlags: UInt32) {
        if let (before, id) = transitions.rollBack(extraFlags: extraFlags, into: &run) {
            stack = before
            endHolds(tiedTo: id)
        }
        rejudgeSwipeWaiters()
    }

    /// Without a guard that refuses or defers, a request applied while a
    /// transition is in flight first ends it: an interactive back ends in its
    /// decided direction (an undecided one commits).
    func interruptInFlight() {
        if transitions.isIdle { return }
        if transitions.swipe?.decision == .cancel {
            rollBack(extraFlags: UInt32(NG_TRANSF_INTERRUPTED))
        } else {
            endTracks(.all, extraFlags: UInt32(NG_TRANSF_INTERRUPTED))
        }
    }

    /// Destroy: what is in flight ends, marked DESTROYED, as the watchdog
    /// would end it: a swipe not released to finish rolls back, anything
    /// else finishes. Every WILL the host saw gets its DID or CANCELLED.
    func endInFlightForDestroy() {
        if transitions.isIdle { return }
        let flags = UInt32(NG_TRANSF_DESTROYED)
        if let s = transitions.swipe, s.decision != .finish {
            rollBack(extraFlags: flags)
        } else {
            endTracks(.all, extraFlags: flags)
        }
    }
}
