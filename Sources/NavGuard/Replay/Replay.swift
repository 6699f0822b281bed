import CNavGuard
import NavGuardLibc
import NavGuardCore

// Replay of a trace (docs/trace-format.md): a host of its own that re-makes
// every recorded call through the public C API, on a manual clock set to
// each call's instant, and compares what comes back with the recording.

/// One line of a trace, parsed.
public struct TraceRecord {
    public let line: Int
    public let value: JSONValue
    public let text: String
    public var kind: String { value["k"]?.string ?? "" }
    public var fn: String { value["fn"]?.string ?? "" }
}

/// Why a trace could not be read or replayed.
public struct TraceError: Error {
    public let status: ng_status
    public let line: Int
    public let message: String
}

/// A parsed trace: its header and its records, in order.
public struct Trace {
    public let header: JSONValue
    public let records: [TraceRecord]
    /// The last line was cut off (a trace written until a crash).
    public let truncatedLine: Int?

    public static let version: Int64 = 1

    /// Read a trace; a malformed line is an error naming it, except a last
    /// line cut off without its newline, which ends the trace.
    public static func read(_ bytes: UnsafeRawBufferPointer) throws(TraceError) -> Trace {
        var lines: [(start: Int, end: Int)] = []
        var start = 0
        for i in 0..<bytes.count where bytes[i] == 0x0A {
            lines.append((start, i))
            start = i + 1
        }
        let cutTail = start < bytes.count
        if cutTail { lines.append((start, bytes.count)) }
        guard !lines.isEmpty else { throw TraceError(status: NG_E_PARSE, line: 1, message: "the trace is empty") }
        var header: JSONValue = .null
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
                guard let given = v["navguard_trace"] else {
                    throw TraceError(status: NG_E_PARSE, line: 1, message: "not a NavGuard trace (no \"navguard_trace\" in the first line)")
                }
                guard let version = given.int64, version >= 1 else {
                    throw TraceError(status: NG_E_PARSE, line: 1,
                                     message: "\"navguard_trace\" is \(clip(JSON.serialize(given))): a trace format version is a whole number from 1")
                }
                guard version <= Trace.version else {
                    throw TraceError(status: NG_E_RANGE, line: 1,
                                     message: "trace format version \(version); this library reads version \(Trace.version) (a newer NavGuard wrote it)")
                }
                // The header's times: replay sets its clock from them and
                // reports times relative to at_ns.
                for key in ["at_ns", "manual_start_ns", "default_duration_ns"] {
                    do throws(FieldError) { _ = try nanoseconds(v[key], key) } catch { throw error.error(line: 1) }
                }
                // Posted ids count up from posted_base (2^52; NavGuard 0.2's
                // began at 2^63): above that, counting on could overflow.
                if let base = v["posted_base"] {
                    guard let b = base.uint64, b >= 1, b <= 1 << 63 else {
                        throw TraceError(status: NG_E_PARSE, line: 1,
                                         message: "line 1: \"posted_base\" is \(clip(JSON.serialize(base))), not an integer in 1...2^63")
                    }
                }
                header = v
                continue
            }
            guard let k = v["k"]?.string, ["call", "ret", "cb", "posted"].contains(k) else {
                throw TraceError(status: NG_E_PARSE, line: number, message: "line \(number) has no known record kind \"k\"")
            }
            if k != "posted" && v["fn"]?.string == nil {
                throw TraceError(status: NG_E_PARSE, line: number, message: "line \(number) has no \"fn\"")
            }
            records.append(TraceRecord(line: number, value: v,
                                       text: String(decoding: slice, as: UTF8.self)))
        }
        return Trace(header: header, records: records, truncatedLine: truncated)
    }
}

/// What a replay found.
public struct ReplayOutcome {
    public var identical = false
    public var calls = 0
    public var callbacks = 0
    public var line = 0
    public var report = ""
}

