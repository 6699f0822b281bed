// SPDX-License-Identifier: Apache-2.0
// Shared helpers for the core test suites: a recording EngineObserver that
// checks the callback rules as events arrive, a seeded PRNG, and guards
// written against plugin.h (descriptors built in Swift with C closures).
import CNavGuard
@testable import NavGuardCore
import Testing

// MARK: - Seeded PRNG

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, deterministic.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &self) }
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &self) < percent }
}

// MARK: - Recorded events

/// One callback as the observer saw it.
enum Ev: Equatable, CustomStringConvertible {
    case outcome(id: UInt64, kind: RequestKind, outcome: Outcome, reason: Reason, guardID: String?)
    case transition(track: Int32, phase: Int32, id: UInt64, flags: UInt32, from: UInt64, to: UInt64)
    case holdEnded(token: UInt64, reason: Int32, mask: UInt32, label: String?, began: Int64, ended: Int64)
    case report(guardID: String?, text: String)
    case log(severity: Int32, guardID: String?, message: String)
    /// A marker the test itself recorded (e.g. "callback for 3 returns").
    case mark(String)

    var description: String {
        switch self {
        case let .outcome(id, kind, o, r, g):
            return "outcome(#\(id) kind \(kind.rawValue) \(o.rawValue) reason \(r.rawValue) guard \(g ?? "-"))"
        case let .transition(t, p, id, f, from, to):
            return "\(t == NG_TRACK_SCREEN ? "screen" : "bar") \(["WILL", "DID", "CANCELLED"][Int(p)]) #\(id) flags \(f) \(from)->\(to)"
        case let .holdEnded(tok, r, m, l, b, e): return "holdEnded(\(tok) reason \(r) mask \(m) \(l ?? "-") \(b)..\(e))"
        case let .report(g, t): return "report(\(g ?? "-"): \(t))"
        case let .log(s, g, m): return "log(\(s) \(g ?? "-"): \(m))"
        case let .mark(s): return "mark(\(s))"
        }
    }
}

/// Shorthand for the transition events tests compare against.
func tr(_ track: Int32, _ phase: Int32, _ id: UInt64, flags: UInt32 = 0, _ from: UInt64, _ to: UInt64) -> Ev {
    .transition(track: track, phase: phase, id: id, flags: flags, from: from, to: to)
}

let ANIM = UInt32(NG_TRANSF_ANIMATED)
let INTER = UInt32(NG_TRANSF_INTERACTIVE)
let INTERRUPTED = UInt32(NG_TRANSF_INTERRUPTED)
let FORCED = UInt32(NG_TRANSF_FORCED)
let S = NG_TRACK_SCREEN
let B = NG_TRACK_BAR
let WILL = NG_PHASE_WILL
let DID = NG_PHASE_DID
let CANCELLED = NG_PHASE_CANCELLED

// MARK: - CallbackLog

/// An EngineObserver that records every callback and checks, as they
/// arrive, the rules every callback sequence must follow:
///  * callbacks never nest (depth is at most 1);
///  * exactly one outcome per request id, and it is final;
///  * on each track a WILL is followed by a DID or CANCELLED of the same
///    request before the next WILL;
///  * a CANCELLED request never gets a DID.
final class CallbackLog: EngineObserver {
    weak var engine: Engine?
    var keepLog = true
    var events: [Ev] = []
    var violations: [String] = []

    var depth = 0
    var maxDepth = 0
    var callbackCount = 0

    /// Final outcome per request id.
    var outcomes: [UInt64: OutcomeRecord] = [:]
    var outcomeOrder: [UInt64] = []
    /// Request id in flight per track, as the callbacks describe it.
    var open: [UInt64] = [0, 0]
    var openFlags: [UInt32] = [0, 0]
    var cancelled: Set<UInt64> = []
    /// The last end (request id, phase) seen on each track.
    var lastEnd: [(id: UInt64, phase: Int32)] = [(0, 0), (0, 0)]
    /// Holds that ended, by token.
    var endedHolds: [UInt64: HoldEndRecord] = [:]

    /// Hooks the tests use to act from inside a callback.
    var onOutcome: ((OutcomeRecord) -> Void)?
    var onTransition: ((ng_transition_event) -> Void)?
    var onHoldEnded: ((HoldEndRecord) -> Void)?

