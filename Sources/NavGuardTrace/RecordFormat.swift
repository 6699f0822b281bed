// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardLibc
import NavGuardCore

// Binary records as the trace's JSON lines: what a file or writer recorder
// does when it flushes, and what a ring dump (in the process, or from a
// crash dump by `navguard`) does with the ring.

public enum RecordFormat {
    /// One record as one JSON line (without its newline); false for a
    /// record that is no line (a pad, a checkpoint) or cannot be read.
    @discardableResult
    public static func line(_ h: RecordHeader, _ payload: UnsafeRawBufferPointer, _ w: TraceLine) -> Bool {
        var r = RecordReader(payload)
        switch RecordKind(rawValue: h.kind) {
        case .call:
            guard let fn = CallFn(rawValue: h.code) else { return false }
            w.begin()
            w.field("k", literal: "call")
            w.field("fn", literal: fn.name)
            w.field("t", r.i64())
            if h.flags & RecordFlags.undated != 0 { w.field("undated", true) }
            if h.flags & RecordFlags.truncated != 0 {
                w.field("truncated", true)
            } else {
                CallArgs.format(fn, &r, w)
            }
            if h.flags & RecordFlags.hasRet != 0 { CallResult.format(&r, w) }
            w.end()
        case .ret:
            guard let fn = CallFn(rawValue: h.code) else { return false }
            w.begin()
            w.field("k", literal: "ret")
            w.field("fn", literal: fn.name)
            CallResult.format(&r, w)
            w.end()
        case .rejected:
            guard let fn = CallFn(rawValue: h.code) else { return false }
            w.begin()
            w.field("k", literal: "call")
            w.field("fn", literal: fn.name)
            w.field("t", r.i64())
            w.field("rejected", true)
            w.key("ret")
            w.begin()
            w.field("st", status: r.i32())
            if let err = r.text() { w.field("err", text: err) }
            w.end()
            w.end()
        case .callback:
            guard let fn = CallbackFn(rawValue: h.code) else { return false }
            w.begin()
            w.field("k", literal: "cb")
            w.field("fn", literal: fn.name)
            if h.flags & RecordFlags.truncated != 0 { w.field("truncated", true) } else { TraceCallback.format(fn, &r, w) }
            w.end()
        case .posted:
            w.begin()
            w.field("k", literal: "posted")
            if h.flags & RecordFlags.truncated != 0 { w.field("truncated", true) } else { PostedRecord.format(&r, w) }
            w.end()
        default:
            return false
        }
        return !r.bad
    }

    /// Whether a record is a line of the trace.
    @inline(__always)
    public static func isLine(_ kind: UInt8) -> Bool {
        // A mask (folded to a constant): a full ring asks for every record it drops.
        let lines: UInt64 = 1 << RecordKind.call.rawValue | 1 << RecordKind.ret.rawValue
            | 1 << RecordKind.rejected.rawValue | 1 << RecordKind.callback.rawValue | 1 << RecordKind.posted.rawValue
        return kind < 64 && lines & (1 << UInt64(kind)) != 0
    }
}

/// What a ring dump's header says beside its records.
public struct RingInfo {
    public var manualClock: Bool
    public var manualStartNs: Int64
    public var defaultDurationNs: Int64
    public var postedBase: UInt64
    /// The window: the newest `records` lines, younger than `ns` (0: any age).
    public var records: Int
    public var ns: Int64
    /// When the dump was made (the context's clock).
    public var atNs: Int64
    /// Lines the ring had dropped from memory before these bytes.
    public var droppedBefore: Int64
    public var crash: (signal: Int32, pid: Int64)?
    /// What was wrong with the bytes before they were read (a cut dump).
    public var damage: String? = nil

