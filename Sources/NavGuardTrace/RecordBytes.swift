// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardLibc
import NavGuardCore

// The flight recorder's binary records (docs/trace-format.md, "Binary
// records"): what a recorded call costs is writing one of these, never
// formatting text. Little-endian, fields unaligned inside a record, each
// record padded to 8 bytes. TraceCalls.swift, TraceCallbacks.swift and
// TraceState.swift say what each record holds.

/// A record's kind: its header's byte 4.
public enum RecordKind: UInt8 {
    /// Filler to the end of a ring's bytes (a record never wraps).
    case pad = 0
    /// A host call: its instant and arguments, then (flag `hasRet`) its
    /// status and results when nothing was recorded while it ran.
    case call = 1
    /// A call's status and results on a record of their own.
    case ret = 2
    /// A call refused before it did anything: instant, status, message.
    case rejected = 3
    /// A callback to the host.
    case callback = 4
    /// A request posted from another thread, where a tick applied it.
    case posted = 5
    /// Ring mode: the state when the next call began (TraceCheckpoint).
    case checkpoint = 6
}

/// A record's header: 16 bytes.
///
///     u32 size   whole record, header included, a multiple of 8
///     u8  kind   RecordKind
///     u8  code   CallFn or CallbackFn (0 for the rest)
///     u16 flags  RecordFlags
///     u32 seq    counts records from 1 (a reader checks they follow)
///     u32 check  seq ^ kind ^ code << 8 ^ RecordHeader.magic (a torn or
///                stray header fails it; size and flags are left out: a
///                call's record grows its ret by rewriting the first 8 bytes
///                alone, in one store)
public struct RecordHeader {
    public static let size = 16
    public static let magic: UInt32 = 0x4E47_4258   // "NGBX"
    public var size: UInt32
    public var kind: UInt8
    public var code: UInt8
    public var flags: UInt16
    public var seq: UInt32

    public init(size: UInt32, kind: UInt8, code: UInt8, flags: UInt16, seq: UInt32) {
        (self.size, self.kind, self.code, self.flags, self.seq) = (size, kind, code, flags, seq)
    }

    /// The first 8 bytes as one word: rewritten with a single store when a
    /// call's record grows its `ret` (a crash dump reads old or new, never half).
    public var word: UInt64 { UInt64(size) | UInt64(kind) << 32 | UInt64(code) << 40 | UInt64(flags) << 48 }

    public func store(to p: UnsafeMutableRawPointer) {
        p.storeBytes(of: word.littleEndian, as: UInt64.self)
        p.storeBytes(of: seq.littleEndian, toByteOffset: 8, as: UInt32.self)
        p.storeBytes(of: check.littleEndian, toByteOffset: 12, as: UInt32.self)
    }

    public var check: UInt32 { seq ^ UInt32(kind) ^ UInt32(code) << 8 ^ RecordHeader.magic }

    /// The header at `p` when it is whole and consistent, else nil.
    public static func load(_ p: UnsafeRawPointer, available: Int) -> RecordHeader? {
        guard available >= 8 else { return nil }
        let w = UInt64(littleEndian: p.loadUnaligned(as: UInt64.self))
        let h = RecordHeader(size: UInt32(truncatingIfNeeded: w), kind: UInt8(truncatingIfNeeded: w >> 32),
                             code: UInt8(truncatingIfNeeded: w >> 40), flags: UInt16(truncatingIfNeeded: w >> 48), seq: 0)
        // A pad may be only 8 bytes (the room left at the end of a ring).
        if h.kind == RecordKind.pad.rawValue {
            return h.size >= 8 && h.size % 8 == 0 && Int(h.size) <= available ? h : nil
        }
        guard available >= RecordHeader.size, h.size >= UInt32(RecordHeader.size), h.size % 8 == 0,
              Int(h.size) <= available else { return nil }
        var full = h
        full.seq = UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
        let check = UInt32(littleEndian: p.loadUnaligned(fromByteOffset: 12, as: UInt32.self))
        guard check == full.check else { return nil }
        return full
    }
}

public struct RecordFlags {
    /// A call record that holds its `ret` too.
    public static let hasRet: UInt16 = 1
    /// A checkpoint with every part (views and the whole stack included).
    public static let full: UInt16 = 2
    /// Did not fit the ring's largest record: only its header fields were
    /// kept (the formatter says "truncated").
    public static let truncated: UInt16 = 4
    /// An outermost call begun from a state no checkpoint before it shows
    /// (ring mode writes at most one checkpoint per so many records).
    public static let stale: UInt16 = 8
    /// Ring mode: continuous input (a move, hover, scroll, motion) for which
    /// no clock was read; `t` is the last instant read before it
    /// (Recorder.instant). The JSON line says `"undated":true`.
    public static let undated: UInt16 = 16
}

/// Writes one record's fields at `p`, up to `end`. Running out of room
/// sets `overflow` and writes nothing more (the recorder then keeps a
/// truncated record).
public struct RecordWriter {
    public private(set) var p: UnsafeMutableRawPointer
    public let end: UnsafeMutableRawPointer
    public private(set) var overflow = false

    /// Bytes left before `end`.
    public var room: Int { end - p }

    public init(_ p: UnsafeMutableRawPointer, end: UnsafeMutableRawPointer) {
        self.p = p
        self.end = end
    }

