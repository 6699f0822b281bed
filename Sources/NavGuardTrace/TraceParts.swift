// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardLibc
import NavGuardCore

// The parts records are made of (docs/trace-format.md): a screen, a request,
// an event, a view, a guard. Each part is written here three ways, side by
// side: `encode`, what the recorder stores for it (binary, RecordBytes.swift);
// `format`, that binary as the trace's JSON; `init(json:)`, the JSON read
// back (replay, the timeline, stats). A key is named in `format` and read in
// `init(json:)` a few lines apart, and nowhere else.

// MARK: Reading fields

// Every number read from a record is checked here: a field left out takes
// its default; a field given must be a number of its C type's range, or the
// record is refused with its name (never cut to fit, never trapped on).

/// A value-conversion failure in a record (turned into a TraceError with its line).
public struct FieldError: Error {
    public let message: String
    public init(message: String) { self.message = message }
    func error(line: Int) -> TraceError { TraceError(status: NG_E_PARSE, line: line, message: "line \(line): \(message)") }
}

/// A record's fields read by `body`: a bad one is refused naming the line.
public func reading<T>(_ line: Int, _ body: () throws(FieldError) -> T) throws(TraceError) -> T {
    do { return try body() } catch { throw error.error(line: line) }
}

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

/// A text field: a string, or absent / null.
func text(_ x: JSONValue?, _ what: String) throws(FieldError) -> String? {
    guard let x, !x.isNull else { return nil }
    guard let s = x.string else { throw FieldError(message: "\"\(what)\" is \(clip(JSON.serialize(x))), not a string") }
    return s
}

/// An enumeration value as the trace writes it: its name ("screen" ->
/// NG_TRACK_SCREEN), or a number for a value the tables do not name.
func enumValue(_ v: JSONValue?, _ f: (Int32) -> UnsafePointer<CChar>?, _ range: Range<Int32>) -> Int32? {
    if let i = v?.int64 { return Int32(exactly: i) }   // out of Int32: unknown, not cut to fit
    guard let name = v?.string else { return nil }
    for x in range where String(cString: f(x)!) == name { return x }
    return nil
}

/// An enumeration field read leniently (the timeline and stats draw a
/// hand-edited trace too): its value, or -1 when absent or unknown.
func enumOrUnknown(_ v: JSONValue?, _ f: (Int32) -> UnsafePointer<CChar>?, _ range: Range<Int32>) -> Int32 {
    enumValue(v, f, range) ?? -1
}

/// A value's name from its table ("push"), or its number.
public func enumName(_ v: Int32, _ f: (Int32) -> UnsafePointer<CChar>?) -> String {
    let n = String(cString: f(v)!)
    return n == "unknown" ? String(v) : n
}

/// A long record shortened for a report.
public func clip(_ s: String) -> String { s.count > 400 ? String(s.prefix(397)) + "..." : s }

extension JSONValue {
    /// An unsigned 64-bit value: a number >= 0, or a decimal string above
    /// Int64.max (nil for anything else, a negative number included).
    public var uint64: UInt64? {
        if let i = int64 { return i >= 0 ? UInt64(i) : nil }
        if let s = string { return UInt64(s) }
        return nil
    }
}

/// Text read from a record: owned (from JSON) or a view into the record's
/// bytes (from binary, valid while they are).
extension UnsafeRawBufferPointer {
    var utf8String: String { String(decoding: self, as: UTF8.self) }
}

// MARK: Screen

/// A screen: `{"id":2,"route":"menu","identity":"menu","flags":1}` (flags
/// only when set).
public struct TraceScreen: Equatable {
    public var id: UInt64
    public var route: String
    /// As recorded; nil when the record has none (the route, for the core).
    public var identity: String?
    public var flags: UInt32

    public static func encode(_ w: inout RecordWriter, _ s: Screen) {
        w.u64(s.id)
        w.text(s.route)
        w.text(s.identity)
        w.u32(s.flags)
    }

    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        w.begin()
        w.field("id", r.u64())
        w.field("route", text: r.text())
        w.field("identity", text: r.text())
        let flags = r.u32()
        if flags != 0 { w.field("flags", flags) }
        w.end()
    }

    public init(json v: JSONValue) throws(FieldError) {
        guard v["id"] != nil else { throw FieldError(message: "a screen without an id") }
        id = try integer(v["id"], "id", as: UInt64.self)
        guard let route = v["route"]?.string else { throw FieldError(message: "screen \(id) has no route") }
        self.route = route
        identity = v["identity"]?.string
        flags = try integer(v["flags"], "flags")
    }

    public init(id: UInt64, route: String, identity: String? = nil, flags: UInt32 = 0) {
        self.id = id
        self.route = route
        self.identity = identity
        self.flags = flags
    }
}