/// The replaying host. Owner: the thread that runs `run`.
final class Replayer {
    let trace: Trace
    let chainOverride: String?
    var ctx: OpaquePointer?
    var cursor = 0
    var outcome = ReplayOutcome()
    var diverged = false
    /// Lines of the calls replayed so far (for the report's context).
    var recent: [String] = []
    /// The calls being replayed, innermost last.
    var calls: [TraceRecord] = []
    /// The trace's first instant (times in reports count from it).
    var origin: Int64 = 0
    /// The recording ran on a monotonic clock.
    var monotonic: Bool { trace.header["clock"]?.string != "manual" }
    var notes: [String] = []
    /// Malformed requests of the recording: replay submits one malformed
    /// another way (an unknown flag) and reports the recorded reason text.
    var invalidByID: [UInt64: String] = [:]
    var pendingInvalid: String?

    /// The message an outcome carries as recorded, for a malformed request.
    func outcomeMessage(id: UInt64, reason: Int32, _ message: UnsafePointer<CChar>?) -> CStr? {
        if reason == NG_REASON_INVALID, let m = invalidByID[id] {
            return CStr(m)
        }
        // The malformed request being submitted is evaluated first: the
        // first invalid outcome during its submit is its own.
        if reason == NG_REASON_INVALID, let m = pendingInvalid {
            invalidByID[id] = m
            pendingInvalid = nil
            return CStr(m)
        }
        return message.map { CStr(String(cString: $0)) }
    }

    init(trace: Trace, chain: String?) {
        self.trace = trace
        self.chainOverride = chain
    }

    // MARK: Running

    func run() throws(TraceError) -> ReplayOutcome {
        let h = trace.header
        let start = h["start"]?.string ?? "create"
        if start == "ring" {
            throw TraceError(status: NG_E_STATE, line: 1, message: "this trace is a ring dump: it holds only the newest records, not the state they began from, so it cannot be replayed (navguard timeline draws it)")
        }
        if start == "mid-session", let live = h["state"]?["live"] {
            var busy: [String] = []
            for (k, v) in live.object ?? [] where (v.int64 ?? 0) != 0 { busy.append("\(v.int64!) \(k)") }
            if !busy.isEmpty {
                throw TraceError(status: NG_E_STATE, line: 1, message: "recording began mid-session with live state (\(busy.joined(separator: ", "))), which replay cannot recreate; start recording right after ng_context_create")
            }
        }
        var o = ng_options()
        o.size = UInt32(MemoryLayout<ng_options>.size)
        o.clock = NG_CLOCK_MANUAL
        // Checked by Trace.read: integers >= 0.
        let at = h["at_ns"]?.int64 ?? 0
        origin = at
        let manualStart = h["manual_start_ns"]?.int64 ?? 0
        o.manual_start_ns = h["clock"]?.string == "manual" ? min(manualStart, at) : at
        o.default_duration_ns = h["default_duration_ns"]?.int64 ?? 0
        o.delegate = Replayer.delegate(self)
        var c: OpaquePointer?
        let st = ng_context_create(&o, &c)
        guard st == NG_OK, let c else {
            throw TraceError(status: st, line: 1, message: "cannot create the replay context: \(String(cString: ng_strstatus(st)))")
        }
        ctx = c
        defer {
            if ctx != nil { _ = ng_context_destroy(ctx) }
            ctx = nil
        }
        // Posted ids continue the recording's range (NavGuard 0.2 wrote no
        // posted_base: its posted ids began at 2^63).
        let postedBase = h["posted_base"]?.uint64 ?? (1 << 63)
        var status = NG_OK
        registry.owned(c, &status)?._withUnsafeGuaranteedRef { $0.mailbox.base = postedBase }
        if let chain = chainOverride {
            let s = chain.withCString { ng_chain_configure(ctx, $0) }
            if s != NG_OK {
                throw TraceError(status: s, line: 0, message: "the chain to replay against: \(String(cString: ng_errmsg(ctx)))")
            }
            notes.append("chain: \(chain.count > 120 ? String(chain.prefix(117)) + "..." : chain) (instead of the recorded one)")
        }
        if start == "mid-session", let state = h["state"] {
            try restoreState(state)
        }
        while cursor < trace.records.count && !diverged {
            let r = trace.records[cursor]
            guard r.kind == "call" else {
                throw TraceError(status: NG_E_PARSE, line: r.line, message: "line \(r.line): a \(r.kind) record outside any call")
            }
            try replayCall(depth: 0)
        }
        if !diverged {
            outcome.identical = true
            var text = "replay: identical: \(outcome.calls) calls and \(outcome.callbacks) callbacks as recorded"
            if let t = trace.truncatedLine { text += " (the trace was cut off at line \(t); replayed up to there)" }
            outcome.report = ([text] + notes.map { "note: \($0)" }).joined(separator: "\n") + "\n"
        }
        return outcome
    }

