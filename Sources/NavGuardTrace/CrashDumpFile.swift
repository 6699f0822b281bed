// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardLibc
import NavGuardCore

/// A crash dump (docs/trace-format.md, "Crash dumps"): what the signal
/// handler wrote (Sources/NavGuardC/crash_dump.c), a 128-byte header then the
/// ring's records as they were, read back into a ring dump's JSON Lines.
/// A report's dump (the writer thread's) has the same layout with signal
/// -1: a ring dump with no crash.
///
///     0   8  magic "NGBBOX01"          64  8  ring_records
///     8   4  header_size (128)         72  8  ring_ns
///     12  4  layout (1)                80  8  last_ns (the newest call's instant)
///     16  4  signal (-1: a report's)   88  8  dropped_lines (before these records)
///     20  4  context                   96  4  manual_clock (1) or not (0)
///     24  8  pid                       100 4  records_layout (1)
///     32  8  dump_ns (CLOCK_MONOTONIC) 104 8  records_bytes that follow
///     40  8  manual_start_ns           112 16 library version (NUL-padded)
///     48  8  default_duration_ns
///     56  8  posted_base
public enum CrashDumpFile {
    /// The magic keeps the spelling of the files written before the crash
    /// dump had its name ("black box"): every dump written since 0.3 opens.
    static let magic: [UInt8] = Array("NGBBOX01".utf8)
    static let headerSize = 128
    /// The largest ring a recorder allocates (Recorder.init): no dump's
    /// records are longer.
    public static let maxRecordBytes = 64 << 20
    /// The largest crash dump: a reader refuses a longer file unread.
    public static let maxFileBytes = headerSize + maxRecordBytes
    /// Lines a ring may say it dropped: far more than any recording makes
    /// (2^53, where JSON numbers stop being exact), far from overflowing.
    static let maxDroppedLines: UInt64 = 1 << 53

    @_optimize(size)
    public static func isCrashDump(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 8 && zip(bytes.prefix(8), magic).allSatisfy { $0 == $1 }
    }

    /// The header, each field checked against the file it describes (the
    /// file may hold anything: a wrong field is an error naming it).
    struct Header {
        var signal: Int32
        var pid: Int64
        var dumpNs: Int64
        var manualStartNs: Int64
        var defaultDurationNs: Int64
        var postedBase: UInt64
        var ringRecords: Int
        var ringNs: Int64
        var lastNs: Int64
        var droppedLines: Int64
        var manualClock: Bool
        var recordsBytes: Int

        @_optimize(size)
        static func bad(_ field: StaticString, _ offset: Int, _ value: String, _ why: String) -> TraceError {
            TraceError(status: NG_E_PARSE, line: 1, message: "crash dump header: \(field) (offset \(offset)) is \(value), \(why)")
        }

