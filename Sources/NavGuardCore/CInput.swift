// SPDX-License-Identifier: Apache-2.0
import CNavGuard

// Reading what a host or a guard passes in C: the one place requests,
// screens and strings are checked and copied, for the host's calls (the ABI
// layer) and guards' host-table calls alike. Nothing here trusts its input.

/// A C string from outside: non-NULL unless `allowNull`, at most `limit`
/// bytes before its NUL, valid UTF-8. With an engine (owner thread only), a
/// recently used string is reused instead of copied.
public func readCString(_ p: UnsafePointer<CChar>?, _ what: @autoclosure () -> String, allowNull: Bool = false,
                        limit: Int = Limits.maxString, intern engine: Engine? = nil) throws(EngineError) -> CStr? {
    guard let p else {
        if allowNull { return nil }
        throw EngineError(NG_E_NULL, "\(what()) is NULL")
    }
    let n: Int
    do throws(StringProblem) { n = try checkedLength(p, limit: limit) } catch {
        switch error {
        case .tooLong: throw EngineError(NG_E_TOO_LONG, "\(what()) is longer than \(limit) bytes")
        case .notUTF8: throw EngineError(NG_E_UTF8, "\(what()) is not valid UTF-8")
        }
    }
    if let engine { return engine.intern(p, n) }
    return CStr(bytes: p, count: n)
}

// Size-prefixed structs (navguard.h conventions): `size` comes first and
// says how much of the struct the caller knows.

/// Copy a caller-filled, size-prefixed struct into a zeroed full-size value.
/// Returns the size the caller declared.
@inline(__always)
public func copySized<T>(_ src: UnsafePointer<T>, into dst: inout T) -> Int {
    let declared = Int(UnsafeRawPointer(src).load(as: UInt32.self))
    let n = min(declared, MemoryLayout<T>.size)
    withUnsafeMutableBytes(of: &dst) { $0.baseAddress!.copyMemory(from: UnsafeRawPointer(src), byteCount: n) }
    return declared
}

/// Write into a caller's size-prefixed struct (a host's or a plugin's) only
/// what its `size` covers; `size` itself is left alone.
public func writeSized<T>(_ value: T, to dst: UnsafeMutablePointer<T>) {
    let raw = UnsafeMutableRawPointer(dst)
    let declared = Int(raw.load(as: UInt32.self))
    let n = min(declared, MemoryLayout<T>.size)
    guard n > 4 else { return }
    withUnsafeBytes(of: value) { raw.advanced(by: 4).copyMemory(from: $0.baseAddress!.advanced(by: 4), byteCount: n - 4) }
}

/// Whether a caller's struct of `declared` bytes holds the whole field at
/// `offset` (NG_HAS_FIELD): a size ending inside a field covers none of it.
@inline(__always)
public func covers(_ declared: Int, _ offset: Int, _ size: Int) -> Bool {
    declared >= offset + size
}

extension MemoryLayout {
    /// A field's offset in the C struct `T`, as `offset(of:)` gives it, but
    /// named by its address instead of a key path (Embedded Swift has no key
    /// paths): `MemoryLayout<ng_request>.fieldOffset { $0.offset(of: &$0.pointee.from_screen) }`.
    /// Optimized, it is the same constant.
    @inline(__always)
    public static func fieldOffset(_ field: (UnsafeMutablePointer<T>) -> Int) -> Int {
        withUnsafeTemporaryAllocation(of: T.self, capacity: 1) { field($0.baseAddress!) }
    }
}

extension UnsafeMutablePointer {
    /// How far `field` (`&p.pointee.name`) lies from the start of the pointee.
    @inline(__always)
    public func offset(of field: UnsafeMutableRawPointer) -> Int { field - UnsafeMutableRawPointer(self) }
}

