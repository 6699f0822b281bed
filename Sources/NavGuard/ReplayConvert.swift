import CNavGuard
import Glibc
import NavGuardCore

// Trace records → the C structs the replaying host passes, and the replay
// context's delegate (callbacks → the comparison).

/// C strings that live until `free()` (the duration of one replayed call).
struct CStrings {
    private(set) var pointers: [UnsafeMutablePointer<CChar>] = []

    mutating func make(_ s: String?) -> UnsafePointer<CChar>? {
        guard let s else { return nil }
        let p = strdup(s)!
        pointers.append(p)
        return UnsafePointer(p)
    }

    func free() { for p in pointers { Glibc.free(p) } }
}

private func screenFrom(_ v: JSONValue, _ strings: inout CStrings) -> Result<ng_screen, FieldError> {
    guard let id = v["id"]?.uint64 else { return .failure(FieldError(message: "a screen without an id")) }
    guard let route = v["route"]?.string else { return .failure(FieldError(message: "screen \(id) has no route")) }
    return .success(ng_screen(id: id, route: strings.make(route), identity: strings.make(v["identity"]?.string)))
}

func withScreen(_ v: JSONValue, _ body: (ng_screen) -> ng_status) -> Result<ng_status, FieldError> {
    var strings = CStrings()
    defer { strings.free() }
    switch screenFrom(v, &strings) {
    case .success(let s): return .success(body(s))
    case .failure(let e): return .failure(e)
    }
}

func withRequest(_ v: JSONValue, _ body: (UnsafePointer<ng_request>) -> ng_status) -> Result<ng_status, FieldError> {
    var strings = CStrings()
    defer { strings.free() }
    guard let kind = enumValue(v["kind"], ng_request_kind_name, 0..<NG_REQ_KIND_COUNT) else {
        return .failure(FieldError(message: "a request with an unknown kind"))
    }
    var r = ng_request()
    r.size = UInt32(MemoryLayout<ng_request>.size)
    r.kind = kind
    r.flags = UInt32(truncatingIfNeeded: v["flags"]?.int64 ?? 0)
    r.source = UInt32(truncatingIfNeeded: v["source"]?.int64 ?? 0)
    if let s = v["screen"] {
        switch screenFrom(s, &strings) {
        case .success(let x): r.screen = x
        case .failure(let e): return .failure(e)
        }
    }
    r.target_id = v["target"]?.uint64 ?? 0
    r.duration_ns = v["duration_ns"]?.int64 ?? 0
    r.driving_touch = v["touch"]?.uint64 ?? 0
    r.from_screen = v["from"]?.uint64 ?? 0
    if kind == NG_REQ_PUSH { r.screen_flags = UInt32(truncatingIfNeeded: v["screen"]?["flags"]?.int64 ?? 0) }
    var screens: [ng_screen] = []
    for s in v["screens"]?.array ?? [] {
        switch screenFrom(s, &strings) {
        case .success(let x): screens.append(x)
        case .failure(let e): return .failure(e)
        }
    }
    return .success(screens.withUnsafeBufferPointer { buf in
        r.screens = buf.baseAddress
        r.screen_count = buf.count
        return withUnsafePointer(to: &r) { body($0) }
    })
}

func eventFrom(_ v: JSONValue) -> Result<ng_event, FieldError> {
    guard let type = enumValue(v["type"], ng_event_type_name, 0..<NG_EVENT_TYPE_COUNT) else {
        return .failure(FieldError(message: "an event with an unknown type"))
    }
    var e = ng_event()
    e.size = UInt32(MemoryLayout<ng_event>.size)
    e.type = type
    if type == NG_EVENT_TOUCH {
        guard let phase = enumValue(v["phase"], ng_touch_phase_name, 0..<4) else {
            return .failure(FieldError(message: "a touch event with an unknown phase"))
        }
        e.phase = phase
    } else {
        e.phase = Int32(truncatingIfNeeded: v["phase"]?.int64 ?? 0)
    }
    e.touch_id = v["touch"]?.uint64 ?? 0
    e.x = number(v["x"])
    e.y = number(v["y"])
    e.flags = UInt32(truncatingIfNeeded: v["flags"]?.int64 ?? 0)
    e.target_view = v["target"]?.uint64 ?? 0
    e.code = v["code"]?.int64 ?? 0
    e.timestamp_ns = v["ts"]?.int64 ?? 0
    return .success(e)
}

