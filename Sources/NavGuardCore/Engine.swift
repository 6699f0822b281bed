// SPDX-License-Identifier: Apache-2.0
import CNavGuard

/// The deterministic navigation core. Not thread-safe: the ABI layer
/// guarantees one thread (the context's owner) at a time.
///
/// The engine owns its parts, each a type with its own invariants:
///   `stack` (ScreenStack), `transitions` (Transitions, with the Swipe),
///   `holds` (HoldSet), `deferred` (DeferredRequests), `run` (RunQueue:
///   run-to-completion and re-entrancy), `chain` (GuardChain: slots and hook
///   tables), `touches` (TouchTable), `presses` (PressTable), `questions`
///   (QuestionDesk) and `views` (ViewTree).
/// What crosses parts lives here and in the extensions named for a concern
/// (Engine+Chain, +Descriptors, +Events, +Holds, +HostTable, +Presses,
/// +Questions, +Requests, +SlowVotes, +Snapshot, +State, +Transitions, +WorkCap):
/// every guard action goes through `act`, every queued piece of work through
/// `drain`.
public final class Engine {
    /// Every change of the stack passes this observer: the one place an
    /// open question about an older stack is withdrawn (QuestionDesk).
    var stack = ScreenStack() {
        didSet {
            partsVersion &+= 1
            if questions.isOpen { withdrawQuestionIfStackMoved() }
        }
    }
    var transitions = Transitions() { didSet { partsVersion &+= 1 } }
    var holds = HoldSet() { didSet { partsVersion &+= 1 } }
    var deferred = DeferredRequests() { didSet { partsVersion &+= 1 } }
    var run = RunQueue()
    let chain = GuardChain()
    /// Counts its own changes (a moved touch is none).
    var touches = TouchTable()
    /// Keys and buttons held (PressTable).
    var presses = PressTable()
    var questions = QuestionDesk() { didSet { partsVersion &+= 1 } }
    /// Changes to the parts above (`stateVersion`).
    var partsVersion: UInt64 = 0
    public var views = ViewTree()
    var strings = StringPool()
    var votes = VoteTimes()
    let stopwatch: (@convention(c) () -> Int64)?
    /// Set when this call's work passed Limits.maxWork (Engine+WorkCap.swift); the
    /// ABI layer turns it into the call's status.
    public internal(set) var workCut: EngineError?

    public internal(set) var destroying = false

    let clock: ClockSource
    var manualNow: Int64
    /// The external clock as read during the current host call, or nil:
    /// every reading within one call (the core's and guards' host->now)
    /// is the same instant, and a call reads the clock at most once.
    var callTime: Int64?
    /// The latest instant a call was given (`callTime`): a coarse reading
    /// (`coarseNow`) is never earlier.
    public internal(set) var lastCallTime: Int64 = 0
    /// The instant the last call's new transition was dated from (the clock
    /// when that call returned, restampStartedTrack), or nil: the flight
    /// recorder writes it, since the trace's call instants do not hold it.
    public var trackDatedAt: Int64?
    /// Replay: the recorded instant to date this call's new transition
    /// from, instead of the clock (which replay holds at the call's
    /// instant); used once.
    public var replayTrackDatedAt: Int64?
    let defaultDurationNs: Int64
    var nextRequestID: UInt64 = 1
    /// Requests guards make (request_submit) have ids of their own range:
    /// a replay against another chain keeps the host's ids.
    var nextGuardRequestID: UInt64 = Limits.guardRequestIDBase

    public var observer: (any EngineObserver)?
    /// Moves whenever what a flight-recorder checkpoint shows changes: the
    /// stack, transitions, holds, deferred requests, the open question, or
    /// which touches are live and how (not where they are: a moved touch
    /// changes nothing here). Views change only by the host's own calls.
    /// Presses are not in it: checkpoints do not show them yet (a press
    /// would only write a checkpoint equal to the last).
    public var stateVersion: UInt64 { partsVersion &+ touches.version }
    /// Host-table calls are served only on the owner thread.
    public var ownerCheck = OwnerCheck.always
    /// A guard's worker thread wakes the host's loop through it (any thread).
    public var wakeHook = WakeHook.none

    public init(_ config: EngineConfig = EngineConfig()) {
        clock = config.clock
        stopwatch = config.stopwatch
        if case .manual(let start) = config.clock { manualNow = start } else { manualNow = 0 }
        defaultDurationNs = config.defaultDurationNs > 0 ? config.defaultDurationNs : 350_000_000
    }

    deinit {
        if !destroying { destroy() }
    }

    // MARK: Clock

    public var now: Int64 {
        switch clock {
        case .manual: return manualNow
        case .external(let f):
            if let t = callTime { return t }
            let t = f()
            callTime = t
            lastCallTime = t
            if touches.hasUnstamped { touches.stamp(t) }
            return t
        }
    }

