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
final class TraceLine {
    private var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int
    private var needComma = false

    init(capacity: Int = 512) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    /// The bytes written so far (valid until the next write or reset).
    var view: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }
    /// A copy of the bytes (replay and tests; the recorder uses `view`).
    var bytes: [UInt8] { Array(view) }
    var isEmpty: Bool { count == 0 }

    func reset() {
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
    func raw(_ b: UInt8) {
        reserve(1)
        base[count] = b
        count += 1
    }

    func append(_ p: UnsafeRawBufferPointer) {
        guard let src = p.baseAddress, p.count > 0 else { return }
        reserve(p.count)
        UnsafeMutableRawPointer(base + count).copyMemory(from: src, byteCount: p.count)
        count += p.count
    }

    // MARK: Structure

    func begin() { raw(0x7B); needComma = false }             // {
    func end() { raw(0x7D); needComma = true }                // }
    func newline() { raw(0x0A); needComma = false }

    func key(_ k: StaticString) {
        let n = k.utf8CodeUnitCount
        reserve(n + 4)
        let out = base
        var c = count
        if needComma { out[c] = 0x2C; c += 1 }
        out[c] = 0x22
        c += 1
        let src = k.utf8Start
        for i in 0..<n { out[c + i] = src[i] }   // keys are short: no memcpy call
        c += n
        out[c] = 0x22
        out[c + 1] = 0x3A
        count = c + 2
        needComma = false
    }

    func object(_ k: StaticString, _ body: (TraceLine) -> Void) {
        key(k)
        begin()
        body(self)
        end()
    }

    func array(_ k: StaticString, _ body: (TraceLine) -> Void) {
        key(k)
        raw(0x5B)
        needComma = false
        body(self)
        raw(0x5D)
        needComma = true
    }

    /// Start an element of an array (objects and numbers inside `array`).
    func element() {
        if needComma { raw(0x2C) }
        needComma = false
    }

    /// Members written into another line (a call's results), as members of
    /// the object under construction here.
    func members(_ other: TraceLine) {
        guard !other.isEmpty else { return }
        if needComma { raw(0x2C) }
        append(other.view)
        needComma = true
    }

    // MARK: Values

    func field(_ k: StaticString, _ v: Int64) { key(k); int(v) }
    func field(_ k: StaticString, _ v: Int32) { key(k); int(Int64(v)) }
    func field(_ k: StaticString, _ v: UInt32) { key(k); int(Int64(v)) }
    func field(_ k: StaticString, _ v: Int) { key(k); int(Int64(v)) }
    func field(_ k: StaticString, _ v: UInt64) { key(k); uint(v) }
    func field(_ k: StaticString, _ v: Bool) { key(k); word(v ? "true" : "false") }
    func field(_ k: StaticString, _ v: Double) { key(k); double(v) }
    func field(_ k: StaticString, name: UnsafePointer<CChar>) { key(k); cString(name) }

    /// An enumeration value by its name from the headers' tables, or as a
    /// number when the table has no row for it (a host's bad value).
    func field(_ k: StaticString, _ v: Int32, names: (Int32) -> UnsafePointer<CChar>?) {
        key(k)
        let n = names(v)!
        if strcmp(n, "unknown") == 0 { int(Int64(v)) } else { cString(n) }
    }

    /// A string known at compile time ("call", "cb", a function name).
    func field(_ k: StaticString, literal v: StaticString) { key(k); literal(v) }

    func literal(_ v: StaticString) {
        reserve(v.utf8CodeUnitCount + 2)
        base[count] = 0x22
        count += 1
        UnsafeMutableRawPointer(base + count).copyMemory(from: v.utf8Start, byteCount: v.utf8CodeUnitCount)
        count += v.utf8CodeUnitCount
        base[count] = 0x22
        count += 1
        needComma = true
    }

    func field(_ k: StaticString, _ v: UnsafePointer<CChar>?) {
        key(k)
        if let v { cString(v) } else { word("null") }
    }

    func field(_ k: StaticString, _ v: CStr?) {
        key(k)
        if let v { string(v.bytes) } else { word("null") }
    }

    func field(_ k: StaticString, _ v: String?) {
        key(k)
        guard var s = v else { return word("null") }
        s.withUTF8 { string(UnsafeRawBufferPointer($0)) }
    }

    func field(_ k: StaticString, status: ng_status) {
        key(k)
        // "NG_E_RANGE": the name part of ng_strstatus's text.
        let text = ng_strstatus(status)!
        var n = 0
        while text[n] != 0 && text[n] != 0x3A { n += 1 }
        string(UnsafeRawBufferPointer(start: text, count: n))
    }

    func int(_ v: Int64) {
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
    func uint(_ v: UInt64) {
        if v <= UInt64(Int64.max) { int(Int64(v)); return }
        raw(0x22)
        digits(v)
        raw(0x22)
        needComma = true
    }

    private func digits(_ value: UInt64) {
        reserve(20)
        // Written backwards at the end of the reserved room, then moved.
        var x = value
        var i = count + 20
        repeat {
            i -= 1
            let q = x / 10
            base[i] = UInt8(truncatingIfNeeded: 0x30 &+ (x &- q &* 10))
            x = q
        } while x > 0
        let n = count + 20 - i
        // Bytes by copyMemory (memmove): Embedded Swift compiles a typed
        // update(from:count:) into a call per element.
        UnsafeMutableRawPointer(base + count).copyMemory(from: base + i, byteCount: n)
        count += n
    }

    /// Integral values as integers; others by their shortest round-trip
    /// text; non-finite ones as the strings "inf", "-inf", "nan".
    func double(_ v: Double) {
        if v.isNaN { return word("\"nan\"") }
        if v.isInfinite { return word(v < 0 ? "\"-inf\"" : "\"inf\"") }
        if v == v.rounded(), abs(v) < 9.0e15 {
            if v == 0 && v.sign == .minus { return word("-0.0") }
            return int(Int64(v))
        }
        var s = v.description
        s.withUTF8 { append(UnsafeRawBufferPointer($0)) }
        needComma = true
    }

    func cString(_ p: UnsafePointer<CChar>) {
        string(UnsafeRawBufferPointer(start: p, count: strlen(p)))
    }

    /// A JSON string. Text from outside that is not UTF-8 (only a host's
    /// snapshot bytes can be: everything else was checked) gets U+FFFD for
    /// each bad byte, so every line stays JSON; exact bytes go in `hex`.
    func string(_ s: UnsafeRawBufferPointer) {
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
    func hex(_ s: UnsafeRawBufferPointer) {
        raw(0x22)
        for b in s {
            hexDigit(b >> 4)
            hexDigit(b & 15)
        }
        raw(0x22)
        needComma = true
    }

    func word(_ w: StaticString) {
        append(UnsafeRawBufferPointer(start: w.utf8Start, count: w.utf8CodeUnitCount))
        needComma = true
    }
}
