// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore
import NavGuardTrace

// navguard.h, "Input: events, views and hit testing": events and live
// touches (the views are ViewsAPI.swift).

let knownEventFlags = UInt32(NG_EVF_HAS_TARGET)

/// What is wrong with an event the host filled; nil when it is well-formed.
/// A code, not text: the checks stay in the event path, the words
/// (`message`) out of it.
enum EventProblem {
    case type, phase, flags, targetFlag, point, timestamp

    @inline(__always)
    static func of(_ e: ng_event) -> EventProblem? {
        guard e.type >= 0 && e.type < NG_EVENT_TYPE_COUNT else { return .type }
        if e.type == NG_EVENT_TOUCH && !TouchPhase(rawValue: e.phase).isKnown { return .phase }
        if e.flags & ~knownEventFlags != 0 { return .flags }
        if e.flags & knownEventFlags != 0 && e.target_view == 0 { return .targetFlag }
        // Infinite as much as NaN: a point at infinity is no place a host can act on.
        if !e.x.isFinite || !e.y.isFinite { return .point }
        if e.timestamp_ns < 0 { return .timestamp }
        return nil
    }

    @inline(never)
    func error(_ e: ng_event) -> EngineError {
        let text: String
        switch self {
        case .type: text = "event type \(e.type) is out of range"
        case .phase: text = "touch phase \(e.phase) is out of range"
        case .flags: text = "unknown event flags"
        case .targetFlag: text = "NG_EVF_HAS_TARGET with target_view 0"
        case .point: text = "event point (\(e.x), \(e.y)) is not finite"
        case .timestamp: text = "negative timestamp_ns \(e.timestamp_ns)"
        }
        return EngineError(NG_E_RANGE, text)
    }
}

/// Continuous input (moved touches, hover, scroll, motion) makes no
/// deadline earlier: on_deadline is not asked after it, which keeps the
/// event path as cheap as without the callback.
@inline(__always)
func isContinuous(_ e: ng_event) -> Bool {
    e.type == NG_EVENT_TOUCH ? e.phase == NG_TOUCH_MOVED : (e.type != NG_EVENT_KEY && e.type != NG_EVENT_REMOTE)
}

@c @implementation
public func ng_event_submit(_ ctx: OpaquePointer?, _ event: UnsafePointer<ng_event>?, _ out: UnsafeMutablePointer<ng_event_result>?) -> ng_status {
    // A local function, not a closure, so that it can be written into
    // withContext's body (a closure this size was called, with a frame of
    // its own, on every event).
    @inline(__always)
    func submit(_ box: ContextBox) throws(EngineError) {
        do throws(EngineError) {
            guard let event else { throw .null("event") }
            if let out { try box.checkSize(out.pointee.size, NG_EVENT_RESULT_MIN_SIZE, "ng_event_result") }
            let ts = event.pointee.timestamp_ns
            if _fastPath(Int(event.pointee.size) == MemoryLayout<ng_event>.size && (ts == 0 || ts >= box.lastEventNs)) {
                // The common case: the host's event is used in place, no copy.
                if let p = EventProblem.of(event.pointee) { throw p.error(event.pointee) }
                if ts != 0 { box.lastEventNs = ts }
                route(box, event, out)
            } else {
                try routeCopy(box, event, out)
            }
        } catch {
            refused(out)
            throw error
        }
    }
    return withContext(ctx, record: .event, entersWithArgs: true, deadline: false, submit)
}

/// An event of another size than ours, or one dated before the previous
/// event: copied, completed, and routed (out of line: the common case above
/// then carries one copy of `route`).
@inline(never)
private func routeCopy(_ box: ContextBox, _ event: UnsafePointer<ng_event>, _ out: UnsafeMutablePointer<ng_event_result>?) throws(EngineError) {
    let declared = Int(event.pointee.size)
    guard declared >= Int(NG_EVENT_MIN_SIZE) else {
        throw EngineError(NG_E_SIZE, "ng_event.size is \(declared); set it to sizeof(ng_event)")
    }
    var e = ng_event()
    _ = copySized(event, into: &e)
    e.size = UInt32(MemoryLayout<ng_event>.size)
    if let p = EventProblem.of(e) { throw p.error(e) }
    // Two input sources' clocks may disagree: time never goes back.
    if e.timestamp_ns != 0 {
        e.timestamp_ns = max(e.timestamp_ns, box.lastEventNs)
        box.lastEventNs = e.timestamp_ns
    }
    withUnsafePointer(to: &e) { route(box, $0, out) }
}