    /// Replay the call at `cursor` (and, inside its callbacks, the calls made
    /// from them). Throws what stops the replay; a divergence sets
    /// `diverged`.
    func replayCall(depth: Int) throws(TraceError) {
        let r = trace.records[cursor]
        cursor += 1
        if r.value["rejected"]?.bool == true { return }
        let fn = r.fn
        if depth == 0, r.value["t"] != nil {
            let t = try reading(r.line) { () throws(FieldError) in try nanoseconds(r.value["t"], "t") }
            var now: Int64 = 0
            _ = ng_now(ctx, &now)
            if t < now {
                throw TraceError(status: NG_E_PARSE, line: r.line, message: "line \(r.line): time goes backwards (\(t) after \(now))")
            }
            if t > now { _ = ng_clock_set(ctx, t) }
        }
        calls.append(r)
        defer {
            calls.removeLast()
            remember(r)
        }
        outcome.calls += 1
        // Requests posted from other threads, applied by this tick (or
        // dropped by this destroy).
        if fn == "tick" || fn == "destroy" {
            while cursor < trace.records.count && trace.records[cursor].kind == "posted" {
                let p = trace.records[cursor]
                cursor += 1
                guard let req = p.value["req"] else {
                    throw TraceError(status: NG_E_PARSE, line: p.line, message: "line \(p.line): a posted record without \"req\"")
                }
                var id: UInt64 = 0
                let s = try reading(p.line) { () throws(FieldError) in try withRequest(req) { ng_request_post(ctx, $0, &id) } }
                let recordedID: UInt64 = try reading(p.line) { () throws(FieldError) in try integer(p.value["id"], "id") }
                if s != NG_OK || id != recordedID {
                    diverge(at: p, recorded: p.text, now: "ng_request_post -> \(String(cString: ng_strstatus(s))), id \(id)")
                    return
                }
            }
        }
        // The instant the recorded call's new transition was dated from
        // (when it returned: "tr"), else the call's own instant.
        if depth == 0 {
            let tr = r.value["tr"] ?? retLine(ofCallAt: cursor - 1)?.value["tr"]
            var datedAt: Int64?
            if let tr { datedAt = try reading(r.line) { () throws(FieldError) in try nanoseconds(tr, "tr") } }
            setReplayTrackDatedAt(datedAt)
        }
        let ret = try perform(r)
        if depth == 0 { setReplayTrackDatedAt(nil) }
        if diverged { return }
        // Compare the result: on the call's line, or on its `ret` line after
        // its callbacks.
        let recorded: JSONValue?
        let at: TraceRecord
        if let inline = r.value["ret"] {
            recorded = inline
            at = r
        } else {
            skipTimingLines()
            guard cursor < trace.records.count else {
                if trace.truncatedLine != nil { return }
                throw TraceError(status: NG_E_PARSE, line: r.line, message: "line \(r.line): the \(fn) call has no ret line")
            }
            let next = trace.records[cursor]
            guard next.kind == "ret" else {
                diverge(at: next, recorded: next.text, now: "the \(fn) call returned \(JSON.serialize(ret)) (the recording has more callbacks first)")
                return
            }
            cursor += 1
            recorded = next.value["ret"]
            at = next
        }
        if fn == "chain" && chainOverride != nil { return }
        if fn == "chain", let recorded {
            if recorded.chainResult != ret {
                diverge(at: at, recorded: JSON.serialize(recorded.chainResult), now: JSON.serialize(ret))
            }
            return
        }
        if let recorded, !sameResult(recorded, ret) {
            diverge(at: at, recorded: JSON.serialize(recorded), now: JSON.serialize(ret))
        }
        return
    }

