import CNavGuard
import Glibc
import NavGuardCore

/// Builds one JSON line of a trace (docs/trace-format.md) into a reusable
/// byte buffer: no Foundation, and no allocation once the buffer has grown
/// to the longest line (numbers are formatted in place; only a non-integral
/// double goes through `description`, which fits Swift's small-string form).
///
/// Invariants: between `begin()` and `end()` the bytes are one JSON object
/// under construction; `needComma` says whether the next member needs a
/// separator; strings written are valid UTF-8 (they come from the library,
/// which checked them) and are escaped per RFC 8259.
struct TraceLine {
    private(set) var bytes: [UInt8] = []
    private var needComma = false

    init() { bytes.reserveCapacity(512) }

    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        needComma = false
    }

    // MARK: Structure

    mutating func begin() { raw(0x7B); needComma = false }             // {
    mutating func end() { raw(0x7D); needComma = true }                // }
    mutating func newline() { raw(0x0A); needComma = false }

    mutating func key(_ k: StaticString) {
        if needComma { raw(0x2C) }
        raw(0x22)
        k.withUTF8Buffer { bytes.append(contentsOf: $0) }
        raw(0x22); raw(0x3A)
        needComma = false
    }

    mutating func object(_ k: StaticString, _ body: (inout TraceLine) -> Void) {
        key(k)
        begin()
        body(&self)
        end()
    }

    mutating func array(_ k: StaticString, _ body: (inout TraceLine) -> Void) {
        key(k)
        raw(0x5B)
        needComma = false
        body(&self)
        raw(0x5D)
        needComma = true
    }

    /// Start an element of an array (objects and numbers inside `array`).
    mutating func element() {
        if needComma { raw(0x2C) }
        needComma = false
    }

    // MARK: Values

    mutating func field(_ k: StaticString, _ v: Int64) { key(k); int(v) }
    mutating func field(_ k: StaticString, _ v: Int32) { key(k); int(Int64(v)) }
    mutating func field(_ k: StaticString, _ v: UInt32) { key(k); int(Int64(v)) }
    mutating func field(_ k: StaticString, _ v: Int) { key(k); int(Int64(v)) }
    mutating func field(_ k: StaticString, _ v: UInt64) { key(k); uint(v) }
    mutating func field(_ k: StaticString, _ v: Bool) { key(k); word(v ? "true" : "false") }
    mutating func field(_ k: StaticString, _ v: Double) { key(k); double(v) }
    mutating func field(_ k: StaticString, name: UnsafePointer<CChar>) { key(k); cString(name) }
    /// An enumeration value by its name from the headers' tables, or as a
    /// number when the table has no row for it (a host's bad value).
    mutating func field(_ k: StaticString, _ v: Int32, names: (Int32) -> UnsafePointer<CChar>?) {
        key(k)
        let n = names(v)!
        if strcmp(n, "unknown") == 0 { int(Int64(v)) } else { cString(n) }
    }

    /// A string known at compile time ("call", "cb", a function name).
    mutating func field(_ k: StaticString, literal v: StaticString) { key(k); literal(v) }
    mutating func literal(_ v: StaticString) {
        raw(0x22)
        v.withUTF8Buffer { bytes.append(contentsOf: $0) }
        raw(0x22)
        needComma = true
    }
    mutating func field(_ k: StaticString, _ v: UnsafePointer<CChar>?) {
        key(k)
        if let v { cString(v) } else { word("null") }
    }
    mutating func field(_ k: StaticString, _ v: CStr?) {
        key(k)
        if let v { string(v.bytes) } else { word("null") }
    }
    mutating func field(_ k: StaticString, _ v: String?) {
        key(k)
        guard var s = v else { return word("null") }
        s.withUTF8 { string(UnsafeRawBufferPointer($0)) }
    }
    mutating func field(_ k: StaticString, status: ng_status) {
        key(k)
        // "NG_E_RANGE": the name part of ng_strstatus's text.
        let text = ng_strstatus(status)!
        var n = 0
        while text[n] != 0 && text[n] != 0x3A { n += 1 }
        string(UnsafeRawBufferPointer(start: text, count: n))
    }

    mutating func int(_ v: Int64) {
        needComma = true
        if v == 0 { raw(0x30); return }
        var x = v.magnitude
        if v < 0 { raw(0x2D) }
        digits(x: &x)
    }

    /// Unsigned: a number up to Int64.max, a decimal string above (JSON
    /// readers that use doubles, and NavGuard's own, keep it exact).
    mutating func uint(_ v: UInt64) {
        if v <= UInt64(Int64.max) { int(Int64(v)); return }
        var x = v
        raw(0x22)
        digits(x: &x)
        raw(0x22)
        needComma = true
    }

    private mutating func digits(x: inout UInt64) {
        let start = bytes.count
        while x > 0 {
            bytes.append(UInt8(truncatingIfNeeded: 0x30 &+ x % 10))
            x /= 10
        }
        bytes[start...].reverse()
    }

    /// Integral values as integers; others by their shortest round-trip
    /// text; non-finite ones as the strings "inf", "-inf", "nan".
    mutating func double(_ v: Double) {
        if v.isNaN { return word("\"nan\"") }
        if v.isInfinite { return word(v < 0 ? "\"-inf\"" : "\"inf\"") }
        if v == v.rounded(), abs(v) < 9.0e15 {
            if v == 0 && v.sign == .minus { return word("-0.0") }
            return int(Int64(v))
        }
        var s = v.description
        s.withUTF8 { bytes.append(contentsOf: $0) }
        needComma = true
    }

    mutating func cString(_ p: UnsafePointer<CChar>) {
        var n = 0
        while p[n] != 0 { n += 1 }
        string(UnsafeRawBufferPointer(start: p, count: n))
    }

    /// A JSON string. Text from outside that is not UTF-8 (only a host's
    /// snapshot bytes can be: everything else was checked) gets U+FFFD for
    /// each bad byte, so every line stays JSON; exact bytes go in `hex`.
    mutating func string(_ s: UnsafeRawBufferPointer) {
        guard isValidUTF8(s) else {
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
            return
        }
        raw(0x22)
        for b in s {
            switch b {
            case 0x22: raw(0x5C); raw(0x22)
            case 0x5C: raw(0x5C); raw(0x5C)
            case 0x0A: raw(0x5C); raw(0x6E)
            case 0x0D: raw(0x5C); raw(0x72)
            case 0x09: raw(0x5C); raw(0x74)
            case 0..<0x20, 0x7F:
                raw(0x5C); raw(0x75); raw(0x30); raw(0x30)
                let hi = b >> 4, lo = b & 15
                raw(hi < 10 ? 0x30 + hi : 0x57 + hi)
                raw(lo < 10 ? 0x30 + lo : 0x57 + lo)
            default: raw(b)
            }
        }
        raw(0x22)
        needComma = true
    }

    /// Bytes as lowercase hex, in a string.
    mutating func hex(_ s: UnsafeRawBufferPointer) {
        raw(0x22)
        for b in s {
            let hi = b >> 4, lo = b & 15
            raw(hi < 10 ? 0x30 + hi : 0x57 + hi)
            raw(lo < 10 ? 0x30 + lo : 0x57 + lo)
        }
        raw(0x22)
        needComma = true
    }

    mutating func word(_ w: StaticString) {
        w.withUTF8Buffer { bytes.append(contentsOf: $0) }
        needComma = true
    }

    mutating func raw(_ b: UInt8) { bytes.append(b) }

    /// Members written into another line (a call's results), as members of
    /// the object under construction here.
    mutating func members(_ other: TraceLine) {
        guard !other.bytes.isEmpty else { return }
        if needComma { raw(0x2C) }
        bytes.append(contentsOf: other.bytes)
        needComma = true
    }
}
