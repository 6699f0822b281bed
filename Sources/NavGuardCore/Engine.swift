import CNavGuard

/// One transition track in flight.
struct Track {
    var requestID: UInt64
    var kind: Int32
    var flags: UInt32
    var beganNs: Int64
    var deadlineNs: Int64
    var fromID: UInt64
    var toID: UInt64
}

struct Hold {
    var token: UInt64
    var label: CStr?
    var mask: UInt32
    var beganNs: Int64
    var deadlineNs: Int64
    var owner: Int   // guard slot index, -1 for the host
}

/// A notification waiting to be delivered to guards and the observer.
enum Note {
    case outcome(OutcomeRecord)
    case transition(ng_transition_event)
    case holdBegan(token: UInt64, label: CStr?, mask: UInt32)
    case holdEnded(HoldEndRecord)
    // The guard id is kept, not the slot: a guard whose create failed is
    // gone from the chain by the time its log is delivered.
    case report(guardID: UnsafePointer<CChar>?, text: CStr)
    case log(guardID: UnsafePointer<CChar>?, severity: Int32, message: CStr)
    case touchCancelled(ng_touch_info)
}

/// An action a guard asked for from inside a vote, applied afterwards.
enum GuardAction {
    case finish(track: Int32, requestID: UInt64)
    case cancelInteractive(requestID: UInt64)
    case holdEnd(token: UInt64, byGuard: Int)
    case deferredDrop(requestID: UInt64, slot: Int, reason: Int32, message: CStr?)
}

/// Work run to completion, in order, after the callback that caused it.
enum Work {
    case note(Note)
    case evaluate(Request)
    case action(GuardAction)
}

/// The deterministic navigation core. Not thread-safe: the ABI layer
/// guarantees one thread at a time.
public final class Engine {
    // MARK: State
    var stack: [Screen] = []
    var screenTrack: Track?
    var barTrack: Track?
    var interactive: Swipe?
    var holds: [Hold] = []
    var holdMaskCache: UInt32 = 0
    var nextToken: UInt64 = 1
    var deferred: [(request: Request, slot: Int)] = []

    var queue: [Work] = []
    var queueHead = 0
    /// > 0 while a callback or guard hook runs.
    public internal(set) var depth = 0
    var draining = false
    var inVote = false
    public internal(set) var destroying = false

    let clock: ClockSource
    var manualNow: Int64
    let defaultDurationNs: Int64
    var nextRequestID: UInt64 = 1

    public var observer: (any EngineObserver)?
    /// Host-table calls are served only on the owner thread.
    public var ownerCheck = OwnerCheck.always

    // Recently used strings, reused so that a push of a known route (or a
    // hold with a known label) allocates nothing.
    var recentStrings: [CStr] = []
    var recentNext = 0
    static let recentCapacity = 32

    // Input routing (Input.swift).
    public var views = ViewTree()
    var input = InputState()

    // Guard chain (Chain.swift).
    var slots: [GuardSlot] = []
    let requestHooks: UnsafeMutablePointer<HookEntry>
    var requestHookCount = 0
    let eventHooks: UnsafeMutablePointer<HookEntry>
    var eventHookCount = 0

    public init(_ config: EngineConfig = EngineConfig()) {
        clock = config.clock
        if case .manual(let start) = config.clock { manualNow = start } else { manualNow = 0 }
        defaultDurationNs = config.defaultDurationNs > 0 ? config.defaultDurationNs : 350_000_000
        requestHooks = .allocate(capacity: Limits.maxGuards)
        eventHooks = .allocate(capacity: Limits.maxGuards)
        queue.reserveCapacity(64)
        holds.reserveCapacity(16)
        recentStrings.reserveCapacity(Engine.recentCapacity)
    }

    deinit {
        if !destroying { destroy() }
        requestHooks.deallocate()
        eventHooks.deallocate()
    }

    // MARK: Clock

    public var now: Int64 {
        switch clock {
        case .manual: return manualNow
        case .external(let f): return f()
        }
    }

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
    public var topID: UInt64 { stack.last?.id ?? 0 }
    public var holdMask: UInt32 { holdMaskCache }
    public var holdCount: Int { holds.count }
    public var deferredCount: Int { deferred.count }
    public var isInteractive: Bool { interactive != nil }
    public var interactiveProgress: Double { interactive?.progress ?? 0 }

