// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardTrace
import NavGuardCore

/// What to draw of a trace: a window of it, and whether long idle stretches
/// are folded.
struct TimelineOptions {
    /// Milliseconds since the trace's start (what the axis shows).
    var fromMs: Double?
    var toMs: Double?
    /// Fold stretches where nothing is open and nothing happens, at least
    /// this long and a twentieth of what is drawn (nil: never).
    var foldIdleNs: Int64? = 1_000_000_000
}

/// Turns a trace's typed records (NavGuard's Trace), in order, into a
/// TimelineModel: pairs each begin with its end (transitions by track, holds
/// by token, touches by id), times every callback by the call that made it
/// (the format's rule: one call, one instant), and closes what is still open
/// when the trace ends.
///
/// A ring dump begins with a checkpoint (its header's state): the screens
/// it names, and the transitions, holds and touches already live, drawn
/// from the start with a leading "…". A cut trace may begin inside a call or
/// with spans open: a callback then takes the first record's instant, and an
/// end with no begin is drawn from the start, also with "…".
struct TimelineBuilder {
    private struct OpenTransition {
        var start: Int64
        var seenBegin: Bool
        var id: UInt64
        var kind: String
        var from: UInt64
        var to: UInt64
        var flags: UInt32
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
        var mask: UInt32
        var maxNs: Int64?
        var takenBy: String
        var screen: String?
    }

    private struct OpenTouch {
        var start: Int64
        var seenBegin: Bool
        var view: UInt64
        var dropped: Bool
        var reason: String
        var guardID: String?
        var moves = 0
        var movesDropped = 0
        var cancelledAt: Int64?
    }

    /// A key or button held down: one per (type, device, code), as the
    /// engine's PressTable keeps them.
    private struct PressKey: Hashable {
        var type: Int32
        var device: UInt64
        var code: Int64
    }

    private struct OpenPress {
        var start: Int64
        var seenBegin: Bool
        var dropped: Bool
        var reason: String
        var guardID: String?
        var repeats = 0
        var repeatsDropped = 0
        var cancelledAt: Int64?
        var cause: String?
        var screen: String?
    }

    /// A closed span, before the end of the trace can name who ended it
    /// when a guard did (a watchdog report at that instant says which).
    private struct Ending {
        var span: TimelineModel.Span
        var endedByGuard = false
        /// How long it lived, when its begin is in the trace.
        var lived: Int64?
        /// When it began, when that is known (a checkpoint may say).
        var began: Int64?
    }

    /// A request waiting to be applied: posted from another thread, or
    /// queued or deferred by a guard.
    private struct Waiting {
        var since: Int64
        var how: String
        var known: Bool
    }

    private let trace: Trace
    private let options: TimelineOptions
    private var model: TimelineModel
    private var now: Int64
    private var last: Int64
    private var destroyed = false
    /// Calls whose `ret` line has not come yet: the innermost is last.
    private var pending: [(fn: String, args: CallArgs?, line: Int, t: Int64)] = []
    private var routes: [UInt64: String] = [:]
    private var requests: [UInt64: TraceRequest] = [:]
    private var outcomes: [(t: Int64, o: TraceOutcome)] = []
    private var waiting: [UInt64: Waiting] = [:]
    private var transitions: [Int32: OpenTransition] = [:]
    private var holds: [UInt64: OpenHold] = [:]
    private var touches: [UInt64: OpenTouch] = [:]
    private var presses: [PressKey: OpenPress] = [:]
    private var spans: [Ending] = []
    private var watchdogReports: Set<Int64> = []
    private var unreadable = 0
    private var topRoute: String?
    private let postedBase: UInt64

    private static let interactive: UInt32 = 0x2, interrupted: UInt32 = 0x4, forced: UInt32 = 0x8,
                       touchDriven: UInt32 = 0x10, destroyedFlag: UInt32 = 0x20

    init(trace: Trace, source: String, options: TimelineOptions) {
        self.trace = trace
        self.options = options
        let h = trace.header
        let firstT = trace.records.lazy.compactMap { $0.t }.first.map(Self.clampNs)
        // A ring's header is written at the dump: its at_ns is the dump's
        // instant and first_ns its oldest record's.
        let origin = h.start == "ring" ? (h.firstNs.map(Self.clampNs) ?? firstT ?? Self.clampNs(h.atNs))
                                       : Self.clampNs(h.atNs)
        model = TimelineModel(source: source, header: h.json, start: h.start, originNs: origin, duration: 0)
        now = origin
        last = h.start == "ring" ? max(origin, Self.clampNs(h.atNs)) : origin
        postedBase = h.postedBase ?? UInt64(NG_POSTED_ID_BASE)
        if let c = h.crash { model.crash = c.name }
    }

    static func build(_ trace: Trace, source: String, options: TimelineOptions = TimelineOptions()) -> TimelineModel {
        var b = TimelineBuilder(trace: trace, source: source, options: options)
        b.checkpoint()
        for r in trace.records { b.read(r) }
        return b.finish()
    }

    /// A time, within 0...2^62 so that no difference of two overflows
    /// (a hand-edited trace may hold anything).
    private static func clampNs(_ t: Int64) -> Int64 { min(max(t, 0), 1 << 62) }

    // MARK: The state the trace begins with

