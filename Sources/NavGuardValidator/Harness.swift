// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore
import NavGuardLibc

// A real NavGuard context for the validator: manual clock, a root screen, a
// small view tree, and a delegate that records outcomes, logs, reports and
// touch cancels. The guard under test is added with ng_chain_add (through the
// proxy) or with ng_plugin_load (the real loader).

final class Harness {
    static let start: Int64 = 1_000_000_000
    static let second: Int64 = 1_000_000_000
    static let ms: Int64 = 1_000_000

    // View ids.
    static let window: UInt64 = 100
    static let button: UInt64 = 101      // exclusive touch, grown hit area
    static let multi: UInt64 = 102       // multiple touch on
    static let circle: UInt64 = 103
    static let star: UInt64 = 104
    static let hidden: UInt64 = 105
    static let disabled: UInt64 = 106

    private(set) var ctx: OpaquePointer?
    var nextScreenID: UInt64 = 2
    var nextTouchID: UInt64 = 1
    var source: UInt32 = 1

    // Recorded by the delegate.
    var outcomes: [(ng_outcome_kind, ng_reason, String?)] = []
    var logs: [String] = []
    var reports = 0
    var touchCancels = 0
    var holdEnds = 0
    var transitions = 0
    /// Unexpected statuses from NavGuard calls that should have succeeded.
    var anomalies: [String] = []
    /// Touches whose began the guard's own action during its vote turned
    /// into a drop (the host would otherwise have cancelled the touch before
    /// the began's verdict returned).
    var beganSelfCancels: [String] = []
    var delivered = 0
    var dropped = 0
    /// Questions the guard asked the host, and how the host answers the next
    /// ones (nil: leave it open); each must end exactly once.
    var questions: [UInt64] = []
    var questionEnds: [UInt64: Int] = [:]
    var answerPolicy: [ng_answer?] = []

    init() {
        var opts = ng_options()
        opts.size = UInt32(MemoryLayout<ng_options>.size)
        opts.clock = NG_CLOCK_MANUAL
        opts.manual_start_ns = Harness.start
        opts.delegate.size = UInt32(MemoryLayout<ng_delegate>.size)
        opts.delegate.user = Unmanaged.passUnretained(self).toOpaque()
        opts.delegate.on_outcome = { user, _, o in
            guard let user, let o else { return }
            let h = Unmanaged<Harness>.fromOpaque(user).takeUnretainedValue()
            h.outcomes.append((o.pointee.outcome, o.pointee.reason, text(o.pointee.guard_id)))
        }
        opts.delegate.on_transition = { user, _, _ in
            guard let user else { return }
            Unmanaged<Harness>.fromOpaque(user).takeUnretainedValue().transitions += 1
        }
        opts.delegate.on_hold_end = { user, _, _ in
            guard let user else { return }
            Unmanaged<Harness>.fromOpaque(user).takeUnretainedValue().holdEnds += 1
        }
        opts.delegate.on_report = { user, _, _, _ in
            guard let user else { return }
            Unmanaged<Harness>.fromOpaque(user).takeUnretainedValue().reports += 1
        }
        opts.delegate.on_log = { user, _, severity, guardID, message in
            guard let user else { return }
            let h = Unmanaged<Harness>.fromOpaque(user).takeUnretainedValue()
            if h.logs.count < 32 {
                let sev = ["debug", "info", "warn", "error"]
                let s = severity >= 0 && severity < 4 ? sev[Int(severity)] : "severity \(severity)"
                h.logs.append("\(s) \(text(guardID) ?? "core"): \(text(message) ?? "(null)")")
            }
        }
        opts.delegate.on_touch_cancel = { user, _, _ in
            guard let user else { return }
            Unmanaged<Harness>.fromOpaque(user).takeUnretainedValue().touchCancels += 1
        }
        // A host that answers as `answerPolicy` says, from inside the
        // callback (allowed) or never (the question's limit or destroy ends it).
        opts.delegate.on_question = { user, ctx, q in
            guard let user, let q else { return }
            let h = Unmanaged<Harness>.fromOpaque(user).takeUnretainedValue()
            let id = q.pointee.question_id
            if h.questions.contains(id) { h.anomalies.append("question \(id) asked twice") }
            h.questions.append(id)
            if !h.answerPolicy.isEmpty, let a = h.answerPolicy.removeFirst() {
                h.expect(ng_question_answer(ctx, id, a), "ng_question_answer")
            }
        }
        opts.delegate.on_question_end = { user, _, q, _ in
            guard let user, let q else { return }
            let h = Unmanaged<Harness>.fromOpaque(user).takeUnretainedValue()
            h.questionEnds[q.pointee.question_id, default: 0] += 1
            if h.questionEnds[q.pointee.question_id] != 1 { h.anomalies.append("question \(q.pointee.question_id) ended twice") }
        }
        var c: OpaquePointer?
        let st = ng_context_create(&opts, &c)
        if st != NG_OK || c == nil {
            anomalies.append("ng_context_create: \(statusName(st))")
            return
        }
        ctx = c
        var root = ng_screen(id: 1, route: cstr("home"), identity: nil)
        expect(ng_stack_set_root(ctx, &root), "ng_stack_set_root")
        addViews()
    }

