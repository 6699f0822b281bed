// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardLibc
import NavGuardCore

/// Builds one JSON line of a trace (docs/trace-format.md) into a byte buffer
/// it owns: no Foundation, and no allocation once the buffer has grown to
/// the longest line (numbers are formatted in place; only a non-integral
/// double goes through `description`, which fits Swift's small-string form).
/// A class, so that the buffer is never shared by two copies.
///
/// Invariants: between `begin()` and `end()` the bytes are one JSON object
/// under construction; `needComma` says whether the next member needs a
/// separator; every string written is valid UTF-8 and escaped per RFC 8259.
public final class TraceLine {
    private var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int
    private var needComma = false
    /// The headers' names, at hand (a global would be checked at every use).
    private let names = traceNames

    public init(capacity: Int = 512) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    /// The bytes written so far (valid until the next write or reset).
    public var view: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }
    /// A copy of the bytes (replay and tests; the recorder uses `view`).
    public var bytes: [UInt8] { Array(view) }
    public var isEmpty: Bool { count == 0 }

    public func reset() {
        count = 0
        needComma = false
    }

    @inline(__always)
    private func reserve(_ n: Int) {
        if count + n > capacity { grow(count + n) }
    }

    private func grow(_ need: Int) {
        var c = capacity * 2
        while c < need { c *= 2 }
        let b = UnsafeMutablePointer<UInt8>.allocate(capacity: c)
        UnsafeMutableRawPointer(b).copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = b
        capacity = c
    }

    @inline(__always)
    public func raw(_ b: UInt8) {
        reserve(1)
        base[count] = b
        count += 1
    }

    public func append(_ p: UnsafeRawBufferPointer) {
        guard let src = p.baseAddress, p.count > 0 else { return }
        reserve(p.count)
        UnsafeMutableRawPointer(base + count).copyMemory(from: src, byteCount: p.count)
        count += p.count
    }

    // MARK: Structure

    @inline(__always) public func begin() { raw(0x7B); needComma = false }             // {
    @inline(__always) public func end() { raw(0x7D); needComma = true }                // }
    @inline(__always) public func newline() { raw(0x0A); needComma = false }

    /// `"k":` (after a comma when one is due). Inlined at every use: the key
    /// is a literal, so its copy is a few moves.
    @inline(__always)
    public func key(_ k: StaticString) {
        let n = k.utf8CodeUnitCount
        reserve(n + 4)
        let out = base
        var c = count
        if needComma { out[c] = 0x2C; c += 1 }
        out[c] = 0x22
        UnsafeMutableRawPointer(out + c + 1).copyMemory(from: k.utf8Start, byteCount: n)
        c += n + 1
        out[c] = 0x22
        out[c + 1] = 0x3A
        count = c + 2
        needComma = false
    }

    public func object(_ k: StaticString, _ body: (TraceLine) -> Void) {
        key(k)
        begin()
        body(self)
        end()
    }

    public func array(_ k: StaticString, _ body: (TraceLine) -> Void) {
        key(k)
        raw(0x5B)
        needComma = false
        body(self)
        raw(0x5D)
        needComma = true
    }

    /// Start an element of an array (objects and numbers inside `array`).
    @inline(__always)
    public func element() {
        if needComma { raw(0x2C) }
        needComma = false
    }

    /// Members written into another line (a call's results), as members of
    /// the object under construction here.
    public func members(_ other: TraceLine) {
        guard !other.isEmpty else { return }
        if needComma { raw(0x2C) }
        append(other.view)
        needComma = true
    }

    // MARK: Values

    @inline(__always)
    public func field(_ k: StaticString, _ v: Int64) { key(k); int(v) }
    @inline(__always)
    public func field(_ k: StaticString, _ v: Int32) { key(k); int(Int64(v)) }
    @inline(__always)
    public func field(_ k: StaticString, _ v: UInt32) { key(k); int(Int64(v)) }
    @inline(__always)
    public func field(_ k: StaticString, _ v: Int) { key(k); int(Int64(v)) }
    @inline(__always)
    public func field(_ k: StaticString, _ v: UInt64) { key(k); uint(v) }
    @inline(__always)
    public func field(_ k: StaticString, _ v: Bool) { key(k); word(v ? "true" : "false") }
    @inline(__always)
    public func field(_ k: StaticString, _ v: Double) { key(k); double(v) }
    public func field(_ k: StaticString, name: UnsafePointer<CChar>) { key(k); cString(name) }

    /// An enumeration value by its name from the headers' tables, or as a
    /// number when the table has no row for it (a host's bad value).
    public func field(_ k: StaticString, _ v: Int32, names: (Int32) -> UnsafePointer<CChar>?) {
        key(k)
        let n = names(v)!
        if strcmp(n, "unknown") == 0 { int(Int64(v)) } else { cString(n) }
    }

    /// The same through the names kept at hand (TraceNames): no C call, no
    /// string compare, for the values a trace writes on every line.
    @inline(__always)
    public func field(_ k: StaticString, _ v: Int32, _ table: NameTable) {
        key(k)
        if let n = names.name(table, v) { quoted(n) } else { int(Int64(v)) }
    }

    /// Bytes known to need no escape (a name from the headers), in quotes.
    @inline(__always)
    public func quoted(_ b: UnsafeRawBufferPointer) {
        reserve(b.count + 2)
        base[count] = 0x22
        UnsafeMutableRawPointer(base + count + 1).copyMemory(from: b.baseAddress!, byteCount: b.count)
        base[count + 1 + b.count] = 0x22
        count += b.count + 2
        needComma = true
    }

    /// A string known at compile time ("call", "cb", a function name).
    @inline(__always)
    public func field(_ k: StaticString, literal v: StaticString) { key(k); literal(v) }

    @inline(__always)
    public func literal(_ v: StaticString) {
        reserve(v.utf8CodeUnitCount + 2)
        base[count] = 0x22
        count += 1
        UnsafeMutableRawPointer(base + count).copyMemory(from: v.utf8Start, byteCount: v.utf8CodeUnitCount)
        count += v.utf8CodeUnitCount
        base[count] = 0x22
        count += 1
        needComma = true
    }

    public func field(_ k: StaticString, _ v: UnsafePointer<CChar>?) {
        key(k)
        if let v { cString(v) } else { word("null") }
    }

    /// Text a binary record holds (nil: null).
    @inline(__always)
    public func field(_ k: StaticString, text v: UnsafeRawBufferPointer?) {
        key(k)
        if let v { string(v) } else { word("null") }
    }

    public func field(_ k: StaticString, _ v: CStr?) {
        key(k)
        if let v { string(v.bytes) } else { word("null") }
    }

    public func field(_ k: StaticString, _ v: String?) {
        key(k)
        guard var s = v else { return word("null") }
        s.withUTF8 { string(UnsafeRawBufferPointer($0)) }
    }

    @inline(__always)
    public func field(_ k: StaticString, status: ng_status) {
        key(k)
        if let n = names.status(status) { return quoted(n) }
        // "NG_E_RANGE": the name part of ng_strstatus's text.
        let text = ng_strstatus(status)!
        var n = 0
        while text[n] != 0 && text[n] != 0x3A { n += 1 }
        string(UnsafeRawBufferPointer(start: text, count: n))
    }

    @inline(__always)
    public func int(_ v: Int64) {
        needComma = true
        if v < 0 {
            raw(0x2D)
            digits(v.magnitude)
        } else {
            digits(UInt64(v))
        }
    }

    /// Unsigned: a number up to Int64.max, a decimal string above (JSON
    /// readers that use doubles, and NavGuard's own, keep it exact).
    @inline(__always)
    public func uint(_ v: UInt64) {
        if v <= UInt64(Int64.max) { int(Int64(v)); return }
        raw(0x22)
        digits(v)
        raw(0x22)
        needComma = true
    }

    @inline(__always)
    private func digits(_ value: UInt64) {
        reserve(20)
        // The length first, then two digits at a time from the end.
        let n = TraceLine.digitCount(value)
        var x = value
        var i = count + n
        let pairs = names.pairs
        while x >= 100 {
            let r = Int(x % 100)
            x /= 100
            i -= 2
            base[i] = pairs[2 * r]
            base[i + 1] = pairs[2 * r + 1]
        }
        if x >= 10 {
            base[i - 2] = pairs[2 * Int(x)]
            base[i - 1] = pairs[2 * Int(x) + 1]
        } else {
            base[i - 1] = 0x30 &+ UInt8(truncatingIfNeeded: x)
        }
        count += n
    }

    /// Decimal digits of `x` (1...20), by comparisons with powers of ten.
    @inline(__always)
    private static func digitCount(_ x: UInt64) -> Int {
        if x < 10_000_000_000 {
            if x < 100_000 {
                if x < 100 { return x < 10 ? 1 : 2 }
                return x < 1_000 ? 3 : (x < 10_000 ? 4 : 5)
            }
            if x < 10_000_000 { return x < 1_000_000 ? 6 : 7 }
            return x < 100_000_000 ? 8 : (x < 1_000_000_000 ? 9 : 10)
        }
        if x < 1_000_000_000_000_000 {
            if x < 1_000_000_000_000 { return x < 100_000_000_000 ? 11 : 12 }
            return x < 10_000_000_000_000 ? 13 : (x < 100_000_000_000_000 ? 14 : 15)
        }
        if x < 100_000_000_000_000_000 { return x < 10_000_000_000_000_000 ? 16 : 17 }
        return x < 1_000_000_000_000_000_000 ? 18 : (x < 10_000_000_000_000_000_000 ? 19 : 20)
    }

    /// Integral values as integers; others by their shortest round-trip
    /// text; non-finite ones as the strings "inf", "-inf", "nan".
    public func double(_ v: Double) {
        if v.isNaN { return word("\"nan\"") }
        if v.isInfinite { return word(v < 0 ? "\"-inf\"" : "\"inf\"") }
        if abs(v) < 9.0e15, v == Double(Int64(v)) {
            if v == 0 && v.sign == .minus { return word("-0.0") }
            return int(Int64(v))
        }
        var s = v.description
        s.withUTF8 { append(UnsafeRawBufferPointer($0)) }
        needComma = true
    }

    public func cString(_ p: UnsafePointer<CChar>) {
        string(UnsafeRawBufferPointer(start: p, count: strlen(p)))
    }

    /// A JSON string. Text from outside that is not UTF-8 (only a host's
    /// snapshot bytes can be: everything else was checked) gets U+FFFD for
    /// each bad byte, so every line stays JSON; exact bytes go in `hex`.
    public func string(_ s: UnsafeRawBufferPointer) {
        let n = s.count
        reserve(n + 2)
        let start = count
        var c = count
        let out = base
        out[c] = 0x22
        c += 1
        guard n > 0, let src = s.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            out[c] = 0x22
            count = c + 1
            needComma = true
            return
        }
        // Plain bytes are copied in a tight loop on locals; a byte that needs
        // an escape, or a non-ASCII one (the text is then checked as UTF-8
        // once), leaves it.
        var i = 0
        var checked = false
        while i < n {
            let b = src[i]
            if b < 0x80 && !JSONStringEscape.needsEscape(b) {
                out[c] = b
                c += 1
            } else if b >= 0x80 {
                if !checked {
                    checked = true
                    if !isValidUTF8(s) {
                        count = start   // drop what this string wrote
                        return replacingInvalid(s)
                    }
                }
                out[c] = b
                c += 1
            } else {
                // The slow path copies what follows as it is: check it first.
                if !checked && !isValidUTF8(s) {
                    count = start
                    return replacingInvalid(s)
                }
                count = c
                escape(b)
                reserve(n - i + 1)
                return finishString(src, from: i + 1, n)
            }
            i += 1
        }
        out[c] = 0x22
        count = c + 1
        needComma = true
    }

    /// The rest of a string after an escape (the slow path).
    private func finishString(_ src: UnsafePointer<UInt8>, from i0: Int, _ n: Int) {
        var i = i0
        while i < n {
            let b = src[i]
            if JSONStringEscape.needsEscape(b) { escape(b) } else { raw(b) }
            i += 1
        }
        raw(0x22)
        needComma = true
    }

    private func escape(_ b: UInt8) { JSONStringEscape.escape(b) { raw($0) } }

    private func replacingInvalid(_ s: UnsafeRawBufferPointer) {
        var fixed: [UInt8] = []
        var i = 0
        while i < s.count {
            var n = 1
            while n <= 4 && i + n <= s.count && !isValidUTF8(UnsafeRawBufferPointer(rebasing: s[i..<(i + n)])) { n += 1 }
            if n <= 4 && i + n <= s.count {
                fixed.append(contentsOf: s[i..<(i + n)])
                i += n
            } else {
                fixed.append(contentsOf: [0xEF, 0xBF, 0xBD])
                i += 1
            }
        }
        fixed.withUnsafeBytes { string($0) }
    }

    @inline(__always)
    private func hexDigit(_ d: UInt8) { raw(d < 10 ? 0x30 + d : 0x57 + d) }

    /// Bytes as lowercase hex, in a string.
    public func hex(_ s: UnsafeRawBufferPointer) {
        raw(0x22)
        for b in s {
            hexDigit(b >> 4)
            hexDigit(b & 15)
        }
        raw(0x22)
        needComma = true
    }

    public func word(_ w: StaticString) {
        append(UnsafeRawBufferPointer(start: w.utf8Start, count: w.utf8CodeUnitCount))
        needComma = true
    }
}