    /// A ring dump's checkpoint (or a mid-session trace's stack): the
    /// screens' names, and what was live, drawn from the start.
    private mutating func checkpoint() {
        guard let state = (try? trace.header.readState()) ?? nil else { return }
        for s in state.stack { learnRoute(s) }
        topRoute = state.stack.last.map { $0.route }
        let start = model.originNs
        for t in state.transitions {
            var o = OpenTransition(start: start, seenBegin: false, id: t.id, kind: t.kindName, from: t.from, to: t.to, flags: t.flags)
            o.drivingTouch = t.drivingTouch
            if t.track == NG_TRACK_SCREEN, let s = t.swipe, s != NG_SWIPE_NONE {
                o.phase = (enumName(s, ng_swipe_state_name), start)
            }
            transitionBegan[t.track] = Self.clampNs(t.began)
            transitions[t.track] = o
        }
        for h in state.holds {
            holds[h.token] = OpenHold(start: start, label: h.label ?? "", mask: h.mask,
                                      maxNs: h.deadline.map { Self.clampNs($0) - Self.clampNs(h.began) }, takenBy: h.owner ?? "the host (ng_hold_begin)",
                                      screen: topRoute)
            holdBegan[h.token] = Self.clampNs(h.began)
        }
        for t in state.touches {
            touches[t.touch] = OpenTouch(start: start, seenBegin: false, view: t.view,
                                         dropped: t.state != NG_TOUCH_STATE_DELIVERED, reason: "withheld", guardID: nil)
            touchBegan[t.touch] = Self.clampNs(t.began)
        }
        for d in state.deferred {
            requests[d.id] = d.request
            learnRoutes(d.request)
            waiting[d.id] = Waiting(since: start, how: "deferred", known: false)
        }
        if !state.unknown.isEmpty {
            model.notes.append("The checkpoint could not be rebuilt whole (the ring had overwritten it): \(state.unknown.joined(separator: ", ")) unknown at the start.")
        }
    }

    /// Begin instants known from a checkpoint, before the first record.
    private var transitionBegan: [Int32: Int64] = [:]
    private var holdBegan: [UInt64: Int64] = [:]
    private var touchBegan: [UInt64: Int64] = [:]

    // MARK: Records

    private mutating func read(_ r: TraceRecord) {
        if let t = r.t.map(Self.clampNs) {
            now = t
            last = max(last, t)
        }
        guard let entry = try? r.entry() else {
            unreadable += 1
            return
        }
        switch entry {
        case .rejected(let fn, _, let ret):
            instant(.reports, "rejected \(fn) call: \(ret.status)", "call.rejected", mark: .warning,
                    args: [("fn", .string(fn)), ("status", .string(ret.status)), ("error", ret.err.map { .string($0) } ?? .null)])
        case .call(let fn, _, let args, let ret):
            // Screens are named as soon as a call names them: its
            // callbacks (a transition's WILL) come before its ret.
            if case .root(let s) = args { learnRoute(s) }
            if case .submit(let req, _) = args { learnRoutes(req) }
            if let ret {
                returned(fn.name.description, args, ret)
            } else {
                pending.append((fn.name.description, args, r.line, now))
            }
        case .ret(let fn, let ret):
            // The innermost open call of that name; a ring dump may have lost it.
            if let i = pending.lastIndex(where: { $0.fn == fn }) {
                let call = pending[i].args
                pending.removeSubrange(i...)
                if let call { returned(fn, call, ret) }
            }
        case .posted(let id, let req, let postedNs):
            requests[id] = req
            learnRoutes(req)
            waiting[id] = Waiting(since: postedNs.map(Self.clampNs) ?? now, how: "posted", known: postedNs != nil)
        case .callback(_, let cb):
            callback(cb)
        case .truncated(let kind, let fn, _):
            if kind == .call { pending.append((fn, nil, r.line, now)) }
            instant(.reports, "\(fn): record truncated (too large for the ring)", "truncated", mark: .warning)
        case .otherCallback:
            break
        }
    }

    /// A call's effect, once its result is known.
    private mutating func returned(_ fn: String, _ args: CallArgs, _ ret: TraceResult) {
        if case .destroy = args { destroyed = true }
        guard ret.ok else { return }
        switch args {
        case .root(let s):
            learnRoute(s)
            topRoute = s.route
            instant(.screen, "root: \(s.route)", "stack", args: [("screen", .string(s.route)), ("id", Self.number(s.id))])
        case .restore:
            instant(.screen, "stack restored", "stack")
        case .submit(let req, _):
            if ret.id != 0 {
                requests[ret.id] = req
                learnRoutes(req)
            }
        case .event(let ev):
            event(ev, ret)
        case .holdBegin(let label, let mask, let maxNs):
            holds[ret.token] = OpenHold(start: now, label: label ?? "", mask: mask, maxNs: maxNs > 0 ? maxNs : nil,
                                        takenBy: "the host (ng_hold_begin)", screen: topRoute)
        case .screenFocus(let id, let token):
            instant(.screen, "\(route(id)): focus \(token) set", "focus", label: "focus \(token)",
                    args: [("screen", .string(route(id))), ("id", Self.number(id)), ("focus", Self.number(token)),
                           ("how", .string("set (ng_screen_set_focus)"))])
        case .interactiveUpdate(let p):
            model.swipeProgress.append((now, p))
        case .interactiveRelease(let finish):
            transitions[NG_TRACK_SCREEN]?.enter(finish ? "finishing" : "cancelling", at: now)
        case .chain:
            let ids = ret.guards.map { $0.id }
            instant(.reports, "chain: \(ids.count) guard\(ids.count == 1 ? "" : "s") added", "chain",
                    args: [("guards", .array(ids.map { .string($0) }))])
        default:
            break
        }
    }