    deinit { destroy() }

    /// ng_context_destroy (guards destroyed in reverse chain order).
    @discardableResult
    func destroy() -> ng_status {
        guard let c = ctx else { return NG_OK }
        ctx = nil
        return ng_context_destroy(c)
    }

    func expect(_ st: ng_status, _ what: String) {
        if st != NG_OK { anomalies.append("\(what): \(statusCode(st)): \(errmsg)") }
    }

    var errmsg: String { text(ng_errmsg(ctx)) ?? "" }

    /// Add the guard under test through the proxy; the status and, on
    /// failure, the detail (ng_errmsg and what the guard logged).
    func addGuard(_ descriptor: UnsafePointer<ng_plugin_descriptor>, config: String?) -> (ng_status, String) {
        let before = logs.count
        let st = config.map { ng_chain_add(ctx, descriptor, $0) } ?? ng_chain_add(ctx, descriptor, nil)
        return (st, st == NG_OK ? "" : failureDetail(st, logsFrom: before))
    }

    func failureDetail(_ st: ng_status, logsFrom: Int) -> String {
        var d = "\(statusCode(st)): \(errmsg)"
        let newLogs = logs[min(logsFrom, logs.count)...]
        if !newLogs.isEmpty { d += " (log: \(newLogs.joined(separator: "; ")))" }
        return d
    }

    // MARK: Time

    var now: Int64 {
        var t: Int64 = 0
        _ = ng_now(ctx, &t)
        return t
    }

    func advance(_ ns: Int64) {
        expect(ng_clock_advance(ctx, ns), "ng_clock_advance")
    }

    func tick() { expect(ng_tick(ctx), "ng_tick") }

    /// Let time pass so rate limits reset, end what is in flight, run ticks.
    func settle() {
        _ = ng_transition_finish(ctx, NG_TRACK_ALL)
        advance(Harness.second)
        tick()
    }

    var depth: Int {
        var n = 0
        _ = ng_stack_count(ctx, &n)
        return n
    }

    func screenID(at index: Int) -> UInt64 {
        var info = ng_screen_info()
        info.size = UInt32(MemoryLayout<ng_screen_info>.size)
        guard ng_stack_get(ctx, index, &info) == NG_OK else { return 0 }
        return info.id
    }

    // MARK: Requests

    func newScreen(_ route: String, identity: String? = nil) -> ng_screen {
        defer { nextScreenID += 1 }
        return ng_screen(id: nextScreenID, route: cstr(route), identity: identity.map { cstr($0) })
    }

    @discardableResult
    func submit(_ kind: ng_request_kind, animated: Bool = false, timed: Bool = false, duration: Int64 = 0,
                screen: ng_screen? = nil, target: UInt64 = 0, stack: [ng_screen] = [],
                source: UInt32? = nil, screenFlags: UInt32 = 0, fromScreen: UInt64 = 0) -> ng_request_result {
        var r = ng_request()
        r.size = UInt32(MemoryLayout<ng_request>.size)
        r.kind = kind
        r.flags = (animated ? NG_REQF_ANIMATED : 0) | (timed ? NG_REQF_TIMED : 0)
        r.source = source ?? self.source
        r.screen_flags = screenFlags
        r.from_screen = fromScreen
        if let screen { r.screen = screen }
        r.target_id = target
        r.duration_ns = duration
        var out = ng_request_result()
        out.size = UInt32(MemoryLayout<ng_request_result>.size)
        let st: ng_status = stack.withUnsafeBufferPointer { buf in
            r.screens = buf.baseAddress
            r.screen_count = buf.count
            return ng_request_submit(ctx, &r, &out)
        }
        expect(st, "ng_request_submit(\(text(ng_request_kind_name(kind)) ?? "?"))")
        return out
    }

    @discardableResult
    func post(_ kind: ng_request_kind, screen: ng_screen? = nil) -> UInt64 {
        var r = ng_request()
        r.size = UInt32(MemoryLayout<ng_request>.size)
        r.kind = kind
        r.source = source
        if let screen { r.screen = screen }
        var id: UInt64 = 0
        expect(ng_request_post(ctx, &r, &id), "ng_request_post")
        return id
    }