    /// The request id of the transition in flight on a track, or 0.
    public func inFlight(_ track: Int32) -> UInt64 {
        (track == NG_TRACK_SCREEN ? screenTrack : barTrack)?.requestID ?? 0
    }

    func trackInfo(_ track: Int32) -> Track? { track == NG_TRACK_SCREEN ? screenTrack : barTrack }

    public var isInsideCallback: Bool { depth > 0 }

    public func allocateRequestID() -> UInt64 {
        defer { nextRequestID &+= 1 }
        return nextRequestID
    }

    // MARK: Strings

    /// A CStr with these bytes: one already on the stack or used recently,
    /// or a new copy. Owner thread only.
    public func intern(_ bytes: UnsafeRawPointer, _ n: Int) -> CStr {
        for s in stack {
            if s.route.matches(bytes, n) { return s.route }
            if s.identity.matches(bytes, n) { return s.identity }
        }
        for c in recentStrings where c.matches(bytes, n) { return c }
        let c = CStr(bytes: bytes, count: n)
        if recentStrings.count < Engine.recentCapacity {
            recentStrings.append(c)
        } else {
            recentStrings[recentNext] = c
            recentNext = (recentNext + 1) % Engine.recentCapacity
        }
        return c
    }

    // MARK: Stack set-up

    public func setRoot(_ root: Screen) throws(EngineError) {
        guard stack.isEmpty else { throw EngineError(NG_E_STATE, "the stack already has a root; use a replace-stack request to change it") }
        guard root.id != 0 else { throw EngineError(NG_E_RANGE, "screen id 0 is reserved") }
        stack.append(root)
    }

    /// Replace the stack without transitions (snapshot restore).
    public func restore(_ screens: [Screen]) throws(EngineError) {
        guard depth == 0 else { throw EngineError(NG_E_CALLBACK, "restore is not allowed inside a callback") }
        guard screenTrack == nil, barTrack == nil else { throw EngineError(NG_E_STATE, "a transition is in flight") }
        if let msg = Engine.validateStack(screens) { throw EngineError(NG_E_RANGE, msg) }
        stack = screens
    }

    static func validateStack(_ screens: [Screen]) -> String? {
        if screens.isEmpty { return "a stack needs at least one screen" }
        if screens.count > Limits.maxStack { return "more than \(Limits.maxStack) screens" }
        var seen = Set<UInt64>()
        for s in screens {
            if s.id == 0 { return "screen id 0 is reserved" }
            if !seen.insert(s.id).inserted { return "screen id \(s.id) appears twice" }
        }
        return nil
    }

    // MARK: Requests

    /// Submit a request. Inside a callback it is queued (NG_OUTCOME_QUEUED).
    @discardableResult
    public func submit(_ request: Request) -> SubmitResult {
        var r = request
        if r.id == 0 { r.id = allocateRequestID() }
        // After destroy() nothing drains again: evaluate() drops at once.
        if depth > 0 || draining {
            queue.append(.evaluate(r))
            return SubmitResult(status: NG_OUTCOME_QUEUED, requestID: r.id, reason: NG_REASON_NONE, guardID: nil, message: nil)
        }
        let res = evaluate(r)
        drain()
        return res
    }

