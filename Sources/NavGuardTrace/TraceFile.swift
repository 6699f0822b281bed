// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardLibc
import NavGuardCore

// A trace file read back: JSON Lines, its header and its records, each
// record typed through the definitions of TraceCalls.swift and
// TraceCallbacks.swift. Replay, `navguard timeline` and `navguard stats`
// read traces through this and nothing else.

/// Why a trace could not be read or replayed.
public struct TraceError: Error {
    public let status: ng_status
    public let line: Int
    public let message: String

    public init(status: ng_status, line: Int, message: String) {
        (self.status, self.line, self.message) = (status, line, message)
    }
}

/// A record, typed.
public enum TraceEntry {
    /// A host call: its instant (`t`), arguments, and its `ret` when on the
    /// same line (else a `ret` record closes it later).
    case call(fn: CallFn, t: Int64?, args: CallArgs, ret: TraceResult?)
    /// A call refused before it did anything (replay skips it).
    case rejected(fn: String, t: Int64?, ret: TraceResult)
    /// The `ret` of a call whose line came before its callbacks.
    case ret(fn: String, TraceResult)
    case callback(fn: CallbackFn, TraceCallback)
    /// A callback this library does not know (a newer writer's).
    case otherCallback(fn: String)
    case posted(id: UInt64, request: TraceRequest, postedNs: Int64?)
    /// A record cut short because it did not fit a ring: only its kind,
    /// function and instant are known.
    case truncated(kind: TraceRecord.Kind, fn: String, t: Int64?)
}

/// One line of a trace, parsed.
public struct TraceRecord {
    public enum Kind: String { case call, ret, cb, posted }

    public let line: Int
    public let kind: Kind
    /// The call's or callback's name ("event", "outcome"); "" for posted.
    public let fn: String
    public let value: JSONValue
    public let text: String

    /// The record typed; a field of the wrong type or range is an error
    /// naming it (replay stops there; the timeline passes over the record).
    @_optimize(size)
    public func entry() throws(FieldError) -> TraceEntry {
        let t = try value["t"].map { x throws(FieldError) in try nanoseconds(x, "t") }
        if value["truncated"]?.bool == true { return .truncated(kind: kind, fn: fn, t: t) }
        let tr = try value["tr"].map { x throws(FieldError) in try nanoseconds(x, "tr") }
        switch kind {
        case .call:
            if value["rejected"]?.bool == true { return .rejected(fn: fn, t: t, ret: TraceResult(json: value["ret"] ?? .null)) }
            guard let f = CallFn(name: fn) else { throw FieldError(message: "unknown call \"\(fn)\"") }
            return .call(fn: f, t: t, args: try CallArgs.read(f, value), ret: value["ret"].map { TraceResult(json: $0, datedAt: tr) })
        case .ret:
            return .ret(fn: fn, TraceResult(json: value["ret"] ?? .null, datedAt: tr))
        case .cb:
            guard let f = CallbackFn(name: fn) else { return .otherCallback(fn: fn) }
            return .callback(fn: f, TraceCallback.read(f, value))
        case .posted:
            let (id, request, at) = try PostedRecord.read(value)
            return .posted(id: id, request: request, postedNs: at)
        }
    }

    /// The record's instant when it has one (calls).
    public var t: Int64? { value["t"]?.int64 }
    /// A call with its result on its own line.
    public var hasInlineRet: Bool { value["ret"] != nil }
    public var isRejected: Bool { value["rejected"]?.bool == true }
}

/// A parsed trace: its header and its records, in order.
public struct Trace {
    public let header: TraceHeader
    public let records: [TraceRecord]
    /// The last line was cut off (a trace written until a crash).
    public let truncatedLine: Int?

    public static let version: Int64 = 1

    /// The longest JSON Lines trace `navguard` reads (1 GiB): its records
    /// are held in memory whole, several times the file's size.
    public static let maxTextBytes = 1 << 30