    @inline(__always)
    public mutating func put<T: FixedWidthInteger>(_ v: T) {
        let n = MemoryLayout<T>.size
        guard end - p >= n else { overflow = true; return }
        p.storeBytes(of: v.littleEndian, as: T.self)
        p += n
    }

    @inline(__always) public mutating func u8(_ v: UInt8) { put(v) }
    @inline(__always) public mutating func i32(_ v: Int32) { put(v) }
    @inline(__always) public mutating func u32(_ v: UInt32) { put(v) }
    @inline(__always) public mutating func i64(_ v: Int64) { put(v) }
    @inline(__always) public mutating func u64(_ v: UInt64) { put(v) }
    @inline(__always) public mutating func f64(_ v: Double) { put(v.bitPattern) }
    @inline(__always) public mutating func bool(_ v: Bool) { put(UInt8(v ? 1 : 0)) }

    /// Fixed-size fields, `n` bytes in all, with one check of room rather
    /// than one per field (the hot records: an event and its result).
    /// Without room nothing is written and `overflow` is set, as a field
    /// that does not fit does (the record is then truncated or rewritten
    /// larger: what was written of it is dropped either way).
    @inline(__always)
    public mutating func fixed(_ n: Int, _ body: (inout RecordFields) -> Void) {
        guard end - p >= n else { overflow = true; return }
        var f = RecordFields(p: p)
        body(&f)
        assert(f.p == p + n, "RecordWriter.fixed: the fields are not \(n) bytes")
        p += n
    }

    /// Text: u32 length then the bytes; `nullText` stands for NULL.
    public static let nullText: UInt32 = 0xFFFF_FFFF

    // A text that is NULL, the most common (a guard's id, a message), is
    // written inline; the others go out of line.
    @inline(__always)
    public mutating func text(_ b: UnsafeRawBufferPointer?) {
        guard let b else { return u32(RecordWriter.nullText) }
        bytes(b)
    }

    @inline(never)
    private mutating func bytes(_ b: UnsafeRawBufferPointer) {
        guard end - p >= 4 + b.count else { overflow = true; return }
        u32(UInt32(b.count))
        if let src = b.baseAddress, b.count > 0 { p.copyMemory(from: src, byteCount: b.count) }
        p += b.count
    }

    @inline(__always)
    public mutating func text(_ s: UnsafePointer<CChar>?) {
        guard let s else { return u32(RecordWriter.nullText) }
        bytes(UnsafeRawBufferPointer(start: s, count: strlen(s)))
    }

    @inline(__always)
    public mutating func text(_ s: CStr?) {
        guard let s else { return u32(RecordWriter.nullText) }
        bytes(s.bytes)
    }

    public mutating func text(_ s: String?) {
        guard var s else { return u32(RecordWriter.nullText) }
        s.withUTF8 { bytes(UnsafeRawBufferPointer($0)) }
    }
}

/// Stores fields where RecordWriter.fixed checked the room for them all.
public struct RecordFields {
    fileprivate(set) var p: UnsafeMutableRawPointer

    @inline(__always)
    public mutating func put<T: FixedWidthInteger>(_ v: T) {
        p.storeBytes(of: v.littleEndian, as: T.self)
        p += MemoryLayout<T>.size
    }

    @inline(__always) public mutating func u8(_ v: UInt8) { put(v) }
    @inline(__always) public mutating func i32(_ v: Int32) { put(v) }
    @inline(__always) public mutating func u32(_ v: UInt32) { put(v) }
    @inline(__always) public mutating func i64(_ v: Int64) { put(v) }
    @inline(__always) public mutating func u64(_ v: UInt64) { put(v) }
    @inline(__always) public mutating func f64(_ v: Double) { put(v.bitPattern) }
}

/// Reads one record's fields; never reads past `end` (a crash dump may hold
/// anything): past it, every value is zero and `bad` is set.
public struct RecordReader {
    private(set) var p: UnsafeRawPointer
    public let end: UnsafeRawPointer
    private(set) var bad = false

    public init(_ p: UnsafeRawPointer, end: UnsafeRawPointer) {
        self.p = p
        self.end = end
    }

    public init(_ b: UnsafeRawBufferPointer) {
        p = b.baseAddress ?? UnsafeRawPointer(bitPattern: 8)!
        end = p + b.count
    }

    public var remaining: Int { end - p }

    @inline(__always)
    public mutating func get<T: FixedWidthInteger>(_: T.Type = T.self) -> T {
        let n = MemoryLayout<T>.size
        guard end - p >= n else { bad = true; return 0 }
        let v = T(littleEndian: p.loadUnaligned(as: T.self))
        p += n
        return v
    }

    @inline(__always) public mutating func u8() -> UInt8 { get() }
    @inline(__always) public mutating func i32() -> Int32 { get() }
    @inline(__always) public mutating func u32() -> UInt32 { get() }
    @inline(__always) public mutating func i64() -> Int64 { get() }
    @inline(__always) public mutating func u64() -> UInt64 { get() }
    @inline(__always) public mutating func f64() -> Double { Double(bitPattern: get(UInt64.self)) }
    @inline(__always) public mutating func bool() -> Bool { get(UInt8.self) != 0 }

    /// Text as written by RecordWriter.text: nil for NULL (and when bad).
    public mutating func text() -> UnsafeRawBufferPointer? {
        let n = u32()
        if n == RecordWriter.nullText || bad { return nil }
        guard end - p >= Int(n) else { bad = true; return nil }
        let b = UnsafeRawBufferPointer(start: p, count: Int(n))
        p += Int(n)
        return b
    }
}
