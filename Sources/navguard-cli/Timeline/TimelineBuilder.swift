import NavGuard
import NavGuardCore

/// Turns a trace's records, in order, into a TimelineModel: pairs each begin
/// with its end (transitions by track, holds by token, touches by id), times
/// every callback by the call that made it (the format's rule: one call, one
/// instant), and closes what is still open when the trace ends.
///
/// A ring dump or a cut trace may begin inside a call or with spans already
/// open: a callback then takes the first record's instant, and an end with
/// no begin is drawn from the start, named with a leading "…".
struct TimelineBuilder {
    private struct OpenTransition {
        var start: Int64
        var seenBegin: Bool
        var id: UInt64
        var kind: String
        var from: UInt64
        var to: UInt64
        var flags: Int64
        var drivingTouch: UInt64?
        var phase: (name: String, start: Int64)?
        var phases: [TimelineModel.Phase] = []

        /// Close the swipe phase in progress and begin `name` (nil: none).
        mutating func enter(_ name: String?, at t: Int64) {
            // A phase left at the instant it began (the finger lifted and the
            // swipe released in one frame) would only clutter the picture.
            if let p = phase, t > p.start { phases.append(.init(name: p.name, start: p.start, end: t)) }
            phase = name.map { ($0, t) }
        }
    }

    private struct OpenHold {
        var start: Int64
        var label: String
        var mask: Int64
        var maxNs: Int64
    }

    private struct OpenTouch {
        var start: Int64
        var seenBegin: Bool
        var view: UInt64
        var verdict: String
        var reason: String
        var guardID: String?
        var moves = 0
        var movesDropped = 0
        var cancelledAt: Int64?
    }

    /// A closed span, before the end of the trace can name who ended it
    /// when a guard did (a watchdog report at that instant says which).
    private struct Ending {
        var span: TimelineModel.Span
        var endedByGuard = false
        /// How long it lived, when its begin is in the trace.
        var lived: Int64?
    }

    private let trace: Trace
    private var model: TimelineModel
    private var now: Int64
    private var last: Int64
    private var destroyed = false
    /// Calls whose `ret` line has not come yet: the innermost is last.
    private var pending: [(fn: String, call: JSONValue)] = []
    private var routes: [UInt64: String] = [:]
    private var requests: [UInt64: JSONValue] = [:]
    private var outcomes: [(t: Int64, id: UInt64, cb: JSONValue)] = []
    private var transitions: [String: OpenTransition] = [:]
    private var holds: [UInt64: OpenHold] = [:]
    private var touches: [UInt64: OpenTouch] = [:]
    private var spans: [Ending] = []
    private var watchdogReports: Set<Int64> = []

    private static let interactive: Int64 = 0x2, interrupted: Int64 = 0x4, forced: Int64 = 0x8, touchDriven: Int64 = 0x10,
                       destroyedFlag: Int64 = 0x20

    init(trace: Trace) {
        self.trace = trace
        let h = trace.header
        let start = h["start"]?.string ?? "create"
        let firstT = trace.records.lazy.compactMap { $0.value["t"]?.ns }.first
        // A ring's header is written at the dump: its at_ns is the dump's
        // instant and first_ns its oldest record's.
        let origin = start == "ring" ? (h["first_ns"]?.ns ?? firstT ?? h["at_ns"]?.ns ?? 0)
                                     : (h["at_ns"]?.ns ?? firstT ?? 0)
        model = TimelineModel(header: h, start: start, originNs: origin, duration: 0)
        now = origin
        last = start == "ring" ? max(origin, h["at_ns"]?.ns ?? origin) : origin
    }

    static func build(_ trace: Trace) -> TimelineModel {
        var b = TimelineBuilder(trace: trace)
        for r in trace.records { b.read(r) }
        return b.finish()
    }

    // MARK: Records