// MARK: Request

/// A request (ng_request): `{"kind":"push","flags":1,"source":2,"screen":{...},
/// "target":3,"screens":[...],"duration_ns":5,"touch":7,"from":2,"device":4}`, each key
/// but `kind` only when it is not zero or empty.
public struct TraceRequest {
    /// NG_REQ_*; -1 when the record names no known kind.
    public var kind: Int32
    public var flags: UInt32 = 0
    public var source: UInt32 = 0
    public var screen: TraceScreen?
    public var target: UInt64 = 0
    public var screens: [TraceScreen] = []
    public var durationNs: Int64 = 0
    /// The driving touch, when the request names one (0 included).
    public var touch: UInt64?
    public var from: UInt64 = 0
    /// ng_request.device (0: none).
    public var device: UInt64 = 0

    public var kindName: String { enumName(kind, ng_request_kind_name) }

    public static func encode(_ w: inout RecordWriter, _ r: Request) {
        // The fixed fields in runs, each with one check of room.
        w.fixed(13) { f in
            f.i32(r.kind.rawValue)
            f.u32(r.flags)
            f.u32(r.source)
            f.u8(r.screen != nil ? 1 : 0)
        }
        if let s = r.screen { TraceScreen.encode(&w, s) }
        w.fixed(12) { f in
            f.u64(r.targetID)
            f.u32(UInt32(r.screens.count))
        }
        for s in r.screens { TraceScreen.encode(&w, s) }
        // One byte of marks: 1, a driving touch (0.3's bool); 2, a device
        // follows at the end (0.4). A 0.3 record has no device: its byte is
        // 0 or 1, so old rings and crash dumps read as before.
        w.fixed(25) { f in
            f.i64(r.durationNs)
            f.u8((r.drivingTouch != nil ? 1 : 0) | (r.device != 0 ? 2 : 0))
            f.u64(r.drivingTouch ?? 0)
            f.u64(r.fromScreen)
        }
        if r.device != 0 { w.u64(r.device) }
    }

    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        w.field("kind", r.i32(), .requestKind)
        let flags = r.u32()
        if flags != 0 { w.field("flags", flags) }
        let source = r.u32()
        if source != 0 { w.field("source", source) }
        if r.bool() {
            w.key("screen")
            TraceScreen.format(&r, w)
        }
        let target = r.u64()
        if target != 0 { w.field("target", target) }
        let n = r.u32()
        if n > 0 && !r.bad {
            w.array("screens") { w in
                var i: UInt32 = 0
                while i < n && !r.bad {
                    w.element()
                    TraceScreen.format(&r, w)
                    i += 1
                }
            }
        }
        let duration = r.i64()
        if duration != 0 { w.field("duration_ns", duration) }
        let marks = r.u8()
        let touch = r.u64()
        if marks & 1 != 0 { w.field("touch", touch) }
        let from = r.u64()
        if from != 0 { w.field("from", from) }
        if marks & 2 != 0 {
            let device = r.u64()
            if device != 0 { w.field("device", device) }
        }
    }

    public init(json v: JSONValue) throws(FieldError) {
        guard let kind = enumValue(v["kind"], ng_request_kind_name, 0..<NG_REQ_KIND_COUNT) else {
            throw FieldError(message: "a request with an unknown kind")
        }
        self.kind = kind
        flags = try integer(v["flags"], "flags")
        source = try integer(v["source"], "source")
        if let s = v["screen"] { screen = try TraceScreen(json: s) }
        target = try integer(v["target"], "target")
        for s in v["screens"]?.array ?? [] { screens.append(try TraceScreen(json: s)) }
        durationNs = try integer(v["duration_ns"], "duration_ns")
        if v["touch"] != nil { touch = try integer(v["touch"], "touch", as: UInt64.self) }
        from = try integer(v["from"], "from")
        device = try integer(v["device"], "device")
    }

    public init(kind: Int32) { self.kind = kind }

    /// The request as the host passed it (C strings valid during `body`).
    public func withC(_ body: (UnsafePointer<ng_request>) -> ng_status) -> ng_status {
        var strings = CStrings()
        defer { strings.free() }
        var r = ng_request()
        r.size = UInt32(MemoryLayout<ng_request>.size)
        r.kind = kind
        r.flags = flags
        r.source = source
        if let s = screen { r.screen = strings.screen(s) }
        r.target_id = target
        r.duration_ns = durationNs
        r.driving_touch = touch ?? 0
        r.from_screen = from
        r.device = device
        if kind == NG_REQ_PUSH { r.screen_flags = screen?.flags ?? 0 }
        let c = screens.map { strings.screen($0) }
        return c.withUnsafeBufferPointer { buf in
            r.screens = buf.baseAddress
            r.screen_count = buf.count
            return withUnsafePointer(to: &r) { body($0) }
        }
    }
}