/// An event refused with a status was not submitted: `out` (a host's
/// documented submit loop reads it) says DROP, never the zeroed DELIVER.
@inline(never)
private func refused(_ out: UnsafeMutablePointer<ng_event_result>?) {
    guard let out, Int(out.pointee.size) >= Int(NG_EVENT_RESULT_MIN_SIZE) else { return }
    var r = ng_event_result()
    r.verdict = NG_VERDICT_DROP
    r.reason = NG_REASON_INVALID
    writeSized(r, to: out)
}

/// Record, route and answer one accepted event. Written into the common
/// case's body (`@_transparent`: the call and its frame cost as much as the
/// rest); the recorder's entry with the arguments (withContext's
/// `entersWithArgs`) and a short `out` are out of line (its result, a few
/// stores into the call's frame, is not).
@_transparent
private func route(_ box: ContextBox, _ event: UnsafePointer<ng_event>, _ out: UnsafeMutablePointer<ng_event_result>?) {
    // The recorder is looked up once (it cannot start or stop meanwhile).
    let rec = box.bridge.rec
    if let rec { recordEventArgs(rec, event) }
    let v = box.engine.submitEvent(event)
    if let rec { recordEventReturn(rec, v) }
    if let out {
        if _fastPath(out.pointee.size >= UInt32(MemoryLayout<ng_event_result>.size)) {
            out.pointee.verdict = v.verdict.rawValue
            out.pointee.reason = v.reason.rawValue
            out.pointee.target_view = v.target
            out.pointee.guard_id = v.guardID
            out.pointee.hold_token = v.holdToken
            out.pointee.hold_label = v.holdLabel
        } else {
            writeShortResult(v, out)
        }
    }
    if !isContinuous(event.pointee) { box.bridge.reportDeadline() }
}

@inline(never)
private func recordEventArgs(_ rec: Unmanaged<Recorder>, _ event: UnsafePointer<ng_event>) {
    rec._withUnsafeGuaranteedRef {
        $0.enterEvent(event, continuous: isContinuous(event.pointee))
    }
}

/// The event's return: written in place and left (Recorder.leaveEvent),
/// or its result kept for withContext's `leave`.
@inline(never)
private func recordEventReturn(_ rec: Unmanaged<Recorder>, _ v: EventVerdict) {
    rec._withUnsafeGuaranteedRef {
        if !$0.leaveEvent(v) { $0.result(.event(verdict: v.verdict.rawValue, reason: v.reason.rawValue, view: v.target, guardID: v.guardID)) }
    }
}

/// An ng_event_result of an older, shorter layout: the fields it has.
@inline(never)
private func writeShortResult(_ v: EventVerdict, _ out: UnsafeMutablePointer<ng_event_result>) {
    var r = ng_event_result()
    r.verdict = v.verdict.rawValue
    r.reason = v.reason.rawValue
    r.target_view = v.target
    r.guard_id = v.guardID
    r.hold_token = v.holdToken
    r.hold_label = v.holdLabel
    writeSized(r, to: out)
}

@c @implementation
public func ng_touch_count(_ ctx: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?) -> ng_status {
    withContext(ctx) { box throws(EngineError) in
        guard let out else { throw .null("out_count") }
        out.pointee = box.engine.touchCount
    }
}

@c @implementation
public func ng_touch_get(_ ctx: OpaquePointer?, _ index: Int, _ out: UnsafeMutablePointer<ng_touch_info>?) -> ng_status {
    withContext(ctx) { box throws(EngineError) in
        guard let out else { throw .null("out") }
        try box.checkSize(out.pointee.size, NG_TOUCH_INFO_MIN_SIZE, "ng_touch_info")
        guard let t = box.engine.touch(at: index) else {
            throw EngineError(NG_E_NOT_FOUND, "index \(index) is outside the live touches")
        }
        writeSized(t, to: out)
    }
}