/// A name table of the headers (the NG_*_MAP tables through names.c).
public enum NameTable: Int, CaseIterable {
    case requestKind, reason, outcome, track, phase, swipeState, clockKind, holdEndReason, severity, eventType,
         touchPhase, touchState, verdict, shapeKind, answer, pressCause

    public var lookup: (Int32) -> UnsafePointer<CChar>? {
        switch self {
        case .requestKind: return ng_request_kind_name
        case .reason: return ng_reason_name
        case .outcome: return ng_outcome_name
        case .track: return ng_track_name
        case .phase: return ng_phase_name
        case .swipeState: return ng_swipe_state_name
        case .clockKind: return ng_clock_kind_name
        case .holdEndReason: return ng_hold_end_reason_name
        case .severity: return ng_severity_name
        case .eventType: return ng_event_type_name
        case .touchPhase: return ng_touch_phase_name
        case .touchState: return ng_touch_state_name
        case .verdict: return ng_verdict_name
        case .shapeKind: return ng_shape_kind_name
        case .answer: return ng_answer_name
        case .pressCause: return ng_press_cause_name
        }
    }
}

/// The names of every table's first values and of the statuses, read once
/// (the tables are static): a trace's lines name several per line.
/// Immutable once made, so any thread may read it.
final class TraceNames: @unchecked Sendable {
    static let perTable = 64
    private let names: UnsafeMutablePointer<UnsafeRawBufferPointer?>
    private let statuses: UnsafeMutablePointer<UnsafeRawBufferPointer?>
    /// "00" to "99" (numbers are written two digits at a time).
    let pairs: UnsafePointer<UInt8>