    init(engine: Engine? = nil) { self.engine = engine }

    func reset() {
        events.removeAll(keepingCapacity: true)
        violations.removeAll()
        outcomes.removeAll(keepingCapacity: true)
        outcomeOrder.removeAll(keepingCapacity: true)
        open = [0, 0]
        openFlags = [0, 0]
        cancelled.removeAll(keepingCapacity: true)
        lastEnd = [(0, 0), (0, 0)]
        endedHolds.removeAll(keepingCapacity: true)
        depth = 0
        maxDepth = 0
        callbackCount = 0
    }

    private func enter(_ what: StaticString) {
        depth += 1
        callbackCount += 1
        if depth > maxDepth { maxDepth = depth }
        if depth > 1 { violations.append("nested callback (\(what)) at depth \(depth)") }
        if let e = engine, !e.isInsideCallback {
            violations.append("\(what) called while the engine is not inside a callback")
        }
    }

    private func leave() { depth -= 1 }

    func engineOutcome(_ o: OutcomeRecord) {
        enter("outcome")
        defer { leave() }
        if keepLog {
            events.append(.outcome(id: o.requestID, kind: o.kind, outcome: o.outcome, reason: o.reason,
                                   guardID: o.guardID.map { String(cString: $0) }))
        }
        if outcomes[o.requestID] != nil {
            violations.append("second outcome for request \(o.requestID)")
        } else {
            outcomes[o.requestID] = o
            outcomeOrder.append(o.requestID)
        }
        if o.outcome != .applied && o.outcome != .refused && o.outcome != .dropped {
            violations.append("non-final outcome \(o.outcome.rawValue) for request \(o.requestID)")
        }
        if o.outcome == .applied && o.reason != .none {
            violations.append("applied request \(o.requestID) has reason \(o.reason.rawValue)")
        }
        if o.outcome != .applied && (o.reason == .none || !o.reason.isKnown) {
            violations.append("request \(o.requestID) ended \(o.outcome.rawValue) with reason \(o.reason.rawValue)")
        }
        onOutcome?(o)
    }

    func engineTransition(_ e: ng_transition_event) {
        enter("transition")
        defer { leave() }
        if keepLog {
            events.append(.transition(track: e.track, phase: e.phase, id: e.request_id, flags: e.flags,
                                      from: e.from_id, to: e.to_id))
        }
        guard e.track == NG_TRACK_SCREEN || e.track == NG_TRACK_BAR else {
            violations.append("transition on track \(e.track)")
            return
        }
        let t = Int(e.track)
        switch e.phase {
        case NG_PHASE_WILL:
            if open[t] != 0 {
                violations.append("WILL of \(e.request_id) on track \(t) while \(open[t]) is in flight")
            }
            open[t] = e.request_id
            openFlags[t] = e.flags
        case NG_PHASE_DID:
            if open[t] != e.request_id {
                violations.append("DID of \(e.request_id) on track \(t), in flight: \(open[t])")
            }
            if cancelled.contains(e.request_id) {
                violations.append("DID of \(e.request_id) after it was CANCELLED")
            }
            open[t] = 0
            lastEnd[t] = (e.request_id, NG_PHASE_DID)
        case NG_PHASE_CANCELLED:
            if open[t] != e.request_id {
                violations.append("CANCELLED of \(e.request_id) on track \(t), in flight: \(open[t])")
            }
            if e.flags & INTER == 0 {
                violations.append("CANCELLED of non-interactive request \(e.request_id)")
            }
            if e.to_id != e.from_id {
                violations.append("CANCELLED of \(e.request_id): to \(e.to_id) != from \(e.from_id)")
            }
            if lastEnd[1 - t].id == e.request_id && lastEnd[1 - t].phase == NG_PHASE_DID {
                violations.append("request \(e.request_id) ended DID on one track and CANCELLED on the other")
            }
            cancelled.insert(e.request_id)
            open[t] = 0
            lastEnd[t] = (e.request_id, NG_PHASE_CANCELLED)
        default:
            violations.append("unknown phase \(e.phase)")
        }
        onTransition?(e)
    }

