// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardLibc
import NavGuardCore

/// A crash dump (docs/trace-format.md, "Crash dumps"): what the signal
/// handler wrote (Sources/NavGuardC/blackbox.c), a 128-byte header then the
/// ring's records as they were, read back into a ring dump's JSON Lines.
/// A report's dump (the writer thread's) has the same layout with signal
/// -1: a ring dump with no crash.
///
///     0   8  magic "NGBBOX01"          64  8  ring_records
///     8   4  header size (128)         72  8  ring_ns
///     12  4  layout version (1)        80  8  the newest call's instant
///     16  4  signal (-1: a report's)   88  8  lines dropped before these
///     20  4  context                   96  4  manual clock (1) or not (0)
///     24  8  pid                       100 4  records' layout version (1)
///     32  8  CLOCK_MONOTONIC at dump   104 8  bytes of records that follow
///     40  8  manual_start_ns           112 16 library version (NUL-padded)
///     48  8  default_duration_ns
///     56  8  posted_base
public enum BlackBoxFile {
    static let magic: [UInt8] = Array("NGBBOX01".utf8)
    static let headerSize = 128

    public static func isBlackBox(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 8 && zip(bytes.prefix(8), magic).allSatisfy { $0 == $1 }
    }

    /// The dump as a trace; `note` says what could not be read (the dump
    /// was cut short, or its oldest records were being overwritten).
    public static func convert(_ bytes: UnsafeRawBufferPointer) throws(TraceError) -> (text: [UInt8], note: String?) {
        guard isBlackBox(bytes), bytes.count >= headerSize else {
            throw TraceError(status: NG_E_PARSE, line: 1, message: "not a NavGuard crash dump (too short for its header)")
        }
        var r = RecordReader(UnsafeRawBufferPointer(rebasing: bytes[8..<headerSize]))
        let size = Int(r.u32())
        let layout = r.u32()
        guard size == headerSize, layout == 1 else {
            throw TraceError(status: NG_E_RANGE, line: 1, message: "crash dump layout \(layout) (header of \(size) bytes); this library reads layout 1")
        }
        let signal = r.i32()
        _ = r.u32()   // the context: the records need it not
        let pid = r.i64()
        let crashNs = r.i64()
        let manualStart = r.i64()
        let defaultDuration = r.i64()
        let postedBase = r.u64()
        let records = r.u64()
        let windowNs = r.i64()
        let lastNs = r.i64()
        let dropped = r.u64()
        let manual = r.u32() != 0
        let recordLayout = r.u32()
        let length = r.u64()
        guard recordLayout == 1 else {
            throw TraceError(status: NG_E_RANGE, line: 1, message: "crash dump records of layout \(recordLayout); this library reads layout 1")
        }
        let available = bytes.count - headerSize
        var note: String?
        if UInt64(available) < length {
            note = "the crash dump is cut short: \(available) of its \(length) bytes of records"
        }
        let body = UnsafeRawBufferPointer(rebasing: bytes[headerSize..<(headerSize + min(available, Int(clamping: length)))])
        // A manual clock stood at the last call; a monotonic one ran on to the crash.
        let info = RingInfo(manualClock: manual, manualStartNs: manualStart, defaultDurationNs: defaultDuration,
                            postedBase: postedBase == 0 ? Limits.postedIDBase : postedBase,
                            records: Int(clamping: records), ns: windowNs, atNs: manual ? lastNs : max(crashNs, lastNs),
                            droppedBefore: Int64(clamping: dropped), crash: signal < 0 ? nil : (signal, pid), damage: note)
        let t = RingReader.trace(body, info)
        return (t.text, [note, t.note].compactMap { $0 }.joined(separator: "; ").nilIfEmpty)
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}