    public init() {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 200)
        for k in 0..<100 {
            p[2 * k] = 0x30 + UInt8(k / 10)
            p[2 * k + 1] = 0x30 + UInt8(k % 10)
        }
        pairs = UnsafePointer(p)
        let n = NameTable.allCases.count * TraceNames.perTable
        names = .allocate(capacity: n)
        names.initialize(repeating: nil, count: n)
        for t in NameTable.allCases {
            for v in 0..<TraceNames.perTable {
                let p = t.lookup(Int32(v))!
                if strcmp(p, "unknown") != 0 { names[t.rawValue * TraceNames.perTable + v] = UnsafeRawBufferPointer(start: p, count: strlen(p)) }
            }
        }
        statuses = .allocate(capacity: TraceNames.perTable)
        for v in 0..<TraceNames.perTable {
            let text = ng_strstatus(Int32(v))!
            var k = 0
            while text[k] != 0 && text[k] != 0x3A { k += 1 }
            statuses[v] = strcmp(text, "unknown status") == 0 ? nil : UnsafeRawBufferPointer(start: text, count: k)
        }
    }

    /// A value's name, or nil when the table has none (or it is out of reach).
    @inline(__always)
    public func name(_ t: NameTable, _ v: Int32) -> UnsafeRawBufferPointer? {
        guard v >= 0 && Int(v) < TraceNames.perTable else { return t.lookup(v).flatMap { strcmp($0, "unknown") == 0 ? nil : UnsafeRawBufferPointer(start: $0, count: strlen($0)) } }
        return names[t.rawValue * TraceNames.perTable + Int(v)]
    }

    @inline(__always)
    public func status(_ s: Int32) -> UnsafeRawBufferPointer? {
        guard s >= 0 && Int(s) < TraceNames.perTable else { return nil }
        return statuses[Int(s)]
    }
}

let traceNames = TraceNames()
