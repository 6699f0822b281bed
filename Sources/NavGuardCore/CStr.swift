// SPDX-License-Identifier: Apache-2.0
// An owned, immutable, NUL-terminated UTF-8 string. The core keeps routes,
// identities and labels in this form so that guards and hosts can be handed
// a stable `const char *` without copying on every read.
public final class CStr: @unchecked Sendable {
    public let pointer: UnsafeMutablePointer<CChar>
    public let count: Int   // bytes, without the NUL

    /// Copies `count` bytes from `bytes` (no NUL needed in the source).
    public init(bytes: UnsafeRawPointer, count: Int) {
        pointer = .allocate(capacity: count + 1)
        UnsafeMutableRawPointer(pointer).copyMemory(from: bytes, byteCount: count)
        pointer[count] = 0
        self.count = count
    }

    private init(adopting pointer: UnsafeMutablePointer<CChar>, count: Int) {
        self.pointer = pointer
        self.count = count
    }

    public convenience init(_ string: String) {
        var s = string
        let (p, n) = s.withUTF8 { buf -> (UnsafeMutablePointer<CChar>, Int) in
            let p = UnsafeMutablePointer<CChar>.allocate(capacity: buf.count + 1)
            if let base = buf.baseAddress {
                UnsafeMutableRawPointer(p).copyMemory(from: base, byteCount: buf.count)
            }
            p[buf.count] = 0
            return (p, buf.count)
        }
        self.init(adopting: p, count: n)
    }

    deinit { pointer.deallocate() }

    public var string: String {
        String(decoding: UnsafeRawBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: pointer, count: count) }

    /// Whether this string holds exactly these bytes.
    @inline(__always)
    public func matches(_ bytes: UnsafeRawPointer, _ n: Int) -> Bool {
        n == count && memcmpBytes(pointer, bytes.assumingMemoryBound(to: CChar.self), n)
    }

    public func equals(_ other: CStr) -> Bool {
        other === self || (other.count == count && memcmpBytes(pointer, other.pointer, count))
    }
}

@inline(__always)
func memcmpBytes(_ a: UnsafePointer<CChar>, _ b: UnsafePointer<CChar>, _ n: Int) -> Bool {
    var i = 0
    while i < n {
        if a[i] != b[i] { return false }
        i += 1
    }
    return true
}

/// UTF-8 validation (RFC 3629: no overlongs, no surrogates, max U+10FFFF).
public func isValidUTF8(_ p: UnsafeRawBufferPointer) -> Bool {
    var i = 0
    let n = p.count
    while i < n {
        let b0 = p[i]
        if b0 < 0x80 { i += 1; continue }
        var need = 0
        var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
        switch b0 {
        case 0xC2...0xDF: need = 1
        case 0xE0: need = 2; lo = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: need = 2
        case 0xED: need = 2; hi = 0x9F
        case 0xF0: need = 3; lo = 0x90
        case 0xF1...0xF3: need = 3
        case 0xF4: need = 3; hi = 0x8F
        default: return false
        }
        if i + need >= n { return false }
        let b1 = p[i + 1]
        if b1 < lo || b1 > hi { return false }
        var k = 2
        while k <= need {
            let b = p[i + k]
            if b < 0x80 || b > 0xBF { return false }
            k += 1
        }
        i += need + 1
    }
    return true
}

/// Why a C string from outside (a host or a guard) was refused.
public enum StringProblem: Error {
    case tooLong
    case notUTF8
}

/// The one check of a C string crossing the boundary, from a host or a guard:
/// its length, when at most `limit` bytes come before its NUL and they are
/// valid UTF-8. Reads at most `limit + 1` bytes.
@inline(__always)
public func checkedLength(_ p: UnsafePointer<CChar>, limit: Int) throws(StringProblem) -> Int {
    var n = 0
    while p[n] != 0 {
        n += 1
        if n > limit { throw .tooLong }
    }
    guard isValidUTF8(UnsafeRawBufferPointer(start: p, count: n)) else { throw .notUTF8 }
    return n
}

@inline(__always)
func strcmpC(_ a: UnsafePointer<CChar>, _ b: UnsafePointer<CChar>) -> Bool {
    var i = 0
    while true {
        if a[i] != b[i] { return false }
        if a[i] == 0 { return true }
        i += 1
    }
}

/// Length of a C string, bounded by the string limit (longer is cut).
func boundedLength(_ p: UnsafePointer<CChar>) -> Int {
    var n = 0
    while n < Limits.maxString && p[n] != 0 { n += 1 }
    return n
}

/// A string literal as a C string (a literal is NUL-terminated and lives as
/// long as the program): the library's messages and the trace's names.
@inline(__always)
public func staticC(_ s: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
}