    private mutating func callback(_ cb: TraceCallback) {
        switch cb {
        case .outcome(let o):
            // The first outcome inside a submit is its own request's (it is
            // decided first): known before its ret, which a crash may never write.
            if requests[o.id] == nil, let p = pending.last, case .submit(let req, _)? = p.args, req.kind == o.kind.rawValue {
                requests[o.id] = req
            }
            outcomes.append((now, o))
        case .transition(let t):
            transition(t)
        case .holdEnd(let h):
            holdEnded(h)
        case .report(let guardID, let text):
            let g = guardID ?? "?"
            let watchdog = g.hasSuffix("watchdog")
            if watchdog { watchdogReports.insert(now) }
            model.reports.append(.init(t: now, guardID: g, text: text))
            instant(.reports, firstLine(text, or: "report from \(g)"), "report", mark: watchdog ? .alarm : .warning,
                    label: watchdog ? "watchdog report" : "report", args: [("guard", .string(g)), ("text", .string(text))])
        case .log(let severity, let guardID, let message):
            let s = enumName(severity, ng_severity_name)
            instant(.reports, "log \(s): \(firstLine(message, or: ""))", "log",
                    mark: s == "warn" || s == "error" ? .warning : .normal,
                    args: [("severity", .string(s)), ("guard", guardID.map { .string($0) } ?? .null), ("message", .string(message))])
        case .touchCancel(let c):
            if touches[c.touch] == nil {
                touches[c.touch] = OpenTouch(start: c.began.map(Self.clampNs) ?? model.originNs, seenBegin: false, view: c.view,
                                             dropped: false, reason: "none", guardID: nil)
            }
            touches[c.touch]?.cancelledAt = now
            cancels.append((now, c.touch, c.view))
            driverGone(c.touch)
        case .question(let q):
            instant(.reports, "question: \(q.text ?? q.topic ?? "?")", "question",
                    args: [("guard", q.guardID.map { .string($0) } ?? .null), ("request", Self.number(q.request))])
        case .questionEnd(let id, let answer):
            instant(.reports, "answer: \(enumName(answer.rawValue, ng_answer_name))", "question", args: [("question", Self.number(id))])
        case .pressCancel(let c):
            let key = PressKey(type: c.type, device: c.device, code: c.code)
            if presses[key] == nil {
                // Its down is before the trace's first record (a ring dump).
                presses[key] = OpenPress(start: c.down.map(Self.clampNs).map { max($0, model.originNs) } ?? model.originNs,
                                         seenBegin: false, dropped: false, reason: "none", guardID: nil, screen: topRoute)
            }
            presses[key]?.cancelledAt = now
            presses[key]?.cause = c.causeName
        }
    }

    /// Touch cancels, drawn as their own markers (a report at the same
    /// instant must not hide them) once it is known who cancelled.
    private var cancels: [(t: Int64, touch: UInt64, view: UInt64)] = []

    // MARK: Transitions

    private mutating func transition(_ e: TraceTransition) {
        let track = e.track.rawValue
        let phase = enumName(e.phase.rawValue, ng_phase_name)
        if phase == "will" {
            if transitions[track] != nil { close(track, ending: "superseded (no end recorded)", flags: 0) }
            var t = OpenTransition(start: now, seenBegin: true, id: e.id, kind: e.kindName, from: e.from, to: e.to, flags: e.flags)
            if track == NG_TRACK_SCREEN && e.flags & Self.interactive != 0 {
                t.drivingTouch = e.flags & Self.touchDriven != 0 ? drivingTouch(of: e.id) : nil
                t.phase = (t.drivingTouch.map { "driven by touch \(touchName($0))" } ?? "undriven", now)
                model.swipeProgress.append((now, 0))
            }
            transitions[track] = t
            transitionBegan[track] = nil
            if track == NG_TRACK_SCREEN { topRoute = route(e.to) }
            return
        }
        if transitions[track] == nil {
            transitions[track] = OpenTransition(start: model.originNs, seenBegin: false, id: e.id, kind: e.kindName,
                                                from: e.from, to: e.to, flags: e.flags)
        }
        if track == NG_TRACK_SCREEN && transitions[track]!.phase != nil { model.swipeProgress.append((now, 0)) }
        if track == NG_TRACK_SCREEN && phase == "cancelled" { topRoute = route(e.from) }
        if track == NG_TRACK_SCREEN && e.focus != 0 {
            // The screen on top again hands back the focus it had.
            instant(.screen, "\(route(e.to)): focus \(e.focus) handed back", "focus", label: "focus \(e.focus)",
                    args: [("screen", .string(route(e.to))), ("id", Self.number(e.to)), ("focus", Self.number(e.focus)),
                           ("how", .string("handed back (\(phase))"))])
        }
        close(track, ending: phase, flags: e.flags)
    }

    /// The touch named by the interactive back being applied: the request is
    /// known from its submit (still open: the callback runs inside it) or
    /// from a posted record.
    private func drivingTouch(of id: UInt64) -> UInt64? {
        if let req = requests[id] { return req.touch }
        for p in pending.reversed() {
            if case .submit(let req, _)? = p.args, req.kind == NG_REQ_INTERACTIVE_BACK { return req.touch }
        }
        return nil
    }

    /// The finger driving a swipe ended or was cancelled: nobody drives it.
    private mutating func driverGone(_ touch: UInt64) {
        guard let t = transitions[NG_TRACK_SCREEN], t.drivingTouch == touch, t.phase?.name.hasPrefix("driven") == true else { return }
        transitions[NG_TRACK_SCREEN]?.enter("undriven", at: now)
    }

    /// End the open transition on `track`: `ending` is the phase that ended
    /// it (did, cancelled), or why it is closed without one.
    private mutating func close(_ track: Int32, ending: String, flags endFlags: UInt32) {
        guard var t = transitions.removeValue(forKey: track) else { return }
        t.enter(nil, at: now)
        let began = t.seenBegin ? t.start : transitionBegan.removeValue(forKey: track)
        let flags = t.flags | endFlags
        var span = TimelineModel.Span(lane: track == NG_TRACK_BAR ? .bar : .screen,
                                      name: (t.seenBegin ? "" : "… ") + "\(t.kind) \(requestName(t.id)) \(route(t.from))→\(route(t.to))",
                                      category: "transition", start: t.start, end: now)
        span.phases = t.phases
        span.short = route(t.to)
        span.screen = route(t.to)
        var byGuard = false
        var end = ending
        if ending == "cancelled" {
            // Rolled back: the stack stayed on the screen it came from, so
            // it is shown and counted there, whoever cancelled it.
            span.name += " (cancelled)"
            span.short = "↩ " + route(t.from)
            span.screen = route(t.from)
            span.cancelled = true
            if endFlags & Self.forced != 0 {
                byGuard = true
                span.mark = .warning
                end += " (forced)"
            }
        } else if endFlags & Self.destroyedFlag != 0 {
            // Destroy ends what is in flight (NavGuard 0.3): the host never did.
            span.mark = .alarm
            span.flag = "NEVER FINISHED: still in flight when the context was destroyed, \(TimelineFormat.ms(now - (began ?? t.start))) after it began"
            end += " (destroyed)"
        } else if endFlags & Self.forced != 0 {
            byGuard = true
            span.mark = .alarm
            end += " (forced)"
        } else if endFlags & Self.interrupted != 0 {
            span.mark = .warning
            span.flag = "interrupted by a newer request"
            end += " (interrupted)"
        } else if ending != "did" {
            span.mark = .warning
            span.flag = ending
        }
        span.args = transitionArgs(t, flags: flags, end: end, began: began)
        spans.append(Ending(span: span, endedByGuard: byGuard, lived: began.map { now - $0 }, began: began))
    }

