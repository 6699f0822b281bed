import CNavGuard
import NavGuardLibc
import NavGuardCore

/// The flight recorder of one context: writes the trace of docs/trace-format.md
/// to a file, to the host's writer, or into a ring kept in memory.
///
/// Owner thread only (every call comes through an [owner] export or a
/// callback on the owner thread).
///
/// Invariants:
///  * `frames` mirrors the recorded host calls in progress (a call made from
///    inside a callback is a deeper frame);
///  * `pending` holds at most the innermost call's line, not yet emitted:
///    when its call returns before anything else is written, its `ret` goes
///    on the same line; anything written first (a callback, a posted
///    request, a nested call) emits it without `ret`, and the call's `ret`
///    line follows later;
///  * every emitted line is complete and ends with a newline, so a trace cut
///    at any point reads up to its last whole line.
final class Recorder {
    enum Sink {
        case file(fd: Int32, path: String)
        case writer(write: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int) -> Bool,
                    user: UnsafeMutableRawPointer?)
        case ring
    }

    struct Frame {
        var fn: StaticString = ""
        var t: Int64 = 0
        var argsWritten = false
        /// The call's line was emitted without its `ret`.
        var separate = false
        let ret = TraceLine()
    }

    let sink: Sink
    /// The context recorded (its box outlives its recorder).
    unowned(unsafe) let box: ContextBox
    private var frames: [Frame] = []
    private var depth = 0
    private let pending = TraceLine()
    private var pendingFrame = -1
    private let line = TraceLine()
    /// Write-through buffer (file and writer sinks).
    private var out: [UInt8] = []
    static let flushBytes = 32 * 1024
    /// Set when writing failed: nothing more is written; the box stops the
    /// recorder when its outermost call returns.
    private(set) var failed: String?
    /// The host's writer is running.
    private(set) var inWriter = false

    // Ring mode.
    private var ring: TraceRing
    private let ringNs: Int64
    let dumpDir: String?
    private var dumps = 0
    /// The instant of the current outermost call (ring aging).
    private var now: Int64 = 0

    init(box: ContextBox, sink: Sink, ringRecords: Int, ringNs: Int64, dumpDir: String?) {
        self.box = box
        self.sink = sink
        self.ringNs = ringNs
        self.dumpDir = dumpDir
        if case .ring = sink {
            ring = TraceRing(records: ringRecords)
        } else {
            ring = TraceRing(records: 0)
        }
        frames.reserveCapacity(8)
        out.reserveCapacity(Recorder.flushBytes + 4096)
    }

    var isRing: Bool { if case .ring = sink { return true } else { return false } }
    var path: String? { if case .file(_, let p) = sink { return p } else { return nil } }

    // MARK: Header

    /// How a trace begins (its header's "start").
    enum Start {
        case create, midSession, ring
        var name: StaticString {
            switch self {
            case .create: return "create"
            case .midSession: return "mid-session"
            case .ring: return "ring"
            }
        }
    }

    func writeHeader(start: Start) {
        headerLine(start: start)
        if !isRing { emitRaw(line.view) }
    }

    /// The header into `line`.
    private func headerLine(start: Start) {
        let e = box.engine
        line.reset()
        line.begin()
        line.field("navguard_trace", Int64(1))
        line.field("library", name: ng_version_string())
        line.key("plugin_abi")
        var abi = "\(NG_PLUGIN_ABI_MAJOR).\(NG_PLUGIN_ABI_MINOR)"
        abi.withUTF8 { line.string(UnsafeRawBufferPointer($0)) }
        line.field("clock", e.isManualClock ? NG_CLOCK_MANUAL : NG_CLOCK_MONOTONIC, names: ng_clock_kind_name)
        line.field("manual_start_ns", box.manualStartNs)
        line.field("default_duration_ns", e.defaultTransitionNs)
        line.field("start", literal: start.name)
        line.field("at_ns", e.now)
        line.field("posted_base", box.mailbox.base)
        if isRing {
            line.field("dropped", ring.dropped)
            if let first = ring.oldestTime { line.field("first_ns", first) }
        }
        if start == .midSession {
            line.object("state") { w in
                w.array("stack") { w in
                    for i in 0..<e.stackCount {
                        w.element()
                        TraceWrite.screen(w, e.screen(at: i)!)
                    }
                }
                w.array("views") { w in
                    for v in e.views.allViews() {
                        w.element()
                        TraceWrite.view(w, v)
                    }
                }
                w.array("chain") { w in
                    for i in 0..<e.guardCount {
                        w.element()
                        TraceWrite.guardRecord(w, e.guardRecord(at: i)!)
                    }
                }
                let n = e.counters
                w.field("next_request_id", n.requestID)
                w.field("next_hold_token", n.holdToken)
                w.field("next_guard_request_id", n.guardRequestID)
                w.field("next_question_id", n.questionID)
                w.field("next_posted", box.mailbox.counter)
                w.object("live") { w in
                    w.field("holds", e.holdCount)
                    w.field("touches", e.touchCount)
                    w.field("transitions", (e.inFlight(.screen) != 0 || e.inFlight(.bar) != 0) ? 1 : 0)
                    w.field("deferred", e.deferredCount)
                    w.field("questions", e.openQuestion == nil ? 0 : 1)
                }
            }
        }
        line.end()
        line.newline()
    }

    // MARK: Calls

    /// A recorded export begins (before it validates anything).
    @inline(__always)
    func enter(_ fn: StaticString) {
        if depth == frames.count { frames.append(Frame()) }
        frames[depth].fn = fn
        frames[depth].argsWritten = false
        frames[depth].separate = false
        frames[depth].ret.reset()
        depth += 1
    }

    /// The call's arguments passed validation: start its line.
    @inline(__always)
    func args(_ t: Int64, _ body: (TraceLine) -> Void) {
        flushPending()
        let i = depth - 1
        frames[i].t = t
        frames[i].argsWritten = true
        if i == 0 { now = t }
        pending.reset()
        pending.begin()
        pending.field("k", literal: "call")
        pending.field("fn", literal: frames[i].fn)
        pending.field("t", t)
        body(pending)
        pendingFrame = i
    }

    /// Results of the call, beside `st` in its `ret`.
    @inline(__always)
    func result(_ body: (TraceLine) -> Void) {
        body(frames[depth - 1].ret)
    }

    /// The call returns `status`; `err` is ng_errmsg's text for a failure.
    /// `datedAt`: the instant a transition the call began is dated from,
    /// written as "tr" on the line carrying its `ret` (outermost calls).
    func leave(_ status: ng_status, err: UnsafePointer<CChar>?, t: Int64, datedAt: Int64? = nil) {
        let i = depth - 1
        defer { depth -= 1 }
        if !frames[i].argsWritten {
            // Refused before it did anything: replay skips it.
            flushPending()
            line.reset()
            line.begin()
            line.field("k", literal: "call")
            line.field("fn", literal: frames[i].fn)
            line.field("t", t)
            line.field("rejected", true)
            line.key("ret")
            line.begin()
            line.field("st", status: status)
            if let err { line.field("err", err) }
            line.end()
            line.end()
            line.newline()
            emit(line.view)
            return
        }
        if pendingFrame == i {
            if let datedAt { pending.field("tr", datedAt) }
            Recorder.writeRet(pending, status, frames[i].ret, err)
            pending.end()
            pending.newline()
            pendingFrame = -1
            emit(pending.view)
            pending.reset()
        } else {
            flushPending()
            line.reset()
            line.begin()
            line.field("k", literal: "ret")
            line.field("fn", literal: frames[i].fn)
            if let datedAt { line.field("tr", datedAt) }
            Recorder.writeRet(line, status, frames[i].ret, err)
            line.end()
            line.newline()
            emit(line.view)
        }
        frames[i].ret.reset()
    }

    private static func writeRet(_ w: TraceLine, _ status: ng_status, _ results: TraceLine,
                                 _ err: UnsafePointer<CChar>?) {
        w.key("ret")
        w.begin()
        w.field("st", status: status)
        w.members(results)
        if status != NG_OK, let err { w.field("err", err) }
        w.end()
    }

    /// No recorded call is in progress.
    var isIdle: Bool { depth == 0 }
    /// The call being left is the host's own, not one made from a callback.
    var isOutermost: Bool { depth == 1 }
    var isOverFlushSize: Bool { out.count >= 4096 }

    // MARK: Callbacks and posted requests

    func callback(_ fn: StaticString, _ body: (TraceLine) -> Void) {
        flushPending()
        line.reset()
        line.begin()
        line.field("k", literal: "cb")
        line.field("fn", literal: fn)
        body(line)
        line.end()
        line.newline()
        emit(line.view)
    }

    func posted(_ r: Request) {
        flushPending()
        line.reset()
        line.begin()
        line.field("k", literal: "posted")
        line.field("id", r.id)
        line.object("req") { TraceWrite.request($0, r) }
        line.end()
        line.newline()
        emit(line.view)
    }

    private func flushPending() {
        guard pendingFrame >= 0 else { return }
        frames[pendingFrame].separate = true
        pending.end()
        pending.newline()
        pendingFrame = -1
        emit(pending.view)
        pending.reset()
    }

    // MARK: Output

    private func emit(_ bytes: UnsafeRawBufferPointer) {
        guard failed == nil else { return }
        switch sink {
        case .ring: push(bytes)
        default: emitRaw(bytes)
        }
    }

    private func emitRaw(_ bytes: UnsafeRawBufferPointer) {
        out.append(contentsOf: bytes)
        if out.count >= Recorder.flushBytes { flush() }
    }

    /// Hand the buffered lines to the file or the host's writer.
    func flush() {
        guard failed == nil, !out.isEmpty else { return }
        switch sink {
        case .file(let fd, let path):
            var off = 0
            while off < out.count {
                let n = out.withUnsafeBytes { write(fd, $0.baseAddress! + off, out.count - off) }
                if n < 0 {
                    if ngc_errno() == EINTR { continue }
                    failed = "writing \(path) failed: \(String(cString: strerror(ngc_errno())))"
                    break
                }
                off += n
            }
        case .writer(let w, let user):
            // The writer runs at any point of a call (a full buffer): calls
            // it makes on the context are refused (withContext), else each
            // would record and flush into the writer again, without end.
            inWriter = true
            let ok = out.withUnsafeBytes { w(user, $0.baseAddress!.assumingMemoryBound(to: CChar.self), out.count) }
            inWriter = false
            if !ok { failed = "the host's writer asked to stop" }
        case .ring:
            break
        }
        out.removeAll(keepingCapacity: true)
    }

    private func push(_ bytes: UnsafeRawBufferPointer) {
        ring.append(bytes, at: now)
        if ringNs > 0 { ring.dropOlder(than: now - ringNs) }
    }

    /// The ring as a trace: a header with "start":"ring", then the records.
    func ringTrace() -> [UInt8] {
        headerLine(start: .ring)
        var text = line.bytes
        ring.copy(into: &text)
        return text
    }

    var ringCount: Int { ring.count }

    /// The next automatic dump's file name.
    private func nextDumpPath() -> String {
        dumps += 1
        let dir = dumpDir ?? "."
        return "\(dir)/navguard-\(getpid())-\(box.slot)-\(dumps).jsonl"
    }

    /// Where the record of what led to a guard's report is, for the host's
    /// on_report: a ring is dumped to a new file for it; a file or writer
    /// is flushed.
    func noteForReport() -> String {
        guard isRing else {
            flush()
            return path.map { "flight recorder: the whole session is in \($0)" }
                ?? "flight recorder: the whole session went to the host's writer"
        }
        let file = nextDumpPath()
        if let err = writeFile(file, ringTrace()) {
            return "flight recorder: could not dump the last \(ringCount) records: \(err)"
        }
        return "flight recorder: the last \(ringCount) records are in \(file)"
    }

    func close() {
        flush()
        if case .file(let fd, _) = sink { _ = NavGuardLibc.close(fd) }
    }
}

