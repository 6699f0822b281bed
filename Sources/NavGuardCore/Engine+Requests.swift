// SPDX-License-Identifier: Apache-2.0
import CNavGuard

extension Engine {
    // MARK: Requests

    public func allocateRequestID() -> UInt64 {
        defer { nextRequestID &+= 1 }
        return nextRequestID
    }

    public func setRoot(_ root: Screen) throws(EngineError) {
        guard stack.isEmpty else { throw EngineError(NG_E_STATE, "the stack already has a root; use a replace-stack request to change it") }
        guard root.id != 0 else { throw EngineError(NG_E_RANGE, "screen id 0 is reserved") }
        stack.push(root)
    }

    /// Replace the stack without transitions (snapshot restore). An open
    /// question about the old stack ends WITHDRAWN before this returns.
    public func restore(_ screens: [Screen]) throws(EngineError) {
        guard run.depth == 0 else { throw .inCallback("restore") }
        guard transitions.isIdle else { throw EngineError(NG_E_STATE, "a transition is in flight") }
        if let msg = ScreenStack.problem(screens) { throw EngineError(NG_E_RANGE, msg) }
        installStack(screens)
    }

    /// The stack becomes `screens`, checked by the caller (restore), and
    /// what that queued (a withdrawn question's end) is delivered.
    func installStack(_ screens: [Screen]) {
        stack.replace(with: screens)
        drain()
    }


    /// Submit a request. Inside a callback it is queued (NG_OUTCOME_QUEUED).
    @discardableResult
    public func submit(_ request: Request) -> SubmitResult {
        var r = request
        if r.id == 0 { r.id = allocateRequestID() }
        // After destroy() nothing drains again: evaluate() drops at once.
        if run.isBusy {
            run.append(.evaluate(r))
            return SubmitResult(status: .queued, requestID: r.id, reason: .none, guardID: nil, message: nil)
        }
        let res = evaluate(r)
        drain()
        return res
    }

    /// The rules of a request's content, judged before any guard: a
    /// malformed request, a screen id already stacked, a driving touch that
    /// is not live.
    func contentProblem(_ r: Request) -> (reason: Reason, message: String)? {
        if let m = r.invalidMessage { return (.invalid, m) }
        // A swipe released to cancel is judged by the stack it settles back to.
        let stack = settledStack
        if stack.isEmpty { return (.invalid, "the stack has no root yet") }
        if let stale = scopeProblem(r, stack) { return stale }
        switch r.kind {
        case .push:
            guard let s = r.screen else { return (.invalid, "push without a screen") }
            if s.id == 0 { return (.invalid, "screen id 0 is reserved") }
            if stack.contains(id: s.id) { return (.duplicate, "screen id \(s.id) is already in the stack") }
        case .pop, .back, .interactiveBack, .popToRoot:
            if let id = r.drivingTouch, let m = drivingTouchProblem(id) { return (.invalid, m) }
        case .popTo:
            break
        case .replaceStack:
            if let m = ScreenStack.problem(r.screens) { return (.invalid, m) }
        default:
            return (.invalid, "unknown request kind \(r.kind.rawValue)")
        }
        return nil
    }

    /// The rules of the stack a request applies to, judged when it would
    /// apply (after the guards allowed it): a guard that refuses or defers
    /// decides first.
    func stackProblem(_ r: Request) -> (reason: Reason, message: String)? {
        let stack = settledStack
        if let stale = scopeProblem(r, stack) { return stale }
        switch r.kind {
        case .push:
            if stack.count >= Limits.maxStack { return (.invalid, "the stack is full (\(Limits.maxStack) screens)") }
        case .pop, .back, .interactiveBack, .popToRoot:
            if stack.count <= 1 { return (.atRoot, "only the root is on the stack") }
        case .popTo:
            guard let i = stack.lastIndex(of: r.targetID) else {
                return (.notFound, "screen \(r.targetID) is not in the stack")
            }
            if i == stack.count - 1 { return (.invalid, "screen \(r.targetID) is already on top") }
        default:
            break
        }
        return nil
    }

    /// A request issued from a screen that is no longer the top is stale
    /// (judged before the chain and again when it would apply); one scoped
    /// to an end of a swipe in flight is not judged yet (`waitsForSwipe`).
    func scopeProblem(_ r: Request, _ stack: ScreenStack) -> (reason: Reason, message: String)? {
        guard r.fromScreen != 0 && stack.topID != r.fromScreen && !waitsForSwipe(r) else { return nil }
        let gone = stack.contains(id: r.fromScreen) ? "is no longer on top" : "is no longer on the stack"
        return (.stale, "issued from screen \(r.fromScreen), which \(gone) (the top is \(stack.topID))")
    }