    private func transitionArgs(_ t: OpenTransition, flags: UInt32, end: String, began: Int64?) -> [(String, JSONValue)] {
        var a: [(String, JSONValue)] = [("request", Self.number(t.id)), ("kind", .string(t.kind)),
                                        ("from", .string(route(t.from))), ("to", .string(route(t.to))),
                                        ("flags", .string(Self.flagNames(flags))), ("end", .string(end))]
        if !t.seenBegin {
            a.append(("began", .string(began.map { "at \(TimelineFormat.ms($0 - model.originNs)), before the trace's first record" }
                                       ?? "before the trace's first record")))
        }
        if let d = t.drivingTouch { a.append(("driving_touch", Self.number(d))) }
        return a
    }

    private static func flagNames(_ f: UInt32) -> String {
        let names: [(UInt32, String)] = [(0x1, "animated"), (0x2, "interactive"), (0x4, "interrupted"), (0x8, "forced"),
                                         (0x10, "touch-driven"), (0x20, "destroyed")]
        let set = names.filter { f & $0.0 != 0 }.map { $0.1 }
        return set.isEmpty ? "none" : set.joined(separator: "|")
    }

    // MARK: Holds

    private mutating func holdEnded(_ h: TraceHoldEnd) {
        let reason = h.reasonName
        let ended = h.ended.map(Self.clampNs) ?? now
        last = max(last, ended)
        let open = holds.removeValue(forKey: h.token)
        let knownBegan = holdBegan.removeValue(forKey: h.token)
        let began = h.began.map(Self.clampNs) ?? knownBegan
        let start = open?.start ?? began ?? model.originNs
        let before = (began ?? start) < model.originNs || (open != nil && knownBegan != nil)
        let label = h.label ?? open?.label ?? ""
        var span = TimelineModel.Span(lane: .holds(0), name: (before ? "… " : "") + (label.isEmpty ? "hold \(h.token)" : label),
                                      category: "hold", start: max(start, model.originNs), end: ended)
        span.screen = open?.screen ?? topRoute
        let lived = ended - (began ?? start)
        switch reason {
        case "ended":
            break
        case "expired":
            span.mark = .warning
            span.flag = "expired after \(TimelineFormat.ms(lived)) (its own limit)"
        case "released" where pending.contains(where: { $0.fn == "destroy" }):
            span.mark = .warning
            span.flag = "released at destroy after \(TimelineFormat.ms(lived))"
        default:
            span.mark = .alarm   // released by a guard: named in finish()
        }
        // A hold begun in the trace without an ng_hold_begin call was a guard's.
        let takenBy = open?.takenBy ?? (before ? "unknown: before the trace's first record" : "a guard")
        span.args = holdArgs(token: h.token, mask: h.mask, maxNs: open?.maxNs, takenBy: takenBy, reason: reason)
        spans.append(Ending(span: span, endedByGuard: span.mark == .alarm, lived: lived, began: began))
    }

    private func holdArgs(token: UInt64, mask: UInt32, maxNs: Int64?, takenBy: String, reason: String) -> [(String, JSONValue)] {
        var a: [(String, JSONValue)] = [("token", Self.number(token)), ("mask", .string(Self.maskNames(mask))),
                                        ("taken_by", .string(takenBy)), ("end", .string(reason))]
        if let m = maxNs, m > 0 { a.append(("max", .string(TimelineFormat.ms(m)))) }
        return a
    }

    private static func maskNames(_ m: UInt32) -> String {
        let names = ["touch", "motion", "remote", "key", "scroll", "hover"]
        let set = names.indices.filter { m & (1 << UInt32($0)) != 0 }.map { names[$0] }
        return set.isEmpty ? "none" : set.joined(separator: "|")
    }

    // MARK: Touches and other input

    private mutating func event(_ ev: ng_event, _ ret: TraceResult) {
        let dropped = ret.verdict == NG_VERDICT_DROP
        let reason = enumName(ret.reason, ng_reason_name)
        model.events += 1
        if dropped { model.eventsDropped += 1 }
        if (ev.type == NG_EVENT_KEY || ev.type == NG_EVENT_REMOTE) && ev.phase >= NG_KEY_DOWN && ev.phase <= NG_KEY_DEVICE_REMOVED {
            press(ev, ret)
            return
        }
        guard ev.type == NG_EVENT_TOUCH else {
            let type = enumName(ev.type, ng_event_type_name)
            model.hasInput = true
            instant(.input, dropped ? "\(type) dropped: \(reason)" : "\(type) delivered", "input",
                    mark: dropped ? .dropped : .normal,
                    args: [("type", .string(type)), ("verdict", .string(dropped ? "drop" : "deliver")), ("reason", .string(reason)),
                           ("guard", ret.guardID.map { .string($0) } ?? .null)])
            return
        }
        let id = ev.touch_id
        if ev.phase == NG_TOUCH_BEGAN && touches[id] == nil {
            touches[id] = OpenTouch(start: now, seenBegin: true, view: ret.view, dropped: dropped, reason: reason, guardID: ret.guardID)
            return
        }
        if touches[id] == nil {
            touches[id] = OpenTouch(start: model.originNs, seenBegin: false, view: ret.view, dropped: false, reason: "none", guardID: nil)
        }
        switch ev.phase {
        case NG_TOUCH_MOVED:
            touches[id]?.moves += 1
            if dropped { touches[id]?.movesDropped += 1 }
        case NG_TOUCH_ENDED, NG_TOUCH_CANCELLED:
            closeTouch(id, end: "\(enumName(ev.phase, ng_touch_phase_name)) (\(dropped ? "dropped: \(reason)" : "delivered"))")
            driverGone(id)
        default:
            break   // a second began: the core refused it (invalid); the touch goes on
        }
    }