    private mutating func read(_ r: TraceRecord) {
        let v = r.value
        if let t = v["t"]?.ns {
            now = t
            last = max(last, t)
        }
        switch r.kind {
        case "call":
            if v["rejected"]?.bool == true {
                let st = v["ret"]?["st"]?.string ?? "?"
                instant(.reports, "rejected \(r.fn) call: \(st)", "call.rejected", mark: .warning,
                        args: [("fn", .string(r.fn)), ("status", .string(st)), ("error", v["ret"]?["err"] ?? .null)])
            } else if let ret = v["ret"] {
                returned(r.fn, call: v, ret: ret)
            } else {
                pending.append((r.fn, v))
            }
        case "ret":
            // The innermost open call of that name; a ring dump may have lost it.
            if let i = pending.lastIndex(where: { $0.fn == r.fn }) {
                let call = pending[i].call
                pending.removeSubrange(i...)
                returned(r.fn, call: call, ret: v["ret"] ?? .null)
            }
        case "posted":
            if let id = v["id"]?.uint64, let req = v["req"] {
                requests[id] = req
                learnRoutes(req)
            }
        default:
            callback(r.fn, v)
        }
    }

    /// A call's effect, once its result is known.
    private mutating func returned(_ fn: String, call: JSONValue, ret: JSONValue) {
        if fn == "destroy" { destroyed = true }
        guard ret["st"]?.string == "NG_OK" else { return }
        switch fn {
        case "root":
            if let s = call["screen"] {
                learnRoute(s)
                instant(.screen, "root: \(s["route"]?.string ?? "screen \(s["id"]?.uint64 ?? 0)")", "stack", args: [("screen", s)])
            }
        case "restore":
            instant(.screen, "stack restored", "stack", args: [("snapshot", call["snapshot"] ?? .null)])
        case "submit":
            if let id = ret["id"]?.uint64, let req = call["req"] {
                requests[id] = req
                learnRoutes(req)
            }
        case "event":
            if let ev = call["ev"] { event(ev, ret) }
        case "hold_begin":
            if let token = ret["token"]?.uint64 {
                holds[token] = OpenHold(start: now, label: call["label"]?.string ?? "", mask: call["mask"]?.int64 ?? 0,
                                        maxNs: call["max_ns"]?.int64 ?? 0)
            }
        case "interactive_update":
            if let p = call["progress"]?.double { model.swipeProgress.append((now, p)) }
        case "interactive_release":
            transitions["screen"]?.enter(call["finish"]?.bool == true ? "finishing" : "cancelling", at: now)
        case "chain":
            let ids = (ret["guards"]?.array ?? []).compactMap { $0["id"]?.string }
            instant(.reports, "chain: \(ids.count) guard\(ids.count == 1 ? "" : "s") added", "chain",
                    args: [("via", call["via"] ?? .null), ("guards", .array(ids.map { .string($0) }))])
        default:
            break
        }
    }

    private mutating func callback(_ fn: String, _ v: JSONValue) {
        let id = v["id"]?.uint64 ?? 0
        switch fn {
        case "outcome":
            outcomes.append((now, id, v))
        case "transition":
            transition(v, id: id)
        case "hold_end":
            holdEnded(v)
        case "report":
            let guardID = v["guard"]?.string ?? "?"
            let text = v["text"]?.string ?? ""
            let watchdog = guardID.hasSuffix("watchdog")
            if watchdog { watchdogReports.insert(now) }
            model.reports.append(.init(t: now, guardID: guardID, text: text))
            instant(.reports, firstLine(text, or: "report from \(guardID)"), "report", mark: watchdog ? .alarm : .warning,
                    label: watchdog ? "watchdog report" : "report", args: [("guard", .string(guardID)), ("text", .string(text))])
        case "log":
            let severity = v["severity"]?.string ?? "?"
            let message = v["message"]?.string ?? ""
            instant(.reports, "log \(severity): \(firstLine(message, or: ""))", "log",
                    mark: severity == "warn" || severity == "error" ? .warning : .normal,
                    args: [("severity", .string(severity)), ("guard", v["guard"] ?? .null), ("message", .string(message))])
        case "touch_cancel":
            guard let id = v["touch"]?.uint64 else { return }
            if touches[id] == nil {
                touches[id] = OpenTouch(start: v["began"]?.ns ?? model.originNs, seenBegin: false,
                                        view: v["view"]?.uint64 ?? 0, verdict: "deliver", reason: "none", guardID: nil)
            }
            touches[id]?.cancelledAt = now
            driverGone(id)
        default:
            break
        }
    }