    /// Whether a request waits for the swipe in flight to settle: its
    /// `from_screen` is one end of the swipe (the screen swiped away, or the
    /// target), so where it will be (on top or gone) depends on how the
    /// swipe completes. One rule for both ends and every swipe state
    /// (driven, undriven, finishing, cancelling); a screen that is neither
    /// end cannot be the top once it settles, and is stale at once.
    func waitsForSwipe(_ r: Request) -> Bool {
        guard r.fromScreen != 0, transitions.swipe != nil, let before = transitions.before else { return false }
        return r.fromScreen == before.topID || r.fromScreen == stack.topID
    }

    /// Hold a request until the swipe completes (DEFERRED, no guard): it is
    /// then evaluated again from its content, as a deferred request is.
    private func waitForSwipe(_ r: Request) -> SubmitResult {
        transitions.waiters.append(r)
        return SubmitResult(status: .deferred, requestID: r.id, reason: .none, guardID: nil, message: nil)
    }

    /// The swipe has completed (finished, rolled back, interrupted, forced
    /// or destroyed): the requests that waited for it are judged now, in
    /// order, against the stack it settled to (DROPPED stale, or on to the
    /// guards and applied; DROPPED destroyed while destroying).
    func rejudgeSwipeWaiters() {
        guard transitions.swipe == nil, !transitions.waiters.isEmpty else { return }
        for var r in transitions.takeWaiters() {
            r.attempt += 1
            run.append(.evaluate(r))
        }
    }

    /// The stack once the swipe in flight (if any) settles as decided.
    var settledStack: ScreenStack {
        if transitions.swipe?.decision == .cancel, let before = transitions.before { return before }
        return stack
    }

    /// Why a touch cannot drive an interactive back, or nil.
    func drivingTouchProblem(_ id: UInt64) -> String? {
        guard let i = touches.index(of: id) else {
            return touches.retiredView(of: id) != nil ? "driving touch \(id) was cancelled"
                : "driving touch \(id) is not a live touch (submit its began first)"
        }
        switch touches[i].state {
        case NG_TOUCH_STATE_DELIVERED: return nil
        default: return "driving touch \(id) was withheld at began (its began was dropped)"
        }
    }

    /// Decide a request (fresh or re-evaluated after deferral) and apply it:
    /// its content, then the guards, then the stack it would apply to
    /// (navguard.h, "How a request is decided").
    func evaluate(_ r: Request) -> SubmitResult {
        let reevaluation = r.attempt > 0
        if destroying {
            finish(r, outcome: .dropped, reason: .destroyed, by: .host, message: nil)
            return SubmitResult(status: .dropped, requestID: r.id, reason: .destroyed, guardID: nil, message: nil)
        }
        if let (reason, msg) = contentProblem(r) { return refuse(r, reason, msg, reevaluation) }
        // Judged when the swipe has settled, not against the stack it shows.
        if waitsForSwipe(r) { return waitForSwipe(r) }
        let v = runRequestChain(r)
        guard let slot = v.slot else {
            if let (reason, msg) = stackProblem(r) { return refuse(r, reason, msg, reevaluation) }
            apply(r)
            return SubmitResult(status: .applied, requestID: r.id, reason: .none, guardID: nil, message: nil)
        }
        if v.vote == NG_VOTE_DEFER {
            deferred.append(r, slot: slot)
            return SubmitResult(status: .deferred, requestID: r.id, reason: .none,
                                guardID: chain[slot].guardID, message: nil)
        }
        let out: Outcome = reevaluation ? .dropped : .refused
        finish(r, outcome: out, reason: v.reason, by: .guardSlot(slot), message: v.message)
        return SubmitResult(status: out, requestID: r.id, reason: v.reason, guardID: chain[slot].guardID, message: v.message)
    }

    /// Refused by the core's own rules (DROPPED when it had been deferred).
    private func refuse(_ r: Request, _ reason: Reason, _ msg: String, _ reevaluation: Bool) -> SubmitResult {
        let out: Outcome = reevaluation ? .dropped : .refused
        let m = CStr(msg)
        finish(r, outcome: out, reason: reason, by: .host, message: m)
        return SubmitResult(status: out, requestID: r.id, reason: reason, guardID: nil, message: m)
    }

    /// Queue the request's one outcome. `actor` is who decided it (a guard's
    /// id is reported; the core's own rules and the host report none).
    func finish(_ r: Request, outcome: Outcome, reason: Reason, by actor: Actor, message: CStr?) {
        let rec = OutcomeRecord(requestID: r.id, kind: r.kind, outcome: outcome, reason: reason,
                                source: r.source, guardID: actor.slot.map { chain[$0].guardID },
                                message: message)
        run.append(.note(.outcome(rec)))
    }