    func engineHoldEnded(_ h: HoldEndRecord) {
        enter("hold")
        defer { leave() }
        if keepLog {
            events.append(.holdEnded(token: h.token, reason: h.reason, mask: h.mask, label: h.label?.string,
                                     began: h.beganNs, ended: h.endedNs))
        }
        if endedHolds[h.token] != nil { violations.append("hold \(h.token) ended twice") }
        endedHolds[h.token] = h
        onHoldEnded?(h)
    }

    func engineReport(guardID: UnsafePointer<CChar>?, text: CStr) {
        enter("report")
        defer { leave() }
        if keepLog { events.append(.report(guardID: guardID.map { String(cString: $0) }, text: text.string)) }
    }

    func engineLog(severity: Int32, guardID: UnsafePointer<CChar>?, message: CStr) {
        enter("log")
        defer { leave() }
        if keepLog { events.append(.log(severity: severity, guardID: guardID.map { String(cString: $0) }, message: message.string)) }
    }

    /// Touch ids NavGuard cancelled, in order.
    var touchCancels: [UInt64] = []
    var onTouchCancel: ((ng_touch_info) -> Void)?

    func engineTouchCancelled(_ touch: ng_touch_info) {
        enter("touch cancel")
        defer { leave() }
        touchCancels.append(touch.touch_id)
        onTouchCancel?(touch)
    }

    /// Questions asked (id -> the question as asked) and how each ended:
    /// every question must end exactly once.
    var questions: [UInt64: ng_question] = [:]
    var questionOrder: [UInt64] = []
    var questionEnds: [UInt64: Int32] = [:]
    var onQuestion: ((ng_question) -> Void)?
    var onQuestionEnded: ((ng_question, Int32) -> Void)?

    func engineQuestion(_ q: ng_question) {
        enter("question")
        defer { leave() }
        if questions[q.question_id] != nil { violations.append("question \(q.question_id) asked twice") }
        if let open = questionOrder.last, questionEnds[open] == nil {
            violations.append("question \(q.question_id) asked while \(open) is open")
        }
        questions[q.question_id] = q
        questionOrder.append(q.question_id)
        onQuestion?(q)
    }

    func engineQuestionEnded(_ q: ng_question, answer: Int32) {
        enter("question end")
        defer { leave() }
        if questions[q.question_id] == nil { violations.append("question \(q.question_id) ended, never asked") }
        if questionEnds[q.question_id] != nil { violations.append("question \(q.question_id) ended twice") }
        questionEnds[q.question_id] = answer
        onQuestionEnded?(q, answer)
    }

    func mark(_ s: String) { events.append(.mark(s)) }

    var transitions: [Ev] {
        events.filter { if case .transition = $0 { return true } else { return false } }
    }

    func outcomeEvents(_ id: UInt64) -> [OutcomeRecord] {
        outcomes[id].map { [$0] } ?? []
    }
}

// MARK: - Test guards (plugin.h)

/// Duplicate a Swift string into malloc'd memory that is never freed: the
/// descriptors built from these strings must outlive every engine that uses
/// them (plugin.h: "the descriptor and its strings must stay valid").
func leakedCString(_ s: String) -> UnsafePointer<CChar> {
    let bytes = Array(s.utf8)
    let p = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
    for (i, b) in bytes.enumerated() { p[i] = CChar(bitPattern: b) }
    p[bytes.count] = 0
    return UnsafePointer(p)
}

@inline(__always)
func testGuard(_ p: UnsafeMutableRawPointer?) -> TestGuard {
    Unmanaged<TestGuard>.fromOpaque(p!).takeUnretainedValue()
}