    // MARK: Transitions

    private mutating func transition(_ v: JSONValue, id: UInt64) {
        let track = v["track"]?.string ?? "screen"
        let phase = v["phase"]?.string ?? ""
        let flags = v["flags"]?.int64 ?? 0
        if phase == "will" {
            if transitions[track] != nil { close(track, ending: "superseded (no end recorded)", flags: 0) }
            var t = OpenTransition(start: now, seenBegin: true, id: id, kind: v["kind"]?.string ?? "?",
                                   from: v["from"]?.uint64 ?? 0, to: v["to"]?.uint64 ?? 0, flags: flags)
            if track == "screen" && flags & Self.interactive != 0 {
                t.drivingTouch = flags & Self.touchDriven != 0 ? drivingTouch(of: id) : nil
                t.phase = (t.drivingTouch.map { "driven by touch \($0)" } ?? "undriven", now)
                model.swipeProgress.append((now, 0))
            }
            transitions[track] = t
            return
        }
        if transitions[track] == nil {
            transitions[track] = OpenTransition(start: model.originNs, seenBegin: false, id: id, kind: v["kind"]?.string ?? "?",
                                                from: v["from"]?.uint64 ?? 0, to: v["to"]?.uint64 ?? 0, flags: flags)
        }
        if track == "screen" && transitions[track]!.phase != nil { model.swipeProgress.append((now, 0)) }
        close(track, ending: phase, flags: flags)
    }

    /// The touch named by the interactive back being applied: the request is
    /// known from its submit (still open: the callback runs inside it) or
    /// from a posted record.
    private func drivingTouch(of id: UInt64) -> UInt64? {
        if let req = requests[id] { return req["touch"]?.uint64 }
        return pending.last(where: { $0.fn == "submit" && $0.call["req"]?["kind"]?.string == "interactive-back" })?
            .call["req"]?["touch"]?.uint64
    }

    /// The finger driving a swipe ended or was cancelled: nobody drives it.
    private mutating func driverGone(_ touch: UInt64) {
        guard let t = transitions["screen"], t.drivingTouch == touch, t.phase?.name.hasPrefix("driven") == true else { return }
        transitions["screen"]?.enter("undriven", at: now)
    }

    /// End the open transition on `track`: `ending` is the phase that ended
    /// it (did, cancelled), or why it is closed without one.
    private mutating func close(_ track: String, ending: String, flags endFlags: Int64) {
        guard var t = transitions.removeValue(forKey: track) else { return }
        t.enter(nil, at: now)
        let flags = t.flags | endFlags
        var span = TimelineModel.Span(lane: track == "bar" ? .bar : .screen,
                                      name: (t.seenBegin ? "" : "… ") + "\(t.kind) #\(t.id) \(route(t.from))→\(route(t.to))",
                                      category: "transition", start: t.start, end: now)
        span.phases = t.phases
        span.short = route(t.to)
        var byGuard = false
        var end = ending
        if endFlags & Self.destroyedFlag != 0 {
            // Destroy ends what is in flight (NavGuard 0.3): the host never did.
            span.mark = .alarm
            span.flag = "NEVER FINISHED: still in flight when the context was destroyed, \(TimelineFormat.ms(now - t.start)) after it began"
            end += " (destroyed)"
        } else if endFlags & Self.forced != 0 {
            byGuard = true
            span.mark = .alarm
            end += " (forced)"
        } else if endFlags & Self.interrupted != 0 {
            span.mark = .warning
            span.flag = "interrupted by a newer request"
            end += " (interrupted)"
        } else if ending == "cancelled" {
            span.name += " (cancelled)"
        } else if ending != "did" {
            span.mark = .warning
            span.flag = ending
        }
        span.args = transitionArgs(t, flags: flags, end: end)
        spans.append(Ending(span: span, endedByGuard: byGuard, lived: t.seenBegin ? now - t.start : nil))
    }

