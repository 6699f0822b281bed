import CNavGuard
import Glibc
import NavGuardCore

// Validation and conversion of what the host passes in. Nothing here trusts
// the host: every pointer, size, enum value and string is checked.

/// Copy a caller-filled, size-prefixed struct into a zeroed full-size value.
/// Returns the size the caller declared.
@inline(__always)
func copySized<T>(_ src: UnsafePointer<T>, into dst: inout T) -> Int {
    let declared = Int(UnsafeRawPointer(src).load(as: UInt32.self))
    let n = min(declared, MemoryLayout<T>.size)
    withUnsafeMutableBytes(of: &dst) { $0.baseAddress!.copyMemory(from: UnsafeRawPointer(src), byteCount: n) }
    return declared
}

/// Read a host string: non-NULL (unless allowed), at most NG_MAX_STRING
/// bytes, valid UTF-8.
func readString(_ p: UnsafePointer<CChar>?, _ what: String, allowNull: Bool = false,
                intern engine: Engine? = nil) -> Result<CStr?, EngineError> {
    guard let p else {
        return allowNull ? .success(nil) : .failure(EngineError(NG_E_NULL, "\(what) is NULL"))
    }
    let n: Int
    switch checkedLength(p, limit: Limits.maxString) {
    case .success(let length): n = length
    case .failure(.tooLong): return .failure(EngineError(NG_E_TOO_LONG, "\(what) is longer than \(Limits.maxString) bytes"))
    case .failure(.notUTF8): return .failure(EngineError(NG_E_UTF8, "\(what) is not valid UTF-8"))
    }
    if let engine { return .success(engine.intern(p, n)) }
    return .success(CStr(bytes: p, count: n))
}

/// `engine` (owner thread only) lets known routes be reused without a copy.
func readScreen(_ s: ng_screen, _ what: String, intern engine: Engine? = nil) -> Result<Screen, EngineError> {
    guard s.id != 0 else { return .failure(EngineError(NG_E_RANGE, "\(what).id is 0 (reserved)")) }
    let route: CStr
    switch readString(s.route, "\(what).route", intern: engine) {
    case .success(let r): route = r!
    case .failure(let e): return .failure(e)
    }
    guard route.count > 0 else { return .failure(EngineError(NG_E_RANGE, "\(what).route is empty")) }
    switch readString(s.identity, "\(what).identity", allowNull: true, intern: engine) {
    case .success(let i): return .success(Screen(id: s.id, route: route, identity: i ?? route))
    case .failure(let e): return .failure(e)
    }
}

let knownRequestFlags = UInt32(NG_REQF_ANIMATED | NG_REQF_TIMED | NG_REQF_TOUCH_DRIVEN)
/// A request must at least reach `target_id` (NG_REQUEST_MIN_SIZE); later
/// fields default to zero.
let minRequestSize = Int(NG_REQUEST_MIN_SIZE)
/// A touch-driven request must reach `driving_touch` (0.2 headers).
let drivenRequestSize = MemoryLayout<ng_request>.offset(of: \ng_request.driving_touch)! + 8

/// Convert a host request (already copied to full size; `declared` is the
/// size the host set).
func readRequest(_ c: ng_request, declared: Int, intern engine: Engine? = nil) -> Result<Request, EngineError> {
    guard c.kind >= 0 && c.kind < NG_REQ_KIND_COUNT else {
        return .failure(EngineError(NG_E_RANGE, "request kind \(c.kind) is out of range"))
    }
    guard c.flags & ~knownRequestFlags == 0 else {
        return .failure(EngineError(NG_E_RANGE, "unknown request flags 0x\(String(c.flags, radix: 16))"))
    }
    if c.flags & UInt32(NG_REQF_TIMED) != 0 && c.flags & UInt32(NG_REQF_ANIMATED) == 0 {
        return .failure(EngineError(NG_E_RANGE, "NG_REQF_TIMED needs NG_REQF_ANIMATED"))
    }
    guard c.duration_ns >= 0 else { return .failure(EngineError(NG_E_RANGE, "negative duration_ns")) }
    var r = Request(kind: c.kind, flags: c.flags, source: c.source)
    r.durationNs = c.duration_ns
    if c.flags & UInt32(NG_REQF_TOUCH_DRIVEN) != 0 {
        guard c.kind == NG_REQ_INTERACTIVE_BACK else {
            return .failure(EngineError(NG_E_RANGE, "NG_REQF_TOUCH_DRIVEN is for NG_REQ_INTERACTIVE_BACK only"))
        }
        guard declared >= drivenRequestSize else {
            return .failure(EngineError(NG_E_SIZE, "NG_REQF_TOUCH_DRIVEN needs ng_request.size to cover driving_touch (set it to sizeof(ng_request) of NavGuard 0.2 or later)"))
        }
        r.drivingTouch = c.driving_touch
    }
    switch c.kind {
    case NG_REQ_PUSH:
        switch readScreen(c.screen, "screen", intern: engine) {
        case .success(let s): r.screen = s
        case .failure(let e): return .failure(e)
        }
    case NG_REQ_POP_TO:
        guard c.target_id != 0 else { return .failure(EngineError(NG_E_RANGE, "target_id is 0")) }
        r.targetID = c.target_id
    case NG_REQ_REPLACE_STACK:
        guard let list = c.screens else { return .failure(EngineError(NG_E_NULL, "screens is NULL")) }
        guard c.screen_count >= 1 else { return .failure(EngineError(NG_E_RANGE, "screen_count is 0")) }
        guard c.screen_count <= Limits.maxStack else {
            return .failure(EngineError(NG_E_TOO_LONG, "screen_count \(c.screen_count) exceeds \(Limits.maxStack)"))
        }
        var screens: [Screen] = []
        screens.reserveCapacity(c.screen_count)
        for i in 0..<c.screen_count {
            switch readScreen(list[i], "screens[\(i)]", intern: engine) {
            case .success(let s): screens.append(s)
            case .failure(let e): return .failure(e)
            }
        }
        r.screens = screens
    default:
        break
    }
    return .success(r)
}

@inline(__always)
func staticC(_ s: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
}