/// Build a descriptor whose hooks forward to the TestGuard instance. The
/// instance comes from the config object's "box" key (the address of a
/// TestGuard the test made), is retained by create and released by destroy.
/// Allocated once and never freed (static storage for the engine's life).
func makeDescriptor(id: String, tweak: (inout ng_plugin_descriptor) -> Void = { _ in }) -> UnsafePointer<ng_plugin_descriptor> {
    var d = ng_plugin_descriptor()
    d.abi_major = UInt32(NG_PLUGIN_ABI_MAJOR)
    d.abi_minor = UInt32(NG_PLUGIN_ABI_MINOR)
    d.size = UInt32(MemoryLayout<ng_plugin_descriptor>.size)
    d.id = leakedCString(id)
    d.name = leakedCString("test guard \(id)")
    d.version = leakedCString("1.0")
    d.description = leakedCString("a guard driven by a Swift test")
    d.create = { host, config in
        guard let host else { return nil }
        var addr: Int64 = 0
        guard host.pointee.config_int!(host, "box", &addr) == NG_OK,
              let raw = UnsafeMutableRawPointer(bitPattern: Int(addr)) else {
            host.pointee.log!(host, NG_LOG_ERROR, "test guard: no \"box\" in the config")
            return nil
        }
        let g = Unmanaged<TestGuard>.fromOpaque(raw).takeUnretainedValue()
        g.host = host
        g.configText = config.map { String(cString: $0) }
        g.createCount += 1
        if let c = g.onCreate, !c(g) { return nil }
        return Unmanaged.passRetained(g).toOpaque()
    }
    d.destroy = { inst in
        let u = Unmanaged<TestGuard>.fromOpaque(inst!)
        let g = u.takeUnretainedValue()
        g.destroyCount += 1
        g.onDestroy?(g)
        g.host = nil
        u.release()
    }
    d.on_request = { inst, req, verdict in
        let g = testGuard(inst)
        let r = req!.pointee
        g.seen.append((r.request_id, r.kind, r.attempt))
        return g.vote(g, r, verdict!)
    }
    d.on_event = { inst, ev, _ in
        let g = testGuard(inst)
        return g.onEvent?(g, ev!.pointee) ?? NG_VOTE_ALLOW
    }
    d.on_outcome = { inst, o in
        let g = testGuard(inst)
        g.outcomesSeen.append(o!.pointee.request_id)
        g.onOutcome?(g, o!.pointee)
    }
    d.on_transition = { inst, e in
        let g = testGuard(inst)
        g.onTransition?(g, e!.pointee)
    }
    d.on_hold = { inst, n in
        let g = testGuard(inst)
        g.holdNotices.append((n!.pointee.token, n!.pointee.ended, n!.pointee.reason))
        g.onHold?(g, n!.pointee)
    }
    d.on_tick = { inst, now in
        let g = testGuard(inst)
        g.ticks += 1
        g.onTick?(g, now)
    }
    d.next_deadline = { inst in
        let g = testGuard(inst)
        return g.nextDeadline(g)
    }
    d.get_extension = { _, _ in nil }
    d.on_answer = { inst, q, a in
        let g = testGuard(inst)
        g.answers.append((q!.pointee.question_id, a))
        g.onAnswer?(g, q!.pointee, a)
    }
    tweak(&d)
    let p = UnsafeMutablePointer<ng_plugin_descriptor>.allocate(capacity: 1)
    p.initialize(to: d)
    return UnsafePointer(p)
}

/// A guard instance whose behaviour the test sets with Swift closures.
final class TestGuard {
    let descriptor: UnsafePointer<ng_plugin_descriptor>
    var host: UnsafePointer<ng_guard_host>?
    var configText: String?
    var createCount = 0
    var destroyCount = 0
    var ticks = 0
    /// (request id, kind, attempt) of every request the guard voted on.
    var seen: [(id: UInt64, kind: Int32, attempt: UInt32)] = []
    var outcomesSeen: [UInt64] = []
    var holdNotices: [(token: UInt64, ended: Bool, reason: Int32)] = []

    var vote: (TestGuard, ng_guard_request, UnsafeMutablePointer<ng_verdict>) -> ng_vote = { _, _, _ in NG_VOTE_ALLOW }
    var onCreate: ((TestGuard) -> Bool)?
    var onDestroy: ((TestGuard) -> Void)?
    var onOutcome: ((TestGuard, ng_outcome) -> Void)?
    var onTransition: ((TestGuard, ng_transition_event) -> Void)?
    var onTick: ((TestGuard, Int64) -> Void)?
    var onEvent: ((TestGuard, ng_guard_event) -> ng_vote)?
    var onHold: ((TestGuard, ng_hold_notice) -> Void)?
    var onAnswer: ((TestGuard, ng_question, ng_answer) -> Void)?
    /// (question id, answer) of every on_answer.
    var answers: [(id: UInt64, answer: ng_answer)] = []
    var nextDeadline: (TestGuard) -> Int64 = { _ in Int64.max }