    /// The results compared: everything but the error text (it may name
    /// files of the recording machine).
    func sameResult(_ a: JSONValue, _ b: JSONValue) -> Bool {
        func strip(_ v: JSONValue) -> JSONValue {
            guard case .object(let m) = v else { return v }
            return .object(m.filter { $0.0 != "err" })
        }
        return strip(a) == strip(b)
    }

    // MARK: Callbacks

    func callback(_ fn: StaticString, _ body: (TraceLine) -> Void) {
        if diverged { return }
        let line = TraceLine()
        line.begin()
        line.field("k", literal: "cb")
        line.field("fn", literal: fn)
        body(line)
        line.end()
        guard let nowValue = try? JSON.parse(line.bytes) else { return }
        skipTimingLines()
        guard cursor < trace.records.count else {
            if trace.truncatedLine != nil { return }
            divergeAtEnd(now: String(decoding: line.bytes, as: UTF8.self))
            return
        }
        let r = trace.records[cursor]
        guard r.kind == "cb", r.value == nowValue else {
            diverge(at: r, recorded: r.text, now: String(decoding: line.bytes, as: UTF8.self))
            return
        }
        cursor += 1
        outcome.callbacks += 1
        // Calls the host made from inside this callback.
        while !diverged && cursor < trace.records.count && trace.records[cursor].kind == "call" {
            do { try replayCall(depth: 1) } catch {
                diverged = true
                outcome.line = error.line
                outcome.report = "replay: \(error.message)\n"
                return
            }
        }
    }

    /// Pass over recorded lines that depend on how long a call took, which
    /// replay (every call in no time) never makes: a slow-vote warning.
    func skipTimingLines() {
        while cursor < trace.records.count {
            let r = trace.records[cursor]
            guard r.kind == "cb", r.fn == "log", r.value["message"]?.string?.hasPrefix(Engine.slowVotePrefix) == true else { return }
            cursor += 1
        }
    }

    // MARK: Reports

    func remember(_ r: TraceRecord) {
        recent.append("  line \(r.line): \(clip(r.text))")
        if recent.count > 8 { recent.removeFirst(recent.count - 8) }
    }

    func diverge(at r: TraceRecord, recorded: String, now: String) {
        guard !diverged else { return }
        diverged = true
        outcome.line = r.line
        var t: Int64 = calls.last?.value["t"]?.int64 ?? 0
        if ctx != nil { _ = ng_now(ctx, &t) }
        // Both are checked to be >= 0; saturating all the same.
        let (into, overflow) = t.subtractingReportingOverflow(origin)
        let when = overflow ? "" : "\(formatMs(into)) into the trace "
        var lines = ["replay: diverged at line \(r.line), \(when)(t=\(t))"]
        if let input = calls.last { lines.append("  input:    line \(input.line): \(clip(input.text))") }
        lines += ["  recorded: \(clip(recorded))",
                  "  now:      \(clip(now))"]
        if !recent.isEmpty { lines.append("before it, newest last:") }
        lines += recent
        lines += notes.map { "note: \($0)" }
        outcome.report = lines.joined(separator: "\n") + "\n"
    }

    func divergeAtEnd(now: String) {
        guard !diverged else { return }
        let last = trace.records.last
        diverged = true
        outcome.line = (last?.line ?? 1) + 1
        outcome.report = (["replay: diverged after the last line of the trace",
                           "  recorded: (nothing more)",
                           "  now:      \(now)",
                           "the calls before it, newest last:"] + recent + notes.map { "note: \($0)" })
            .joined(separator: "\n") + "\n"
    }

    // MARK: State of a mid-session trace