    private func transitionArgs(_ t: OpenTransition, flags: Int64, end: String) -> [(String, JSONValue)] {
        var a: [(String, JSONValue)] = [("request", Self.number(t.id)), ("kind", .string(t.kind)),
                                        ("from", .string(route(t.from))), ("to", .string(route(t.to))),
                                        ("flags", .string(Self.flagNames(flags))), ("end", .string(end))]
        if !t.seenBegin { a.append(("began", .string("before the trace's first record"))) }
        if let d = t.drivingTouch { a.append(("driving_touch", Self.number(d))) }
        return a
    }

    private static func flagNames(_ f: Int64) -> String {
        let names = [(0x1, "animated"), (0x2, "interactive"), (0x4, "interrupted"), (0x8, "forced"), (0x10, "touch-driven"),
                     (0x20, "destroyed")]
        let set = names.filter { f & Int64($0.0) != 0 }.map(\.1)
        return set.isEmpty ? "none" : set.joined(separator: "|")
    }

    // MARK: Holds

    private mutating func holdEnded(_ v: JSONValue) {
        let token = v["token"]?.uint64 ?? 0
        let reason = v["reason"]?.string ?? "?"
        let ended = v["ended"]?.ns ?? now
        last = max(last, ended)
        let open = holds.removeValue(forKey: token)
        let start = open?.start ?? v["began"]?.ns ?? model.originNs
        let before = start < model.originNs
        let label = v["label"]?.string ?? open?.label ?? ""
        var span = TimelineModel.Span(lane: .holds(0), name: (before ? "… " : "") + (label.isEmpty ? "hold \(token)" : label),
                                      category: "hold", start: start, end: ended)
        let lived = ended - start
        switch reason {
        case "ended":
            break
        case "expired":
            span.mark = .warning
            span.flag = "expired after \(TimelineFormat.ms(lived)) (its own limit)"
        case "released" where pending.contains { $0.fn == "destroy" }:
            span.mark = .warning
            span.flag = "released at destroy after \(TimelineFormat.ms(lived))"
        default:
            span.mark = .alarm   // released by a guard: named in finish()
        }
        // A hold begun in the trace without an ng_hold_begin call was a guard's.
        let takenBy = open != nil ? "the host (ng_hold_begin)" : before ? "unknown: before the trace's first record" : "a guard"
        span.args = holdArgs(token: token, mask: v["mask"]?.int64 ?? open?.mask ?? 0, maxNs: open?.maxNs,
                             takenBy: takenBy, reason: reason)
        spans.append(Ending(span: span, endedByGuard: span.mark == .alarm, lived: lived))
    }

    private func holdArgs(token: UInt64, mask: Int64, maxNs: Int64?, takenBy: String, reason: String) -> [(String, JSONValue)] {
        var a: [(String, JSONValue)] = [("token", Self.number(token)), ("mask", .string(Self.maskNames(mask))),
                                        ("taken_by", .string(takenBy)),
                                        ("end", .string(reason))]
        if let m = maxNs, m > 0 { a.append(("max", .string(TimelineFormat.ms(m)))) }
        return a
    }

    private static func maskNames(_ m: Int64) -> String {
        let names = ["touch", "motion", "remote", "key", "scroll", "hover"]
        let set = names.indices.filter { m & (1 << $0) != 0 }.map { names[$0] }
        return set.isEmpty ? "none" : set.joined(separator: "|")
    }

    // MARK: Touches and other input

