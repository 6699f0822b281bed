// SPDX-License-Identifier: Apache-2.0
import CNavGuard

// The engine's presses: keys and controller buttons get a life, as touches
// do (navguard.h, "Presses"). PressTable keeps them; the rules are here.

extension Engine {
    /// Whether an event is a press's phase (keys and remote buttons, down,
    /// up, repeat): other phases of those types are plain events.
    @inline(__always)
    static func isPressPhase(_ e: ng_event) -> Bool {
        (e.type == NG_EVENT_KEY || e.type == NG_EVENT_REMOTE) && e.phase >= NG_KEY_DOWN && e.phase <= NG_KEY_REPEAT
    }

    /// Route a key or remote event (route()'s part for them): presses are
    /// tracked from down to up; holds and the guard chain decide delivery.
    func routePress(_ ev: UnsafePointer<ng_event>, target: UInt64, typeBit: UInt32) -> EventVerdict {
        let e = ev.pointee
        if e.phase == NG_KEY_DEVICE_REMOVED {
            endPresses(ofDevice: e.touch_id, type: e.type)
            return .deliver(0)
        }
        let blocked = holds.mask & typeBit != 0
        guard Self.isPressPhase(e) else {
            if blocked { return .ignoring(target, by: holds.blocking(typeBit)) }
            return vote(ev, ng_event_want(e.type, e.phase), target: target, flags: 0)
        }
        if e.phase == NG_KEY_DOWN { return pressDown(ev, target: target, typeBit: typeBit) }
        guard let i = presses.index(e.type, e.touch_id, e.code) else {
            // No down seen (held before the context, or pushed out of a full
            // table): an event as any other, as before presses were tracked.
            if blocked { return .ignoring(target, by: holds.blocking(typeBit)) }
            return vote(ev, ng_event_want(e.type, e.phase), target: target, flags: 0)
        }
        let p = presses[i]
        switch p.state {
        case .withheld:
            if e.phase == NG_KEY_UP { presses.remove(at: i) }
            return .drop(.withheld, p.view)
        case .cancelled:
            if e.phase == NG_KEY_UP { presses.remove(at: i) }
            return .drop(.cancelled, p.view)
        case .delivered:
            if e.phase == NG_KEY_UP {
                presses.remove(at: i)
                // A delivered press always gets its up, at its down's target.
                _ = vote(ev, ng_event_want(e.type, e.phase), target: p.view, flags: UInt32(NG_GEVF_FINAL))
                return .deliver(p.view)
            }
            // A hold blocking this type cancelled the press when it began;
            // one begun since (inside a vote) blocks the repeat too.
            if blocked { return .ignoring(p.view, by: holds.blocking(typeBit)) }
            return vote(ev, ng_event_want(e.type, e.phase), target: p.view, flags: 0)
        }
    }

    private func pressDown(_ ev: UnsafePointer<ng_event>, target: UInt64, typeBit: UInt32) -> EventVerdict {
        let e = ev.pointee
        if destroying { return .drop(.ignoring, 0) }
        // A down on a key still down: its up was lost; the old press ends first.
        if let i = presses.index(e.type, e.touch_id, e.code) { endLostPress(at: i) }
        if presses.isFull, let i = presses.evictable { endLostPress(at: i) }
        var v: EventVerdict
        if holds.mask & typeBit != 0 {
            v = .ignoring(target, by: holds.blocking(typeBit))
        } else {
            v = vote(ev, ng_event_want(e.type, e.phase), target: target, flags: 0)
            // A guard's hold begun inside this very vote blocks this press too.
            if v.verdict == .deliver && holds.mask & typeBit != 0 { v = .ignoring(target, by: holds.blocking(typeBit)) }
        }
        presses.down(LivePress(type: e.type, device: e.touch_id, code: e.code, view: target, screen: stack.topID,
                               downNs: now, state: v.verdict == .deliver ? .delivered : .withheld))
        return v
    }

    /// A press whose up never came: the host gets one cancel for it when it
    /// was delivered; otherwise it is just forgotten.
    func endLostPress(at i: Int) {
        if presses[i].state == .delivered, let info = presses.cancel(at: i, cause: .lost) {
            run.append(.note(.pressCancelled(info)))
        }
        presses.remove(at: i)
    }

    /// A device is gone: its delivered presses are cancelled, the rest
    /// forgotten; none of them stays (no up will come).
    func endPresses(ofDevice device: UInt64, type: Int32) {
        var i = 0
        while i < presses.count {
            let p = presses[i]
            guard p.device == device && p.type == type else { i += 1; continue }
            if p.state == .delivered, let info = presses.cancel(at: i, cause: .deviceRemoved) {
                run.append(.note(.pressCancelled(info)))
            }
            presses.remove(at: i)
        }
    }

    /// Cancel every delivered press of the types in `mask` (NG_MASK_*). The
    /// presses stay, CANCELLED, until their ups, which are dropped. Returns
    /// the number cancelled.
    @discardableResult
    func cancelPresses(mask: UInt32, cause: PressCause) -> Int {
        var n = 0
        for i in 0..<presses.count where presses[i].state == .delivered && mask & (UInt32(1) << UInt32(presses[i].type)) != 0 {
            n += 1
            if let info = presses.cancel(at: i, cause: cause) { run.append(.note(.pressCancelled(info))) }
        }
        return n
    }

    /// A transition starts: presses delivered on the old screen must not
    /// act on the new one.
    func cancelPressesForTransition() {
        if presses.count != 0 { cancelPresses(mask: UInt32(NG_MASK_KEY | NG_MASK_REMOTE), cause: .transition) }
    }

    /// A hold began: the presses of the types it blocks are cancelled.
    func cancelPressesForHold(mask: UInt32) {
        if mask & UInt32(NG_MASK_KEY | NG_MASK_REMOTE) != 0 { cancelPresses(mask: mask, cause: .hold) }
    }

    /// The host removed a device (ng_device_removed): the same as an event
    /// of `type` with phase NG_KEY_DEVICE_REMOVED, which is what it submits.
    public static func deviceRemovedEvent(type: Int32, device: UInt64) -> ng_event {
        var e = ng_event()
        e.size = UInt32(MemoryLayout<ng_event>.size)
        e.type = type
        e.phase = NG_KEY_DEVICE_REMOVED
        e.touch_id = device
        return e
    }

    /// Known presses (delivered, withheld or cancelled and not yet up).
    public var pressCount: Int { presses.count }
    public func press(at i: Int) -> (type: Int32, device: UInt64, code: Int64, state: Int32)? {
        guard i >= 0 && i < presses.count else { return nil }
        let p = presses[i]
        return (p.type, p.device, p.code, Int32(p.state.rawValue))
    }
}