    private mutating func closeTouch(_ id: UInt64, end: String) {
        guard let t = touches.removeValue(forKey: id) else { return }
        let began = t.seenBegin ? t.start : touchBegan.removeValue(forKey: id)
        var span = TimelineModel.Span(lane: .touches(0),
                                      name: (t.seenBegin ? "" : "… ") + "touch \(touchName(id))"
                                          + (t.dropped ? " dropped: \(t.reason)" : " → view \(t.view)"),
                                      category: t.dropped ? "touch.dropped" : "touch", start: t.start, end: now)
        span.mark = t.dropped ? .dropped : .normal
        span.screen = topRoute
        if let c = t.cancelledAt { span.phases = [.init(name: "cancelled by NavGuard", start: c, end: now)] }
        var a: [(String, JSONValue)] = [("touch", Self.number(id)), ("view", Self.number(t.view)),
                                        ("began", .string(t.seenBegin ? (t.dropped ? "dropped: \(t.reason)" : "delivered")
                                                          : began.map { "at \(TimelineFormat.ms($0 - model.originNs)), before the trace's first record" }
                                                            ?? "before the trace's first record")),
                                        ("moves", .integer(Int64(t.moves))), ("end", .string(end))]
        if t.movesDropped > 0 { a.append(("moves_dropped", .integer(Int64(t.movesDropped)))) }
        if let g = t.guardID { a.append(("guard", .string(g))) }
        if let c = t.cancelledAt { a.append(("cancelled_by_navguard_at", .string(TimelineFormat.ms(c - model.originNs)))) }
        span.args = a
        spans.append(Ending(span: span))
    }

    // MARK: Presses

    /// A press's down, repeats and end (its up, a new down, its device
    /// removed), on its device's lane.
    private mutating func press(_ ev: ng_event, _ ret: TraceResult) {
        let dropped = ret.verdict == NG_VERDICT_DROP
        let reason = enumName(ret.reason, ng_reason_name)
        let key = PressKey(type: ev.type, device: ev.touch_id, code: ev.code)
        switch ev.phase {
        case NG_KEY_DOWN:
            if presses[key] != nil { closePress(key, end: "its up was lost (a new down)") }
            presses[key] = OpenPress(start: now, seenBegin: true, dropped: dropped, reason: reason, guardID: ret.guardID, screen: topRoute)
        case NG_KEY_REPEAT:
            presses[key]?.repeats += 1
            if dropped { presses[key]?.repeatsDropped += 1 }
        case NG_KEY_UP:
            if presses[key] == nil {
                presses[key] = OpenPress(start: model.originNs, seenBegin: false, dropped: false, reason: "none", guardID: nil, screen: topRoute)
            }
            closePress(key, end: "up (\(dropped ? "dropped: \(reason)" : "delivered"))")
        default:   // NG_KEY_DEVICE_REMOVED
            let device = Self.deviceName(ev.type, ev.touch_id)
            for k in presses.keys.filter({ $0.type == ev.type && $0.device == ev.touch_id }).sorted(by: { $0.code < $1.code }) {
                closePress(k, end: "its device was removed")
            }
            model.instants.append(.init(lane: .presses(0), t: now, name: "\(device) removed", category: "press.device",
                                        mark: .warning, label: "removed",
                                        args: [("device", Self.number(ev.touch_id)), ("type", .string(enumName(ev.type, ng_event_type_name)))],
                                        device: device))
        }
    }

    private mutating func closePress(_ key: PressKey, end: String) {
        guard let p = presses.removeValue(forKey: key) else { return }
        let name = Self.buttonName(key.type, key.code)
        var span = TimelineModel.Span(lane: .presses(0),
                                      name: (p.seenBegin ? "" : "… ") + name + (p.dropped ? " dropped: \(p.reason)" : ""),
                                      category: p.dropped ? "press.dropped" : "press", start: p.start, end: now)
        span.mark = p.dropped ? .dropped : .normal
        span.screen = p.screen
        span.device = Self.deviceName(key.type, key.device)
        var a: [(String, JSONValue)] = [("button", .string(name)), ("device", Self.number(key.device)),
                                        ("type", .string(enumName(key.type, ng_event_type_name))), ("code", .integer(key.code)),
                                        ("down", .string(p.seenBegin ? (p.dropped ? "dropped: \(p.reason)" : "delivered")
                                                         : "before the trace's first record")),
                                        ("end", .string(end))]
        if let s = p.screen { a.append(("screen", .string(s))) }
        if p.repeats > 0 { a.append(("repeats", .integer(Int64(p.repeats)))) }
        if p.repeatsDropped > 0 { a.append(("repeats_dropped", .integer(Int64(p.repeatsDropped)))) }
        if let g = p.guardID { a.append(("guard", .string(g))) }
        if let c = p.cancelledAt {
            let cause = p.cause ?? "?"
            span.mark = .warning
            span.flag = "cancelled: \(cause)"
            span.phases = [.init(name: "cancelled by NavGuard (\(cause))", start: c, end: now)]
            a.append(("cancelled_by_navguard_at", .string(TimelineFormat.ms(c - model.originNs))))
            a.append(("cause", .string(cause)))
        }
        span.args = a
        spans.append(Ending(span: span))
    }