    /// The call's instant for continuous input (moves, hover, scroll,
    /// motion), whose handling reads no time but the move's stamp: as `now`,
    /// but from the stopwatch (a coarse reading of the same clock, a few ns
    /// instead of ~20) when the clock has not been read in this call, never
    /// before the previous call's instant. What the flight recorder dates
    /// such a call with: the moves it stamps are then dated as replay dates
    /// them.
    public var continuousNow: Int64 {
        switch clock {
        case .manual: return manualNow
        case .external:
            if let t = callTime { return t }
            guard let s = stopwatch else { return now }
            let t = max(s(), lastCallTime)
            callTime = t
            lastCallTime = t
            if touches.hasUnstamped { touches.stamp(t) }
            return t
        }
    }

    /// The current instant when knowing it costs no clock reading (a manual
    /// clock, or a call that has read it already), else nil: what a moved
    /// touch is dated with (TouchTable `unstamped`).
    @inline(__always)
    public var instantIfRead: Int64? {
        switch clock {
        case .manual: return manualNow
        case .external: return callTime
        }
    }

    /// Date the moves no clock reading has dated yet, before a touch's
    /// latest-event time is read.
    @inline(__always)
    func stampMoves() {
        // Reading the clock afresh stamps them (`now`); a reading this call
        // already made has not, so they are stamped with it here.
        if touches.hasUnstamped {
            let t = now
            touches.stamp(t)
        }
    }

    /// A host call begins (the ABI layer calls this on entry): the clock
    /// will be read afresh, unless the call comes from inside a callback,
    /// which keeps the time of the call that made the callback.
    @inline(__always)
    public func beginCall() {
        if !run.isBusy { callTime = nil }
    }

    /// The ids the engine hands out next: a trace started mid-session
    /// records them, and its replay continues from them.
    public struct Counters {
        public var requestID: UInt64
        public var holdToken: UInt64
        public var guardRequestID: UInt64
        public var questionID: UInt64
        public init(requestID: UInt64, holdToken: UInt64, guardRequestID: UInt64, questionID: UInt64) {
            self.requestID = requestID
            self.holdToken = holdToken
            self.guardRequestID = guardRequestID
            self.questionID = questionID
        }
    }

    public var counters: Counters {
        get { Counters(requestID: nextRequestID, holdToken: holds.nextToken, guardRequestID: nextGuardRequestID,
                       questionID: questions.nextID) }
        set {
            nextRequestID = newValue.requestID
            holds.nextToken = newValue.holdToken
            nextGuardRequestID = newValue.guardRequestID
            questions.nextID = newValue.questionID
        }
    }

    /// The duration of a TIMED transition that gives none.
    public var defaultTransitionNs: Int64 { defaultDurationNs }

    public var isManualClock: Bool {
        if case .manual = clock { return true }
        return false
    }

    public func setTime(_ t: Int64) throws(EngineError) {
        guard isManualClock else { throw EngineError(NG_E_STATE, "the context uses the monotonic clock; only a manual clock can be set") }
        guard t >= manualNow else { throw EngineError(NG_E_RANGE, "time may not go backwards (now \(manualNow), asked \(t))") }
        manualNow = t
    }

    public func advanceTime(_ d: Int64) throws(EngineError) {
        guard d >= 0 else { throw EngineError(NG_E_RANGE, "negative clock advance \(d)") }
        let (t, overflow) = manualNow.addingReportingOverflow(d)
        guard !overflow else { throw EngineError(NG_E_RANGE, "clock advance overflows") }
        try setTime(t)
    }

    // MARK: Reading state

    public var stackCount: Int { stack.count }
    public func screen(at i: Int) -> Screen? { i >= 0 && i < stack.count ? stack[i] : nil }
    public var topID: UInt64 { stack.topID }
    public var isInsideCallback: Bool { run.depth > 0 }
    /// > 0 while a callback or guard hook runs.
    public var depth: Int { run.depth }

    /// Run a host callback the ABI layer makes itself (on_deadline) as the
    /// engine's own callbacks run: requests made inside it are queued and
    /// evaluated when it returns.
    public func callback(_ body: () -> Void) {
        run.depth += 1
        body()
        run.depth -= 1
        drain()
    }

    /// A CStr with these bytes: a recently used one or a new copy. Owner
    /// thread only.
    public func intern(_ bytes: UnsafeRawPointer, _ n: Int) -> CStr { strings.intern(bytes, n) }

    // MARK: Time

    /// Process everything due at the current time.
    public func tick() throws(EngineError) {
        guard !run.isBusy else { throw EngineError(NG_E_CALLBACK, "tick is not allowed inside a callback") }
        let t = now
        if transitions.isDue(at: t) { endTracks(.all, extraFlags: 0) }
        // Expired holds end at their deadline, earliest first.
        while let i = holds.earliestExpired(at: t) { removeHold(at: i, reason: NG_HOLD_EXPIRED) }
        expireQuestion(at: t)
        tickGuards(t)
        drain()
    }