    public init(manualClock: Bool, manualStartNs: Int64, defaultDurationNs: Int64, postedBase: UInt64, records: Int, ns: Int64,
                atNs: Int64, droppedBefore: Int64, crash: (signal: Int32, pid: Int64)?, damage: String? = nil) {
        (self.manualClock, self.manualStartNs, self.defaultDurationNs, self.postedBase) = (manualClock, manualStartNs, defaultDurationNs, postedBase)
        (self.records, self.ns, self.atNs, self.droppedBefore, self.crash, self.damage) = (records, ns, atNs, droppedBefore, crash, damage)
    }
}

/// A ring's records (their bytes in order, oldest first) as a trace: a
/// header with `"start":"ring"` and the checkpoint of the state at the
/// first line kept, then the lines of the window.
public enum RingReader {
    private struct Entry {
        var offset: Int
        var header: RecordHeader
        /// The instant of the line: its own, or its call's.
        var t: Int64
    }

    public static func trace(_ bytes: UnsafeRawBufferPointer, _ info: RingInfo) -> (text: [UInt8], lines: Int, note: String?) {
        // The records, while they are whole and follow each other.
        var entries: [Entry] = []
        var note: String?
        var at = 0
        var t: Int64 = 0
        var lastSeq: UInt32?
        while at < bytes.count {
            guard let h = RecordHeader.load(bytes.baseAddress! + at, available: bytes.count - at) else {
                note = "the ring's records end early (\(bytes.count - at) bytes unreadable)"
                break
            }
            if h.kind != RecordKind.pad.rawValue {
                if let s = lastSeq, h.seq != s &+ 1 {
                    note = "the ring's records end early (a record out of sequence)"
                    break
                }
                lastSeq = h.seq
                if h.kind == RecordKind.call.rawValue || h.kind == RecordKind.rejected.rawValue {
                    let p = UnsafeRawBufferPointer(rebasing: bytes[(at + RecordHeader.size)..<(at + Int(h.size))])
                    var r = RecordReader(p)
                    t = r.i64()
                    // An instant is >= 0 (every reader refuses less): one
                    // below is damage, and the records end before it.
                    guard t >= 0 else {
                        note = "the ring's records end early (a record dated before 0)"
                        break
                    }
                }
                entries.append(Entry(offset: at, header: h, t: t))
            }
            at += Int(h.size)
        }
        func payload(_ e: Entry) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: bytes[(e.offset + RecordHeader.size)..<(e.offset + Int(e.header.size))])
        }
        let lineIndex = entries.indices.filter { RecordFormat.isLine(entries[$0].header.kind) }
        // The window's first line, then back to a full checkpoint before it.
        var first = max(0, lineIndex.count - max(info.records, 0))
        if info.ns > 0 {
            // Saturating: the header's times come from a file (CrashDumpFile checks them).
            let (since, below) = info.atNs.subtractingReportingOverflow(info.ns)
            let oldest = below ? Int64.min : since
            while first < lineIndex.count && entries[lineIndex[first]].t < oldest { first += 1 }
        }
        var firstEntry = first < lineIndex.count ? lineIndex[first] : entries.count
        var base = entries[..<firstEntry].lastIndex { $0.header.kind == RecordKind.checkpoint.rawValue && $0.header.flags & RecordFlags.full != 0 }
        if base == nil, let later = entries[firstEntry...].firstIndex(where: {
            $0.header.kind == RecordKind.checkpoint.rawValue && $0.header.flags & RecordFlags.full != 0 }) {
            // The full checkpoint before the window was overwritten: the
            // window begins at the next one.
            base = later
            while first < lineIndex.count && lineIndex[first] < later { first += 1 }
            firstEntry = first < lineIndex.count ? lineIndex[first] : entries.count
        }
        // A checkpoint shows the state at the first line only when no call
        // between them began from a changed state it does not show: else
        // the window begins at the next checkpoint.
        func isCheckpoint(_ e: Entry) -> Bool { e.header.kind == RecordKind.checkpoint.rawValue }
        if let last = entries[..<firstEntry].lastIndex(where: isCheckpoint),
           entries[last..<firstEntry].contains(where: { $0.header.flags & RecordFlags.stale != 0 }),
           let next = entries[firstEntry...].firstIndex(where: isCheckpoint) {
            while first < lineIndex.count && lineIndex[first] < next { first += 1 }
            firstEntry = first < lineIndex.count ? lineIndex[first] : entries.count
        }
        let state = merge(entries[(base ?? 0)..<firstEntry].map { ($0.header, payload($0)) }, complete: base != nil)

        let w = TraceLine(capacity: 1 << 16)
        w.begin()
        TraceHeader.writeCommon(w, manualClock: info.manualClock, manualStartNs: info.manualStartNs,
                                defaultDurationNs: info.defaultDurationNs, start: "ring", atNs: info.atNs,
                                postedBase: info.postedBase)
        // CrashDumpFile bounds droppedBefore far below overflow; saturate all the same.
        let (dropped, over) = info.droppedBefore.addingReportingOverflow(Int64(first))
        w.field("dropped", over ? Int64.max : dropped)
        if firstEntry < entries.count { w.field("first_ns", entries[firstEntry].t) }
        if let damage = [info.damage, note].compactMap({ $0 }).joined(separator: "; ").nilIfEmpty {
            w.field("damage", damage)
        }
        if let c = info.crash {
            w.object("crash") { w in
                w.field("signal", c.signal)
                w.field("name", name: signalName(c.signal))
                w.field("pid", c.pid)
            }
        }
        w.key("state")
        state.write(w)
        w.end()
        w.newline()
        var text = w.bytes
        var lines = 0
        for e in entries[firstEntry...] where RecordFormat.isLine(e.header.kind) {
            w.reset()
            if RecordFormat.line(e.header, payload(e), w) {
                w.newline()
                text.append(contentsOf: w.view)
                lines += 1
            }
        }
        return (text, lines, note)
    }

    /// The state at the end of `records` (from a full checkpoint when
    /// `complete`): the last checkpoint's small parts, the stack changes
    /// applied in turn, the views of the full one with the view calls after it.
    private static func merge(_ records: [(RecordHeader, UnsafeRawBufferPointer)], complete: Bool) -> MergedState {
        var m = MergedState()
        m.complete = complete
        let scratch = TraceLine()
        var pendingView: [(set: UnsafeRawBufferPointer?, remove: UInt64?)] = []
        for (h, payload) in records {
            var r = RecordReader(payload)
            switch RecordKind(rawValue: h.kind) {
            case .checkpoint:
                let full = h.flags & RecordFlags.full != 0
                guard let p = TraceCheckpoint.split(&r, full: full, scratch: scratch) else { continue }
                if full {
                    m.stack = p.screens
                    m.views = []
                    for v in p.views ?? [] { m.setView(v) }
                    m.viewsLeftOut = p.viewsLeftOut
                } else {
                    if p.keep > m.stack.count { m.stackGap = true }
                    m.stack = Array(m.stack.prefix(p.keep)) + p.screens
                }
                m.last = p
                m.seen = true
            case .call where h.code == CallFn.viewSet.rawValue || h.code == CallFn.viewRemove.rawValue:
                if h.flags & RecordFlags.truncated != 0 { continue }
                _ = r.i64()
                var op: (set: UnsafeRawBufferPointer?, remove: UInt64?)
                if h.code == CallFn.viewSet.rawValue {
                    let start = r.p
                    scratch.reset()
                    TraceView.format(&r, scratch)
                    op = (UnsafeRawBufferPointer(start: start, count: r.p - start), nil)
                } else {
                    op = (nil, r.u64())
                }
                if h.flags & RecordFlags.hasRet != 0 {
                    if r.i32() == NG_OK { m.apply(op) }
                } else {
                    pendingView.append(op)
                }
            case .ret where h.code == CallFn.viewSet.rawValue || h.code == CallFn.viewRemove.rawValue:
                if let op = pendingView.popLast(), r.i32() == NG_OK { m.apply(op) }
            default:
                break
            }
        }
        return m
    }

    static func signalName(_ s: Int32) -> UnsafePointer<CChar> {
        switch s {
        case SIGSEGV: return staticC("SIGSEGV")
        case SIGBUS: return staticC("SIGBUS")
        case SIGILL: return staticC("SIGILL")
        case SIGFPE: return staticC("SIGFPE")
        case SIGABRT: return staticC("SIGABRT")
        case SIGTRAP: return staticC("SIGTRAP")
        case 0: return staticC("none (ng_record_crash_dump(0))")
        default: return staticC("another signal")
        }
    }
}