    /// Apply an allowed request: change the stack and start its transition.
    func apply(_ r: Request) {
        interruptInFlight()
        let from = stack.topID
        // Only an interactive back keeps the old stack (to roll back); a copy
        // for every request would make the mutation below reallocate.
        let before = r.kind == .interactiveBack ? stack : ScreenStack()
        switch r.kind {
        case .push: stack.push(r.screen!)
        case .pop, .back, .interactiveBack: stack.pop()
        case .popTo:
            if let i = stack.lastIndex(of: r.targetID) { stack.pop(after: i) }
        case .popToRoot: stack.pop(after: 0)
        case .replaceStack:
            // A screen that stays (same id) keeps its flags.
            var screens = r.screens
            for k in screens.indices {
                if let i = stack.lastIndex(of: screens[k].id) { screens[k].flags = stack[i].flags }
            }
            stack.replace(with: screens)
        default: break
        }
        finish(r, outcome: .applied, reason: .none, by: .host, message: nil)
        let to = stack.topID
        // The screen on display stays: nothing to show (UIKit runs no
        // transition for setViewControllers with the same top either).
        if r.kind == .replaceStack && to == from { return }
        // Keys and buttons held from the old screen must not act on the new.
        cancelPressesForTransition()
        let t = now
        var track = TrackInFlight(requestID: r.id, kind: r.kind, flags: 0, beganNs: t, deadlineNs: Limits.noDeadline,
                          fromID: from, toID: to, depth: UInt32(stack.count))
        if r.kind == .interactiveBack {
            track.flags = UInt32(NG_TRANSF_ANIMATED | NG_TRANSF_INTERACTIVE)
            if r.drivingTouch != nil { track.flags |= UInt32(NG_TRANSF_TOUCH_DRIVEN) }
            let swipe = Swipe(requestID: r.id, touch: r.drivingTouch, at: t)
            transitions.start(track, swipe: (swipe, before), into: &run)
        } else if r.animated {
            if r.timed {
                let d = r.durationNs > 0 ? r.durationNs : defaultDurationNs
                let (sum, o) = t.addingReportingOverflow(d)
                track.deadlineNs = o ? Limits.noDeadline - 1 : sum
            }
            track.flags = UInt32(NG_TRANSF_ANIMATED)
            transitions.start(track, swipe: nil, into: &run)
        } else {
            // Non-animated: the whole transition completes synchronously.
            run.noteTransition(.screen, .will, flags: 0, track)
            run.noteTransition(.bar, .will, flags: 0, track)
            run.noteTransition(.bar, .did, flags: 0, track)
            run.noteTransition(.screen, .did, flags: 0, track)
        }
    }

    // MARK: Deferred requests (host services of the deferring guard)

    public var deferredCount: Int { deferred.count }
    public func deferredRequest(at i: Int) -> Request? { i >= 0 && i < deferred.count ? deferred[i] : nil }

    /// The deferring guard re-submits its request: evaluated in order, after
    /// the work already queued.
    func deferredApply(_ id: UInt64, slot: Int) -> Bool {
        guard var r = deferred.take(id, slot: slot) else { return false }
        r.attempt += 1
        run.append(.evaluate(r))
        drain()
        return true
    }

    /// A guard makes a request (request_submit): evaluated after the hook
    /// that made it, through the whole chain; ids of their own range.
    func guardSubmit(_ request: Request) throws(EngineError) -> UInt64 {
        guard !destroying else { throw EngineError(NG_E_STATE, "the context is being destroyed") }
        var r = request
        r.id = nextGuardRequestID
        nextGuardRequestID += 1
        run.append(.evaluate(r))
        drain()
        return r.id
    }

    /// The host changes a stacked screen's flags.
    public func setScreenFlags(_ id: UInt64, _ flags: UInt32) throws(EngineError) {
        if let m = screenFlagsProblem(flags) { throw EngineError(NG_E_RANGE, m) }
        let stacked = stack.setFlags(flags, of: id)
        let restorable = transitions.setFlags(flags, of: id)
        guard stacked || restorable else { throw EngineError(NG_E_NOT_FOUND, "screen \(id) is not on the stack") }
    }

    /// The host sets a stacked screen's focus token (on the stack, and on
    /// the stack a swipe in flight would restore).
    public func setScreenFocus(_ id: UInt64, _ token: UInt64) throws(EngineError) {
        let stacked = stack.setFocus(token, of: id)
        let restorable = transitions.setFocus(token, of: id)
        guard stacked || restorable else { throw EngineError(NG_E_NOT_FOUND, "screen \(id) is not on the stack") }
    }

    /// A stacked screen's focus token.
    public func screenFocus(_ id: UInt64) throws(EngineError) -> UInt64 {
        guard let t = stack.focus(of: id) else { throw EngineError(NG_E_NOT_FOUND, "screen \(id) is not on the stack") }
        return t
    }

    func deferredDrop(_ id: UInt64, slot: Int, reason: Reason, message: CStr?) -> Bool {
        guard deferred.contains(id, slot: slot) else { return false }
        act(.deferredDrop(requestID: id, slot: slot, reason: reason, message: message))
        return true
    }
}