    /// Core rules that do not depend on guards.
    func coreRule(_ r: Request) -> (reason: Int32, message: String)? {
        if let m = r.invalidMessage { return (NG_REASON_INVALID, m) }
        // A swipe released to cancel is judged by the stack it settles back to.
        let stack = settledStack
        if stack.isEmpty { return (NG_REASON_INVALID, "the stack has no root yet") }
        switch r.kind {
        case NG_REQ_PUSH:
            guard let s = r.screen else { return (NG_REASON_INVALID, "push without a screen") }
            if s.id == 0 { return (NG_REASON_INVALID, "screen id 0 is reserved") }
            if stack.contains(where: { $0.id == s.id }) { return (NG_REASON_DUPLICATE, "screen id \(s.id) is already in the stack") }
            if stack.count >= Limits.maxStack { return (NG_REASON_INVALID, "the stack is full (\(Limits.maxStack) screens)") }
        case NG_REQ_POP, NG_REQ_BACK, NG_REQ_INTERACTIVE_BACK, NG_REQ_POP_TO_ROOT:
            if stack.count <= 1 { return (NG_REASON_AT_ROOT, "only the root is on the stack") }
            if let id = r.drivingTouch, let m = drivingTouchProblem(id) { return (NG_REASON_INVALID, m) }
        case NG_REQ_POP_TO:
            guard let i = stack.lastIndex(where: { $0.id == r.targetID }) else {
                return (NG_REASON_NOT_FOUND, "screen \(r.targetID) is not in the stack")
            }
            if i == stack.count - 1 { return (NG_REASON_INVALID, "screen \(r.targetID) is already on top") }
        case NG_REQ_REPLACE_STACK:
            if let m = Engine.validateStack(r.screens) { return (NG_REASON_INVALID, m) }
        default:
            return (NG_REASON_INVALID, "unknown request kind \(r.kind)")
        }
        return nil
    }

    /// The stack once the swipe in flight (if any) settles as decided.
    var settledStack: [Screen] {
        if let i = interactive, i.decision == .cancel { return i.before }
        return stack
    }

    /// Why a touch cannot drive an interactive back, or nil.
    func drivingTouchProblem(_ id: UInt64) -> String? {
        guard let i = input.index(of: id) else { return "driving touch \(id) is not a live touch (submit its began first)" }
        switch input.touches[i].state {
        case NG_TOUCH_STATE_DELIVERED: return nil
        case NG_TOUCH_STATE_WITHHELD: return "driving touch \(id) was withheld at began (its began was dropped)"
        default: return "driving touch \(id) was cancelled"
        }
    }

    /// Decide a request (fresh or re-evaluated after deferral) and apply it.
    func evaluate(_ r: Request) -> SubmitResult {
        let reevaluation = r.attempt > 0
        if destroying {
            finish(r, outcome: NG_OUTCOME_DROPPED, reason: NG_REASON_DESTROYED, slot: -1, message: nil)
            return SubmitResult(status: NG_OUTCOME_DROPPED, requestID: r.id, reason: NG_REASON_DESTROYED, guardID: nil, message: nil)
        }
        if let (reason, msg) = coreRule(r) {
            let out = reevaluation ? NG_OUTCOME_DROPPED : NG_OUTCOME_REFUSED
            let m = CStr(msg)
            finish(r, outcome: out, reason: reason, slot: -1, message: m)
            return SubmitResult(status: out, requestID: r.id, reason: reason, guardID: nil, message: m)
        }
        let v = runRequestChain(r)
        switch v.vote {
        case NG_VOTE_ALLOW:
            apply(r)
            return SubmitResult(status: NG_OUTCOME_APPLIED, requestID: r.id, reason: NG_REASON_NONE, guardID: nil, message: nil)
        case NG_VOTE_DEFER:
            deferred.append((r, v.slot))
            return SubmitResult(status: NG_OUTCOME_DEFERRED, requestID: r.id, reason: NG_REASON_NONE,
                                guardID: slots[v.slot].guardID, message: nil)
        default:
            let out = reevaluation ? NG_OUTCOME_DROPPED : NG_OUTCOME_REFUSED
            finish(r, outcome: out, reason: v.reason, slot: v.slot, message: v.message)
            return SubmitResult(status: out, requestID: r.id, reason: v.reason, guardID: slots[v.slot].guardID, message: v.message)
        }
    }

    func finish(_ r: Request, outcome: Int32, reason: Int32, slot: Int, message: CStr?) {
        let rec = OutcomeRecord(requestID: r.id, kind: r.kind, outcome: outcome, reason: reason,
                                source: r.source, guardID: slot >= 0 ? slots[slot].guardID : nil,
                                message: message)
        queue.append(.note(.outcome(rec)))
    }