/// Write a whole byte array to a new file; nil or the error text.
func writeFile(_ path: String, _ bytes: [UInt8]) -> String? {
    let fd = ngc_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return "cannot create \(path): \(String(cString: strerror(ngc_errno())))" }
    defer { _ = close(fd) }
    var off = 0
    while off < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + off, bytes.count - off) }
        if n < 0 {
            if ngc_errno() == EINTR { continue }
            return "writing \(path) failed: \(String(cString: strerror(ngc_errno())))"
        }
        off += n
    }
    return nil
}

/// How the records' parts are written (shared by the recorder and replay's
/// reports).
enum TraceWrite {
    static func screen(_ w: TraceLine, _ s: Screen) {
        w.begin()
        w.field("id", s.id)
        w.field("route", s.route)
        w.field("identity", s.identity)
        if s.flags != 0 { w.field("flags", s.flags) }
        w.end()
    }

    static func request(_ w: TraceLine, _ r: Request) {
        w.field("kind", r.kind.rawValue, names: ng_request_kind_name)
        if r.flags != 0 { w.field("flags", r.flags) }
        if r.source != 0 { w.field("source", r.source) }
        if let s = r.screen { w.key("screen"); screen(w, s) }
        if r.targetID != 0 { w.field("target", r.targetID) }
        if !r.screens.isEmpty {
            w.array("screens") { w in
                for s in r.screens {
                    w.element()
                    screen(w, s)
                }
            }
        }
        if r.durationNs != 0 { w.field("duration_ns", r.durationNs) }
        if let t = r.drivingTouch { w.field("touch", t) }
        if r.fromScreen != 0 { w.field("from", r.fromScreen) }
    }