    init(id: String) { descriptor = makeDescriptor(id: id) }
    init(descriptor: UnsafePointer<ng_plugin_descriptor>) { self.descriptor = descriptor }

    var id: String { String(cString: descriptor.pointee.id) }

    /// The config text handed to ng_chain_add / addGuard: {"box": <address>, extra...}.
    func config(_ extra: String = "") -> String {
        let addr = Int(bitPattern: Unmanaged.passUnretained(self).toOpaque())
        return extra.isEmpty ? "{\"box\":\(addr)}" : "{\"box\":\(addr),\(extra)}"
    }

    /// Add this guard to the end of an engine's chain.
    func add(to e: Engine, extra: String = "") throws(EngineError) {
        try e.addGuard(descriptor, configText: config(extra))
    }

    // Host services.
    var h: UnsafePointer<ng_guard_host> { host! }
    func busy(_ track: Int32) -> Bool { h.pointee.track_get!(h, track, nil) }
    var busy: Bool { busy(NG_TRACK_SCREEN) || busy(NG_TRACK_BAR) }
    func deferredApply(_ id: UInt64) -> ng_status { h.pointee.deferred_apply!(h, id) }
    func deferredDrop(_ id: UInt64, _ reason: ng_reason, _ message: String? = nil) -> ng_status {
        if let message { return h.pointee.deferred_drop!(h, id, reason, message) }
        return h.pointee.deferred_drop!(h, id, reason, nil)
    }
    var deferredCount: Int { h.pointee.deferred_count!(h) }

    /// host->ask; the status and the question id.
    func ask(_ topic: String, text: String? = nil, request: UInt64 = 0, kind: Int32 = 0, screen: UInt64 = 0,
             timeoutNs: Int64 = 0) -> (ng_status, UInt64) {
        var q = ng_question_spec()
        q.size = UInt32(MemoryLayout<ng_question_spec>.size)
        q.request_id = request
        q.kind = kind
        q.screen_id = screen
        q.timeout_ns = timeoutNs
        var id: UInt64 = 0
        let st = topic.withCString { t in
            q.topic = t
            guard let text else { return h.pointee.ask!(h, &q, &id) }
            return text.withCString { x in
                q.text = x
                return h.pointee.ask!(h, &q, &id)
            }
        }
        return (st, id)
    }

    /// host->request_submit of a request without strings (pops, back...).
    func submit(_ kind: Int32, flags: UInt32 = 0, fromScreen: UInt64 = 0) -> (ng_status, UInt64) {
        var r = ng_request()
        r.size = UInt32(MemoryLayout<ng_request>.size)
        r.kind = kind
        r.flags = flags
        r.from_screen = fromScreen
        var id: UInt64 = 0
        let st = h.pointee.request_submit!(h, &r, &id)
        return (st, id)
    }
}

// MARK: - Guard behaviours

/// Refuse with `reason` and a static message.
func refuse(_ v: UnsafeMutablePointer<ng_verdict>, _ reason: ng_reason, _ message: StaticString? = nil) -> ng_vote {
    v.pointee.reason = reason
    v.pointee.message = message.map { UnsafeRawPointer($0.utf8Start).assumingMemoryBound(to: CChar.self) }
    return NG_VOTE_REFUSE
}

/// A guard that refuses every request while a transition is in flight
/// (the "transition" built-in in refuse mode).
func busyRefuser(id: String = "test.busy") -> TestGuard {
    let g = TestGuard(id: id)
    g.vote = { g, _, v in g.busy ? refuse(v, NG_REASON_BUSY, "a transition is in flight") : NG_VOTE_ALLOW }
    return g
}

/// A guard that refuses everything with `reason`.
func refuser(id: String, reason: ng_reason = NG_REASON_POLICY) -> TestGuard {
    let g = TestGuard(id: id)
    g.vote = { _, _, v in refuse(v, reason, "refused by test") }
    return g
}