    private mutating func event(_ ev: JSONValue, _ ret: JSONValue) {
        let verdict = ret["verdict"]?.string ?? "?"
        let reason = ret["reason"]?.string ?? "none"
        guard ev["type"]?.string == "touch", let id = ev["touch"]?.uint64 else {
            let type = ev["type"]?.string ?? "event"
            model.hasInput = true
            instant(.input, verdict == "drop" ? "\(type) dropped: \(reason)" : "\(type) delivered", "input",
                    mark: verdict == "drop" ? .dropped : .normal,
                    args: [("event", ev), ("verdict", .string(verdict)), ("reason", .string(reason)), ("guard", ret["guard"] ?? .null)])
            return
        }
        let phase = ev["phase"]?.string ?? ""
        if phase == "began" && touches[id] == nil {
            touches[id] = OpenTouch(start: now, seenBegin: true, view: ret["view"]?.uint64 ?? 0, verdict: verdict,
                                    reason: reason, guardID: ret["guard"]?.string)
            return
        }
        if touches[id] == nil {
            touches[id] = OpenTouch(start: model.originNs, seenBegin: false, view: ret["view"]?.uint64 ?? 0,
                                    verdict: "unknown", reason: "none", guardID: nil)
        }
        switch phase {
        case "moved":
            touches[id]?.moves += 1
            if verdict == "drop" { touches[id]?.movesDropped += 1 }
        case "ended", "cancelled":
            closeTouch(id, end: "\(phase) (\(verdict == "drop" ? "dropped: \(reason)" : "delivered"))")
            driverGone(id)
        default:
            break   // a second began: the core refused it (invalid); the touch goes on
        }
    }

    private mutating func closeTouch(_ id: UInt64, end: String) {
        guard let t = touches.removeValue(forKey: id) else { return }
        let dropped = t.verdict == "drop"
        var span = TimelineModel.Span(lane: .touches(0),
                                      name: (t.seenBegin ? "" : "… ") + "touch \(id)" + (dropped ? " dropped: \(t.reason)" : " → view \(t.view)"),
                                      category: dropped ? "touch.dropped" : "touch", start: t.start, end: now)
        span.mark = dropped ? .dropped : .normal
        if let c = t.cancelledAt { span.phases = [.init(name: "cancelled by NavGuard", start: c, end: now)] }
        var a: [(String, JSONValue)] = [("touch", Self.number(id)), ("view", Self.number(t.view)),
                                        ("began", .string(t.seenBegin ? "\(t.verdict == "drop" ? "dropped: \(t.reason)" : "delivered")" : "before the trace's first record")),
                                        ("moves", .integer(Int64(t.moves))), ("end", .string(end))]
        if t.movesDropped > 0 { a.append(("moves_dropped", .integer(Int64(t.movesDropped)))) }
        if let g = t.guardID { a.append(("guard", .string(g))) }
        if let c = t.cancelledAt { a.append(("cancelled_by_navguard_at", .string(TimelineFormat.ms(c - model.originNs)))) }
        span.args = a
        spans.append(Ending(span: span))
    }

    // MARK: The end

    private mutating func finish() -> TimelineModel {
        now = last
        let whenEnded = destroyed ? "still in flight when the context was destroyed" : "in flight when the trace ends"
        for track in transitions.keys.sorted() {
            let began = transitions[track]!.start
            close(track, ending: "never finished", flags: 0)
            spans[spans.count - 1].span.mark = .alarm
            spans[spans.count - 1].span.flag = "NEVER FINISHED: \(whenEnded), \(TimelineFormat.ms(now - began)) after it began"
        }
        for (token, h) in holds.sorted(by: { $0.key < $1.key }) {
            var span = TimelineModel.Span(lane: .holds(0), name: h.label.isEmpty ? "hold \(token)" : h.label,
                                          category: "hold", start: h.start, end: now, mark: .alarm,
                                          flag: "STILL HELD at the end, \(TimelineFormat.ms(now - h.start)) after it began")
            span.args = holdArgs(token: token, mask: h.mask, maxNs: h.maxNs, takenBy: "the host (ng_hold_begin)", reason: "none: live at the end")
            spans.append(Ending(span: span))
        }
        for id in touches.keys.sorted() {
            closeTouch(id, end: "none: still down at the end")
            spans[spans.count - 1].span.mark = .warning
            spans[spans.count - 1].span.flag = "still down at the end"
        }
        for e in spans { model.spans.append(named(e)) }
        for o in outcomes { outcome(o.t, o.id, o.cb) }
        notes()
        rebase()
        return model
    }