    static func questionEnd(_ w: TraceLine, _ q: ng_question, answer: Int32) {
        w.field("id", q.question_id)
        w.field("answer", answer, names: ng_answer_name)
    }

    static func question(_ w: TraceLine, _ q: ng_question) {
        w.field("id", q.question_id)
        w.field("topic", q.topic)
        w.field("text", q.text)
        w.field("guard", q.guard_id)
        if q.request_id != 0 {
            w.field("request", q.request_id)
            w.field("kind", q.kind, names: ng_request_kind_name)
            if q.source != 0 { w.field("source", q.source) }
        }
        if q.screen_id != 0 { w.field("screen", q.screen_id) }
        if q.deadline_ns != Limits.noDeadline { w.field("deadline", q.deadline_ns) }
    }

    static func event(_ w: TraceLine, _ e: ng_event) {
        w.field("type", e.type, names: ng_event_type_name)
        if e.type == NG_EVENT_TOUCH {
            w.field("phase", e.phase, names: ng_touch_phase_name)
        } else {
            w.field("phase", e.phase)
        }
        w.field("touch", e.touch_id)
        w.field("x", e.x)
        w.field("y", e.y)
        if e.flags != 0 { w.field("flags", e.flags) }
        if e.flags & UInt32(NG_EVF_HAS_TARGET) != 0 { w.field("target", e.target_view) }
        if e.code != 0 { w.field("code", e.code) }
        if e.timestamp_ns != 0 { w.field("ts", e.timestamp_ns) }
    }