    func restoreState(_ state: JSONValue) throws(TraceError) {
        // Ids and tokens continue from where the recording was. Every id
        // NavGuard hands out is below 2^53: a counter above it is refused
        // (counting on from it could overflow).
        func counter(_ key: String, _ dflt: UInt64) throws(FieldError) -> UInt64 {
            let n = try integer(state[key], "state.\(key)", as: UInt64.self, default: dflt)
            guard n <= 1 << 53 else { throw FieldError(message: "\"state.\(key)\" is \(n), above 2^53") }
            return n
        }
        let counters = try reading(1) { () throws(FieldError) in
            Engine.Counters(requestID: try counter("next_request_id", 1), holdToken: try counter("next_hold_token", 1),
                            guardRequestID: try counter("next_guard_request_id", Limits.guardRequestIDBase),
                            questionID: try counter("next_question_id", 1))
        }
        let posted = try reading(1) { () throws(FieldError) in try counter("next_posted", 0) }
        var st = NG_OK
        if let box = registry.owned(ctx, &st) {
            box._withUnsafeGuaranteedRef { b in
                b.engine.counters = counters
                b.mailbox.counter = posted
            }
        }
        if chainOverride == nil, let guards = state["chain"]?.array, !guards.isEmpty {
            try configure(guards, line: 1)
        }
        if let stack = state["stack"]?.array, !stack.isEmpty {
            let text = JSON.serialize(.object([("navguard_snapshot", .integer(1)), ("screens", .array(stack))]))
            let st = text.withCString { ng_stack_restore(ctx, $0, strlen($0)) }
            if st != NG_OK {
                throw TraceError(status: st, line: 1, message: "the recorded stack: \(String(cString: ng_errmsg(ctx)))")
            }
        }
        if let views = state["views"]?.array {
            // Set in their first-set order (ties of `order` depend on it); a
            // view whose parent comes later goes under the root first.
            var made = Set<UInt64>()
            var later: [JSONValue] = []
            for v in views {
                var first = v
                let parent = v["parent"]?.uint64 ?? 0
                if parent != 0 && !made.contains(parent) {
                    first = v.replacing("parent", with: .integer(0))
                    later.append(v)
                }
                let st = try reading(1) { () throws(FieldError) in try withView(first, { ng_view_set(ctx, $0) }) }
                guard st == NG_OK else {
                    throw TraceError(status: st, line: 1, message: "a recorded view: \(String(cString: ng_errmsg(ctx)))")
                }
                made.insert(v["id"]?.uint64 ?? 0)
            }
            for v in later {
                _ = try? withView(v, { ng_view_set(ctx, $0) })
            }
        }
    }

    // MARK: Chains

    /// Add recorded guards: each by its id on the search path here, else at
    /// its recorded path.
    func configure(_ guards: [JSONValue], line: Int) throws(TraceError) {
        var entries: [JSONValue] = []
        for g in guards {
            guard let id = g["id"]?.string, !id.utf8.contains(0), pluginFileName(forID: id) != nil,
                  id.withCString({ Engine.validateID($0) }) == nil else {
                throw TraceError(status: NG_E_PARSE, line: line, message: "line \(line): a guard without a valid id")
            }
            var entry: [(String, JSONValue)] = []
            do throws(EngineError) {
                _ = try locate(id)
                entry.append(("id", .string(id)))
            } catch {
                guard let p = g["path"]?.string, access(p, R_OK) == 0 else {
                    throw TraceError(status: NG_E_LOAD, line: line, message: "line \(line): the recorded guard \(id) cannot be found here: \(error.message)")
                }
                entry.append(("path", .string(p)))
                entry.append(("id", .string(id)))
                notes.append("\(id) is not on the plugin search path here; loaded from its recorded path \(p)")
            }
            if let text = g["config"]?.string, let cfg = try? JSON.parse(text) {
                entry.append(("config", cfg))
            }
            entries.append(.object(entry))
        }
        let before = guardCount()
        let config = JSON.serialize(.object([("guards", .array(entries))]))
        let st: ng_status
        if before == 0 {
            st = config.withCString { ng_chain_configure(ctx, $0) }
        } else {
            // Added to a chain that has guards: one by one, as ng_plugin_load does.
            var s = NG_OK
            for e in entries where s == NG_OK {
                let path: String
                if let p = e["path"]?.string { path = p } else if let id = e["id"]?.string, let p = try? locate(id) { path = p } else { path = "" }
                let cfg = e["config"].map { JSON.serialize($0) } ?? "{}"
                s = path.withCString { p in cfg.withCString { c in ng_plugin_load(ctx, p, c) } }
            }
            st = s
        }
        if st != NG_OK {
            throw TraceError(status: st, line: line, message: "line \(line): the recorded chain could not be built here: \(String(cString: ng_errmsg(ctx)))")
        }
        // Different versions are worth saying; they are not a divergence.
        for (k, g) in guards.enumerated() {
            guard let recorded = g["version"]?.string, let here = guardVersion(at: before + k), here != recorded else { continue }
            notes.append("\(g["id"]?.string ?? "?") is version \(here) here, \(recorded) in the trace")
        }
    }

