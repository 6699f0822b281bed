import CNavGuard
import NavGuardCore

// Input exports: events, views, hit testing, live touches.

let knownEventFlags = UInt32(NG_EVF_HAS_TARGET)

/// Check an event the host filled; nil when it is well-formed.
@inline(__always)
func eventProblem(_ e: ng_event) -> String? {
    guard e.type >= 0 && e.type < NG_EVENT_TYPE_COUNT else { return "event type \(e.type) is out of range" }
    if e.type == NG_EVENT_TOUCH && (e.phase < NG_TOUCH_BEGAN || e.phase > NG_TOUCH_CANCELLED) {
        return "touch phase \(e.phase) is out of range"
    }
    if e.flags & ~knownEventFlags != 0 { return "unknown event flags" }
    if e.flags & knownEventFlags != 0 && e.target_view == 0 { return "NG_EVF_HAS_TARGET with target_view 0" }
    // Infinite as much as NaN: a point at infinity is no place a host can act on.
    if !e.x.isFinite || !e.y.isFinite { return "event point (\(e.x), \(e.y)) is not finite" }
    if e.timestamp_ns < 0 { return "negative timestamp_ns \(e.timestamp_ns)" }
    return nil
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
    withContext(ctx, record: "event", deadline: false) { box in
        guard let event else { return refused(box, out, NG_E_NULL, "event is NULL") }
        if let out, let st = box.failUndersized(out.pointee.size, Int(NG_EVENT_RESULT_MIN_SIZE), "ng_event_result") { return st }
        let declared = Int(event.pointee.size)
        let full = MemoryLayout<ng_event>.size
        let ts = event.pointee.timestamp_ns
        if declared == full && (ts == 0 || ts >= box.lastEventNs) {
            // The common case: the host's event is used in place, no copy.
            if let p = eventProblem(event.pointee) { return refused(box, out, NG_E_RANGE, p) }
            if ts != 0 { box.lastEventNs = ts }
            return route(box, event, out)
        }
        guard declared >= Int(NG_EVENT_MIN_SIZE) else {
            return refused(box, out, NG_E_SIZE, "ng_event.size is \(declared); set it to sizeof(ng_event)")
        }
        var e = ng_event()
        _ = copySized(event, into: &e)
        e.size = UInt32(full)
        if let p = eventProblem(e) { return refused(box, out, NG_E_RANGE, p) }
        // Two input sources' clocks may disagree: time never goes back.
        if e.timestamp_ns != 0 {
            e.timestamp_ns = max(e.timestamp_ns, box.lastEventNs)
            box.lastEventNs = e.timestamp_ns
        }
        return withUnsafePointer(to: &e) { route(box, $0, out) }
    }
}

/// An event refused with a status was not submitted: `out` (a host's
/// documented submit loop reads it) says DROP, never the zeroed DELIVER.
private func refused(_ box: ContextBox, _ out: UnsafeMutablePointer<ng_event_result>?, _ st: ng_status,
                     _ message: String) -> ng_status {
    if let out, Int(out.pointee.size) >= Int(NG_EVENT_RESULT_MIN_SIZE) {
        var r = ng_event_result()
        r.verdict = NG_VERDICT_DROP
        r.reason = NG_REASON_INVALID
        writeSized(r, to: out)
    }
    return box.fail(st, message)
}

@inline(__always)
private func route(_ box: ContextBox, _ event: UnsafePointer<ng_event>, _ out: UnsafeMutablePointer<ng_event_result>?) -> ng_status {
    if let rec = box.recorder { rec.args(box.engine.now) { w in w.object("ev") { TraceWrite.event($0, event.pointee) } } }
    let v = box.engine.submitEvent(event)
    if let rec = box.recorder {
        rec.result { TraceWrite.eventResult($0, verdict: v.verdict, reason: v.reason, view: v.target, guardID: v.guardID) }
    }
    if let out {
        if out.pointee.size >= UInt32(MemoryLayout<ng_event_result>.size) {
            out.pointee.verdict = v.verdict
            out.pointee.reason = v.reason
            out.pointee.target_view = v.target
            out.pointee.guard_id = v.guardID
            out.pointee.hold_token = v.holdToken
            out.pointee.hold_label = v.holdLabel
        } else {
            var r = ng_event_result()
            r.verdict = v.verdict
            r.reason = v.reason
            r.target_view = v.target
            r.guard_id = v.guardID
            r.hold_token = v.holdToken
            r.hold_label = v.holdLabel
            writeSized(r, to: out)
        }
    }
    if !isContinuous(event.pointee) { box.reportDeadline() }
    return NG_OK
}