/// C strings that live until `free()` (the duration of one replayed call).
public struct CStrings {
    private(set) var pointers: [UnsafeMutablePointer<CChar>] = []

    public init() {}

    public mutating func make(_ s: String?) -> UnsafePointer<CChar>? {
        guard let s else { return nil }
        let p = strdup(s)!
        pointers.append(p)
        return UnsafePointer(p)
    }

    public mutating func screen(_ s: TraceScreen) -> ng_screen {
        ng_screen(id: s.id, route: make(s.route), identity: make(s.identity))
    }

    public func free() { for p in pointers { NavGuardLibc.free(p) } }
}

// MARK: Event

/// An event (ng_event): `{"type":"touch","phase":"began","touch":7,"x":120.5,
/// "y":88,"flags":1,"target":12,"code":0,"ts":5}`: `phase` by name for a
/// touch, `flags`, `code` and `ts` only when not zero, `target` only with
/// NG_EVF_HAS_TARGET.
public enum TraceEvent {
    @inline(__always)
    /// The fields' bytes (RecordWriter.fixed).
    static let size = 60

    @inline(__always)
    public static func encode(_ w: inout RecordWriter, _ e: ng_event) {
        w.fixed(size) { f in
            f.i32(e.type)
            f.i32(e.phase)
            f.u64(e.touch_id)
            f.f64(e.x)
            f.f64(e.y)
            f.u32(e.flags)
            f.u64(e.target_view)
            f.i64(e.code)
            f.i64(e.timestamp_ns)
        }
    }

    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        let type = r.i32()
        w.field("type", type, .eventType)
        if type == NG_EVENT_TOUCH { w.field("phase", r.i32(), .touchPhase) } else { w.field("phase", r.i32()) }
        w.field("touch", r.u64())
        w.field("x", r.f64())
        w.field("y", r.f64())
        let flags = r.u32()
        if flags != 0 { w.field("flags", flags) }
        let target = r.u64()
        if flags & UInt32(NG_EVF_HAS_TARGET) != 0 { w.field("target", target) }
        let code = r.i64()
        if code != 0 { w.field("code", code) }
        let ts = r.i64()
        if ts != 0 { w.field("ts", ts) }
    }

    public static func read(json v: JSONValue) throws(FieldError) -> ng_event {
        guard let type = enumValue(v["type"], ng_event_type_name, 0..<NG_EVENT_TYPE_COUNT) else {
            throw FieldError(message: "an event with an unknown type")
        }
        var e = ng_event()
        e.size = UInt32(MemoryLayout<ng_event>.size)
        e.type = type
        if type == NG_EVENT_TOUCH {
            guard let phase = enumValue(v["phase"], ng_touch_phase_name, 0..<NG_TOUCH_PHASE_COUNT) else {
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
}

// MARK: View

/// A view (ng_view): `{"id":12,"parent":1,"x":0,"y":0,"w":120,"h":90,"order":0,
/// "flags":0,"alpha":1,"shape":{"kind":"bounds"}}`, the shape with its own
/// fields (`top`,`left`,`bottom`,`right`; `cx`,`cy`,`r`; `points` as [[x,y],...]).
public struct TraceView {
    public var id: UInt64
    public var parent: UInt64 = 0
    public var x = 0.0, y = 0.0, w = 0.0, h = 0.0
    public var order: Int32 = 0
    public var flags: UInt32 = 0
    public var alpha = 1.0
    public var shapeKind: Int32 = NG_SHAPE_BOUNDS
    /// top, left, bottom, right (insets); cx, cy, radius (circle).
    public var shape = [Double](repeating: 0, count: 7)
    public var points: [(x: Double, y: Double)] = []

    public static func encode(_ w: inout RecordWriter, _ v: ViewSpec) {
        w.u64(v.id)
        w.u64(v.parent)
        w.f64(v.frame.x)
        w.f64(v.frame.y)
        w.f64(v.frame.width)
        w.f64(v.frame.height)
        w.i32(v.order)
        w.u32(v.flags.cValue)
        w.f64(v.alpha)
        switch v.shape {
        case .bounds:
            w.i32(NG_SHAPE_BOUNDS)
        case .insets(let top, let left, let bottom, let right):
            w.i32(NG_SHAPE_INSETS)
            w.f64(top); w.f64(left); w.f64(bottom); w.f64(right)
        case .circle(let cx, let cy, let r):
            w.i32(NG_SHAPE_CIRCLE)
            w.f64(cx); w.f64(cy); w.f64(r)
        case .polygon(let pts):
            w.i32(NG_SHAPE_POLYGON)
            w.u32(UInt32(pts.count))
            for p in pts { w.f64(p.x); w.f64(p.y) }
        }
    }

    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        w.begin()
        w.field("id", r.u64())
        w.field("parent", r.u64())
        w.field("x", r.f64())
        w.field("y", r.f64())
        w.field("w", r.f64())
        w.field("h", r.f64())
        w.field("order", r.i32())
        w.field("flags", r.u32())
        w.field("alpha", r.f64())
        w.object("shape") { w in
            let kind = r.i32()
            w.field("kind", kind, .shapeKind)
            switch kind {
            case NG_SHAPE_INSETS:
                w.field("top", r.f64()); w.field("left", r.f64()); w.field("bottom", r.f64()); w.field("right", r.f64())
            case NG_SHAPE_CIRCLE:
                w.field("cx", r.f64()); w.field("cy", r.f64()); w.field("r", r.f64())
            case NG_SHAPE_POLYGON:
                let n = r.u32()
                w.array("points") { w in
                    var i: UInt32 = 0
                    while i < n && !r.bad {
                        w.element()
                        w.raw(0x5B)
                        w.double(r.f64())
                        w.raw(0x2C)
                        w.double(r.f64())
                        w.raw(0x5D)
                        i += 1
                    }
                }
            default:
                break
            }
        }
        w.end()
    }

    public init(json v: JSONValue) throws(FieldError) {
        guard v["id"] != nil else { throw FieldError(message: "a view without an id") }
        id = try integer(v["id"], "id", as: UInt64.self)
        parent = try integer(v["parent"], "parent")
        x = try real(v["x"], "x")
        y = try real(v["y"], "y")
        w = try real(v["w"], "w")
        h = try real(v["h"], "h")
        order = try integer(v["order"], "order")
        flags = try integer(v["flags"], "flags")
        alpha = try real(v["alpha"], "alpha", default: 1)
        let s = v["shape"]
        guard let kind = s?["kind"] == nil ? NG_SHAPE_BOUNDS : enumValue(s?["kind"], ng_shape_kind_name, 0..<NG_SHAPE_KIND_COUNT) else {
            throw FieldError(message: "view \(id) has an unknown shape kind")
        }
        shapeKind = kind
        shape = [try real(s?["top"], "top"), try real(s?["left"], "left"), try real(s?["bottom"], "bottom"),
                 try real(s?["right"], "right"), try real(s?["cx"], "cx"), try real(s?["cy"], "cy"), try real(s?["r"], "r")]
        for p in s?["points"]?.array ?? [] {
            points.append((try real(p[0], "points[][0]"), try real(p[1], "points[][1]")))
        }
    }

    /// The view as the host passed it.
    public func withC(_ body: (UnsafePointer<ng_view>) -> ng_status) -> ng_status {
        var c = ng_view()
        c.size = UInt32(MemoryLayout<ng_view>.size)
        c.id = id
        c.parent = parent
        c.frame = ng_rect(x: x, y: y, width: w, height: h)
        c.order = order
        c.flags = flags
        c.alpha = alpha
        c.shape.kind = shapeKind
        c.shape.top = shape[0]
        c.shape.left = shape[1]
        c.shape.bottom = shape[2]
        c.shape.right = shape[3]
        c.shape.cx = shape[4]
        c.shape.cy = shape[5]
        c.shape.radius = shape[6]
        let pts = points.map { ng_point(x: $0.x, y: $0.y) }
        return pts.withUnsafeBufferPointer { buf in
            c.shape.points = buf.baseAddress
            c.shape.point_count = buf.count
            return withUnsafePointer(to: &c) { body($0) }
        }
    }
}

// MARK: Guard

/// A guard of the chain: `{"id":...,"version":...,"path":... or null,"config":...}`.
public struct TraceGuard {
    public var id: String
    public var version: String?
    /// The file it was loaded from; nil for a descriptor the host passed.
    public var path: String?
    /// Its configuration as text.
    public var config: String?

    public static func encode(_ w: inout RecordWriter, _ g: (id: UnsafePointer<CChar>, version: UnsafePointer<CChar>, origin: String?, config: CStr)) {
        w.text(g.id)
        w.text(g.version)
        w.text(g.origin)
        w.text(g.config)
    }

    public static func format(_ r: inout RecordReader, _ w: TraceLine) {
        w.begin()
        w.field("id", text: r.text())
        w.field("version", text: r.text())
        w.field("path", text: r.text())
        w.field("config", text: r.text())
        w.end()
    }

    /// Lenient: an id that is not a string reads as "" (replay checks ids).
    public init(json v: JSONValue) {
        id = v["id"]?.string ?? ""
        version = v["version"]?.string
        path = v["path"]?.string
        config = v["config"]?.string
    }
}