    /// Push until the stack has `n` screens (or pushes keep being refused).
    func ensureDepth(_ n: Int) {
        if depth < n { step("push screens until the stack has \(n)") }
        var tries = 0
        while depth < n && tries < n + 4 {
            tries += 1
            settle()
            let res = submit(NG_REQ_PUSH, screen: newScreen("page\(nextScreenID)"))
            if res.status == NG_OUTCOME_REFUSED {
                settle()
                submit(NG_REQ_PUSH, screen: newScreen("other\(nextScreenID)"), source: 77)
            }
        }
        settle()
    }

    /// A short account of the outcomes recorded since `mark`.
    func outcomeSummary(since mark: Int) -> String {
        let slice = outcomes[min(mark, outcomes.count)...]
        var applied = 0, refused = 0, dropped = 0
        var why: [String: Int] = [:]
        for (o, reason, guardID) in slice {
            switch o {
            case NG_OUTCOME_APPLIED: applied += 1
            case NG_OUTCOME_REFUSED, NG_OUTCOME_DROPPED:
                if o == NG_OUTCOME_REFUSED { refused += 1 } else { dropped += 1 }
                let key = "\(text(ng_reason_name(reason)) ?? "?")\(guardID.map { " by \($0)" } ?? "")"
                why[key, default: 0] += 1
            default: break
            }
        }
        var s = "\(slice.count) outcomes: \(applied) applied, \(refused) refused, \(dropped) dropped"
        if !why.isEmpty {
            s += " (" + why.keys.sorted().map { "\($0) x\(why[$0]!)" }.joined(separator: ", ") + ")"
        }
        return s
    }

    // MARK: Holds

    @discardableResult
    func holdBegin(_ label: String, mask: UInt32, max: Int64 = 0) -> UInt64 {
        var token: UInt64 = 0
        expect(ng_hold_begin(ctx, label, mask, max, &token), "ng_hold_begin")
        return token
    }

    // MARK: Views and events

    private func view(_ id: UInt64, parent: UInt64 = 0, frame: ng_rect, flags: UInt32 = 0, order: Int32 = 0,
                      configure: (inout ng_view) -> Void = { _ in }) {
        var v = ng_view()
        v.size = UInt32(MemoryLayout<ng_view>.size)
        v.id = id
        v.parent = parent
        v.frame = frame
        v.flags = flags
        v.order = order
        v.alpha = 1.0
        v.shape.kind = NG_SHAPE_BOUNDS
        configure(&v)
        expect(ng_view_set(ctx, &v), "ng_view_set(\(id))")
    }

    nonisolated(unsafe) static let starPoints: UnsafeMutablePointer<ng_point> = {
        let pts: [(Double, Double)] = [(50, 0), (61, 35), (98, 35), (68, 57), (79, 91), (50, 70), (21, 91), (32, 57), (2, 35), (39, 35)]
        let p = UnsafeMutablePointer<ng_point>.allocate(capacity: pts.count)
        for (i, (x, y)) in pts.enumerated() { p[i] = ng_point(x: x, y: y) }
        return p
    }()

    func addViews() {
        view(Harness.window, frame: ng_rect(x: 0, y: 0, width: 800, height: 600))
        view(Harness.button, parent: Harness.window, frame: ng_rect(x: 40, y: 40, width: 100, height: 40),
             flags: NG_VIEWF_EXCLUSIVE_TOUCH, order: 1) { v in
            v.shape.kind = NG_SHAPE_INSETS
            v.shape.top = -20; v.shape.bottom = -20; v.shape.left = -30; v.shape.right = -30
        }
        view(Harness.multi, parent: Harness.window, frame: ng_rect(x: 200, y: 40, width: 200, height: 200),
             flags: NG_VIEWF_MULTI_TOUCH, order: 2)
        view(Harness.circle, parent: Harness.window, frame: ng_rect(x: 500, y: 40, width: 100, height: 100), order: 3) { v in
            v.shape.kind = NG_SHAPE_CIRCLE
            v.shape.cx = 50; v.shape.cy = 50; v.shape.radius = 50
        }
        view(Harness.star, parent: Harness.window, frame: ng_rect(x: 500, y: 300, width: 100, height: 100), order: 4) { v in
            v.shape.kind = NG_SHAPE_POLYGON
            v.shape.points = UnsafePointer(Harness.starPoints)
            v.shape.point_count = 10
        }
        view(Harness.hidden, parent: Harness.window, frame: ng_rect(x: 0, y: 400, width: 100, height: 100),
             flags: NG_VIEWF_HIDDEN, order: 5)
        view(Harness.disabled, parent: Harness.window, frame: ng_rect(x: 150, y: 400, width: 100, height: 100),
             flags: NG_VIEWF_DISABLED, order: 6)
    }