func viewError(_ box: ContextBox, _ err: any Error) -> ng_status {
    guard let e = err as? ViewTreeError else { return box.fail(err) }
    switch e {
    case .invalidID: return box.fail(NG_E_RANGE, "view id 0 is reserved")
    case .unknownParent: return box.fail(NG_E_NOT_FOUND, "the parent view is not in the tree")
    case .cycle: return box.fail(NG_E_STATE, "the parent is the view itself or one of its descendants")
    case .invalidFrame: return box.fail(NG_E_RANGE, "frame has a NaN/infinite value or a negative size")
    case .invalidAlpha: return box.fail(NG_E_RANGE, "alpha must be within 0...1")
    case .invalidShape: return box.fail(NG_E_RANGE, "hit shape has a NaN/infinite value or a negative radius")
    case .notFound: return box.fail(NG_E_NOT_FOUND, "no such view")
    case .limit: return box.fail(NG_E_NO_MEMORY, "too many views (65536) or polygon points (1024)")
    }
}

@c @implementation
public func ng_view_set(_ ctx: OpaquePointer?, _ view: UnsafePointer<ng_view>?) -> ng_status {
    withContext(ctx, record: "view_set") { box in
        guard let view else { return box.fail(NG_E_NULL, "view is NULL") }
        var v = ng_view()
        guard copySized(view, into: &v) >= Int(NG_VIEW_MIN_SIZE) else {
            return box.fail(NG_E_SIZE, "ng_view.size is below NG_VIEW_MIN_SIZE; set it to sizeof(ng_view) (NG_VIEW_INIT)")
        }
        guard let flags = ViewFlags(cValue: v.flags) else { return box.fail(NG_E_RANGE, "unknown view flags") }
        let shape: HitShape
        let sh = v.shape
        switch sh.kind {
        case NG_SHAPE_BOUNDS: shape = .bounds
        case NG_SHAPE_INSETS: shape = .insets(top: sh.top, left: sh.left, bottom: sh.bottom, right: sh.right)
        case NG_SHAPE_CIRCLE: shape = .circle(centerX: sh.cx, centerY: sh.cy, radius: sh.radius)
        case NG_SHAPE_POLYGON:
            guard let pts = sh.points else { return box.fail(NG_E_NULL, "polygon points are NULL") }
            guard sh.point_count >= 3 else { return box.fail(NG_E_RANGE, "a polygon needs at least 3 points") }
            guard sh.point_count <= ViewTree.maxPolygonPoints else {
                return box.fail(NG_E_NO_MEMORY, "a polygon has at most \(ViewTree.maxPolygonPoints) points")
            }
            shape = .polygon((0..<sh.point_count).map { Point(x: pts[$0].x, y: pts[$0].y) })
        default:
            return box.fail(NG_E_RANGE, "hit shape kind \(sh.kind) is out of range")
        }
        let spec = ViewSpec(id: v.id, parent: v.parent,
                            frame: Rect(x: v.frame.x, y: v.frame.y, width: v.frame.width, height: v.frame.height),
                            order: v.order, flags: flags, alpha: v.alpha, shape: shape)
        box.recordArgs { w in w.key("view"); TraceWrite.view(w, spec) }
        do { try box.engine.setView(spec) } catch { return viewError(box, error) }
        return NG_OK
    }
}

@c @implementation
public func ng_view_remove(_ ctx: OpaquePointer?, _ viewID: UInt64) -> ng_status {
    withContext(ctx, record: "view_remove") { box in
        box.recordArgs { w in w.field("id", viewID) }
        do { try box.engine.removeView(viewID) } catch { return viewError(box, error) }
        return NG_OK
    }
}

@c @implementation
public func ng_hit_test(_ ctx: OpaquePointer?, _ x: Double, _ y: Double, _ outView: UnsafeMutablePointer<UInt64>?) -> ng_status {
    withContext(ctx) { box in
        guard let outView else { return box.fail(NG_E_NULL, "out_view is NULL") }
        guard !x.isNaN, !y.isNaN else { return box.fail(NG_E_RANGE, "point is NaN") }
        outView.pointee = box.engine.views.hitTest(Point(x: x, y: y)) ?? 0
        return NG_OK
    }
}

@c @implementation
public func ng_touch_count(_ ctx: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?) -> ng_status {
    withContext(ctx) { box in
        guard let out else { return box.fail(NG_E_NULL, "out_count is NULL") }
        out.pointee = box.engine.touchCount
        return NG_OK
    }
}

@c @implementation
public func ng_touch_get(_ ctx: OpaquePointer?, _ index: Int, _ out: UnsafeMutablePointer<ng_touch_info>?) -> ng_status {
    withContext(ctx) { box in
        guard let out else { return box.fail(NG_E_NULL, "out is NULL") }
        if let st = box.failUndersized(out.pointee.size, Int(NG_TOUCH_INFO_MIN_SIZE), "ng_touch_info") { return st }
        guard let t = box.engine.touch(at: index) else {
            return box.fail(NG_E_NOT_FOUND, "index \(index) is outside the live touches")
        }
        writeSized(t, to: out)
        return NG_OK
    }
}