    /// Apply an allowed request: change the stack and start its transition.
    func apply(_ r: Request) {
        interruptInFlight()
        let from = topID
        // Only an interactive back keeps the old stack (to roll back); a copy
        // for every request would make the mutation below reallocate.
        let before: [Screen] = r.kind == NG_REQ_INTERACTIVE_BACK ? stack : []
        switch r.kind {
        case NG_REQ_PUSH: stack.append(r.screen!)
        case NG_REQ_POP, NG_REQ_BACK, NG_REQ_INTERACTIVE_BACK: stack.removeLast()
        case NG_REQ_POP_TO:
            if let i = stack.lastIndex(where: { $0.id == r.targetID }) { stack.removeSubrange((i + 1)...) }
        case NG_REQ_POP_TO_ROOT: stack.removeSubrange(1...)
        case NG_REQ_REPLACE_STACK: stack = r.screens
        default: break
        }
        finish(r, outcome: NG_OUTCOME_APPLIED, reason: NG_REASON_NONE, slot: -1, message: nil)
        let to = topID
        // The screen on display stays: nothing to show (UIKit runs no
        // transition for setViewControllers with the same top either).
        if r.kind == NG_REQ_REPLACE_STACK && to == from { return }
        let t = now
        if r.kind == NG_REQ_INTERACTIVE_BACK {
            interactive = Swipe(requestID: r.id, before: before, touch: r.drivingTouch, at: t)
            var f = UInt32(NG_TRANSF_ANIMATED | NG_TRANSF_INTERACTIVE)
            if r.drivingTouch != nil { f |= UInt32(NG_TRANSF_TOUCH_DRIVEN) }
            start(r, flags: f, at: t, deadline: Limits.noDeadline, from: from, to: to)
        } else if r.animated {
            var deadline = Limits.noDeadline
            if r.timed {
                let d = r.durationNs > 0 ? r.durationNs : defaultDurationNs
                let (sum, o) = t.addingReportingOverflow(d)
                deadline = o ? Limits.noDeadline - 1 : sum
            }
            start(r, flags: UInt32(NG_TRANSF_ANIMATED), at: t, deadline: deadline, from: from, to: to)
        } else {
            // Non-animated: the whole transition completes synchronously.
            for (track, phase) in [(NG_TRACK_SCREEN, NG_PHASE_WILL), (NG_TRACK_BAR, NG_PHASE_WILL),
                                   (NG_TRACK_BAR, NG_PHASE_DID), (NG_TRACK_SCREEN, NG_PHASE_DID)] {
                note(track, phase, flags: 0, requestID: r.id, kind: r.kind, from: from, to: to)
            }
        }
    }

    func start(_ r: Request, flags: UInt32, at t: Int64, deadline: Int64, from: UInt64, to: UInt64) {
        let track = Track(requestID: r.id, kind: r.kind, flags: flags, beganNs: t, deadlineNs: deadline,
                          fromID: from, toID: to)
        screenTrack = track
        barTrack = track
        note(NG_TRACK_SCREEN, NG_PHASE_WILL, flags: flags, requestID: r.id, kind: r.kind, from: from, to: to)
        note(NG_TRACK_BAR, NG_PHASE_WILL, flags: flags, requestID: r.id, kind: r.kind, from: from, to: to)
    }

    @inline(__always)
    func note(_ track: Int32, _ phase: Int32, flags: UInt32, requestID: UInt64, kind: Int32, from: UInt64, to: UInt64) {
        var e = ng_transition_event()
        e.size = UInt32(MemoryLayout<ng_transition_event>.size)
        e.track = track
        e.phase = phase
        e.flags = flags
        e.request_id = requestID
        e.kind = kind
        e.from_id = from
        e.to_id = to
        queue.append(.note(.transition(e)))
    }

    /// Without a guard that refuses or defers, a request applied while a
    /// transition is in flight first ends it: an interactive back ends in its
    /// decided direction (an undecided one commits).
    func interruptInFlight() {
        if screenTrack == nil && barTrack == nil { return }
        if interactive?.decision == .cancel {
            rollBack(extraFlags: UInt32(NG_TRANSF_INTERRUPTED))
        } else {
            endTrack(NG_TRACK_ALL, extraFlags: UInt32(NG_TRANSF_INTERRUPTED))
        }
    }

    // MARK: Transitions