        /// The header at the start of `bytes` (the file, or its first bytes).
        init(_ bytes: UnsafeRawBufferPointer) throws(TraceError) {
            guard isCrashDump(bytes), bytes.count >= headerSize else {
                throw TraceError(status: NG_E_PARSE, line: 1,
                                 message: "not a NavGuard crash dump (\(bytes.count) bytes: too short for its \(headerSize)-byte header)")
            }
            var r = RecordReader(UnsafeRawBufferPointer(rebasing: bytes[8..<headerSize]))
            let size = r.u32()
            let layout = r.u32()
            // A newer layout may have a longer header: its version says so first.
            guard layout == 1 else {
                throw TraceError(status: NG_E_RANGE, line: 1,
                                 message: "crash dump layout \(layout) (offset 12); this library reads layout 1")
            }
            guard size == UInt32(headerSize) else {
                throw Header.bad("header_size", 8, "\(size)", "not \(headerSize) (layout 1's header)")
            }
            signal = r.i32()   // any: a host's handler passes its own (0: none)
            _ = r.u32()        // the context: the records need it not
            pid = r.i64()
            guard pid >= 1 && pid <= Int64(Int32.max) else { throw Header.bad("pid", 24, "\(pid)", "not a process id (1...2^31-1)") }
            dumpNs = r.i64()
            guard dumpNs >= 0 else { throw Header.bad("dump_ns", 32, "\(dumpNs)", "a negative CLOCK_MONOTONIC reading") }
            manualStartNs = r.i64()
            guard manualStartNs >= 0 else { throw Header.bad("manual_start_ns", 40, "\(manualStartNs)", "a negative time") }
            defaultDurationNs = r.i64()
            guard defaultDurationNs >= 0 else {
                throw Header.bad("default_duration_ns", 48, "\(defaultDurationNs)", "a negative duration")
            }
            let base = r.u64()
            // 0: a writer that left it out (the default base).
            guard base <= 1 << 63 else { throw Header.bad("posted_base", 56, "\(base)", "above 2^63 (posted ids would overflow)") }
            postedBase = base == 0 ? Limits.postedIDBase : base
            let records = r.u64()
            // ng_record_options.ring_records is a uint32_t, 0 meaning the default.
            guard records >= 1 && records <= UInt64(UInt32.max) else {
                throw Header.bad("ring_records", 64, "\(records)", "not a ring's window (1...2^32-1 lines)")
            }
            ringRecords = Int(records)
            ringNs = r.i64()
            guard ringNs >= 0 else { throw Header.bad("ring_ns", 72, "\(ringNs)", "a negative window") }
            lastNs = r.i64()
            guard lastNs >= 0 else { throw Header.bad("last_ns", 80, "\(lastNs)", "a negative time") }
            let dropped = r.u64()
            guard dropped <= maxDroppedLines else {
                throw Header.bad("dropped_lines", 88, "\(dropped)", "more than 2^53, which no recording reaches")
            }
            droppedLines = Int64(dropped)
            let manual = r.u32()
            guard manual <= 1 else { throw Header.bad("manual_clock", 96, "\(manual)", "neither 0 nor 1") }
            manualClock = manual == 1
            let recordLayout = r.u32()
            guard recordLayout == 1 else {
                throw TraceError(status: NG_E_RANGE, line: 1,
                                 message: "crash dump records of layout \(recordLayout) (offset 100); this library reads layout 1")
            }
            let length = r.u64()
            guard length <= UInt64(maxRecordBytes) else {
                throw Header.bad("records_bytes", 104, "\(length)", "more than a ring holds (\(maxRecordBytes) bytes)")
            }
            guard length % 8 == 0 else { throw Header.bad("records_bytes", 104, "\(length)", "not a multiple of 8 (records are)") }
            recordsBytes = Int(length)
            // The version: text NUL-padded to 16 bytes, the last one NUL.
            let version = UnsafeRawBufferPointer(rebasing: bytes[112..<headerSize])
            let text = version.prefix { $0 != 0 }
            guard text.count < version.count, text.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }),
                  version[text.count...].allSatisfy({ $0 == 0 }) else {
                throw TraceError(status: NG_E_PARSE, line: 1,
                                 message: "crash dump header: library (offset 112) is not a version string (text NUL-padded to 16 bytes)")
            }
        }
    }

    /// The longest a crash dump beginning with `prefix` can be (its header
    /// says, once it is there); its header's first wrong field when it has one.
    @_optimize(size)
    static func fileLimit(_ prefix: UnsafeRawBufferPointer) throws(TraceError) -> Int {
        guard prefix.count >= headerSize else { return maxFileBytes }
        return headerSize + (try Header(prefix)).recordsBytes
    }

    /// The dump as a trace; `note` says what could not be read (the dump
    /// was cut short, or its oldest records were being overwritten).
    @_optimize(size)
    public static func convert(_ bytes: UnsafeRawBufferPointer) throws(TraceError) -> (text: [UInt8], note: String?) {
        let h = try Header(bytes)
        let available = bytes.count - headerSize
        // Shorter: a dump cut short (the note); longer: not what the header describes.
        guard available <= h.recordsBytes else {
            throw Header.bad("records_bytes", 104, "\(h.recordsBytes)", "but \(available) bytes follow the header")
        }
        var note: String?
        if available < h.recordsBytes {
            note = "the crash dump is cut short: \(available) of its \(h.recordsBytes) bytes of records"
        }
        let body = UnsafeRawBufferPointer(rebasing: bytes[headerSize..<(headerSize + min(available, h.recordsBytes))])
        // A manual clock stood at the last call; a monotonic one ran on to the crash.
        let info = RingInfo(manualClock: h.manualClock, manualStartNs: h.manualStartNs, defaultDurationNs: h.defaultDurationNs,
                            postedBase: h.postedBase, records: h.ringRecords, ns: h.ringNs,
                            atNs: h.manualClock ? h.lastNs : max(h.dumpNs, h.lastNs),
                            droppedBefore: h.droppedLines, crash: h.signal < 0 ? nil : (h.signal, h.pid), damage: note)
        let t = RingReader.trace(body, info)
        return (t.text, [note, t.note].compactMap { $0 }.joined(separator: "; ").nilIfEmpty)
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