    static func view(_ w: TraceLine, _ v: ViewSpec) {
        w.begin()
        w.field("id", v.id)
        w.field("parent", v.parent)
        w.field("x", v.frame.x)
        w.field("y", v.frame.y)
        w.field("w", v.frame.width)
        w.field("h", v.frame.height)
        w.field("order", v.order)
        w.field("flags", v.flags.cValue)
        w.field("alpha", v.alpha)
        w.object("shape") { w in
            switch v.shape {
            case .bounds:
                w.field("kind", NG_SHAPE_BOUNDS, names: ng_shape_kind_name)
            case .insets(let top, let left, let bottom, let right):
                w.field("kind", NG_SHAPE_INSETS, names: ng_shape_kind_name)
                w.field("top", top); w.field("left", left); w.field("bottom", bottom); w.field("right", right)
            case .circle(let cx, let cy, let r):
                w.field("kind", NG_SHAPE_CIRCLE, names: ng_shape_kind_name)
                w.field("cx", cx); w.field("cy", cy); w.field("r", r)
            case .polygon(let pts):
                w.field("kind", NG_SHAPE_POLYGON, names: ng_shape_kind_name)
                w.array("points") { w in
                    for p in pts {
                        w.element()
                        w.raw(0x5B)
                        w.double(p.x)
                        w.raw(0x2C)
                        w.double(p.y)
                        w.raw(0x5D)
                    }
                }
            }
        }
        w.end()
    }

    static func guardRecord(_ w: TraceLine,
                            _ g: (id: UnsafePointer<CChar>, version: UnsafePointer<CChar>, origin: String?, config: CStr)) {
        w.begin()
        w.field("id", g.id)
        w.field("version", g.version)
        w.field("path", g.origin)
        w.field("config", g.config)
        w.end()
    }

    static func outcome(_ w: TraceLine, _ o: OutcomeRecord) {
        w.field("id", o.requestID)
        w.field("kind", o.kind.rawValue, names: ng_request_kind_name)
        w.field("outcome", o.outcome.rawValue, names: ng_outcome_name)
        w.field("reason", o.reason.rawValue, names: ng_reason_name)
        if o.source != 0 { w.field("source", o.source) }
        if let g = o.guardID { w.field("guard", g) }
        if let m = o.message { w.field("message", m) }
    }

    /// What ng_request_submit returned (the recorder and replay write the
    /// same fields, which replay compares).
    static func submitResult(_ w: TraceLine, status: Int32, id: UInt64, reason: Int32, guardID: UnsafePointer<CChar>?) {
        w.field("status", status, names: ng_outcome_name)
        w.field("id", id)
        if reason != NG_REASON_NONE { w.field("reason", reason, names: ng_reason_name) }
        if let guardID { w.field("guard", guardID) }
    }

    /// What ng_event_submit returned.
    static func eventResult(_ w: TraceLine, verdict: Int32, reason: Int32, view: UInt64, guardID: UnsafePointer<CChar>?) {
        w.field("verdict", verdict, names: ng_verdict_name)
        w.field("reason", reason, names: ng_reason_name)
        w.field("view", view)
        if let guardID { w.field("guard", guardID) }
    }

