// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardLibc
import NavGuardCore
import NavGuardLoader
import NavGuardTrace

// Replay of a trace (docs/trace-format.md): a host of its own that re-makes
// every recorded call through the public C API, on a manual clock set to
// each call's instant, and compares what comes back with the recording. It
// reads the trace through its typed records (NavGuardTrace), never by key: results
// and callbacks are compared as the recorder writes them (the same encode
// and format functions make what happens now).

/// What a replay found.
struct ReplayOutcome {
    var identical = false
    var calls = 0
    var callbacks = 0
    var line = 0
    var report = ""
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
    /// The calls being replayed, innermost last, with their instants.
    var calls: [(record: TraceRecord, t: Int64?)] = []
    /// The trace's first instant (times in reports count from it).
    var origin: Int64 = 0
    /// The recording ran on a monotonic clock.
    var monotonic: Bool { !trace.header.manualClock }
    var notes: [String] = []

    init(trace: Trace, chain: String?) {
        self.trace = trace
        self.chainOverride = chain
    }

    // MARK: Running

    @_optimize(size)
    func run() throws(TraceError) -> ReplayOutcome {
        let h = trace.header
        if h.start == "ring" {
            throw TraceError(status: NG_E_STATE, line: 1, message: "this trace is a ring dump: it holds only the newest records, not the state they began from, so it cannot be replayed (navguard timeline draws it)")
        }
        let state = h.start == "mid-session" ? try reading(1) { () throws(FieldError) in try h.readStart() } : nil
        if let state {
            // Presses are restored when the header lists them (0.4).
            let busy = state.live.filter { $0.count != 0 && !($0.name == "presses" && $0.count == state.engine.pressCount) }
                .map { "\($0.count) \($0.name)" }
            if !busy.isEmpty {
                throw TraceError(status: NG_E_STATE, line: 1, message: "recording began mid-session with live state (\(busy.joined(separator: ", "))), which replay cannot recreate; start recording right after ng_context_create")
            }
        }
        var o = ng_options()
        o.size = UInt32(MemoryLayout<ng_options>.size)
        o.clock = NG_CLOCK_MANUAL
        // Checked by TraceHeader: integers >= 0.
        origin = h.atNs
        o.manual_start_ns = h.manualClock ? min(h.manualStartNs, h.atNs) : h.atNs
        o.default_duration_ns = h.defaultDurationNs
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
        let postedBase = h.postedBase ?? (1 << 63)
        var status = NG_OK
        registry.owned(c, &status)?._withUnsafeGuaranteedRef { $0.mailbox.base = postedBase }
        if let chain = chainOverride {
            let s = chain.withCString { ng_chain_configure(ctx, $0) }
            if s != NG_OK {
                throw TraceError(status: s, line: 0, message: "the chain to replay against: \(String(cString: ng_errmsg(ctx)))")
            }
            notes.append("chain: \(chain.count > 120 ? String(chain.prefix(117)) + "..." : chain) (instead of the recorded one)")
        }
        if let state { try restoreState(state) }
        while cursor < trace.records.count && !diverged {
            let r = trace.records[cursor]
            guard r.kind == .call else {
                throw TraceError(status: NG_E_PARSE, line: r.line, message: "line \(r.line): a \(r.kind.rawValue) record outside any call")
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
    @_optimize(size)
    func replayCall(depth: Int) throws(TraceError) {
        let r = trace.records[cursor]
        cursor += 1
        let entry = try reading(r.line) { () throws(FieldError) in try r.entry() }
        let fn: CallFn, t: Int64?, args: CallArgs, inlineRet: TraceResult?
        switch entry {
        case .rejected:
            return
        case .call(let f, let time, let a, let ret):
            (fn, t, args, inlineRet) = (f, time, a, ret)
        case .truncated:
            throw TraceError(status: NG_E_PARSE, line: r.line, message: "line \(r.line): a record cut short (\"truncated\"): its call cannot be made again")
        default:
            throw TraceError(status: NG_E_PARSE, line: r.line, message: "line \(r.line): a \(r.kind.rawValue) record outside any call")
        }
        if depth == 0, let t {
            var now: Int64 = 0
            _ = ng_now(ctx, &now)
            if t < now {
                throw TraceError(status: NG_E_PARSE, line: r.line, message: "line \(r.line): time goes backwards (\(t) after \(now))")
            }
            if t > now { _ = ng_clock_set(ctx, t) }
        }
        calls.append((r, t))
        defer {
            calls.removeLast()
            remember(r)
        }
        outcome.calls += 1
        // Requests posted from other threads, applied by this tick (or
        // dropped by this destroy).
        if fn == .tick || fn == .destroy {
            while cursor < trace.records.count && trace.records[cursor].kind == .posted {
                let p = trace.records[cursor]
                cursor += 1
                let (recordedID, req) = try reading(p.line) { () throws(FieldError) -> (UInt64, TraceRequest) in
                    guard case .posted(let id, let request, _) = try p.entry() else { throw FieldError(message: "a posted record without \"req\"") }
                    return (id, request)
                }
                var id: UInt64 = 0
                let s = req.withC { ng_request_post(ctx, $0, &id) }
                if s != NG_OK || id != recordedID {
                    diverge(at: p, recorded: p.text, now: "ng_request_post -> \(String(cString: ng_strstatus(s))), id \(id)")
                    return
                }
            }
        }
        // The instant the recorded call's new transition was dated from
        // (when it returned: "tr"), else the call's own instant.
        if depth == 0 {
            setReplayTrackDatedAt(inlineRet != nil ? inlineRet?.datedAt : retOf(callAt: cursor - 1)?.datedAt)
        }
        let ret = try perform(fn, args, r, inlineRet: inlineRet)
        if depth == 0 { setReplayTrackDatedAt(nil) }
        if diverged { return }
        // Compare the result: on the call's line, or on its `ret` line after
        // its callbacks.
        let recorded: TraceResult
        let at: TraceRecord
        if let inlineRet {
            recorded = inlineRet
            at = r
        } else {
            skipTimingLines()
            guard cursor < trace.records.count else {
                if trace.truncatedLine != nil { return }
                throw TraceError(status: NG_E_PARSE, line: r.line, message: "line \(r.line): the \(fn.name) call has no ret line")
            }
            let next = trace.records[cursor]
            guard next.kind == .ret, case .ret(_, let result) = try reading(next.line, { () throws(FieldError) in try next.entry() }) else {
                diverge(at: next, recorded: next.text, now: "the \(fn.name) call returned \(JSON.serialize(ret)) (the recording has more callbacks first)")
                return
            }
            cursor += 1
            recorded = result
            at = next
        }
        if fn == .chain && chainOverride != nil { return }
        if fn == .chain {
            if recorded.chainComparison != ret {
                diverge(at: at, recorded: JSON.serialize(recorded.chainComparison), now: JSON.serialize(ret))
            }
            return
        }
        if !sameResult(recorded.json, ret) {
            diverge(at: at, recorded: JSON.serialize(recorded.json), now: JSON.serialize(ret))
        }
    }

    /// The results compared: everything but the error text (it may name
    /// files of the recording machine).
    @_optimize(size)
    func sameResult(_ a: JSONValue, _ b: JSONValue) -> Bool {
        @_optimize(size)
        func strip(_ v: JSONValue) -> JSONValue {
            guard case .object(let m) = v else { return v }
            return .object(m.filter { $0.0 != "err" })
        }
        return strip(a) == strip(b)
    }

    // MARK: Callbacks

    /// A callback the replay context made, written as the recorder writes it.
    @_optimize(size)
    func callback(_ fn: CallbackFn, _ encode: (inout RecordWriter) -> Void) {
        if diverged { return }
        let line = TraceLine()
        line.begin()
        line.field("k", literal: "cb")
        line.field("fn", literal: fn.name)
        withEncoded(encode) { TraceCallback.format(fn, &$0, line) }
        line.end()
        guard let nowValue = try? JSON.parse(line.bytes) else { return }
        skipTimingLines()
        guard cursor < trace.records.count else {
            if trace.truncatedLine != nil { return }
            divergeAtEnd(now: String(decoding: line.bytes, as: UTF8.self))
            return
        }
        let r = trace.records[cursor]
        guard r.kind == .cb, r.value == nowValue else {
            diverge(at: r, recorded: r.text, now: String(decoding: line.bytes, as: UTF8.self))
            return
        }
        cursor += 1
        outcome.callbacks += 1
        // Calls the host made from inside this callback.
        while !diverged && cursor < trace.records.count && trace.records[cursor].kind == .call {
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
    @_optimize(size)
    func skipTimingLines() {
        while cursor < trace.records.count {
            let r = trace.records[cursor]
            guard r.kind == .cb, case .callback(_, .log(_, _, let message))? = try? r.entry(),
                  message.hasPrefix(Engine.slowVotePrefix) else { return }
            cursor += 1
        }
    }

    // MARK: Reports

    @_optimize(size)
    func remember(_ r: TraceRecord) {
        recent.append("  line \(r.line): \(clip(r.text))")
        if recent.count > 8 { recent.removeFirst(recent.count - 8) }
    }

    @_optimize(size)
    func diverge(at r: TraceRecord, recorded: String, now: String) {
        guard !diverged else { return }
        diverged = true
        outcome.line = r.line
        var t: Int64 = calls.last?.t ?? 0
        if ctx != nil { _ = ng_now(ctx, &t) }
        // Both are checked to be >= 0; saturating all the same.
        let (into, overflow) = t.subtractingReportingOverflow(origin)
        let when = overflow ? "" : "\(formatMs(into)) into the trace "
        var lines = ["replay: diverged at line \(r.line), \(when)(t=\(t))"]
        if let input = calls.last?.record { lines.append("  input:    line \(input.line): \(clip(input.text))") }
        lines += ["  recorded: \(clip(recorded))",
                  "  now:      \(clip(now))"]
        if !recent.isEmpty { lines.append("before it, newest last:") }
        lines += recent
        lines += notes.map { "note: \($0)" }
        outcome.report = lines.joined(separator: "\n") + "\n"
    }

    @_optimize(size)
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

    /// The recorded chain through the C API, then the engine's state
    /// through its one restore (the stack with its focus tokens, the live
    /// presses, the ids handed out next, and the posted ids' counter
    /// beside it), then the views through the C API.
    @_optimize(size)
    func restoreState(_ state: TraceStart) throws(TraceError) {
        if chainOverride == nil, !state.chain.isEmpty {
            try configure(state.chain, line: 1)
        }
        var st = NG_OK
        if let box = registry.owned(ctx, &st) {
            let refused: EngineError? = box._withUnsafeGuaranteedRef { b in
                do throws(EngineError) { try b.restore(state.engine, nextPosted: state.nextPosted) } catch { return error }
                return nil
            }
            if let e = refused {
                throw TraceError(status: e.status, line: 1, message: "line 1: the recorded state: \(e.message)")
            }
        }
        // Views: set in their first-set order (ties of `order` depend on it); a
        // view whose parent comes later goes under the root first.
        var made = Set<UInt64>()
        var later: [TraceView] = []
        for v in state.views {
            var first = v
            if v.parent != 0 && !made.contains(v.parent) {
                first.parent = 0
                later.append(v)
            }
            let st = first.withC { ng_view_set(ctx, $0) }
            guard st == NG_OK else {
                throw TraceError(status: st, line: 1, message: "a recorded view: \(String(cString: ng_errmsg(ctx)))")
            }
            made.insert(v.id)
        }
        for v in later { _ = v.withC { ng_view_set(ctx, $0) } }
    }

    // MARK: Chains

    /// Add recorded guards: each by its id on the search path here, else at
    /// its recorded path. (The JSON built here is a chain configuration,
    /// ng_chain_configure's input, not a trace.)
    @_optimize(size)
    func configure(_ guards: [TraceGuard], line: Int) throws(TraceError) {
        var entries: [JSONValue] = []
        for g in guards {
            let id = g.id
            guard !id.utf8.contains(0), pluginFileName(forID: id) != nil,
                  id.withCString({ Engine.validateID($0) }) == nil else {
                throw TraceError(status: NG_E_PARSE, line: line, message: "line \(line): a guard without a valid id")
            }
            var entry: [(String, JSONValue)] = []
            do throws(EngineError) {
                _ = try locate(id)
                entry.append(("id", .string(id)))
            } catch {
                guard let p = g.path, access(p, R_OK) == 0 else {
                    throw TraceError(status: NG_E_LOAD, line: line, message: "line \(line): the recorded guard \(id) cannot be found here: \(error.message)")
                }
                entry.append(("path", .string(p)))
                entry.append(("id", .string(id)))
                notes.append("\(id) is not on the plugin search path here; loaded from its recorded path \(p)")
            }
            if let text = g.config, let cfg = try? JSON.parse(text) {
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
            guard let recorded = g.version, let here = guardVersion(at: before + k), here != recorded else { continue }
            notes.append("\(g.id) is version \(here) here, \(recorded) in the trace")
        }
    }

    @_optimize(size)
    func guardCount() -> Int {
        var n = 0
        _ = ng_chain_count(ctx, &n)
        return n
    }

    @_optimize(size)
    func guardVersion(at i: Int) -> String? {
        var st = NG_OK
        guard let box = registry.owned(ctx, &st) else { return nil }
        return box._withUnsafeGuaranteedRef { b in
            b.engine.guardRecord(at: i).map { String(cString: $0.version) }
        }
    }

    // MARK: Calls

    /// Make the recorded call; its result as the recorder writes it.
    @_optimize(size)
    func perform(_ fn: CallFn, _ args: CallArgs, _ r: TraceRecord, inlineRet: TraceResult?) throws(TraceError) -> JSONValue {
        var result = CallResult.none
        var st: ng_status = NG_OK
        switch args {
        case .root(let s):
            var strings = CStrings()
            defer { strings.free() }
            var c = strings.screen(s)
            st = ng_stack_set_root(ctx, &c)
        case .submit(let req, let invalid):
            var out = ng_request_result()
            out.size = UInt32(MemoryLayout<ng_request_result>.size)
            if let why = invalid {
                st = submitMalformed(req, why, &out)
            } else {
                st = req.withC { ng_request_submit(ctx, $0, &out) }
            }
            if st == NG_OK { result = .submit(status: out.status, id: out.request_id, reason: out.reason, guardID: out.guard_id) }
        case .event(var e):
            var out = ng_event_result()
            out.size = UInt32(MemoryLayout<ng_event_result>.size)
            st = ng_event_submit(ctx, &e, &out)
            if st == NG_OK { result = .event(verdict: out.verdict, reason: out.reason, view: out.target_view, guardID: out.guard_id) }
        case .viewSet(let v):
            st = v.withC { ng_view_set(ctx, $0) }
        case .viewRemove(let id):
            st = ng_view_remove(ctx, id)
        case .holdBegin(let label, let mask, let maxNs):
            var token: UInt64 = 0
            if let label {
                st = label.withCString { ng_hold_begin(ctx, $0, mask, maxNs, &token) }
            } else {
                st = ng_hold_begin(ctx, nil, mask, maxNs, &token)
            }
            if st == NG_OK { result = .token(token) }
        case .holdEnd(let token):
            st = ng_hold_end(ctx, token)
        case .finish(let track):
            st = ng_transition_finish(ctx, track.rawValue)
        case .interactiveUpdate(let p):
            st = ng_interactive_update(ctx, p)
        case .interactiveCancel:
            st = ng_interactive_cancel(ctx)
        case .interactiveRelease(let finish):
            st = ng_interactive_release(ctx, finish)
        case .interactiveComplete:
            st = ng_interactive_complete(ctx)
        case .screenFlags(let id, let flags):
            st = ng_screen_set_flags(ctx, id, flags)
        case .screenFocus(let id, let token):
            st = ng_screen_set_focus(ctx, id, token)
        case .questionAnswer(let id, let answer):
            st = ng_question_answer(ctx, id, answer.rawValue)
        case .restore(var bytes):
            let n = bytes.count
            bytes.append(0)
            st = bytes.withUnsafeBufferPointer { p in
                p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: n + 1) { ng_stack_restore(ctx, $0, n) }
            }
        case .tick:
            st = ng_tick(ctx)
        // Replay runs on a manual clock; a recorded monotonic one refused these.
        case .clockSet(let ns):
            st = monotonic ? NG_E_STATE : ng_clock_set(ctx, ns)
        case .clockAdvance(let ns):
            st = monotonic ? NG_E_STATE : ng_clock_advance(ctx, ns)
        case .chain(let via, let path, let config):
            if chainOverride != nil { return .null }
            // Guards added are the call's result: find its ret.
            let recordedRet = inlineRet ?? retOf(callAt: cursor - 1)
            if let recordedRet, recordedRet.ok, recordedRet.listsGuards {
                let before = guardCount()
                try configure(recordedRet.guards, line: r.line)
                var ids: [String?] = []
                for i in before..<guardCount() {
                    var id: UnsafePointer<CChar>?
                    _ = ng_chain_get_id(ctx, i, &id)
                    ids.append(id.map { String(cString: $0) })
                }
                return TraceResult.chainComparison(status: "NG_OK", guardIDs: ids)
            }
            // A chain call that failed: make it again as it was made; a
            // descriptor the host passed (ng_chain_add) is not here to pass.
            if via == "ng_chain_add" {
                notes.append("line \(r.line): a failed ng_chain_add is not replayed (its descriptor was the host's)")
                skipRecords(ofCallAt: cursor - 1)
                return recordedRet?.chainComparison ?? .null
            }
            switch via {
            case "ng_plugin_load":
                st = (path ?? "").withCString { p in
                    if let config { return config.withCString { ng_plugin_load(ctx, p, $0) } }
                    return ng_plugin_load(ctx, p, nil)
                }
            default:
                if let config { st = config.withCString { ng_chain_configure(ctx, $0) } } else { st = ng_chain_configure(ctx, nil) }
            }
            return TraceResult.chainComparison(status: statusName(st), guardIDs: nil)
        case .destroy:
            // Callbacks during the teardown are compared like any others.
            st = ng_context_destroy(ctx)
            ctx = nil
        }
        let line = TraceLine()
        withEncoded({ CallResult.encode(&$0, status: st, result, err: nil, engine: nil) }) { CallResult.formatObject(&$0, line) }
        do throws(JSONError) { return try JSON.parse(line.bytes) } catch {
            throw TraceError(status: NG_E_PARSE, line: r.line, message: error.message)
        }
    }

    /// A malformed request made again (SubmitCall states the rule): the
    /// recorded kind, flags and source, refused for the recorded reason,
    /// through the same funnel as ng_request_submit.
    @_optimize(size)
    func submitMalformed(_ req: TraceRequest, _ why: String, _ out: UnsafeMutablePointer<ng_request_result>) -> ng_status {
        withContext(ctx, record: .submit) { box throws(EngineError) in
            var r = Request(kind: RequestKind(rawValue: req.kind), flags: req.flags, source: req.source)
            r.invalidMessage = why
            submitRequest(box, r, out)
        }
    }

    /// Pass over what a call that is not replayed left in the trace: its
    /// callbacks and the calls made inside them, up to (not including) its
    /// `ret` line.
    @_optimize(size)
    func skipRecords(ofCallAt index: Int) {
        guard !trace.records[index].hasInlineRet else { return }
        var depth = 0
        while cursor < trace.records.count {
            let r = trace.records[cursor]
            if r.kind == .call && !r.hasInlineRet && !r.isRejected { depth += 1 }
            if r.kind == .ret {
                if depth == 0 { return }
                depth -= 1
            }
            cursor += 1
        }
    }

    /// The ret of the call at `index` when it is on a line of its own.
    @_optimize(size)
    func retOf(callAt index: Int) -> TraceResult? {
        var depth = 0
        var i = index + 1
        while i < trace.records.count {
            let r = trace.records[i]
            if r.kind == .call && !r.hasInlineRet && !r.isRejected { depth += 1 }
            if r.kind == .ret {
                if depth == 0, case .ret(_, let result)? = try? r.entry() { return result }
                depth -= 1
            }
            i += 1
        }
        return nil
    }

    /// What the engine dates a transition begun by the next call from
    /// (Engine.replayTrackDatedAt).
    @_optimize(size)
    func setReplayTrackDatedAt(_ t: Int64?) {
        var st = NG_OK
        if let box = registry.owned(ctx, &st) {
            box._withUnsafeGuaranteedRef { $0.engine.replayTrackDatedAt = t }
        }
    }
}

@_optimize(size)
func statusName(_ st: ng_status) -> String {
    let text = String(cString: ng_strstatus(st))
    return String(text.prefix { $0 != ":" })
}

@_optimize(size)
func formatMs(_ ns: Int64) -> String {
    let ms = Double(ns) / 1e6
    return "\((ms * 1000).rounded() / 1000) ms"
}

extension ContextBox {
    /// A replayed trace's starting state: the engine's through its one
    /// restore, and the posted ids' counter the mailbox keeps beside it
    /// (posted requests belong to the context, not the engine). Owner
    /// thread, no call in progress.
    func restore(_ s: Engine.State, nextPosted: UInt64) throws(EngineError) {
        try engine.restore(s)
        mailbox.counter = nextPosted
    }
}