extension Screen {
    /// A screen the host or a guard passed (`what` names it in errors).
    public init(_ s: ng_screen, _ what: @autoclosure () -> String, flags: UInt32 = 0,
                intern engine: Engine? = nil) throws(EngineError) {
        guard s.id != 0 else { throw EngineError(NG_E_RANGE, "\(what()).id is 0 (reserved)") }
        let route = try readCString(s.route, "\(what()).route", intern: engine)!
        guard route.count > 0 else { throw EngineError(NG_E_RANGE, "\(what()).route is empty") }
        let identity = try readCString(s.identity, "\(what()).identity", allowNull: true, intern: engine)
        self.init(id: s.id, route: route, identity: identity ?? route, flags: flags)
    }
}

let knownRequestFlags = UInt32(NG_REQF_ANIMATED | NG_REQF_TIMED | NG_REQF_TOUCH_DRIVEN | NG_REQF_UNATTENDED)
let knownScreenFlags = UInt32(NG_SCREENF_KNOWN) | NG_SCREENF_USER_MASK

/// Why screen flags are refused, or nil.
public func screenFlagsProblem(_ flags: UInt32) -> String? {
    flags & ~knownScreenFlags == 0 ? nil
        : "unknown screen flags 0x\(String(flags & ~knownScreenFlags, radix: 16)) (NavGuard's are NG_SCREENF_*, the host's NG_SCREENF_USER_MASK)"
}

extension Request {
    /// A request the host or a guard passed: `c` copied to full size (zero
    /// beyond what the caller declared), `declared` the size it set.
    public init(_ c: ng_request, declared: Int, intern engine: Engine? = nil) throws(EngineError) {
        let kind = RequestKind(rawValue: c.kind)
        guard kind.isKnown else {
            throw EngineError(NG_E_RANGE, "request kind \(c.kind) is out of range")
        }
        guard c.flags & ~knownRequestFlags == 0 else {
            throw EngineError(NG_E_RANGE, "unknown request flags 0x\(String(c.flags & ~knownRequestFlags, radix: 16))")
        }
        if c.flags & UInt32(NG_REQF_TIMED) != 0 && c.flags & UInt32(NG_REQF_ANIMATED) == 0 {
            throw EngineError(NG_E_RANGE, "NG_REQF_TIMED needs NG_REQF_ANIMATED")
        }
        guard c.duration_ns >= 0 else { throw EngineError(NG_E_RANGE, "negative duration_ns") }
        self.init(kind: kind, flags: c.flags, source: c.source)
        durationNs = c.duration_ns
        if c.flags & UInt32(NG_REQF_TOUCH_DRIVEN) != 0 {
            guard kind == .interactiveBack else {
                throw EngineError(NG_E_RANGE, "NG_REQF_TOUCH_DRIVEN is for NG_REQ_INTERACTIVE_BACK only")
            }
            guard covers(declared, MemoryLayout<ng_request>.fieldOffset { $0.offset(of: &$0.pointee.driving_touch) }, 8) else {
                throw EngineError(NG_E_SIZE, "NG_REQF_TOUCH_DRIVEN needs ng_request.size to cover driving_touch (set it to sizeof(ng_request) of NavGuard 0.2 or later)")
            }
            drivingTouch = c.driving_touch
        }
        if covers(declared, MemoryLayout<ng_request>.fieldOffset { $0.offset(of: &$0.pointee.from_screen) }, 8) { fromScreen = c.from_screen }
        if covers(declared, MemoryLayout<ng_request>.fieldOffset { $0.offset(of: &$0.pointee.device) }, 8) { device = c.device }
        var screenFlags: UInt32 = 0
        if kind == .push && covers(declared, MemoryLayout<ng_request>.fieldOffset { $0.offset(of: &$0.pointee.screen_flags) }, 4) {
            if let m = screenFlagsProblem(c.screen_flags) { throw EngineError(NG_E_RANGE, "screen_flags: \(m)") }
            screenFlags = c.screen_flags
        }
        switch kind {
        case .push:
            screen = try Screen(c.screen, "screen", flags: screenFlags, intern: engine)
        case .popTo:
            guard c.target_id != 0 else { throw EngineError(NG_E_RANGE, "target_id is 0") }
            targetID = c.target_id
        case .replaceStack:
            guard let list = c.screens else { throw EngineError(NG_E_NULL, "screens is NULL") }
            guard c.screen_count >= 1 else { throw EngineError(NG_E_RANGE, "screen_count is 0") }
            guard c.screen_count <= Limits.maxStack else {
                throw EngineError(NG_E_TOO_LONG, "screen_count \(c.screen_count) exceeds \(Limits.maxStack)")
            }
            var list2: [Screen] = []
            list2.reserveCapacity(c.screen_count)
            for i in 0..<c.screen_count { list2.append(try Screen(list[i], "screens[\(i)]", intern: engine)) }
            screens = list2
        default:
            break
        }
    }
}