    /// The earliest time with work, or NG_NO_DEADLINE.
    public func nextDeadline() -> Int64 {
        if run.hasWork { return now }
        return min(transitions.deadline, holds.earliestDeadline, questions.deadline, guardsNextDeadline())
    }

    // MARK: Run to completion

    /// A guard's action: after the vote when one is running (a guard may not
    /// change what the chain is deciding), else now, then queued work runs.
    func act(_ a: GuardAction) {
        if run.inVote {
            run.append(.action(a))
            return
        }
        perform(a)
        drain()
    }

    /// Run queued work to completion, unless a callback or drain is already
    /// running (it will, when that returns).
    func drain() {
        guard !run.isBusy else { return }
        run.draining = true
        defer { run.draining = false }
        while let w = run.take() {
            if run.overrunUnlogged { noteOverrun() }
            switch consume w {
            case .note(let n): deliver(n)
            case .evaluate(let r): _ = evaluate(r)
            case .action(let a): perform(a)
            }
        }
        if run.trackStarted { restampStartedTrack() }
    }

    /// Apply an action if what it names is still there (a queued action may
    /// find its transition, hold or request already gone).
    func perform(_ a: GuardAction) {
        switch a {
        case .finish(let track, let rid):
            if let t = transitions.track(track), t.requestID == rid {
                endTracks(track, extraFlags: UInt32(NG_TRANSF_FORCED))
            }
        case .cancelInteractive(let rid):
            if transitions.swipe?.requestID == rid { rollBack(extraFlags: UInt32(NG_TRANSF_FORCED)) }
        case .holdEnd(let token, let actor):
            if let i = holds.index(of: token) { removeHold(at: i, reason: holds[i].endReason(by: actor)) }
        case .deferredDrop(let rid, let slot, let reason, let msg):
            if let r = deferred.take(rid, slot: slot) {
                finish(r, outcome: .dropped, reason: reason, by: .guardSlot(slot), message: msg)
            }
        }
    }

    func deliver(_ n: consuming Note) {
        // Its receivers add work through their own doors: a guard's host
        // table names the guard (RunQueue), the rest is the host's.
        run.actor = 0
        run.depth += 1
        defer { run.depth -= 1 }
        switch consume n {
        case .outcome(let o):
            guardsOutcome(o)
            observer?.engineOutcome(o)
        case .transition(var e):
            // The stack is the newest when a phase is delivered: the screen
            // shown hands back its focus token (0 when it is gone or new).
            e.focus_token = stack.focus(of: e.to_id) ?? 0
            guardsTransition(&e)
            observer?.engineTransition(e)
        case .holdBegan(let token, let label, let mask):
            guardsHold(token: token, label: label, mask: mask, ended: false, reason: 0)
        case .holdEnded(let h):
            guardsHold(token: h.token, label: h.label, mask: h.mask, ended: true, reason: h.reason)
            observer?.engineHoldEnded(h)
        case .report(let gid, let text):
            observer?.engineReport(guardID: gid, text: text)
        case .log(let gid, let sev, let msg):
            observer?.engineLog(severity: sev, guardID: gid, message: msg)
        case .touchCancelled(let t):
            observer?.engineTouchCancelled(t)
        case .pressCancelled(let p):
            observer?.enginePressCancelled(p)
        case .questionAsked(let q):
            observer?.engineQuestion(q.cValue)
        case .questionEnded(let q, let answer):
            deliverAnswer(q, answer)
        }
    }

    // MARK: Destruction

    /// End what is in flight, withdraw the open question, drop every
    /// pending request (DROPPED, NG_REASON_DESTROYED), release holds, cancel
    /// touches, then destroy guards in reverse chain order.
    public func destroy(dropping extra: [Request] = []) {
        guard !destroying else { return }
        destroying = true
        // Every WILL gets its end; nothing is left in flight for a guard
        // hook run below to finish.
        endInFlightForDestroy()
        if let q = questions.open { closeQuestion(q, NG_ANSWER_WITHDRAWN) }
        for r in extra { run.append(.evaluate(r)) }
        for r in deferred.takeAll() {
            finish(r, outcome: .dropped, reason: .destroyed, by: .host, message: nil)
        }
        run.resetForDestroy()
        // Callbacks run while draining may act again (a touch delivered, a
        // hold begun before destroy was reached); repeat until nothing is live.
        repeat {
            while !holds.isEmpty { removeHold(at: holds.count - 1, reason: NG_HOLD_RELEASED) }
            cancelTouches(0)
            cancelPresses(mask: UInt32(NG_MASK_ALL), cause: .destroyed)
            drain()   // queued requests are dropped by evaluate() while destroying
        } while !holds.isEmpty || touches.anyDelivered || presses.anyDelivered
        destroyGuards()
        observer = nil
    }
}
