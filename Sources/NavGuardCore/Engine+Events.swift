// SPDX-License-Identifier: Apache-2.0
import CNavGuard

// The engine's input side: events routed, touches tracked, views set.

extension Engine {
    // MARK: Events

    /// Route one validated event. Touches are bound at began and tracked
    /// until their end; holds and then the guard chain decide delivery.
    public func submitEvent(_ ev: UnsafePointer<ng_event>) -> EventVerdict {
        var v = route(ev)
        // What guards did through the host table in their on_event (cancel a
        // touch, finish a track, log) is applied before the verdict returns.
        if run.hasWork {
            let began = ev.pointee.type == NG_EVENT_TOUCH && TouchPhase(rawValue: ev.pointee.phase) == .began
                && v.verdict == .deliver && run.depth == 0
            if began { touches.startDeciding(ev.pointee.touch_id) }
            // The same for a key's or button's down (Engine+Presses.swift).
            let down = Self.isPressPhase(ev.pointee) && ev.pointee.phase == NG_KEY_DOWN
                && v.verdict == .deliver && run.depth == 0
            if down { presses.startDeciding(ev.pointee.type, ev.pointee.touch_id, ev.pointee.code) }
            drain()
            // Cancelled by what its own began set off: the host never saw it
            // begin, so it is dropped, with no on_touch_cancel.
            if began && touches.endDeciding() { v = .drop(.cancelled, v.target) }
            if down && presses.endDeciding() { v = .drop(.cancelled, v.target) }
        }
        return v
    }

    @inline(__always)
    func route(_ ev: UnsafePointer<ng_event>) -> EventVerdict {
        let e = ev.pointee
        let typeBit = UInt32(1) << UInt32(e.type)
        let blocked = holds.mask & typeBit != 0
        guard e.type == NG_EVENT_TOUCH else {
            var target: UInt64 = 0
            if e.flags & UInt32(NG_EVF_HAS_TARGET) != 0 { target = e.target_view }
            else if e.type == NG_EVENT_HOVER { target = views.hitTest(Point(x: e.x, y: e.y)) ?? 0 }
            if e.type == NG_EVENT_KEY || e.type == NG_EVENT_REMOTE { return routePress(ev, target: target, typeBit: typeBit) }
            if blocked { return .ignoring(target, by: holds.blocking(typeBit)) }
            return vote(ev, ng_event_want(e.type, e.phase), target: target, flags: 0)
        }
        switch TouchPhase(rawValue: e.phase) {
        case .began:
            // Destroy cancels every touch until none is live: a callback
            // starting new ones meanwhile would keep it going forever.
            if destroying { return .drop(.ignoring, 0) }
            // A began for a live id: that touch's end was lost. It ends
            // first, so no lost release ever blocks its id.
            if let i = touches.index(of: e.touch_id) { endLostTouch(at: i) }
            if touches.isFull {
                stampMoves()
                if let i = touches.idlest { endLostTouch(at: i) }
            }
            let target = e.flags & UInt32(NG_EVF_HAS_TARGET) != 0 ? e.target_view
                : (views.hitTest(Point(x: e.x, y: e.y)) ?? 0)
            var v: EventVerdict
            if blocked {
                v = .ignoring(target, by: holds.blocking(typeBit))
            } else {
                v = vote(ev, ng_event_want(NG_EVENT_TOUCH, NG_TOUCH_BEGAN), target: target, flags: 0)
                // A guard's hold begun inside this very vote blocks this touch too.
                if v.verdict == .deliver && holds.mask & typeBit != 0 { v = .ignoring(target, by: holds.blocking(typeBit)) }
            }
            // A touch withheld at began stays withheld for its whole life.
            let t = now
            // Refused because of live touches: they are in the way (a still
            // one is then worth a watchdog's attention; see ng_touch_info).
            if v.verdict == .drop && (v.reason == .exclusive || v.reason == .multiTouch) {
                touches.refusedBecauseOf(target: target, sameView: v.reason == .multiTouch, at: t)
            }
            touches.began(LiveTouch(id: e.touch_id, view: target,
                                    state: v.verdict == .deliver ? NG_TOUCH_STATE_DELIVERED : NG_TOUCH_STATE_WITHHELD,
                                    beganNs: t, lastNs: t))
            return v
        case .moved:
            guard let i = touches.index(of: e.touch_id) else { return unknownTouch(e.touch_id, ended: false) }
            let t = touches[i]
            if t.state == NG_TOUCH_STATE_WITHHELD { return .drop(.withheld, t.view) }
            // No clock reading here: the next one dates the move.
            touches.moved(at: i, instantIfRead)
            // The finger driving a swipe back is followed through the
            // transition's own hold.
            if blocked && transitions.swipe?.isDriving(t.id) != true { return .ignoring(t.view, by: holds.blocking(typeBit)) }
            return vote(ev, ng_event_want(NG_EVENT_TOUCH, NG_TOUCH_MOVED), target: t.view, flags: 0)
        default: // ended, cancelled
            guard let i = touches.index(of: e.touch_id) else { return unknownTouch(e.touch_id, ended: true) }
            let t = touches.remove(at: i)
            if t.state == NG_TOUCH_STATE_WITHHELD { return .drop(.withheld, t.view) }
            if transitions.swipe?.isDriving(t.id) == true { transitions.swipe!.touchEnded(at: now) }
            // A delivered touch always gets its end, at the view it began on.
            _ = vote(ev, ng_event_want(NG_EVENT_TOUCH, e.phase), target: t.view, flags: UInt32(NG_GEVF_FINAL))
            return .deliver(t.view)
        }
    }

