// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore
import NavGuardTrace

// navguard.h, "Transitions": ending tracks, the interactive (swipe) back,
// and reading what is in flight.

@c @implementation
public func ng_transition_finish(_ ctx: OpaquePointer?, _ track: ng_track) -> ng_status {
    withContext(ctx, record: .finish) { box throws(EngineError) in
        box.recordArgs { FinishCall.encode(&$0, track: track) }
        try box.engine.finishTransition(Track(rawValue: track))
    }
}

@c @implementation
public func ng_interactive_update(_ ctx: OpaquePointer?, _ progress: Double) -> ng_status {
    withContext(ctx, record: .interactiveUpdate) { box throws(EngineError) in
        box.recordArgs { InteractiveUpdateCall.encode(&$0, progress: progress) }
        try box.engine.updateInteractive(progress)
    }
}

@c @implementation
public func ng_interactive_cancel(_ ctx: OpaquePointer?) -> ng_status {
    withContext(ctx, record: .interactiveCancel) { box throws(EngineError) in
        box.recordArgs { NoArgsCall.encode(&$0) }
        try box.engine.cancelInteractive()
    }
}

@c @implementation
public func ng_interactive_release(_ ctx: OpaquePointer?, _ finish: Bool) -> ng_status {
    withContext(ctx, record: .interactiveRelease) { box throws(EngineError) in
        box.recordArgs { InteractiveReleaseCall.encode(&$0, finish: finish) }
        try box.engine.releaseInteractive(finish: finish)
    }
}

@c @implementation
public func ng_interactive_complete(_ ctx: OpaquePointer?) -> ng_status {
    withContext(ctx, record: .interactiveComplete) { box throws(EngineError) in
        box.recordArgs { NoArgsCall.encode(&$0) }
        try box.engine.completeInteractive()
    }
}

@c @implementation
public func ng_transition_in_flight(_ ctx: OpaquePointer?, _ track: ng_track, _ outBusy: UnsafeMutablePointer<Bool>?, _ outRequestID: UnsafeMutablePointer<UInt64>?) -> ng_status {
    withContext(ctx) { box throws(EngineError) in
        guard let outBusy else { throw .null("out_busy") }
        let id = box.engine.inFlight(try screenOrBar(track))
        outBusy.pointee = id != 0
        outRequestID?.pointee = id
    }
}

@c @implementation
public func ng_track_get(_ ctx: OpaquePointer?, _ track: ng_track, _ out: UnsafeMutablePointer<ng_track_info>?) -> ng_status {
    withContext(ctx) { box throws(EngineError) in
        guard let out else { throw .null("out") }
        try box.checkSize(out.pointee.size, NG_TRACK_INFO_MIN_SIZE, "ng_track_info")
        guard let info = box.engine.trackView(try screenOrBar(track)) else {
            throw EngineError(NG_E_NOT_FOUND, "no transition in flight on the \(String(cString: ng_track_name(track))) track")
        }
        writeSized(info, to: out)
    }
}

/// What reads a track takes: one of the two, not both.
private func screenOrBar(_ track: ng_track) throws(EngineError) -> Track {
    let t = Track(rawValue: track)
    guard t.isOne else {
        throw EngineError(NG_E_RANGE, "track \(track) is not NG_TRACK_SCREEN or NG_TRACK_BAR")
    }
    return t
}