    /// The longest a trace file beginning with `prefix` may be (a crash
    /// dump: what its header says, at most CrashDumpFile.maxFileBytes; JSON
    /// Lines: maxTextBytes), so that a reader can refuse it unread; or why
    /// it is no trace at all (a crash dump's header, a first byte that
    /// begins no JSON object: /dev/zero is refused by its first byte).
    @_optimize(size)
    public static func fileLimit(prefix: UnsafeRawBufferPointer) throws(TraceError) -> Int {
        if CrashDumpFile.isCrashDump(prefix) { return try CrashDumpFile.fileLimit(prefix) }
        if let b = prefix.first, ![0x7B, 0x20, 0x09, 0x0D, 0x0A].contains(b) {
            throw TraceError(status: NG_E_PARSE, line: 1,
                             message: "not a NavGuard trace (it is no crash dump, and its first byte, \(b), begins no JSON object)")
        }
        return maxTextBytes
    }

    /// Read a trace: JSON Lines, or a crash dump (binary, CrashDumpFile),
    /// converted first. A malformed line is an error naming it, except a
    /// last line cut off without its newline, which ends the trace.
    @_optimize(size)
    public static func read(_ bytes: UnsafeRawBufferPointer) throws(TraceError) -> Trace {
        if CrashDumpFile.isCrashDump(bytes) {
            let converted = try CrashDumpFile.convert(bytes)
            return try converted.text.withUnsafeBufferPointer { b throws(TraceError) in try readLines(UnsafeRawBufferPointer(b)) }
        }
        return try readLines(bytes)
    }

    @_optimize(size)
    static func readLines(_ bytes: UnsafeRawBufferPointer) throws(TraceError) -> Trace {
        var lines: [(start: Int, end: Int)] = []
        var start = 0
        for i in 0..<bytes.count where bytes[i] == 0x0A {
            lines.append((start, i))
            start = i + 1
        }
        let cutTail = start < bytes.count
        if cutTail { lines.append((start, bytes.count)) }
        guard !lines.isEmpty else { throw TraceError(status: NG_E_PARSE, line: 1, message: "the trace is empty") }
        var header: TraceHeader?
        var records: [TraceRecord] = []
        records.reserveCapacity(lines.count)
        var truncated: Int?
        for (n, l) in lines.enumerated() {
            let number = n + 1
            let slice = UnsafeRawBufferPointer(rebasing: bytes[l.start..<l.end])
            if slice.isEmpty { continue }
            var parsed: JSONValue?
            var why = "not a JSON object"
            do throws(JSONError) { parsed = try JSON.parse(slice.bindMemory(to: UInt8.self)) } catch { why = error.message }
            guard let v = parsed, case .object = v else {
                if number == lines.count && cutTail && number > 1 {
                    truncated = number
                    break
                }
                throw TraceError(status: NG_E_PARSE, line: number,
                                 message: number == 1 ? "not a NavGuard trace (the first line is not a JSON header): \(why)"
                                                      : "line \(number) is not a trace record: \(why)")
            }
            if number == 1 {
                header = try TraceHeader(json: v)
                continue
            }
            guard let k = v["k"]?.string, let kind = TraceRecord.Kind(rawValue: k) else {
                throw TraceError(status: NG_E_PARSE, line: number, message: "line \(number) has no known record kind \"k\"")
            }
            let fn = v["fn"]?.string
            if kind != .posted && fn == nil {
                throw TraceError(status: NG_E_PARSE, line: number, message: "line \(number) has no \"fn\"")
            }
            records.append(TraceRecord(line: number, kind: kind, fn: fn ?? "", value: v,
                                       text: String(decoding: slice, as: UTF8.self)))
        }
        guard let header else { throw TraceError(status: NG_E_PARSE, line: 1, message: "the trace is empty") }
        return Trace(header: header, records: records, truncatedLine: truncated)
    }
}