    /// End a track (or both). Returns false when nothing was in flight.
    @discardableResult
    func endTrack(_ which: Int32, extraFlags: UInt32) -> Bool {
        // An interactive back ends as a whole: both tracks commit together.
        let both = which == NG_TRACK_ALL || interactive != nil
        var ended = false
        if both || which == NG_TRACK_BAR, let t = barTrack {
            barTrack = nil
            note(NG_TRACK_BAR, NG_PHASE_DID, flags: t.flags | extraFlags, requestID: t.requestID, kind: t.kind, from: t.fromID, to: t.toID)
            ended = true
        }
        if both || which == NG_TRACK_SCREEN, let t = screenTrack {
            screenTrack = nil
            note(NG_TRACK_SCREEN, NG_PHASE_DID, flags: t.flags | extraFlags, requestID: t.requestID, kind: t.kind, from: t.fromID, to: t.toID)
            ended = true
        }
        if screenTrack == nil && barTrack == nil { interactive = nil }
        return ended
    }

    /// The host (or a guard) ends a track. Inside a guard's vote the effect
    /// is applied after the vote.
    public func finishTransition(_ track: Int32, forced: Bool = false) throws(EngineError) {
        guard track >= NG_TRACK_SCREEN && track <= NG_TRACK_ALL else { throw EngineError(NG_E_RANGE, "track \(track) is not NG_TRACK_SCREEN, NG_TRACK_BAR or NG_TRACK_ALL") }
        let busy = track == NG_TRACK_ALL ? (screenTrack ?? barTrack) : trackInfo(track)
        guard let t = busy else { throw EngineError(NG_E_NOT_FOUND, "no transition in flight on that track") }
        if interactive?.decision == .cancel {
            throw EngineError(NG_E_STATE, "the interactive back was released to cancel; complete it with ng_interactive_complete")
        }
        if inVote {
            queue.append(.action(.finish(track: track, requestID: t.requestID)))
            return
        }
        endTrack(track, extraFlags: forced ? UInt32(NG_TRANSF_FORCED) : 0)
        drain()
    }

    public func updateInteractive(_ progress: Double) throws(EngineError) {
        guard progress.isFinite, progress >= 0, progress <= 1 else { throw EngineError(NG_E_RANGE, "progress must be within 0...1") }
        guard interactive != nil else { throw EngineError(NG_E_NOT_FOUND, "no interactive back in flight") }
        interactive!.progress = progress
    }

    /// The host (or, `forced`, a guard) cancels the swipe: it rolls back.
    public func cancelInteractive(forced: Bool = false) throws(EngineError) {
        guard let i = interactive else { throw EngineError(NG_E_NOT_FOUND, "no interactive back in flight") }
        if i.decision == .finish {
            throw EngineError(NG_E_STATE, "the interactive back was released to finish; complete it with ng_interactive_complete")
        }
        if inVote {
            queue.append(.action(.cancelInteractive(requestID: i.requestID)))
            return
        }
        rollBack(extraFlags: forced ? UInt32(NG_TRANSF_FORCED) : 0)
        drain()
    }

    /// The host let go: record the decided direction (nothing fires yet).
    public func releaseInteractive(finish: Bool) throws(EngineError) {
        guard interactive != nil else { throw EngineError(NG_E_NOT_FOUND, "no interactive back in flight") }
        try interactive!.release(finish: finish, at: now)
    }

    /// The settle animation ended: complete in the decided direction.
    public func completeInteractive() throws(EngineError) {
        guard let i = interactive else { throw EngineError(NG_E_NOT_FOUND, "no interactive back in flight (a late completion after the watchdog's is harmless)") }
        switch i.decision {
        case .none:
            throw EngineError(NG_E_STATE, "the interactive back is not released; call ng_interactive_release first (or end it with ng_transition_finish / ng_interactive_cancel)")
        case .finish:
            try finishTransition(NG_TRACK_ALL)
        case .cancel:
            try cancelInteractive()
        }
    }

    func rollBack(extraFlags: UInt32 = 0) {
        guard let i = interactive else { return }
        stack = i.before
        interactive = nil
        if let t = barTrack {
            barTrack = nil
            note(NG_TRACK_BAR, NG_PHASE_CANCELLED, flags: t.flags | extraFlags, requestID: t.requestID, kind: t.kind, from: t.fromID, to: t.fromID)
        }
        if let t = screenTrack {
            screenTrack = nil
            note(NG_TRACK_SCREEN, NG_PHASE_CANCELLED, flags: t.flags | extraFlags, requestID: t.requestID, kind: t.kind, from: t.fromID, to: t.fromID)
        }
    }