    /// Name who forced a transition or released a hold: the watchdog when it
    /// reported at that instant.
    private func named(_ e: Ending) -> TimelineModel.Span {
        guard e.endedByGuard else { return e.span }
        var s = e.span
        let who = watchdogReports.contains(s.end) ? "the watchdog" : "a guard"
        s.flag = (s.category == "hold" ? "RELEASED by \(who)" : "FORCED by \(who)")
            + (e.lived.map { " after \(TimelineFormat.ms($0))" } ?? " (it began before the trace's first record)")
        return s
    }

    private mutating func outcome(_ t: Int64, _ id: UInt64, _ cb: JSONValue) {
        let kind = cb["kind"]?.string ?? cb["kind"]?.int64.map { "kind \($0)" } ?? "?"
        let outcome = cb["outcome"]?.string ?? "?"
        let reason = cb["reason"]?.string ?? "none"
        var what = "\(kind) #\(id)"
        if let req = requests[id], let target = target(of: req) { what += " → \(target)" }
        let name: String, category: String, mark: TimelineModel.Mark
        switch outcome {
        case "refused", "dropped":
            name = "\(outcome.uppercased()) \(what): \(reason)"
            category = "request.\(outcome)"
            mark = .dropped
        default:
            name = "\(what) \(outcome)"
            category = outcome == "applied" ? "request" : "request.\(outcome)"
            mark = .normal
        }
        var args: [(String, JSONValue)] = [("request", Self.number(id)), ("kind", .string(kind)),
                                           ("outcome", .string(outcome)), ("reason", .string(reason)),
                                           ("guard", cb["guard"] ?? .string("the core")), ("source", cb["source"] ?? .integer(0))]
        if let m = cb["message"] { args.append(("message", m)) }
        if let req = requests[id] { args.append(("request_fields", req)) }
        model.instants.append(.init(lane: .requests, t: t, name: name, category: category, mark: mark,
                                    label: mark == .dropped ? reason : nil, args: args))
    }

    private func target(of req: JSONValue) -> String? {
        if let s = req["screen"] { return s["route"]?.string ?? "screen \(s["id"]?.uint64 ?? 0)" }
        if let t = req["target"]?.uint64, t != 0 { return route(t) }
        if let list = req["screens"]?.array { return "[" + list.map { $0["route"]?.string ?? "?" }.joined(separator: ", ") + "]" }
        return nil
    }

    private mutating func notes() {
        let h = model.header
        if model.start == "ring" {
            let kept = trace.records.count
            let dropped = h["dropped"]?.int64 ?? 0
            model.notes.append("Ring dump: this shows only the newest \(kept) records"
                               + (dropped > 0 ? "; \(dropped) older records were dropped, so what came before is not here." : "."))
        } else if model.start == "mid-session" {
            let live = (h["state"]?["live"]?.object ?? []).compactMap { k, v -> String? in
                guard let n = v.int64, n > 0 else { return nil }
                return "\(n) " + (n == 1 && k.hasSuffix("s") ? String(k.dropLast()) : k)
            }
            model.notes.append("Recording began mid-session" + (live.isEmpty ? "." : "; live then: \(live.joined(separator: ", ")) (their beginnings are not here)."))
        }
        if let cut = trace.truncatedLine {
            model.notes.append("The trace is cut off: line \(cut) is incomplete and not drawn.")
        } else if !destroyed && model.start != "ring" {
            model.notes.append("The trace ends without ng_context_destroy: still recording, or the process stopped.")
        }
    }