/// A number as the trace writes it ("inf", "-inf" and "nan" as strings).
func number(_ v: JSONValue?) -> Double {
    guard let v else { return 0 }
    if let d = v.double { return d }
    switch v.string {
    case "inf": return .infinity
    case "-inf": return -.infinity
    case "nan": return .nan
    default: return 0
    }
}

func withView(_ v: JSONValue, _ body: (UnsafePointer<ng_view>) -> ng_status) -> Result<ng_status, FieldError> {
    guard let id = v["id"]?.uint64 else { return .failure(FieldError(message: "a view without an id")) }
    var c = ng_view()
    c.size = UInt32(MemoryLayout<ng_view>.size)
    c.id = id
    c.parent = v["parent"]?.uint64 ?? 0
    c.frame = ng_rect(x: number(v["x"]), y: number(v["y"]), width: number(v["w"]), height: number(v["h"]))
    c.order = Int32(truncatingIfNeeded: v["order"]?.int64 ?? 0)
    c.flags = UInt32(truncatingIfNeeded: v["flags"]?.int64 ?? 0)
    c.alpha = v["alpha"].map { number($0) } ?? 1
    let shape = v["shape"]
    guard let kind = shape?["kind"] == nil ? NG_SHAPE_BOUNDS : enumValue(shape?["kind"], ng_shape_kind_name, 0..<4) else {
        return .failure(FieldError(message: "view \(id) has an unknown shape kind"))
    }
    c.shape.kind = kind
    c.shape.top = number(shape?["top"])
    c.shape.left = number(shape?["left"])
    c.shape.bottom = number(shape?["bottom"])
    c.shape.right = number(shape?["right"])
    c.shape.cx = number(shape?["cx"])
    c.shape.cy = number(shape?["cy"])
    c.shape.radius = number(shape?["r"])
    var points: [ng_point] = []
    for p in shape?["points"]?.array ?? [] {
        points.append(ng_point(x: number(p[0]), y: number(p[1])))
    }
    return .success(points.withUnsafeBufferPointer { buf in
        c.shape.points = buf.baseAddress
        c.shape.point_count = buf.count
        return withUnsafePointer(to: &c) { body($0) }
    })
}