    /// A track in flight as hosts and guards see it (ng_track_info).
    public func trackView(_ track: Int32) -> ng_track_info? {
        guard let t = trackInfo(track) else { return nil }
        var info = ng_track_info()
        info.size = UInt32(MemoryLayout<ng_track_info>.size)
        info.request_id = t.requestID
        info.kind = t.kind
        info.flags = t.flags
        info.began_ns = t.beganNs
        info.deadline_ns = interactive == nil ? t.deadlineNs : Limits.noDeadline
        if let i = interactive {
            info.progress = i.progress
            info.driving_touch = i.namedTouch ?? 0
            info.swipe_since_ns = i.sinceNs
            info.swipe = i.state
        }
        return info
    }

    // MARK: Holds

    public func beginHold(label: CStr?, mask: UInt32, maxDurationNs: Int64, owner: Int = -1) throws(EngineError) -> UInt64 {
        guard !destroying else { throw EngineError(NG_E_STATE, "the context is being destroyed") }
        guard mask & ~UInt32(NG_MASK_ALL) == 0 else { throw EngineError(NG_E_RANGE, "unknown bits in the event mask") }
        guard maxDurationNs >= 0 else { throw EngineError(NG_E_RANGE, "negative hold duration") }
        guard holds.count < Limits.maxHolds else { throw EngineError(NG_E_NO_MEMORY, "too many live holds (\(Limits.maxHolds))") }
        let m = mask == 0 ? UInt32(NG_MASK_DEFAULT) : mask
        let t = now
        var deadline = Limits.noDeadline
        if maxDurationNs > 0 {
            let (sum, o) = t.addingReportingOverflow(maxDurationNs)
            deadline = o ? Limits.noDeadline - 1 : sum
        }
        let token = nextToken
        nextToken += 1
        holds.append(Hold(token: token, label: label, mask: m, beganNs: t, deadlineNs: deadline, owner: owner))
        holdMaskCache |= m
        queue.append(.note(.holdBegan(token: token, label: label, mask: m)))
        // Input became blocked for touches: every delivered live touch gets
        // its cancel now, so no control stays highlighted (seed 000).
        if m & UInt32(NG_MASK_TOUCH) != 0 { cancelTouches(0) }
        if !inVote { drain() }
        return token
    }

    public func endHold(_ token: UInt64, byGuard: Int = -1) throws(EngineError) {
        guard let i = holds.firstIndex(where: { $0.token == token }) else {
            throw EngineError(NG_E_NOT_FOUND, "hold \(token) is not live (unknown or already ended)")
        }
        if inVote {
            queue.append(.action(.holdEnd(token: token, byGuard: byGuard)))
            return
        }
        let owner = holds[i].owner
        removeHold(at: i, reason: byGuard == -1 || byGuard == owner ? NG_HOLD_ENDED : NG_HOLD_RELEASED)
        drain()
    }

    func removeHold(at i: Int, reason: Int32) {
        let h = holds.remove(at: i)
        var m: UInt32 = 0
        for x in holds { m |= x.mask }
        holdMaskCache = m
        queue.append(.note(.holdEnded(HoldEndRecord(token: h.token, label: h.label, mask: h.mask, reason: reason,
                                                    beganNs: h.beganNs, endedNs: now))))
    }

    public func holdInfo(at i: Int) -> (token: UInt64, label: CStr?, mask: UInt32, began: Int64, deadline: Int64)? {
        guard i >= 0 && i < holds.count else { return nil }
        let h = holds[i]
        return (h.token, h.label, h.mask, h.beganNs, h.deadlineNs)
    }

    /// A live hold as hosts and guards see it (ng_hold_view).
    public func holdView(at i: Int) -> ng_hold_view? {
        guard let x = holdInfo(at: i) else { return nil }
        var v = ng_hold_view()
        v.size = UInt32(MemoryLayout<ng_hold_view>.size)
        v.token = x.token
        v.label = x.label.map { UnsafePointer($0.pointer) }
        v.mask = x.mask
        v.began_ns = x.began
        v.deadline_ns = x.deadline
        return v
    }

    // MARK: Time