/// A queueing guard: defers requests while a transition is in flight (and
/// fresh ones while older ones wait, to keep their order), and applies the
/// oldest deferred request whenever the engine is idle. At most `bound`
/// requests wait; a newer one drops the oldest (NG_REASON_QUEUE_FULL).
final class QueueGuard {
    let g: TestGuard
    var waiting: [UInt64] = []
    let bound: Int
    var applyCalls = 0

    init(descriptor: UnsafePointer<ng_plugin_descriptor>, bound: Int = 3) {
        g = TestGuard(descriptor: descriptor)
        self.bound = bound
        g.vote = { [unowned self] g, r, _ in
            if g.busy || (r.attempt == 0 && !self.waiting.isEmpty) {
                if r.attempt > 0 { self.waiting.insert(r.request_id, at: 0) } else { self.waiting.append(r.request_id) }
                if self.waiting.count > self.bound {
                    let oldest = self.waiting.removeFirst()
                    _ = g.deferredDrop(oldest, NG_REASON_QUEUE_FULL, "queue full")
                }
                return NG_VOTE_DEFER
            }
            return NG_VOTE_ALLOW
        }
        g.onOutcome = { [unowned self] g, o in
            self.waiting.removeAll { $0 == o.request_id }
            self.pump(g)
        }
        g.onTransition = { [unowned self] g, e in
            if e.phase != NG_PHASE_WILL { self.pump(g) }
        }
        g.onTick = { [unowned self] g, _ in self.pump(g) }
        g.nextDeadline = { [unowned self] _ in self.waiting.isEmpty ? Int64.max : 0 }
    }

    func pump(_ g: TestGuard) {
        guard !g.busy, !waiting.isEmpty else { return }
        let id = waiting.removeFirst()
        applyCalls += 1
        _ = g.deferredApply(id)
    }
}

// MARK: - Engine helpers

func makeEngine(root: UInt64? = 1, route: String = "root", defaultDurationNs: Int64 = 350_000_000) -> (Engine, CallbackLog) {
    let e = Engine(EngineConfig(clock: .manual(startNs: 0), defaultDurationNs: defaultDurationNs))
    let rec = CallbackLog(engine: e)
    e.observer = rec
    if let root { try! e.setRoot(Screen(id: root, route: route)) }
    return (e, rec)
}

extension Engine {
    var ids: [UInt64] { (0..<stackCount).map { screen(at: $0)!.id } }
    /// (id, route, identity) of every screen, bottom first.
    var fullStack: [String] {
        (0..<stackCount).map { let s = screen(at: $0)!; return "\(s.id)|\(s.route.string)|\(s.identity.string)" }
    }

    /// The stack once the swipe in flight settles as decided (a request
    /// applied now first completes it that way).
    var settledFullStack: [String] {
        let st = settledStack
        return (0..<st.count).map { let s = st[$0]; return "\(s.id)|\(s.route.string)|\(s.identity.string)" }
    }

    @discardableResult
    func push(_ id: UInt64, _ route: String? = nil, identity: String? = nil, flags: UInt32 = 0, source: UInt32 = 0) -> SubmitResult {
        submit(.push(Screen(id: id, route: route ?? "screen\(id)", identity: identity), flags: flags, source: source))
    }

    @discardableResult
    func request(_ kind: RequestKind, flags: UInt32 = 0) -> SubmitResult { submit(Request(kind: kind, flags: flags)) }
}

let ANIMATED = UInt32(NG_REQF_ANIMATED)
let TIMED = UInt32(NG_REQF_TIMED)
let ms: Int64 = 1_000_000

/// The NG_* status an engine call ends with (NG_OK when it does not throw).
func statusOf(_ body: () throws(EngineError) -> Void) -> Int32 {
    do { try body(); return NG_OK } catch { return error.status }
}

/// The callback rules held throughout (the CallbackLog checks them as they come).
func expectClean(_ rec: CallbackLog, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(rec.violations == [], sourceLocation: sourceLocation)
    #expect(rec.depth == 0, sourceLocation: sourceLocation)
    #expect(rec.maxDepth <= 1, sourceLocation: sourceLocation)
}