    /// A controller's button by its NG_BUTTON_MAP name ("A", "dpad-up"), a key by its code.
    static func buttonName(_ type: Int32, _ code: Int64) -> String {
        if type == NG_EVENT_REMOTE {
            let n = String(cString: ng_button_name(code))
            return n == "unknown" ? "button \(code)" : n
        }
        return "key \(code)"
    }

    static func deviceName(_ type: Int32, _ device: UInt64) -> String {
        type == NG_EVENT_REMOTE ? "controller \(device)" : "keyboard \(device)"
    }

    // MARK: The end

    private mutating func finish() -> TimelineModel {
        now = last
        let whenEnded = destroyed ? "still in flight when the context was destroyed" : "in flight when the trace ends"
        for track in transitions.keys.sorted() {
            let t = transitions[track]!
            let began = t.seenBegin ? t.start : transitionBegan[track]
            close(track, ending: "never finished", flags: 0)
            spans[spans.count - 1].span.mark = .alarm
            spans[spans.count - 1].span.flag = "NEVER FINISHED: \(whenEnded), \(TimelineFormat.ms(now - (began ?? t.start))) after it began"
        }
        for (token, h) in holds.sorted(by: { $0.key < $1.key }) {
            let began = holdBegan[token] ?? h.start
            var span = TimelineModel.Span(lane: .holds(0), name: (holdBegan[token] != nil ? "… " : "") + (h.label.isEmpty ? "hold \(token)" : h.label),
                                          category: "hold", start: h.start, end: now, mark: .alarm,
                                          flag: "STILL HELD at the end, \(TimelineFormat.ms(now - began)) after it began")
            span.screen = h.screen
            span.args = holdArgs(token: token, mask: h.mask, maxNs: h.maxNs, takenBy: h.takenBy, reason: "none: live at the end")
            spans.append(Ending(span: span))
        }
        for id in touches.keys.sorted() {
            if let c = touches[id]?.cancelledAt {
                // Cancelled by NavGuard and its end never came (a lost
                // release): it ended there, for NavGuard and the host.
                now = c
                touches[id]?.cancelledAt = nil
                closeTouch(id, end: "cancelled by NavGuard; its end never came")
                spans[spans.count - 1].span.mark = .warning
                spans[spans.count - 1].span.flag = "cancelled: its end never came"
                now = last
                continue
            }
            closeTouch(id, end: "none: still down at the end")
            spans[spans.count - 1].span.mark = .warning
            spans[spans.count - 1].span.flag = "still down at the end"
        }
        for key in presses.keys.sorted(by: { ($0.type, $0.device, $0.code) < ($1.type, $1.device, $1.code) }) {
            if let c = presses[key]?.cancelledAt {
                // Cancelled by NavGuard and its up never came: it ended there.
                now = c
                closePress(key, end: "cancelled by NavGuard; its up never came")
                now = last
                continue
            }
            closePress(key, end: "none: still down at the end")
            spans[spans.count - 1].span.mark = .warning
            spans[spans.count - 1].span.flag = "still down at the end"
        }
        for e in spans { model.spans.append(named(e)) }
        for o in outcomes { outcome(o.t, o.o) }
        for c in cancels {
            let who = watchdogReports.contains(c.t) ? "the watchdog" : "NavGuard"
            instant(.touches(0), "touch \(touchName(c.touch)) cancelled by \(who)", "touch.cancel", mark: .warning,
                    label: "cancelled", args: [("touch", Self.number(c.touch)), ("view", Self.number(c.view)), ("by", .string(who))], at: c.t)
            if who == "the watchdog" {
                model.headline.append(.init(t: c.t, text: "the watchdog cancelled touch \(touchName(c.touch)) on view \(c.view)"))
            }
        }
        headline()
        notes()
        rebase()
        window()
        fold()
        return model
    }

    /// Name who forced a transition or released a hold: the watchdog when it
    /// reported at that instant.
    private mutating func named(_ e: Ending) -> TimelineModel.Span {
        guard e.endedByGuard else { return e.span }
        var s = e.span
        let who = watchdogReports.contains(s.end) ? "the watchdog" : "a guard"
        s.endedBy = who
        let lived = e.lived.map { " after \(TimelineFormat.ms($0))" } ?? " (it began before the trace's first record)"
        // A swipe the guard rolled back did not finish: say where it stayed.
        let stayed = s.cancelled ? ": rolled back, the stack stayed on \(s.screen ?? "?")" : ""
        s.flag = (s.category == "hold" ? "RELEASED by \(who)" : s.cancelled ? "CANCELLED by \(who)" : "FORCED by \(who)") + lived + stayed
        if s.lane != .bar {
            let since = e.began.map { ", since \(TimelineFormat.ms($0 - model.originNs))" } ?? ""
            let held = e.lived.map { "after \(TimelineFormat.ms($0))" } ?? "(begun before the trace's first record)"
            var name = s.name.hasPrefix("… ") ? String(s.name.dropFirst(2)) : s.name
            if s.cancelled && name.hasSuffix(" (cancelled)") { name.removeLast(" (cancelled)".count) }
            let what = s.category == "hold" ? "released the hold \"\(name)\" \(held)\(since)"
                : s.cancelled ? "cancelled \(name) \(held)\(since)\(stayed)"
                : "forced \(name) to finish \(held)\(since)"
            model.headline.append(.init(t: s.end, text: "\(who) \(what)"))
        }
        return s
    }