/// The checkpoint a ring dump begins with, as item bytes (see TraceCheckpoint):
/// Engine.State's parts as the ring's checkpoints wrote them, merged. The
/// views and the stack are rebuilt from changes; the live parts
/// (Engine.State.Parts.live) are the newest checkpoint's.
private struct MergedState {
    var complete = false
    var seen = false
    var stackGap = false
    var stack: [UnsafeRawBufferPointer] = []
    /// In the order first set (what rebuilds the same tree).
    var views: [(id: UInt64, parent: UInt64, bytes: UnsafeRawBufferPointer)] = []
    var viewsLeftOut = 0
    /// The newest checkpoint's parts: its holds, touches, transitions,
    /// deferred requests and question are the state's (whole in every
    /// checkpoint); its stack and views were merged into the above.
    var last = TraceCheckpoint.Parts()

    mutating func setView(_ b: UnsafeRawBufferPointer) {
        var r = RecordReader(b)
        let id = r.u64()
        let parent = r.u64()
        if let i = views.firstIndex(where: { $0.id == id }) { views[i] = (id, parent, b) } else { views.append((id, parent, b)) }
    }

    mutating func apply(_ op: (set: UnsafeRawBufferPointer?, remove: UInt64?)) {
        if let b = op.set { setView(b) }
        if let id = op.remove {
            // The view and its subtree, as the tree removes them.
            var gone: Set<UInt64> = [id]
            var grew = true
            while grew {
                grew = false
                for v in views where !gone.contains(v.id) && gone.contains(v.parent) {
                    gone.insert(v.id)
                    grew = true
                }
            }
            views.removeAll { gone.contains($0.id) }
        }
    }