    func guardCount() -> Int {
        var n = 0
        _ = ng_chain_count(ctx, &n)
        return n
    }

    func guardVersion(at i: Int) -> String? {
        var st = NG_OK
        guard let box = registry.owned(ctx, &st) else { return nil }
        return box._withUnsafeGuaranteedRef { b in
            b.engine.guardRecord(at: i).map { String(cString: $0.version) }
        }
    }

    // MARK: Calls

    /// Make the recorded call; its result as the recorder writes it.
    func perform(_ r: TraceRecord) throws(TraceError) -> JSONValue {
        let v = r.value
        let ret = TraceLine()
        var st: ng_status = NG_OK
        func fail(_ m: String) -> TraceError {
            TraceError(status: NG_E_PARSE, line: r.line, message: "line \(r.line): \(m)")
        }
        /// The record's fields, read: a bad one is refused with the line.
        func read<T>(_ body: () throws(FieldError) -> T) throws(TraceError) -> T { try reading(r.line, body) }
        switch r.fn {
        case "root":
            guard let s = v["screen"] else { throw fail("root without \"screen\"") }
            st = try read { () throws(FieldError) in try withScreen(s, { var x = $0; return ng_stack_set_root(ctx, &x) }) }
        case "submit":
            guard var req = v["req"] else { throw fail("submit without \"req\"") }
            if let why = v["invalid"]?.string {
                pendingInvalid = why
                req = req.replacing("flags", with: .integer((req["flags"]?.int64 ?? 0) | 0x4000_0000))
            }
            var out = ng_request_result()
            out.size = UInt32(MemoryLayout<ng_request_result>.size)
            defer { pendingInvalid = nil }
            st = try read { () throws(FieldError) in try withRequest(req, { ng_request_submit(ctx, $0, &out) }) }
            // Queued (made inside a callback): its outcome comes later, by id.
            if let why = pendingInvalid, out.request_id != 0 { invalidByID[out.request_id] = why }
            if st == NG_OK {
                TraceWrite.submitResult(ret, status: out.status, id: out.request_id, reason: out.reason, guardID: out.guard_id)
            }
        case "event":
            guard let ev = v["ev"] else { throw fail("event without \"ev\"") }
            var e = try read { () throws(FieldError) in try eventFrom(ev) }
            var out = ng_event_result()
            out.size = UInt32(MemoryLayout<ng_event_result>.size)
            st = ng_event_submit(ctx, &e, &out)
            if st == NG_OK {
                TraceWrite.eventResult(ret, verdict: out.verdict, reason: out.reason, view: out.target_view, guardID: out.guard_id)
            }
        case "view_set":
            guard let view = v["view"] else { throw fail("view_set without \"view\"") }
            st = try read { () throws(FieldError) in try withView(view, { ng_view_set(ctx, $0) }) }
        case "view_remove":
            st = ng_view_remove(ctx, try read { () throws(FieldError) in try integer(v["id"], "id") })
        case "hold_begin":
            var token: UInt64 = 0
            let mask: UInt32 = try read { () throws(FieldError) in try integer(v["mask"], "mask") }
            let maxNs: Int64 = try read { () throws(FieldError) in try integer(v["max_ns"], "max_ns") }
            if let label = v["label"]?.string {
                st = label.withCString { ng_hold_begin(ctx, $0, mask, maxNs, &token) }
            } else {
                st = ng_hold_begin(ctx, nil, mask, maxNs, &token)
            }
            if st == NG_OK { ret.field("token", token) }
        case "hold_end":
            st = ng_hold_end(ctx, try read { () throws(FieldError) in try integer(v["token"], "token") })
        case "finish":
            guard let track = enumValue(v["track"], ng_track_name, 0..<3) else { throw fail("finish without a track") }
            st = ng_transition_finish(ctx, track)
        case "interactive_update":
            st = ng_interactive_update(ctx, try read { () throws(FieldError) in try real(v["progress"], "progress") })
        case "interactive_cancel": st = ng_interactive_cancel(ctx)
        case "interactive_release": st = ng_interactive_release(ctx, v["finish"]?.bool ?? false)
        case "interactive_complete": st = ng_interactive_complete(ctx)
        case "screen_flags":
            let (id, flags): (UInt64, UInt32) = try read { () throws(FieldError) in
                (try integer(v["id"], "id"), try integer(v["flags"], "flags"))
            }
            st = ng_screen_set_flags(ctx, id, flags)
        case "question_answer":
            guard let answer = enumValue(v["answer"], ng_answer_name, 0..<4) else { throw fail("question_answer without an answer") }
            st = ng_question_answer(ctx, try read { () throws(FieldError) in try integer(v["id"], "id") }, answer)
        case "restore":
            var bytes: [UInt8]
            if let hex = v["snapshot_hex"]?.string {
                guard let b = bytesFromHex(hex) else { throw fail("snapshot_hex is not hex") }
                bytes = b
            } else {
                bytes = Array((v["snapshot"]?.string ?? "").utf8)
            }
            let n = bytes.count
            bytes.append(0)
            st = bytes.withUnsafeBufferPointer { p in
                p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: n + 1) { ng_stack_restore(ctx, $0, n) }
            }
        case "tick": st = ng_tick(ctx)
        // Replay runs on a manual clock; a recorded monotonic one refused these.
        case "clock_set", "clock_advance":
            let ns: Int64 = try read { () throws(FieldError) in try integer(v["ns"], "ns") }
            if monotonic { st = NG_E_STATE } else { st = r.fn == "clock_set" ? ng_clock_set(ctx, ns) : ng_clock_advance(ctx, ns) }
        case "chain":
            if chainOverride != nil { return .null }
            // Guards added are the call's result: find its ret.
            let recordedRet = v["ret"] ?? retOf(callAt: cursor - 1)
            let recordedSt = recordedRet?["st"]?.string
            if recordedSt == "NG_OK", let guards = recordedRet?["guards"]?.array {
                let before = guardCount()
                try configure(guards, line: r.line)
                var ids: [JSONValue] = []
                for i in before..<guardCount() {
                    var id: UnsafePointer<CChar>?
                    _ = ng_chain_get_id(ctx, i, &id)
                    ids.append(id.map { .string(String(cString: $0)) } ?? .null)
                }
                return .object([("st", .string("NG_OK")), ("guards", .array(ids))])
            }
            // A chain call that failed: make it again as it was made; a
            // descriptor the host passed (ng_chain_add) is not here to pass.
            if v["via"]?.string == "ng_chain_add" {
                notes.append("line \(r.line): a failed ng_chain_add is not replayed (its descriptor was the host's)")
                skipRecords(ofCallAt: cursor - 1)
                return recordedRet?.chainResult ?? .null
            }
            let config = v["config"]?.string
            switch v["via"]?.string {
            case "ng_plugin_load":
                let path = v["path"]?.string ?? ""
                st = path.withCString { p in
                    if let config { return config.withCString { ng_plugin_load(ctx, p, $0) } }
                    return ng_plugin_load(ctx, p, nil)
                }
            default:
                if let config { st = config.withCString { ng_chain_configure(ctx, $0) } } else { st = ng_chain_configure(ctx, nil) }
            }
            return .object([("st", .string(statusName(st)))])
        case "destroy":
            // Callbacks during the teardown are compared like any others.
            st = ng_context_destroy(ctx)
            ctx = nil
        default:
            throw fail("unknown call \"\(r.fn)\"")
        }
        let full = TraceLine()
        full.begin()
        full.field("st", status: st)
        full.members(ret)
        full.end()
        do throws(JSONError) { return try JSON.parse(full.bytes) } catch {
            throw TraceError(status: NG_E_PARSE, line: r.line, message: error.message)
        }
    }

    /// Pass over what a call that is not replayed left in the trace: its
    /// callbacks and the calls made inside them, up to (not including) its
    /// `ret` line.
    func skipRecords(ofCallAt index: Int) {
        guard trace.records[index].value["ret"] == nil else { return }
        var depth = 0
        while cursor < trace.records.count {
            let r = trace.records[cursor]
            if r.kind == "call" && r.value["ret"] == nil && r.value["rejected"] == nil { depth += 1 }
            if r.kind == "ret" {
                if depth == 0 { return }
                depth -= 1
            }
            cursor += 1
        }
    }

    /// The ret of the call at `index` when it is on a line of its own.
    func retOf(callAt index: Int) -> JSONValue? {
        retLine(ofCallAt: index)?.value["ret"]
    }

    /// The `ret` line of the call at `index`, when it has one of its own.
    func retLine(ofCallAt index: Int) -> TraceRecord? {
        guard trace.records[index].value["ret"] == nil else { return nil }
        var depth = 0
        var i = index + 1
        while i < trace.records.count {
            let r = trace.records[i]
            if r.kind == "call" && r.value["ret"] == nil && r.value["rejected"] == nil { depth += 1 }
            if r.kind == "ret" {
                if depth == 0 { return r }
                depth -= 1
            }
            i += 1
        }
        return nil
    }

    /// What the engine dates a transition begun by the next call from
    /// (Engine.replayTrackDatedAt).
    func setReplayTrackDatedAt(_ t: Int64?) {
        var st = NG_OK
        if let box = registry.owned(ctx, &st) {
            box._withUnsafeGuaranteedRef { $0.engine.replayTrackDatedAt = t }
        }
    }
}