    /// The headline: what went wrong, at the moment it was acted on (or
    /// noticed), in time order.
    private mutating func headline() {
        for s in model.spans where s.mark == .alarm && s.lane != .bar && s.endedBy == nil {
            let name = s.name.hasPrefix("… ") ? String(s.name.dropFirst(2)) : s.name
            if s.flag?.hasPrefix("NEVER FINISHED") == true {
                model.headline.append(.init(t: s.start, text: "\(name) began and never finished (\(s.flag!.dropFirst(16)))"))
            } else if s.flag?.hasPrefix("STILL HELD") == true {
                model.headline.append(.init(t: s.start, text: "the hold \"\(name)\" began and was still held at the end"))
            }
        }
        if let crash = model.crash {
            // A dump does not say which thread crashed: the owner's open call
            // is where the owner was, not necessarily where the fault was.
            let inside = pending.first.map {
                " while the owner thread was inside \($0.fn) (line \($0.line); the crash may have been on another thread)"
            } ?? ""
            model.headline.append(.init(t: last, text: "the process crashed (\(crash))\(inside)"))
        }
        model.headline.sort { $0.t < $1.t }
    }

    private mutating func outcome(_ t: Int64, _ o: TraceOutcome) {
        let kind = o.kindName
        let outcome = o.outcomeName
        let reason = o.reasonName
        var what = "\(kind) \(requestName(o.id))"
        if let req = requests[o.id], let target = target(of: req) { what += " → \(target)" }
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
        var args: [(String, JSONValue)] = [("request", Self.number(o.id)), ("kind", .string(kind)),
                                           ("outcome", .string(outcome)), ("reason", .string(reason)),
                                           ("guard", o.guardID.map { .string($0) } ?? .string("the core")), ("source", .integer(Int64(o.source)))]
        if let m = o.message { args.append(("message", .string(m))) }
        if let w = waiting[o.id], outcome != "queued" && outcome != "deferred" {
            // The wait before it was decided: posted to its tick, or queued
            // behind a transition until applied or dropped.
            waiting[o.id] = nil
            args.append(("waited", .string(TimelineFormat.ms(t - w.since))))
            if t > w.since {
                var span = TimelineModel.Span(lane: .waits(0), name: "\(what) \(w.how), waited \(TimelineFormat.ms(t - w.since))",
                                              category: "request.wait", start: w.since, end: t)
                span.short = requestName(o.id)
                span.args = [("request", Self.number(o.id)), ("how", .string(w.how)), ("then", .string(outcome)),
                             ("since", .string(w.known ? TimelineFormat.ms(w.since - model.originNs) : "before the trace's first record"))]
                model.spans.append(span)
            }
        } else if outcome == "queued" || outcome == "deferred" {
            waiting[o.id] = Waiting(since: t, how: outcome, known: true)
        }
        model.instants.append(.init(lane: .requests, t: t, name: name, category: category, mark: mark,
                                    label: mark == .dropped ? reason : nil, args: args))
    }

    private func target(of req: TraceRequest) -> String? {
        if let s = req.screen { return s.route }
        if req.target != 0 { return route(req.target) }
        if !req.screens.isEmpty { return "[" + req.screens.map { $0.route }.joined(separator: ", ") + "]" }
        return nil
    }

    private mutating func notes() {
        let h = trace.header
        if model.start == "ring" {
            let kept = trace.records.count
            model.notes.append("Ring dump: this shows only the newest \(kept) records"
                               + (h.dropped > 0 ? "; \(h.dropped) older records were dropped, so what came before is not here"
                                                : "")
                               + (h.hasState ? " (the state at its first record is known: screens are named, what was live is drawn from the start)." : "."))
        } else if model.start == "mid-session" {
            let live = ((try? h.readState()) ?? nil)?.live.filter { $0.count > 0 }.map { n, k in
                "\(k) " + (k == 1 && n.hasSuffix("s") ? String(n.dropLast()) : n)
            } ?? []
            model.notes.append("Recording began mid-session" + (live.isEmpty ? "." : "; live then: \(live.joined(separator: ", ")) (their beginnings are not here)."))
        }
        if let c = h.crash {
            model.notes.append("Crash dump: written by the fatal-signal handler (\(c.name), pid \(c.pid)); the last record is where the process was.")
        }
        if let d = h.damage { model.notes.append("Damaged: \(d).") }
        if let cut = trace.truncatedLine {
            model.notes.append("The trace is cut off: line \(cut) is incomplete and not drawn.")
        } else if !destroyed && model.start != "ring" {
            model.notes.append("The trace ends without ng_context_destroy: still recording, or the process stopped.")
        }
        if unreadable > 0 { model.notes.append("\(unreadable) record\(unreadable == 1 ? "" : "s") could not be read and are not drawn.") }
    }