    static func holdEnd(_ w: TraceLine, _ h: ng_hold_info) {
        w.field("token", h.token)
        w.field("label", h.label)
        w.field("mask", h.mask)
        w.field("reason", h.reason, names: ng_hold_end_reason_name)
        w.field("began", h.began_ns)
        w.field("ended", h.ended_ns)
    }

    static func report(_ w: TraceLine, guardID: UnsafePointer<CChar>?, text: UnsafePointer<CChar>?) {
        w.field("guard", guardID)
        w.field("text", text)
    }

    static func log(_ w: TraceLine, severity: Int32, guardID: UnsafePointer<CChar>?, message: UnsafePointer<CChar>?) {
        w.field("severity", severity, names: ng_severity_name)
        w.field("guard", guardID)
        w.field("message", message)
    }

    static func touchCancel(_ w: TraceLine, _ t: ng_touch_info) {
        w.field("touch", t.touch_id)
        w.field("view", t.view_id)
        w.field("state", t.state, names: ng_touch_state_name)
        w.field("began", t.began_ns)
    }

    static func transition(_ w: TraceLine, _ e: ng_transition_event) {
        w.field("track", e.track, names: ng_track_name)
        w.field("phase", e.phase, names: ng_phase_name)
        w.field("flags", e.flags)
        w.field("id", e.request_id)
        w.field("kind", e.kind, names: ng_request_kind_name)
        w.field("from", e.from_id)
        w.field("to", e.to_id)
    }
}

/// The ring of ring mode: the newest records in one circular byte buffer, so
/// keeping a record allocates nothing once the buffer has its size.
///
/// Invariants: `count` records, oldest at `head`, each a whole line stored
/// contiguously or wrapped once at the end of `bytes`; `used` is the sum of
/// their lengths, never above `bytes.count`; at most `capacity` records.
struct TraceRing {
    private var bytes: [UInt8]
    private var entries: [(t: Int64, start: Int, length: Int)]
    private let capacity: Int
    private var head = 0
    private(set) var count = 0
    private var used = 0
    private var writePos = 0
    private(set) var dropped: UInt64 = 0

    init(records: Int) {
        capacity = max(records, 1)
        bytes = records > 0 ? Array(repeating: 0, count: max(1 << 20, min(records * 192, 64 << 20))) : []
        entries = Array(repeating: (0, 0, 0), count: records > 0 ? capacity : 0)
    }

    var oldestTime: Int64? { count > 0 ? entries[head].t : nil }

    mutating func append(_ line: UnsafeRawBufferPointer, at t: Int64) {
        if line.count > bytes.count { grow(to: line.count * 2) }
        while count == capacity || bytes.count - used < line.count { dropOldest() }
        let first = min(line.count, bytes.count - writePos)
        bytes.withUnsafeMutableBytes { dst in
            guard let src = line.baseAddress else { return }
            dst.baseAddress!.advanced(by: writePos).copyMemory(from: src, byteCount: first)
            if first < line.count {
                dst.baseAddress!.copyMemory(from: src.advanced(by: first), byteCount: line.count - first)
            }
        }
        entries[(head + count) % capacity] = (t, writePos, line.count)
        writePos = (writePos + line.count) % bytes.count
        used += line.count
        count += 1
    }

    mutating func dropOlder(than t: Int64) {
        while count > 1 && entries[head].t < t { dropOldest() }
    }

    private mutating func dropOldest() {
        used -= entries[head].length
        head = (head + 1) % capacity
        count -= 1
        dropped += 1
        if count == 0 { writePos = 0; used = 0 }
    }

    /// Append every record, oldest first.
    func copy(into out: inout [UInt8]) {
        for k in 0..<count {
            let e = entries[(head + k) % capacity]
            var pos = e.start
            for _ in 0..<e.length {
                out.append(bytes[pos])
                pos += 1
                if pos == bytes.count { pos = 0 }
            }
        }
    }

    private mutating func grow(to size: Int) {
        var all: [(t: Int64, line: [UInt8])] = []
        for k in 0..<count {
            let e = entries[(head + k) % capacity]
            var l: [UInt8] = []
            var pos = e.start
            for _ in 0..<e.length {
                l.append(bytes[pos])
                pos += 1
                if pos == bytes.count { pos = 0 }
            }
            all.append((e.t, l))
        }
        bytes = Array(repeating: 0, count: size)
        head = 0; count = 0; used = 0; writePos = 0
        let d = dropped
        for (t, l) in all { l.withUnsafeBytes { append($0, at: t) } }
        dropped = d
    }
}