extension JSONValue {
    func replacing(_ key: String, with value: JSONValue) -> JSONValue {
        guard case .object(var m) = self else { return self }
        if let i = m.firstIndex(where: { $0.0 == key }) { m[i].1 = value } else { m.append((key, value)) }
        return .object(m)
    }

    /// An unsigned 64-bit value: a number >= 0, or a decimal string above
    /// Int64.max (nil for anything else, a negative number included).
    var uint64: UInt64? {
        if let i = int64 { return i >= 0 ? UInt64(i) : nil }
        if let s = string { return UInt64(s) }
        return nil
    }

    /// A chain call's result as replay compares it: the status and the ids
    /// of the guards added (paths, versions and files differ between machines).
    var chainResult: JSONValue {
        var m: [(String, JSONValue)] = [("st", self["st"] ?? .null)]
        if let g = self["guards"]?.array { m.append(("guards", .array(g.map { $0["id"] ?? .null }))) }
        return .object(m)
    }
}

/// An enumeration value as the trace writes it: its name ("screen" ->
/// NG_TRACK_SCREEN), or a number for a value the tables do not name.
func enumValue(_ v: JSONValue?, _ f: (Int32) -> UnsafePointer<CChar>?, _ range: Range<Int32>) -> Int32? {
    if let i = v?.int64 { return Int32(exactly: i) }   // out of Int32: unknown, not cut to fit
    guard let name = v?.string else { return nil }
    for x in range where String(cString: f(x)!) == name { return x }
    return nil
}