    /// Process everything due at the current time.
    public func tick() throws(EngineError) {
        guard depth == 0, !draining else { throw EngineError(NG_E_CALLBACK, "tick is not allowed inside a callback") }
        let t = now
        if let s = screenTrack ?? barTrack, s.deadlineNs <= t, interactive == nil {
            endTrack(NG_TRACK_ALL, extraFlags: 0)
        }
        // Expired holds end at their deadline, earliest first.
        while true {
            var best = -1
            for (i, h) in holds.enumerated() where h.deadlineNs <= t {
                if best < 0 || h.deadlineNs < holds[best].deadlineNs { best = i }
            }
            if best < 0 { break }
            removeHold(at: best, reason: NG_HOLD_EXPIRED)
        }
        tickGuards(t)
        drain()
    }

    /// The earliest time with work, or NG_NO_DEADLINE.
    public func nextDeadline() -> Int64 {
        let t = now
        if queueHead < queue.count { return t }
        var d = Limits.noDeadline
        if interactive == nil, let s = screenTrack ?? barTrack { d = min(d, s.deadlineNs) }
        for h in holds { d = min(d, h.deadlineNs) }
        d = min(d, guardsNextDeadline())
        return d
    }

    // MARK: Run to completion

    func drain() {
        guard depth == 0, !draining else { return }
        draining = true
        defer { draining = false }
        while queueHead < queue.count {
            let w = queue[queueHead]
            queue[queueHead] = .action(.finish(track: 0, requestID: 0))   // drop references early
            queueHead += 1
            switch w {
            case .note(let n): deliver(n)
            case .evaluate(let r): _ = evaluate(r)
            case .action(let a): perform(a)
            }
        }
        queue.removeAll(keepingCapacity: true)
        queueHead = 0
    }

    func perform(_ a: GuardAction) {
        switch a {
        case .finish(let track, let rid):
            let t = track == NG_TRACK_ALL ? (screenTrack ?? barTrack) : trackInfo(track)
            if let t, t.requestID == rid { endTrack(track, extraFlags: UInt32(NG_TRANSF_FORCED)) }
        case .cancelInteractive(let rid):
            if interactive?.requestID == rid { rollBack(extraFlags: UInt32(NG_TRANSF_FORCED)) }
        case .holdEnd(let token, let g):
            if let i = holds.firstIndex(where: { $0.token == token }) {
                removeHold(at: i, reason: g == holds[i].owner ? NG_HOLD_ENDED : NG_HOLD_RELEASED)
            }
        case .deferredDrop(let rid, let slot, let reason, let msg):
            if let i = deferred.firstIndex(where: { $0.request.id == rid && $0.slot == slot }) {
                let r = deferred.remove(at: i).request
                finish(r, outcome: NG_OUTCOME_DROPPED, reason: reason, slot: slot, message: msg)
            }
        }
    }

    func deliver(_ n: Note) {
        depth += 1
        defer { depth -= 1 }
        switch n {
        case .outcome(let o):
            guardsOutcome(o)
            observer?.engineOutcome(o)
        case .transition(var e):
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
        }
    }

    // MARK: Destruction

    /// Drop every pending request (DROPPED, NG_REASON_DESTROYED), release
    /// holds, then destroy guards in reverse chain order.
    public func destroy(dropping extra: [Request] = []) {
        guard !destroying else { return }
        destroying = true
        // A transition in flight ends silently: nothing left for a guard
        // hook run below to finish.
        screenTrack = nil
        barTrack = nil
        interactive = nil
        for r in extra { queue.append(.evaluate(r)) }
        for d in deferred {
            finish(d.request, outcome: NG_OUTCOME_DROPPED, reason: NG_REASON_DESTROYED, slot: -1, message: nil)
        }
        deferred.removeAll()
        depth = 0
        draining = false
        // Callbacks run while draining may act again (a touch delivered, a
        // hold begun before destroy was reached); repeat until nothing is live.
        repeat {
            while !holds.isEmpty { removeHold(at: holds.count - 1, reason: NG_HOLD_RELEASED) }
            cancelTouches(0)
            drain()   // queued requests are dropped by evaluate() while destroying
        } while !holds.isEmpty || input.touches.contains(where: { $0.state == NG_TOUCH_STATE_DELIVERED })
        destroyGuards()
        observer = nil
    }
}