extension Replayer {
    /// The replay context's delegate: every callback goes to `callback`,
    /// written as the recorder writes it.
    static func delegate(_ r: Replayer) -> ng_delegate {
        var d = ng_delegate()
        d.size = UInt32(MemoryLayout<ng_delegate>.size)
        d.user = Unmanaged.passUnretained(r).toOpaque()
        d.on_outcome = { user, _, o in
            let r = Unmanaged<Replayer>.fromOpaque(user!).takeUnretainedValue()
            let c = o!.pointee
            let rec = OutcomeRecord(requestID: c.request_id, kind: c.kind, outcome: c.outcome, reason: c.reason,
                                    source: c.source, guardID: c.guard_id,
                                    message: r.outcomeMessage(id: c.request_id, reason: c.reason, c.message))
            r.callback("outcome") { TraceWrite.outcome($0, rec) }
        }
        d.on_transition = { user, _, e in
            let r = Unmanaged<Replayer>.fromOpaque(user!).takeUnretainedValue()
            let ev = e!.pointee
            r.callback("transition") { TraceWrite.transition($0, ev) }
        }
        d.on_hold_end = { user, _, h in
            let r = Unmanaged<Replayer>.fromOpaque(user!).takeUnretainedValue()
            let x = h!.pointee
            r.callback("hold_end") {
                TraceWrite.holdEnd($0, token: x.token, label: x.label, mask: x.mask, reason: x.reason,
                                   began: x.began_ns, ended: x.ended_ns)
            }
        }
        d.on_report = { user, _, gid, text in
            let r = Unmanaged<Replayer>.fromOpaque(user!).takeUnretainedValue()
            r.callback("report") { TraceWrite.report($0, guardID: gid, text: text) }
        }
        d.on_log = { user, _, severity, gid, message in
            let r = Unmanaged<Replayer>.fromOpaque(user!).takeUnretainedValue()
            r.callback("log") { TraceWrite.log($0, severity: severity, guardID: gid, message: message) }
        }
        d.on_touch_cancel = { user, _, t in
            let r = Unmanaged<Replayer>.fromOpaque(user!).takeUnretainedValue()
            let x = t!.pointee
            r.callback("touch_cancel") { TraceWrite.touchCancel($0, x) }
        }
        d.on_question = { user, _, q in
            let r = Unmanaged<Replayer>.fromOpaque(user!).takeUnretainedValue()
            let x = q!.pointee
            r.callback("question") { TraceWrite.question($0, x) }
        }
        d.on_question_end = { user, _, q, answer in
            let r = Unmanaged<Replayer>.fromOpaque(user!).takeUnretainedValue()
            let x = q!.pointee
            r.callback("question_end") { TraceWrite.questionEnd($0, x, answer: answer) }
        }
        return d
    }
}

@c @implementation
public func ng_replay(_ trace: UnsafePointer<CChar>?, _ len: Int, _ options: UnsafePointer<ng_replay_options>?,
                      _ out: UnsafeMutablePointer<ng_replay_result>?) -> ng_status {
    guard let trace, let out else { return NG_E_NULL }
    guard out.pointee.size >= UInt32(MemoryLayout<ng_replay_result>.size) else { return NG_E_SIZE }
    var chain: String?
    if let options {
        var o = ng_replay_options()
        guard copySized(options, into: &o) >= MemoryLayout<ng_replay_options>.size else { return NG_E_SIZE }
        if let c = o.chain {
            switch readStringUnbounded(c, "chain") {
            case .success(let s): chain = s
            case .failure(let e):
                fillResult(out, ReplayOutcome(line: 0, report: "replay: \(e.message)\n"))
                return e.status
            }
        }
    }
    let bytes = UnsafeRawBufferPointer(start: trace, count: len)
    let parsed = Trace.read(bytes)
    guard case .success(let t) = parsed else {
        if case .failure(let e) = parsed {
            fillResult(out, ReplayOutcome(line: e.line, report: "replay: \(e.message)\n"))
            return e.status
        }
        return NG_E_PARSE
    }
    let replayer = Replayer(trace: t, chain: chain)
    switch replayer.run() {
    case .success(let o):
        fillResult(out, o)
        return NG_OK
    case .failure(let e):
        fillResult(out, ReplayOutcome(line: e.line, report: "replay: \(e.message)\n"))
        return e.status
    }
}

private func fillResult(_ out: UnsafeMutablePointer<ng_replay_result>, _ o: ReplayOutcome) {
    out.pointee.identical = o.identical
    out.pointee.calls = UInt64(o.calls)
    out.pointee.callbacks = UInt64(o.callbacks)
    out.pointee.line = UInt64(o.line)
    var text = o.report
    out.pointee.report = text.withUTF8 { buf in
        let p = malloc(buf.count + 1)!.assumingMemoryBound(to: CChar.self)
        UnsafeMutableRawPointer(p).copyMemory(from: buf.baseAddress!, byteCount: buf.count)
        p[buf.count] = 0
        return p
    }
}

extension ReplayOutcome {
    init(line: Int, report: String) {
        self.init()
        self.line = line
        self.report = report
    }
}