func statusName(_ st: ng_status) -> String {
    let text = String(cString: ng_strstatus(st))
    return String(text.prefix { $0 != ":" })
}

func bytesFromHex(_ s: String) -> [UInt8]? {
    var out: [UInt8] = []
    var hi: UInt8?
    for c in s.utf8 {
        let v: UInt8
        switch c {
        case 0x30...0x39: v = c - 0x30
        case 0x61...0x66: v = c - 0x57
        default: return nil
        }
        if let h = hi { out.append(h << 4 | v); hi = nil } else { hi = v }
    }
    return hi == nil ? out : nil
}

/// A long record shortened for a report.
func clip(_ s: String) -> String { s.count > 400 ? String(s.prefix(397)) + "..." : s }

func formatMs(_ ns: Int64) -> String {
    let ms = Double(ns) / 1e6
    return "\((ms * 1000).rounded() / 1000) ms"
}

/// A value-conversion failure in a record (turned into a TraceError with its line).
struct FieldError: Error {
    let message: String
    func error(line: Int) -> TraceError { TraceError(status: NG_E_PARSE, line: line, message: "line \(line): \(message)") }
}

/// A record's fields read by `body`: a bad one is refused naming the line.
func reading<T>(_ line: Int, _ body: () throws(FieldError) -> T) throws(TraceError) -> T {
    do { return try body() } catch { throw error.error(line: line) }
}