    /// A phase for an id that is not live: a touch NavGuard retired (dropped
    /// CANCELLED, and forgotten at its end), else a phase without a began.
    func unknownTouch(_ id: UInt64, ended: Bool) -> EventVerdict {
        guard let view = touches.retiredView(of: id) else { return .drop(.invalid, 0) }
        if ended { touches.forgetRetired(id) }
        return .drop(.cancelled, view)
    }

    /// A live touch whose end never came: the host gets one cancel for it
    /// when it was delivered; a withheld one just leaves.
    func endLostTouch(at i: Int) {
        let t = touches[i]
        if transitions.swipe?.isDriving(t.id) == true { transitions.swipe!.touchEnded(at: now) }
        stampMoves()
        if t.state == NG_TOUCH_STATE_DELIVERED, let info = touches.cancel(at: i) {
            run.append(.note(.touchCancelled(info)))
        } else {
            _ = touches.remove(at: i)
        }
    }

    /// Walk the event hooks of the guards that asked for this event: `want`,
    /// its NG_WANT_* bit (GuardChain's tables by bit; each route passes
    /// ng_event_want of what it knows, a constant for a touch's began and
    /// moved); the first drop wins.
    @inline(__always)
    func vote(_ ev: UnsafePointer<ng_event>, _ want: UInt32, target: UInt64, flags: UInt32) -> EventVerdict {
        let (hooks, count) = chain.eventHooks(for: want)
        if count == 0 { return .deliver(target) }
        return walkEventHooks(hooks, count, ev, target: target, flags: flags)
    }

    /// In line: a separate function cost a call, its own frame and a copy of
    /// the verdict through memory for every event a guard asked for, more
    /// than the frame it saves one nobody asked for (submitEvent's frame is
    /// laid out for every route anyway).
    @inline(__always)
    func walkEventHooks(_ hooks: UnsafeMutablePointer<HookEntry>, _ count: Int, _ ev: UnsafePointer<ng_event>,
                        target: UInt64, flags: UInt32) -> EventVerdict {
        var g = ng_guard_event()
        g.size = UInt32(MemoryLayout<ng_guard_event>.size)
        g.flags = flags
        g.event = ev
        g.target_view = target
        var verdict = ng_verdict()
        // A touch's end is delivered whatever the votes (NG_GEVF_FINAL).
        let final = flags & UInt32(NG_GEVF_FINAL) != 0
        run.beginVote()
        defer { run.endVote() }
        var h = hooks
        let end = hooks + count
        repeat {
            verdict.size = UInt32(MemoryLayout<ng_verdict>.size)
            verdict.reason = NG_REASON_NONE
            // The tables hold only non-NULL hooks (GuardChain.rebuildHooks).
            let v = h.pointee.event.unsafelyUnwrapped(h.pointee.instance, &g, &verdict)
            if _slowPath(v != NG_VOTE_ALLOW) && !final {
                // DEFER is for requests only: any other vote drops the event by the guard's own rule.
                var reason = Reason(givenByGuard: verdict.reason)
                if v != NG_VOTE_REFUSE { reason = .policy }
                return .drop(reason, target, chain[h.pointee.slot].guardID)
            }
            h += 1
        } while h < end
        return .deliver(target)
    }

    // MARK: Touch cancellation

    /// Cancel one delivered live touch, or, when `id` is 0, all of them but
    /// the one driving a swipe back (only its own end, an explicit cancel of
    /// its id or destroy ends that one). Returns the number cancelled. The
    /// host hears of each through on_touch_cancel, oldest first; each is
    /// retired at once.
    @discardableResult
    public func cancelTouches(_ id: UInt64) -> Int {
        stampMoves()
        var n = 0
        var i = 0
        while i < touches.count {
            let t = touches[i]
            guard t.state == NG_TOUCH_STATE_DELIVERED && (id == 0 || t.id == id) else { i += 1; continue }
            if transitions.swipe?.isDriving(t.id) == true {
                if id == 0 { i += 1; continue }
                transitions.swipe!.touchEnded(at: now)
            }
            n += 1
            // The touch whose began is being decided becomes a drop:
            // withheld, as any dropped began, with no callback; it stays.
            if let info = touches.cancel(at: i) {
                run.append(.note(.touchCancelled(info)))
            } else {
                i += 1
            }
        }
        return n
    }

    /// Called by a guard through touch_cancel.
    func guardCancelTouch(_ id: UInt64) -> Bool {
        let n = cancelTouches(id)
        drain()
        return n > 0
    }

    public var touchCount: Int { touches.count }
    public func touch(at i: Int) -> ng_touch_info? {
        guard i >= 0 && i < touches.count else { return nil }
        stampMoves()
        return touches.info(at: i)
    }

    /// Delivered live touches bound to a view.
    public func deliveredTouches(on view: UInt64) -> Int { touches.delivered(on: view) }

    // MARK: Views

    public func setView(_ spec: ViewSpec) throws(EngineError) {
        do throws(ViewTreeError) { try views.set(spec) } catch { throw error.engineError }
    }

    /// Remove a view and its subtree; touches bound to removed views are
    /// cancelled, except the one driving a swipe back (the host swaps the
    /// screens' views under the finger).
    public func removeView(_ id: UInt64) throws(EngineError) {
        var gone: [UInt64] = []
        for t in touches.touches where t.state == NG_TOUCH_STATE_DELIVERED && transitions.swipe?.isDriving(t.id) != true {
            if t.view == id || views.isAncestor(id, of: t.view) { gone.append(t.id) }
        }
        do throws(ViewTreeError) { try views.remove(id) } catch { throw error.engineError }
        var cancelled = false
        if !gone.isEmpty { stampMoves() }
        for tid in gone {
            if let i = touches.index(of: tid), let info = touches.cancel(at: i) {
                run.append(.note(.touchCancelled(info)))
                cancelled = true
            }
        }
        if cancelled { drain() }
    }
}