    func write(_ w: TraceLine) {
        w.begin()
        func list(_ key: StaticString, _ items: [UnsafeRawBufferPointer], _ one: (inout RecordReader) -> Void) {
            w.array(key) { w in
                for b in items {
                    w.element()
                    var r = RecordReader(b)
                    one(&r)
                }
            }
        }
        list("stack", stack) { TraceScreen.format(&$0, w) }
        list("views", views.map { $0.bytes }) { TraceView.format(&$0, w) }
        if viewsLeftOut > 0 { w.field("views_omitted", viewsLeftOut) }
        list("holds", last.holds) { TraceCheckpoint.formatHold(&$0, w) }
        list("touches", last.touches) { TraceCheckpoint.formatTouch(&$0, w) }
        list("transitions", last.transitions) { TraceCheckpoint.formatTrack(&$0, w) }
        list("deferred", last.deferred) { r in
            w.begin()
            PostedRecord.format(&r, w)
            w.end()
        }
        if let q = last.question {
            w.key("question")
            w.begin()
            var r = RecordReader(q)
            TraceQuestion.format(&r, w)
            w.end()
        }
        // The parts not known, named as Engine.State names them.
        var unknown: Engine.State.Parts = []
        if !complete || stackGap { unknown.insert(.stack) }
        if !complete { unknown.insert(.views) }
        if !seen { unknown.formUnion(.live) }
        if !unknown.isEmpty {
            w.array("unknown") { w in
                for (part, name) in Engine.State.Parts.names where unknown.contains(part) {
                    w.element()
                    w.literal(name)
                }
            }
        }
        w.end()
    }
}