    /// Times since the origin, never before it; spans and instants in time
    /// order; holds and touches spread over sub-lanes where they overlap.
    private mutating func rebase() {
        let o = model.originNs
        func rel(_ t: Int64) -> Int64 { max(0, t - o) }
        model.duration = rel(last)
        for i in model.spans.indices {
            model.spans[i].start = rel(model.spans[i].start)
            model.spans[i].end = max(model.spans[i].start, rel(model.spans[i].end))
            for p in model.spans[i].phases.indices {
                model.spans[i].phases[p].start = max(model.spans[i].start, rel(model.spans[i].phases[p].start))
                model.spans[i].phases[p].end = min(model.spans[i].end, max(model.spans[i].phases[p].start, rel(model.spans[i].phases[p].end)))
            }
        }
        for i in model.instants.indices { model.instants[i].t = rel(model.instants[i].t) }
        model.swipeProgress = model.swipeProgress.map { (rel($0.t), $0.value) }
        for i in model.reports.indices { model.reports[i].t = rel(model.reports[i].t) }
        model.spans.sort { ($0.start, $1.end) < ($1.start, $0.end) }
        model.instants.sort { $0.t < $1.t }
        var holdEnds: [Int64] = [], touchEnds: [Int64] = []
        for i in model.spans.indices {
            switch model.spans[i].lane {
            case .holds: model.spans[i].lane = .holds(Self.subLane(&holdEnds, model.spans[i]))
            case .touches: model.spans[i].lane = .touches(Self.subLane(&touchEnds, model.spans[i]))
            default: break
            }
        }
        model.holdLanes = max(1, holdEnds.count)
        model.touchLanes = max(1, touchEnds.count)
    }

    /// The first sub-lane free at the span's start (spans come in start order).
    private static func subLane(_ ends: inout [Int64], _ s: TimelineModel.Span) -> Int {
        if let i = ends.firstIndex(where: { $0 <= s.start }) {
            ends[i] = s.end
            return i
        }
        ends.append(s.end)
        return ends.count - 1
    }

    // MARK: Helpers

    private mutating func instant(_ lane: TimelineModel.Lane, _ name: String, _ category: String, mark: TimelineModel.Mark = .normal,
                                  label: String? = nil, args: [(String, JSONValue)] = []) {
        model.instants.append(.init(lane: lane, t: now, name: name, category: category, mark: mark, label: label, args: args))
    }

    private mutating func learnRoutes(_ req: JSONValue) {
        if let s = req["screen"] { learnRoute(s) }
        for s in req["screens"]?.array ?? [] { learnRoute(s) }
    }

    private mutating func learnRoute(_ s: JSONValue) {
        if let id = s["id"]?.uint64, let r = s["route"]?.string, !r.isEmpty { routes[id] = r }
    }

    /// An id or token as the trace writes it: a string above Int64.max.
    private static func number(_ id: UInt64) -> JSONValue {
        id <= UInt64(Int64.max) ? .integer(Int64(id)) : .string(String(id))
    }

    private func route(_ id: UInt64) -> String { routes[id] ?? "screen \(id)" }

    private func firstLine(_ s: String, or fallback: String) -> String {
        let line = s.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        if line.isEmpty { return fallback }
        return line.count > 100 ? String(line.prefix(99)) + "…" : line
    }
}

extension JSONValue {
    /// Ids and tokens are unsigned 64-bit: the recorder writes one above
    /// Int64.max (a posted request's id) as a decimal string.
    var uint64: UInt64? {
        if let i = int64 { return UInt64(bitPattern: i) }
        return string.flatMap { UInt64($0) }
    }

    /// A time, within 0...2^62 so that no difference of two overflows
    /// (a hand-edited trace may hold anything).
    var ns: Int64? { int64.map { min(max($0, 0), 1 << 62) } }
}
