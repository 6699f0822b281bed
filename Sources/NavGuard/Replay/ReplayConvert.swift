import CNavGuard
import NavGuardLibc
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

    func free() { for p in pointers { NavGuardLibc.free(p) } }
}

// Every number read from a record is checked here: a field left out takes
// its default; a field given must be a number of its C type's range, or the
// record is refused with its name (never cut to fit, never trapped on).

/// An integer field (`what` names it in the error).
func integer<T: FixedWidthInteger>(_ x: JSONValue?, _ what: String, as _: T.Type = T.self,
                                   default dflt: T = 0) throws(FieldError) -> T {
    guard let x else { return dflt }
    if T.self == UInt64.self, let u = x.uint64 { return T(truncatingIfNeeded: u) }
    guard let i = x.int64, let t = T(exactly: i) else {
        throw FieldError(message: "\"\(what)\" is \(clip(JSON.serialize(x))), not an integer in \(T.min)...\(T.max)")
    }
    return t
}

/// A time or duration field: an integer of nanoseconds, not negative.
func nanoseconds(_ x: JSONValue?, _ what: String) throws(FieldError) -> Int64 {
    let t = try integer(x, what, as: Int64.self)
    guard t >= 0 else { throw FieldError(message: "\"\(what)\" is \(t): a trace's times are nanoseconds >= 0") }
    return t
}

/// A floating-point field, as the trace writes it ("inf", "-inf" and "nan"
/// as strings).
func real(_ x: JSONValue?, _ what: String, default dflt: Double = 0) throws(FieldError) -> Double {
    guard let x else { return dflt }
    if let d = x.double { return d }
    switch x.string {
    case "inf": return .infinity
    case "-inf": return -.infinity
    case "nan": return .nan
    default: throw FieldError(message: "\"\(what)\" is \(clip(JSON.serialize(x))), not a number")
    }
}

private func screenFrom(_ v: JSONValue, _ strings: inout CStrings) throws(FieldError) -> ng_screen {
    guard v["id"] != nil else { throw FieldError(message: "a screen without an id") }
    let id = try integer(v["id"], "id", as: UInt64.self)
    guard let route = v["route"]?.string else { throw FieldError(message: "screen \(id) has no route") }
    return ng_screen(id: id, route: strings.make(route), identity: strings.make(v["identity"]?.string))
}

func withScreen(_ v: JSONValue, _ body: (ng_screen) -> ng_status) throws(FieldError) -> ng_status {
    var strings = CStrings()
    defer { strings.free() }
    return body(try screenFrom(v, &strings))
}

func withRequest(_ v: JSONValue, _ body: (UnsafePointer<ng_request>) -> ng_status) throws(FieldError) -> ng_status {
    var strings = CStrings()
    defer { strings.free() }
    guard let kind = enumValue(v["kind"], ng_request_kind_name, 0..<NG_REQ_KIND_COUNT) else {
        throw FieldError(message: "a request with an unknown kind")
    }
    var r = ng_request()
    var screens: [ng_screen] = []
    r.size = UInt32(MemoryLayout<ng_request>.size)
    r.kind = kind
    r.flags = try integer(v["flags"], "flags")
    r.source = try integer(v["source"], "source")
    if let s = v["screen"] { r.screen = try screenFrom(s, &strings) }
    r.target_id = try integer(v["target"], "target")
    r.duration_ns = try integer(v["duration_ns"], "duration_ns")
    r.driving_touch = try integer(v["touch"], "touch")
    r.from_screen = try integer(v["from"], "from")
    if kind == NG_REQ_PUSH { r.screen_flags = try integer(v["screen"]?["flags"], "screen.flags") }
    for s in v["screens"]?.array ?? [] { screens.append(try screenFrom(s, &strings)) }
    return screens.withUnsafeBufferPointer { buf in
        r.screens = buf.baseAddress
        r.screen_count = buf.count
        return withUnsafePointer(to: &r) { body($0) }
    }
}

func eventFrom(_ v: JSONValue) throws(FieldError) -> ng_event {
    guard let type = enumValue(v["type"], ng_event_type_name, 0..<NG_EVENT_TYPE_COUNT) else {
        throw FieldError(message: "an event with an unknown type")
    }
    var e = ng_event()
    e.size = UInt32(MemoryLayout<ng_event>.size)
    e.type = type
    if type == NG_EVENT_TOUCH {
        guard let phase = enumValue(v["phase"], ng_touch_phase_name, 0..<4) else {
            throw FieldError(message: "a touch event with an unknown phase")
        }
        e.phase = phase
    } else {
        e.phase = try integer(v["phase"], "phase")
    }
    e.touch_id = try integer(v["touch"], "touch")
    e.x = try real(v["x"], "x")
    e.y = try real(v["y"], "y")
    e.flags = try integer(v["flags"], "flags")
    e.target_view = try integer(v["target"], "target")
    e.code = try integer(v["code"], "code")
    e.timestamp_ns = try integer(v["ts"], "ts")
    return e
}

func withView(_ v: JSONValue, _ body: (UnsafePointer<ng_view>) -> ng_status) throws(FieldError) -> ng_status {
    guard v["id"] != nil else { throw FieldError(message: "a view without an id") }
    var c = ng_view()
    var points: [ng_point] = []
    let id = try integer(v["id"], "id", as: UInt64.self)
    c.size = UInt32(MemoryLayout<ng_view>.size)
    c.id = id
    c.parent = try integer(v["parent"], "parent")
    c.frame = ng_rect(x: try real(v["x"], "x"), y: try real(v["y"], "y"),
                      width: try real(v["w"], "w"), height: try real(v["h"], "h"))
    c.order = try integer(v["order"], "order")
    c.flags = try integer(v["flags"], "flags")
    c.alpha = try real(v["alpha"], "alpha", default: 1)
    let shape = v["shape"]
    guard let kind = shape?["kind"] == nil ? NG_SHAPE_BOUNDS : enumValue(shape?["kind"], ng_shape_kind_name, 0..<4) else {
        throw FieldError(message: "view \(id) has an unknown shape kind")
    }
    c.shape.kind = kind
    c.shape.top = try real(shape?["top"], "top")
    c.shape.left = try real(shape?["left"], "left")
    c.shape.bottom = try real(shape?["bottom"], "bottom")
    c.shape.right = try real(shape?["right"], "right")
    c.shape.cx = try real(shape?["cx"], "cx")
    c.shape.cy = try real(shape?["cy"], "cy")
    c.shape.radius = try real(shape?["r"], "r")
    for p in shape?["points"]?.array ?? [] {
        points.append(ng_point(x: try real(p[0], "points[][0]"), y: try real(p[1], "points[][1]")))
    }
    return points.withUnsafeBufferPointer { buf in
        c.shape.points = buf.baseAddress
        c.shape.point_count = buf.count
        return withUnsafePointer(to: &c) { body($0) }
    }
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
            let rec = OutcomeRecord(requestID: c.request_id, kind: RequestKind(rawValue: c.kind),
                                    outcome: Outcome(rawValue: c.outcome), reason: Reason(rawValue: c.reason),
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
            r.callback("hold_end") { TraceWrite.holdEnd($0, x) }
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

func fillResult(_ out: UnsafeMutablePointer<ng_replay_result>, _ o: ReplayOutcome) {
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