    /// Times since the origin, never before it; spans and instants in time
    /// order; holds, touches and waits spread over sub-lanes where they overlap.
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
        for i in model.headline.indices { model.headline[i].t = rel(model.headline[i].t) }
    }

    /// Keep what is inside --from/--to (in ms since the start), then lay out
    /// the sub-lanes.
    private mutating func window() {
        let from = options.fromMs.map { max(0, Int64($0 * 1e6)) } ?? 0
        let to = options.toMs.map { min(model.duration, max(from, Int64($0 * 1e6))) } ?? model.duration
        if from > 0 || to < model.duration {
            model.spans = model.spans.compactMap { s in
                guard s.end >= from && s.start <= to else { return nil }
                var c = s
                if c.start < from { c.start = from; if !c.name.hasPrefix("… ") { c.name = "… " + c.name } }
                c.end = min(c.end, to)
                c.phases = c.phases.compactMap { p in
                    guard p.end >= from && p.start <= to else { return nil }
                    return .init(name: p.name, start: max(p.start, from), end: min(p.end, to))
                }
                return c
            }
            model.instants.removeAll { $0.t < from || $0.t > to }
            model.swipeProgress.removeAll { $0.t < from || $0.t > to }
            model.reports.removeAll { $0.t < from || $0.t > to }
            model.notes.append("Drawn from \(TimelineFormat.ms(from)) to \(TimelineFormat.ms(to)) of \(TimelineFormat.ms(model.duration)).")
            model.viewStart = from
            model.duration = to
        }
        model.spans.sort { ($0.start, $1.end) < ($1.start, $0.end) }
        model.instants.sort { $0.t < $1.t }
        var holdEnds: [Int64] = [], touchEnds: [Int64] = [], waitEnds: [Int64] = []
        for i in model.spans.indices {
            switch model.spans[i].lane {
            case .holds: model.spans[i].lane = .holds(Self.subLane(&holdEnds, model.spans[i]))
            case .touches: model.spans[i].lane = .touches(Self.subLane(&touchEnds, model.spans[i]))
            case .waits: model.spans[i].lane = .waits(Self.subLane(&waitEnds, model.spans[i]))
            default: break
            }
        }
        // A cancel marker goes on the sub-lane of its touch.
        for i in model.instants.indices where model.instants[i].category == "touch.cancel" {
            let touch = model.instants[i].args.first { $0.0 == "touch" }?.1
            if let s = model.spans.first(where: { if case .touches = $0.lane { return $0.args.first { $0.0 == "touch" }?.1 == touch && $0.start <= model.instants[i].t && $0.end >= model.instants[i].t } else { return false } }) {
                model.instants[i].lane = s.lane
            }
        }
        // Presses: a device's own lanes, devices in the order they first act.
        var devices: [String] = []
        var pressEnds: [String: [Int64]] = [:]
        var sub: [Int: Int] = [:]
        for i in model.spans.indices {
            guard case .presses = model.spans[i].lane, let d = model.spans[i].device else { continue }
            if pressEnds[d] == nil { devices.append(d); pressEnds[d] = [] }
            sub[i] = Self.subLane(&pressEnds[d, default: []], model.spans[i])
        }
        for i in model.instants.indices {
            guard case .presses = model.instants[i].lane, let d = model.instants[i].device else { continue }
            if pressEnds[d] == nil { devices.append(d); pressEnds[d] = [] }
        }
        var first: [String: Int] = [:]
        model.pressLanes = []
        for d in devices {
            first[d] = model.pressLanes.count
            model.pressLanes += Array(repeating: d, count: max(1, pressEnds[d]!.count))
        }
        for (i, k) in sub { model.spans[i].lane = .presses(first[model.spans[i].device!]! + k) }
        for i in model.instants.indices {
            guard case .presses = model.instants[i].lane, let d = model.instants[i].device else { continue }
            model.instants[i].lane = .presses(first[d]!)
        }
        model.holdLanes = max(1, holdEnds.count)
        model.touchLanes = max(1, touchEnds.count)
        model.waitLanes = waitEnds.count
    }

    /// Fold long stretches where nothing is open and nothing happens.
    private mutating func fold() {
        guard let least = options.foldIdleNs else { return }
        let length = model.duration - model.viewStart
        let minimum = max(least, length / 20)
        // Inside the picture and in order, even when a damaged trace ends a
        // span before it began or past the trace's end: else the folds
        // overlap or outgrow the time drawn, and the axis steps through
        // millions of microseconds.
        func inside(_ t: Int64) -> Int64 { min(max(t, model.viewStart), model.duration) }
        var busy: [(Int64, Int64)] = model.spans.filter { $0.lane != .bar }.map {
            (inside(min($0.start, $0.end)), inside(max($0.start, $0.end)))
        }
        busy += model.instants.map { (inside($0.t), inside($0.t)) }
        busy.sort { $0.0 < $1.0 }
        var cursor = model.viewStart
        // A little margin around what happens, so a marker never sits on a fold.
        let margin = max(length / 200, 1)
        for (s, e) in busy {
            if s - margin - (cursor + margin) >= minimum { model.folds.append(.init(start: cursor + margin, end: s - margin)) }
            cursor = max(cursor, e)
        }
        if model.duration - margin - (cursor + margin) >= minimum {
            model.folds.append(.init(start: cursor + margin, end: model.duration - margin))
        }
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
                                  label: String? = nil, args: [(String, JSONValue)] = [], at t: Int64? = nil) {
        model.instants.append(.init(lane: lane, t: t ?? now, name: name, category: category, mark: mark, label: label, args: args))
    }

    private mutating func learnRoutes(_ req: TraceRequest) {
        if let s = req.screen { learnRoute(s) }
        for s in req.screens { learnRoute(s) }
    }

    private mutating func learnRoute(_ s: TraceScreen) {
        if !s.route.isEmpty { routes[s.id] = s.route }
    }

    /// An id or token as the trace writes it: a string above Int64.max.
    static func number(_ id: UInt64) -> JSONValue {
        id <= UInt64(Int64.max) ? .integer(Int64(id)) : .string(String(id))
    }

    private func route(_ id: UInt64) -> String { routes[id] ?? "screen \(id)" }

    /// A request id as a person reads it: `#p3` for the third posted one
    /// (from posted_base), `#g2` for a guard's second own (guards' ids start
    /// at NG_GUARD_ID_BASE itself), `#7` for the host's.
    private func requestName(_ id: UInt64) -> String {
        let guards = UInt64(NG_GUARD_ID_BASE)
        // Guards' ids above the posted range (NavGuard 0.3); a 0.2 trace
        // posted from 2^63, above them.
        if postedBase < guards {
            if id >= guards { return "#g\(id - guards + 1)" }
            if id > postedBase { return "#p\(id - postedBase)" }
        } else {
            if id > postedBase { return "#p\(id - postedBase)" }
            if id >= guards { return "#g\(id - guards + 1)" }
        }
        return "#\(id)"
    }

    /// A touch id: the mouse's (NG_MOUSE_TOUCH_ID, every adapter's) by name.
    private func touchName(_ id: UInt64) -> String { id == UInt64(NG_MOUSE_TOUCH_ID) ? "mouse" : String(id) }

    private func firstLine(_ s: String, or fallback: String) -> String {
        let line = s.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        if line.isEmpty { return fallback }
        return line.count > 100 ? String(line.prefix(99)) + "…" : line
    }
}