extension ViewTreeError {
    /// The status and message the host gets.
    public var engineError: EngineError {
        switch self {
        case .invalidID: return EngineError(NG_E_RANGE, "view id 0 is reserved")
        case .unknownParent: return EngineError(NG_E_NOT_FOUND, "the parent view is not in the tree")
        case .cycle: return EngineError(NG_E_STATE, "the parent is the view itself or one of its descendants")
        case .invalidFrame: return EngineError(NG_E_RANGE, "frame has a NaN/infinite value or a negative size")
        case .invalidAlpha: return EngineError(NG_E_RANGE, "alpha must be within 0...1")
        case .invalidShape: return EngineError(NG_E_RANGE, "hit shape has a NaN/infinite value or a negative radius")
        case .notFound: return EngineError(NG_E_NOT_FOUND, "no such view")
        case .limit: return EngineError(NG_E_NO_MEMORY, "too many views (\(ViewTree.maxViews)) or polygon points (\(ViewTree.maxPolygonPoints))")
        }
    }
}

extension ViewSpec {
    /// A view the host filled (ng_view_set): flags and shape checked here,
    /// geometry by the tree.
    public init(_ c: UnsafePointer<ng_view>) throws(EngineError) {
        var v = ng_view()
        guard copySized(c, into: &v) >= Int(NG_VIEW_MIN_SIZE) else {
            throw EngineError(NG_E_SIZE, "ng_view.size is below NG_VIEW_MIN_SIZE; set it to sizeof(ng_view) (NG_VIEW_INIT)")
        }
        guard let flags = ViewFlags(cValue: v.flags) else { throw EngineError(NG_E_RANGE, "unknown view flags") }
        let shape: HitShape
        let sh = v.shape
        switch sh.kind {
        case NG_SHAPE_BOUNDS: shape = .bounds
        case NG_SHAPE_INSETS: shape = .insets(top: sh.top, left: sh.left, bottom: sh.bottom, right: sh.right)
        case NG_SHAPE_CIRCLE: shape = .circle(centerX: sh.cx, centerY: sh.cy, radius: sh.radius)
        case NG_SHAPE_POLYGON:
            guard let pts = sh.points else { throw EngineError(NG_E_NULL, "polygon points are NULL") }
            guard sh.point_count >= 3 else { throw EngineError(NG_E_RANGE, "a polygon needs at least 3 points") }
            guard sh.point_count <= ViewTree.maxPolygonPoints else {
                throw EngineError(NG_E_NO_MEMORY, "a polygon has at most \(ViewTree.maxPolygonPoints) points")
            }
            shape = .polygon((0..<sh.point_count).map { Point(x: pts[$0].x, y: pts[$0].y) })
        default:
            throw EngineError(NG_E_RANGE, "hit shape kind \(sh.kind) is out of range")
        }
        self.init(id: v.id, parent: v.parent,
                  frame: Rect(x: v.frame.x, y: v.frame.y, width: v.frame.width, height: v.frame.height),
                  order: v.order, flags: flags, alpha: v.alpha, shape: shape)
    }
}