    func removeView(_ id: UInt64) { _ = ng_view_remove(ctx, id) }

    /// Centre points of the views, in window coordinates.
    static func point(of view: UInt64) -> (Double, Double) {
        switch view {
        case button: return (90, 60)
        case multi: return (300, 140)
        case circle: return (550, 90)
        case star: return (550, 350)
        case hidden: return (50, 450)
        case disabled: return (200, 450)
        default: return (700, 550)
        }
    }

    @discardableResult
    func event(_ type: ng_event_type, phase: Int32 = 0, touch: UInt64 = 0, at p: (Double, Double) = (0, 0),
               target: UInt64? = nil, code: Int64 = 0) -> ng_event_result {
        var e = ng_event()
        e.size = UInt32(MemoryLayout<ng_event>.size)
        e.type = type
        e.phase = phase
        e.touch_id = touch
        e.timestamp_ns = now
        e.x = p.0
        e.y = p.1
        e.code = code
        if let target {
            e.flags = NG_EVF_HAS_TARGET
            e.target_view = target
        }
        var out = ng_event_result()
        out.size = UInt32(MemoryLayout<ng_event_result>.size)
        var maskBefore: UInt32 = 0
        _ = ng_hold_state(ctx, &maskBefore, nil)
        let st = ng_event_submit(ctx, &e, &out)
        // A began that nothing blocked before the call, dropped by the core
        // as cancelled (no guard refused it) or blocked by a hold begun
        // meanwhile: the guard's own action in its vote did it (a
        // touch-blocking hold, a touch cancel).
        let coreCancel = out.reason == NG_REASON_CANCELLED && out.guard_id == nil
        let holdBlocked = out.reason == NG_REASON_IGNORING && out.hold_token != 0
        if st == NG_OK && type == NG_EVENT_TOUCH && phase == NG_TOUCH_BEGAN && out.verdict == NG_VERDICT_DROP
            && maskBefore & UInt32(NG_MASK_TOUCH) == 0 && (coreCancel || holdBlocked) {
            beganSelfCancels.append("touch \(touch) (\(String(cString: ng_reason_name(out.reason))))")
        }
        if st != NG_OK {
            anomalies.append("ng_event_submit(type \(type), phase \(phase)): \(statusCode(st)): \(errmsg)")
        } else if out.verdict == NG_VERDICT_DELIVER {
            delivered += 1
        } else {
            dropped += 1
        }
        return out
    }

    /// A whole touch: began, a few moves, then ended (or cancelled).
    func touch(on view: UInt64, cancel: Bool = false, useTarget: Bool = false) {
        let id = nextTouchID
        nextTouchID += 1
        let (x, y) = Harness.point(of: view)
        let target: UInt64? = useTarget ? view : nil
        event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: id, at: (x, y), target: target)
        advance(8 * Harness.ms)
        event(NG_EVENT_TOUCH, phase: NG_TOUCH_MOVED, touch: id, at: (x + 1, y + 1), target: target)
        advance(8 * Harness.ms)
        event(NG_EVENT_TOUCH, phase: NG_TOUCH_MOVED, touch: id, at: (x + 300, y + 300), target: target)
        advance(8 * Harness.ms)
        event(NG_EVENT_TOUCH, phase: cancel ? NG_TOUCH_CANCELLED : NG_TOUCH_ENDED, touch: id, at: (x, y), target: target)
    }

    /// Counters at the start of a check, for the check's own account.
    struct Mark {
        var outcomes, anomalies, delivered, dropped, touchCancels, holdEnds, transitions, reports, selfCancels: Int
    }

    func mark() -> Mark {
        Mark(outcomes: outcomes.count, anomalies: anomalies.count, delivered: delivered, dropped: dropped,
             touchCancels: touchCancels, holdEnds: holdEnds, transitions: transitions, reports: reports,
             selfCancels: beganSelfCancels.count)
    }

    /// What happened since `m`: outcomes, then the non-zero event, hold,
    /// transition and report counts.
    func summary(since m: Mark) -> String {
        var parts = [outcomeSummary(since: m.outcomes)]
        let events = (delivered - m.delivered) + (dropped - m.dropped)
        if events > 0 { parts.append("\(events) events: \(delivered - m.delivered) delivered, \(dropped - m.dropped) dropped") }
        if touchCancels > m.touchCancels { parts.append("\(touchCancels - m.touchCancels) touch cancels") }
        if holdEnds > m.holdEnds { parts.append("\(holdEnds - m.holdEnds) holds ended") }
        if transitions > m.transitions { parts.append("\(transitions - m.transitions) transition phases") }
        if reports > m.reports { parts.append("\(reports - m.reports) reports") }
        return parts.joined(separator: "; ")
    }
}
