// SPDX-License-Identifier: Apache-2.0
// Property test: random operation sequences (fixed seed) over every request
// kind, finishes, interactive updates/cancels/releases/completions, ticks,
// holds, requests made from inside callbacks, touches, and swipe backs driven
// by a touch, with random guard chains. After every operation and after
// destroy the callback rules must hold: among them, every delivered touch
// ends exactly once (its delivered end or one cancel), and the touch driving
// a swipe in flight is never cancelled by a hold. Touch ids are reused
// (fingers 1..6, as toolkits number them) and ends are lost (a began for an
// id that is still live): the old touch then ends with one cancel, and no id
// ever stays blocked.
import CNavGuard
@testable import NavGuardCore
import Testing

/// Descriptors shared by every run (static storage for the test's life).
private struct Descriptors {
    let busy = makeDescriptor(id: "prop.busy")
    let queue = makeDescriptor(id: "prop.queue")
    let chaos = makeDescriptor(id: "prop.chaos")
    let beganHold = makeDescriptor(id: "prop.began-hold")
    let holdCancels = makeDescriptor(id: "prop.hold-cancels")
}

/// Everything one run needs to check its invariants.
private final class Run {
    let e: Engine
    let rec: CallbackLog
    var rng: SplitMix64
    let runIndex: Int
    var failures: [String] = []
    var opLog: [String] = []

    /// Every request id handed out (by submit, immediate or queued).
    var ids: [UInt64] = []
    var idSet: Set<UInt64> = []
    /// Immediate status per id (APPLIED/REFUSED/DEFERRED/QUEUED).
    var immediate: [UInt64: Outcome] = [:]
    var nextScreen: UInt64 = 2
    /// Live holds by token (mask, deadline) as the test sees them.
    var holds: [UInt64: (mask: UInt32, deadline: Int64)] = [:]
    var endedTokens: Set<UInt64> = []
    /// Requests to make from inside the next callback.
    var armed: [Request] = []
    /// Stack before an interactive back we applied directly.
    var interactiveBefore: (id: UInt64, stack: [String])?
    var guards: [TestGuard] = []
    var queues: [QueueGuard] = []

    /// Every touch the test began, in order: one life per began, so a
    /// reused id is a new life.
    struct TouchLife {
        var id: UInt64
        var delivered: Bool
        /// Its delivered end or NavGuard's cancel: exactly one for a
        /// delivered touch, none for a withheld one.
        var ends = 0
        var cancelled = false
    }
    var lives: [TouchLife] = []
    /// The life of each id the test has begun and not ended (its end may
    /// still be lost: a began for the same id).
    var liveTouches: [UInt64: Int] = [:]
    var nextTouch: UInt64 = 7
    var lostEnds = 0, reusedIDs = 0
    /// The swipe in flight that the test started with a driving touch.
    var driven: (request: UInt64, touch: UInt64)?
    /// Holds a guard began inside a began vote; began touches dropped as
    /// cancelled by their own began's work.
    var guardHolds = 0
    var beganSelfCancels = 0
    var destroying = false
    var drivenSwipes = 0, drivingMovesThroughHolds = 0

    init(index: Int, seed: UInt64, d: Descriptors) {
        runIndex = index
        rng = SplitMix64(seed: seed)
        e = Engine(EngineConfig(clock: .manual(startNs: 0), defaultDurationNs: 200 * ms))
        rec = CallbackLog(engine: e)
        rec.keepLog = false
        e.observer = rec
        try! e.setRoot(Screen(id: 1, route: "root"))

        // The chain: a refusing-when-busy guard in half of the runs, a
        // deferring (queueing) guard in a third, a chaotic voter in a fifth,
        // in random order.
        var chain: [TestGuard] = []
        if index % 2 == 0 { chain.append(busyGuard(d.busy)) }
        if index % 3 == 0 {
            let q = QueueGuard(descriptor: d.queue, bound: 1 + rng.int(0...3))
            queues.append(q)
            chain.append(q.g)
        }
        if index % 5 == 0 { chain.append(chaosGuard(d.chaos, seed: seed ^ 0xC4A05)) }
        // Touch ordering (issue 10.3): a guard that begins a hold inside a
        // touch's began vote, and one whose hold notice cancels every live
        // touch, so a touch can be cancelled by its own began's work.
        if index % 4 == 1 {
            chain.append(beganHoldGuard(d.beganHold, seed: seed ^ 0xB16))
            chain.append(holdCancelsGuard(d.holdCancels, seed: seed ^ 0xCA9))
        }
        chain.shuffle(using: &rng)
        for g in chain { try! g.add(to: e) }
        guards = chain

        // Requests armed by an operation are made from inside the next
        // outcome or transition callback (run to completion).
        rec.onOutcome = { [unowned self] _ in self.fireArmed() }
        rec.onTransition = { [unowned self] ev in
            if ev.phase == NG_PHASE_CANCELLED { self.checkCancelled(ev) }
            if ev.phase != NG_PHASE_WILL, ev.request_id == self.driven?.request { self.driven = nil }
            self.fireArmed()
        }
        rec.onTouchCancel = { [unowned self] t in self.touchCancelled(t) }
    }

    /// The test-side life of a touch id that has begun and not ended.
    func life(_ id: UInt64) -> TouchLife? { liveTouches[id].map { lives[$0] } }

    func touchCancelled(_ t: ng_touch_info) {
        let id = t.touch_id
        guard let k = liveTouches[id], lives[k].delivered else { return fail("cancel of touch \(id), which is not live and delivered") }
        if lives[k].cancelled { fail("touch \(id) cancelled twice") }
        if !destroying, driven?.touch == id, !losingEnd { fail("touch \(id), driving swipe \(driven!.request), was cancelled") }
        lives[k].cancelled = true
        lives[k].ends += 1
    }

    /// A began is being submitted for an id whose end the test lost.
    var losingEnd = false

    private func busyGuard(_ d: UnsafePointer<ng_plugin_descriptor>) -> TestGuard {
        let g = TestGuard(descriptor: d)
        g.vote = { g, _, v in g.busy ? refuse(v, NG_REASON_BUSY) : NG_VOTE_ALLOW }
        return g
    }

    private func beganHoldGuard(_ d: UnsafePointer<ng_plugin_descriptor>, seed: UInt64) -> TestGuard {
        let g = TestGuard(descriptor: d)
        var r = SplitMix64(seed: seed)
        g.onEvent = { [unowned self] g, ev in
            guard ev.event.pointee.type == NG_EVENT_TOUCH, ev.event.pointee.phase == NG_TOUCH_BEGAN, r.chance(30) else {
                return NG_VOTE_ALLOW
            }
            let mask = r.chance(40) ? UInt32(NG_MASK_TOUCH) : UInt32(NG_MASK_KEY)
            let dur = Int64(r.int(50...500)) * ms
            var token: UInt64 = 0
            if g.h.pointee.hold_begin!(g.h, "began-hold", mask, dur, &token) == NG_OK {
                self.holds[token] = (mask, self.e.now + dur)
                self.guardHolds += 1
            }
            return NG_VOTE_ALLOW
        }
        return g
    }

    private func holdCancelsGuard(_ d: UnsafePointer<ng_plugin_descriptor>, seed: UInt64) -> TestGuard {
        let g = TestGuard(descriptor: d)
        var r = SplitMix64(seed: seed)
        g.onHold = { g, n in
            guard !n.ended, r.chance(70) else { return }
            let h = g.h
            // Like the core's own cancel-all, it spares the touch driving a
            // swipe back (an explicit cancel of that id would end the swipe's
            // drive, which the run checks separately).
            var track = ng_track_info()
            track.size = UInt32(MemoryLayout<ng_track_info>.size)
            let driving = h.pointee.track_get!(h, NG_TRACK_SCREEN, &track) && track.swipe == NG_SWIPE_DRIVEN
                ? track.driving_touch : 0
            var ids: [UInt64] = []
            for i in 0..<h.pointee.touch_count!(h) {
                var t = ng_touch_info()
                t.size = UInt32(MemoryLayout<ng_touch_info>.size)
                if h.pointee.touch_get!(h, i, &t) == NG_OK && t.state == NG_TOUCH_STATE_DELIVERED && t.touch_id != driving {
                    ids.append(t.touch_id)
                }
            }
            for id in ids { _ = h.pointee.touch_cancel!(h, id) }
        }
        return g
    }

    private func chaosGuard(_ d: UnsafePointer<ng_plugin_descriptor>, seed: UInt64) -> TestGuard {
        let g = TestGuard(descriptor: d)
        var r = SplitMix64(seed: seed)
        g.vote = { _, _, v in
            switch r.int(0...19) {
            case 0: return refuse(v, NG_REASON_THROTTLED, "chaos")
            case 1: v.pointee.reason = Int32(r.int(-3...40)); return NG_VOTE_REFUSE
            case 2: return Int32(r.int(3...9))          // not a vote
            default: return NG_VOTE_ALLOW
            }
        }
        return g
    }

    /// At a CANCELLED callback the roll-back is complete (anything a guard
    /// or callback asks for in reaction runs only after the callbacks).
    func checkCancelled(_ ev: ng_transition_event) {
        // A swipe released to cancel that a newer request interrupted rolled
        // back first; the newer request was applied before callbacks ran (as
        // for an interrupted DID), so the state is the newer request's.
        if ev.flags & INTERRUPTED != 0 { return }
        if e.inFlight(.screen) != 0 || e.inFlight(.bar) != 0 { fail("something in flight at CANCELLED of \(ev.request_id)") }
        if e.isInteractive { fail("still interactive at CANCELLED") }
        if e.topID != ev.from_id { fail("top \(e.topID) at CANCELLED, expected \(ev.from_id)") }
        if let b = interactiveBefore, b.id == ev.request_id, e.fullStack != b.stack {
            fail("cancel did not restore the exact stack: \(e.fullStack) != \(b.stack)")
        }
        cancelChecks += 1
    }

    var cancelChecks = 0

    func fail(_ s: String) { if failures.count < 20 { failures.append(s) } }

    func fireArmed() {
        guard !armed.isEmpty else { return }
        let r = armed.removeFirst()
        let res = e.submit(r)
        if res.status != .queued { fail("request made in a callback was \(res.status), not QUEUED") }
        note(res)
    }

    func note(_ res: SubmitResult) {
        if res.requestID == 0 { fail("request id 0") }
        if !idSet.insert(res.requestID).inserted { fail("request id \(res.requestID) handed out twice") }
        ids.append(res.requestID)
        immediate[res.requestID] = res.status
    }

    // MARK: Random operations

    func randomFlags() -> UInt32 {
        switch rng.int(0...9) {
        case 0...3: return 0
        case 4...7: return ANIMATED
        case 8: return ANIMATED | TIMED
        default: return TIMED                      // timed without animated: not animated
        }
    }

    func randomScreen() -> Screen {
        if rng.chance(8), e.stackCount > 0 {      // an id already in the stack
            let s = e.screen(at: rng.int(0...(e.stackCount - 1)))!
            return Screen(id: s.id, route: "dup")
        }
        defer { nextScreen += 1 }
        return Screen(id: nextScreen, route: "s\(nextScreen)", identity: rng.chance(30) ? "same" : nil)
    }

    func randomRequest() -> Request {
        var r: Request
        switch rng.int(0...15) {
        case 0...4: r = .push(randomScreen())
        case 5, 6: r = Request(kind: .pop)
        case 7, 8: r = Request(kind: .back)
        case 9:
            let target = rng.chance(80) && e.stackCount > 0 ? e.screen(at: rng.int(0...(e.stackCount - 1)))!.id : 999_999
            r = .popTo(target)
        case 10: r = Request(kind: .popToRoot)
        case 11:
            var list: [Screen] = []
            for _ in 0..<rng.int(0...4) { list.append(randomScreen()) }
            if rng.chance(10) { list.append(Screen(id: 0, route: "zero")) }
            r = .replace(list)
        case 12, 13: r = Request(kind: .interactiveBack)
        case 14:
            r = Request(kind: rng.chance(50) ? RequestKind(rawValue: 42) : .push)
            if r.kind == .push { r.screen = randomScreen(); r.invalidMessage = "marked invalid" }
        default:
            r = .push(randomScreen())
        }
        r.flags = randomFlags()
        r.source = UInt32(rng.int(0...3))
        if r.flags & TIMED != 0 { r.durationNs = rng.chance(30) ? 0 : Int64(rng.int(1...400)) * ms }
        return r
    }

    func step() {
        switch rng.int(0...129) {
        case 0..<40:
            let r = randomRequest()
            let before = e.fullStack
            let settledBefore = e.settledFullStack
            let res = e.submit(r)
            opLog.append("submit kind \(r.kind) flags \(r.flags) -> \(res.status) #\(res.requestID)")
            note(res)
            if res.status == .applied || res.status == .refused {
                if let o = rec.outcomes[res.requestID] {
                    if o.outcome != res.status { fail("#\(res.requestID): immediate \(res.status), final \(o.outcome)") }
                    if o.reason != res.reason { fail("#\(res.requestID): immediate reason \(res.reason), final \(o.reason)") }
                } else {
                    fail("#\(res.requestID) \(res.status) without an outcome before submit returned")
                }
            }
            if res.status == .queued { fail("QUEUED outside a callback") }
            if res.status == .refused && queues.isEmpty && e.fullStack != before { fail("a refused request changed the stack") }
            if r.kind == .interactiveBack && res.status == .applied && e.inFlight(.screen) == res.requestID {
                interactiveBefore = (res.requestID, settledBefore)
            }
        case 40..<55:
            let track = Track(rawValue: Int32(rng.int(0...2)))
            let busy = track == .all ? (e.inFlight(.screen) != 0 || e.inFlight(.bar) != 0) : e.inFlight(track) != 0
            let releasedToCancel = e.transitions.swipe?.decision == .cancel
            let st = statusOf { () throws(EngineError) in try e.finishTransition(track) }
            opLog.append("finish \(track) -> \(st)")
            if st != (!busy ? NG_E_NOT_FOUND : releasedToCancel ? NG_E_STATE : NG_OK) { fail("finish(\(track)) busy \(busy) -> \(st)") }
        case 55..<60:
            let p = Double(rng.int(0...100)) / 100
            let st = statusOf { () throws(EngineError) in try e.updateInteractive(p) }
            opLog.append("update \(p) -> \(st)")
            if st != (e.isInteractive ? NG_OK : NG_E_NOT_FOUND) { fail("interactive update -> \(st)") }
            if st == NG_OK && e.interactiveProgress != p { fail("progress not kept") }
        case 60..<67:
            let inFlight = e.isInteractive ? e.inFlight(.screen) : 0
            let hadArmed = !armed.isEmpty
            let releasedToFinish = e.transitions.swipe?.decision == .finish
            let st = statusOf { () throws(EngineError) in try e.cancelInteractive() }
            opLog.append("cancel -> \(st)")
            if st != (inFlight == 0 ? NG_E_NOT_FOUND : releasedToFinish ? NG_E_STATE : NG_OK) { fail("cancel -> \(st)") }
            if st == NG_OK {
                let n = rec.cancelled.count
                if !rec.cancelled.contains(inFlight) || n == 0 { fail("cancel of \(inFlight) fired no CANCELLED") }
                if queues.isEmpty && !hadArmed && (e.inFlight(.screen) != 0 || e.inFlight(.bar) != 0) {
                    fail("something in flight after cancel")
                }
            }
        case 67..<80:
            let d = rng.chance(20) ? 0 : Int64(rng.int(1...600)) * ms
            try! e.advanceTime(d)
            let st = statusOf { () throws(EngineError) in try e.tick() }
            opLog.append("tick +\(d / ms)ms -> \(st)")
            if st != NG_OK { fail("tick -> \(st)") }
            let now = e.now
            // A timed transition past its deadline has ended; so has every hold.
            if !e.isInteractive, let t = e.transitions.current, t.deadlineNs <= now {
                fail("transition \(t.requestID) past its deadline still in flight")
            }
            var i = 0
            while let h = e.holdView(at: i) {
                if h.deadline_ns <= now { fail("hold \(h.token) past its deadline still live") }
                i += 1
            }
        case 80..<87:
            let mask = rng.chance(30) ? 0 : UInt32(rng.int(1...0x3F))
            let dur = rng.chance(30) ? 0 : Int64(rng.int(1...1500)) * ms
            let t = try! e.beginHold(label: CStr("h"), mask: mask, maxDurationNs: dur)
            opLog.append("hold \(mask) \(dur / ms)ms -> \(t)")
            if t == 0 || holds[t] != nil || endedTokens.contains(t) { fail("hold token \(t) reused") }
            holds[t] = (mask == 0 ? UInt32(NG_MASK_DEFAULT) : mask, dur == 0 ? Int64.max : e.now + dur)
        case 87..<93:
            let live = Array(holds.keys).sorted()
            let token = !live.isEmpty && rng.chance(75) ? live[rng.int(0...(live.count - 1))]
                : (endedTokens.min() ?? 0) + UInt64(rng.int(0...3)) * 1000
            let st = statusOf { () throws(EngineError) in try e.endHold(token) }
            opLog.append("end hold \(token) -> \(st)")
            if st != (holds[token] != nil ? NG_OK : NG_E_NOT_FOUND) { fail("end hold \(token) -> \(st)") }
        case 93..<98:
            // Arm requests to be made from inside the next callback, then
            // trigger callbacks with a request.
            for _ in 0..<rng.int(1...2) { armed.append(randomRequest()) }
            let r = randomRequest()
            let res = e.submit(r)
            opLog.append("armed + submit kind \(r.kind) -> \(res.status)")
            note(res)
        case 98..<100:
            let text = e.snapshot()
            let before = e.fullStack
            var bytes = Array(text.utf8)
            let st = statusOf { () throws(EngineError) in
                try bytes.withUnsafeMutableBufferPointer { b throws(EngineError) in try e.restore(snapshot: UnsafeBufferPointer(b)) }
            }
            let busy = e.inFlight(.screen) != 0 || e.inFlight(.bar) != 0
            opLog.append("restore -> \(st)")
            if st != (busy ? NG_E_STATE : NG_OK) { fail("restore busy \(busy) -> \(st)") }
            if e.fullStack != before { fail("snapshot round trip changed the stack") }
        case 100..<106:
            touchBegan()
        case 106..<112:
            touchMoved()
        case 112..<117:
            touchEnded()
        case 117..<121:
            drivenSwipe()
        case 121..<125:
            let finish = rng.chance(50)
            let expected = !e.isInteractive ? NG_E_NOT_FOUND : (e.transitions.swipe!.decision == .none ? NG_OK : NG_E_STATE)
            let st = statusOf { () throws(EngineError) in try e.releaseInteractive(finish: finish) }
            opLog.append("release finish \(finish) -> \(st)")
            if st != expected { fail("release -> \(st), expected \(expected)") }
            if st == NG_OK && e.trackView(.screen)?.swipe != (finish ? NG_SWIPE_FINISHING : NG_SWIPE_CANCELLING) { fail("release not kept") }
        default:
            let decision = e.transitions.swipe?.decision
            let expected = decision == nil ? NG_E_NOT_FOUND : (decision == Swipe.Decision.none ? NG_E_STATE : NG_OK)
            let id = e.inFlight(.screen)
            let st = statusOf { () throws(EngineError) in try e.completeInteractive() }
            opLog.append("complete -> \(st)")
            if st != expected { fail("complete -> \(st), expected \(expected)") }
            if st == NG_OK, let decision, queues.isEmpty, armed.isEmpty {
                if decision == .finish && (rec.lastEnd[0].id != id || rec.lastEnd[0].phase != NG_PHASE_DID) { fail("completed finish without DID") }
                if decision == .cancel && !rec.cancelled.contains(id) { fail("completed cancel without CANCELLED") }
            }
        }
        check(final: false)
    }

    // MARK: Touches

    @discardableResult
    func submitTouch(_ phase: Int32, _ id: UInt64) -> EventVerdict {
        var ev = ng_event()
        ev.size = UInt32(MemoryLayout<ng_event>.size)
        ev.type = NG_EVENT_TOUCH
        ev.phase = phase
        ev.touch_id = id
        ev.x = Double(rng.int(0...800))
        ev.y = Double(rng.int(0...600))
        if phase == NG_TOUCH_BEGAN && rng.chance(50) {
            ev.flags = UInt32(NG_EVF_HAS_TARGET)
            ev.target_view = UInt64(rng.int(1...3))
        }
        return withUnsafePointer(to: &ev) { e.submitEvent($0) }
    }

    func randomLiveTouch() -> UInt64? {
        let ids = liveTouches.keys.sorted()
        return ids.isEmpty ? nil : ids[rng.int(0...(ids.count - 1))]
    }

    func touchBegan() {
        guard liveTouches.count < 8 else { return touchEnded() }
        // Toolkits reuse finger ids: mostly 1...6, sometimes a fresh one.
        let id: UInt64
        if rng.chance(75) { id = UInt64(rng.int(1...6)) } else { id = nextTouch; nextTouch += 1 }
        // An id still live: its end was lost. The old touch ends first, with
        // one cancel when it was delivered and not cancelled yet.
        let old = life(id)
        let oldIndex = liveTouches[id]
        if old != nil { lostEnds += 1 }
        if lives.contains(where: { $0.id == id }) { reusedIDs += 1 }
        let endsBefore = old?.ends ?? 0
        losingEnd = old != nil
        let v = submitTouch(NG_TOUCH_BEGAN, id)
        losingEnd = false
        opLog.append("touch \(id) began\(old != nil ? " (end lost)" : "") -> \(v.verdict) \(v.reason)")
        if let old, let k = oldIndex {
            let expected = old.delivered && !old.cancelled ? 1 : 0
            if lives[k].ends - endsBefore != expected {
                fail("lost end of touch \(id): \(lives[k].ends - endsBefore) cancels, expected \(expected)")
            }
            if driven?.touch == id { driven = nil }
        }
        // No id stays blocked: a began is judged by holds and guards only.
        if v.reason == .invalid { fail("began of touch \(id) dropped invalid: the id stayed blocked") }
        let blocked = e.holdMask & UInt32(NG_MASK_TOUCH) != 0
        // A touch cancelled by what its own began set off (a guard's hold
        // notice cancelling touches) is dropped: the host never hears of it
        // again (touchCancelled fails on a cancel of a touch not yet began).
        if v.verdict == .drop && v.reason == .cancelled && !blocked {
            beganSelfCancels += 1
        } else if blocked != (v.verdict == .drop) {
            fail("began of \(id) with touch hold \(blocked) -> \(v.verdict) \(v.reason)")
        }
        lives.append(TouchLife(id: id, delivered: v.verdict == .deliver))
        liveTouches[id] = lives.count - 1
    }

    func touchMoved() {
        guard let id = randomLiveTouch(), let t = life(id) else { return touchBegan() }
        let drivingInFlight = driven?.touch == id && e.isInteractive
        let blocked = e.holdMask & UInt32(NG_MASK_TOUCH) != 0
        let v = submitTouch(NG_TOUCH_MOVED, id)
        opLog.append("touch \(id) moved -> \(v.verdict) \(v.reason)")
        if drivingInFlight {
            if v.verdict != .deliver { fail("move of driving touch \(id) dropped (\(v.reason))") }
            if blocked { drivingMovesThroughHolds += 1 }
        }
        if t.cancelled {
            // Retired: dropped as cancelled while NavGuard remembers it.
            if v.verdict != .drop || (v.reason != .cancelled && v.reason != .invalid) {
                fail("move of cancelled touch \(id) -> \(v.verdict) \(v.reason)")
            }
            return
        }
        let expected: Reason = !t.delivered ? .withheld
            : blocked && !drivingInFlight ? .ignoring : .none
        if v.reason != expected { fail("move of touch \(id) -> reason \(v.reason), expected \(expected)") }
    }

    func touchEnded() {
        guard let id = randomLiveTouch(), let k = liveTouches[id] else { return }
        let phase = rng.chance(80) ? NG_TOUCH_ENDED : NG_TOUCH_CANCELLED
        let v = submitTouch(phase, id)
        opLog.append("touch \(id) \(phase == NG_TOUCH_ENDED ? "ended" : "cancelled") -> \(v.verdict) \(v.reason)")
        if lives[k].delivered && !lives[k].cancelled {
            if v.verdict != .deliver { fail("end of delivered touch \(id) dropped (\(v.reason))") }
            lives[k].ends += 1
        } else if v.verdict == .deliver {
            fail("end of touch \(id) delivered, though withheld or cancelled")
        }
        if driven?.touch == id {
            if e.isInteractive && e.trackView(.screen)?.swipe == NG_SWIPE_DRIVEN { fail("swipe still DRIVEN after its touch ended") }
            driven = nil
        }
        liveTouches[id] = nil
    }

    func drivenSwipe() {
        let named: UInt64 = rng.chance(85) ? (randomLiveTouch() ?? 999) : 999
        var r = Request(kind: .interactiveBack, flags: ANIMATED, source: UInt32(rng.int(0...3)))
        r.drivingTouch = named
        let usable = life(named).map { $0.delivered && !$0.cancelled } ?? false
        let settledBefore = e.settledFullStack
        let res = e.submit(r)
        opLog.append("driven swipe by \(named) -> \(res.status) \(res.reason) #\(res.requestID)")
        note(res)
        if !usable && res.status == .applied { fail("swipe driven by unusable touch \(named) applied") }
        if !usable && res.status == .refused && res.reason != .invalid && res.reason != .atRoot
            && guards.isEmpty {
            fail("swipe driven by unusable touch \(named) refused \(res.reason)")
        }
        if res.status == .applied && e.inFlight(.screen) == res.requestID {
            driven = (res.requestID, named)
            interactiveBefore = (res.requestID, settledBefore)
            drivenSwipes += 1
            if e.trackView(.screen)?.swipe != NG_SWIPE_DRIVEN { fail("a swipe driven by a live touch is not DRIVEN") }
            // As global-ignore does: block touches for the transition.
            if rng.chance(60) {
                let t = try! e.beginHold(label: CStr("transition"), mask: UInt32(NG_MASK_DEFAULT), maxDurationNs: 0)
                holds[t] = (UInt32(NG_MASK_DEFAULT), Int64.max)
            }
        }
    }

    // MARK: Invariants

    func check(final: Bool) {
        for v in rec.violations { fail(v) }
        rec.violations.removeAll()
        if rec.depth != 0 { fail("observer depth \(rec.depth) between operations") }
        if !final {
            if e.stackCount < 1 { fail("empty stack") }
            let stackIDs = e.ids
            if Set(stackIDs).count != stackIDs.count || stackIDs.contains(0) { fail("bad stack ids \(stackIDs)") }
            // What the callbacks said is in flight is what the engine says.
            if e.inFlight(.screen) != rec.open[0] || e.inFlight(.bar) != rec.open[1] {
                fail("in flight: engine \(e.inFlight(.screen))/\(e.inFlight(.bar)), callbacks \(rec.open)")
            }
            if e.isInteractive && (e.inFlight(.screen) == 0 || e.inFlight(.screen) != e.inFlight(.bar)) {
                fail("interactive back not on both tracks")
            }
            if !armed.isEmpty && e.depth == 0 {
                // Nothing fired them (e.g. no callback happened): forget them.
                armed.removeAll()
            }
            // Holds: count and union of masks.
            for (t, r) in rec.endedHolds where holds[t] != nil || !endedTokens.contains(t) {
                if let h = holds[t], r.reason == NG_HOLD_EXPIRED, r.endedNs < h.deadline { fail("hold \(t) expired early") }
                holds[t] = nil
                endedTokens.insert(t)
            }
            var mask: UInt32 = 0
            for h in holds.values { mask |= h.mask }
            if e.holdCount != holds.count || e.holdMask != mask {
                fail("holds: engine \(e.holdCount)/\(e.holdMask), expected \(holds.count)/\(mask)")
            }
        }
        // Every request is either finished (exactly one outcome, checked by
        // the recorder) or still deferred by a guard.
        var deferred = Set<UInt64>()
        for i in 0..<e.deferredCount { deferred.insert(e.deferredRequest(at: i)!.id) }
        for id in ids {
            let done = rec.outcomes[id] != nil
            if final && !done { fail("request \(id) never got an outcome") }
            if !final && done == deferred.contains(id) { fail("request \(id): outcome \(done), deferred \(deferred.contains(id))") }
            if done, let imm = immediate[id], imm == .deferred, rec.outcomes[id]!.outcome == .refused {
                fail("deferred request \(id) ended REFUSED (must be APPLIED or DROPPED)")
            }
        }
        for id in rec.outcomes.keys where !idSet.contains(id) { fail("outcome for unknown request \(id)") }
        if final {
            for id in ids where immediate[id] == .deferred && rec.outcomes[id]?.outcome == .applied {
                _ = id   // applied before destroy: fine
            }
        }
    }

    func finish() {
        let deferredAtDestroy = Set((0..<e.deferredCount).map { e.deferredRequest(at: $0)!.id })
        destroying = true
        e.destroy()
        check(final: true)
        // Every touch delivered at began ended exactly once (its end, its
        // cancel, or the cancel of a lost end); withheld ones never.
        for t in lives where t.ends != (t.delivered ? 1 : 0) {
            fail("touch \(t.id) (\(t.delivered ? "delivered" : "withheld")) ended \(t.ends) times")
        }
        for id in deferredAtDestroy {
            let o = rec.outcomes[id]
            if o?.outcome != .dropped || o?.reason != .destroyed {
                fail("request \(id) deferred at destroy ended \(String(describing: o?.outcome)) reason \(String(describing: o?.reason))")
            }
        }
        for g in guards where g.destroyCount != 1 { fail("guard \(g.id) destroyed \(g.destroyCount) times") }
        if e.holdCount != 0 { fail("holds live after destroy") }
        // Cancelled touches are retired: NavGuard keeps only the withheld.
        let kept = liveTouches.values.filter { !lives[$0].cancelled }.count
        if e.touchCount != kept { fail("engine has \(e.touchCount) live touches, the test \(kept)") }
    }
}

@Suite("Property")
struct PropertyTests {
    @Test("random operation sequences keep every callback rule (10,000 runs, fixed seed)")
    func randomSequences() {
        let d = Descriptors()
        var master = SplitMix64(seed: 0x4E61_7647_7561_7264)   // "NavGuard"
        let runs = 10_000
        var totalOps = 0
        var totalRequests = 0
        var outcomesByKind = [Outcome: Int]()
        var sawCancel = 0, sawDeferredApplied = 0, sawDestroyedDrop = 0, sawInterrupted = 0
        var drivenSwipes = 0, drivingMovesThroughHolds = 0, touchCancels = 0, guardHolds = 0, beganSelfCancels = 0
        var lostEnds = 0, reusedIDs = 0
        var failedRuns = 0
        for i in 0..<runs {
            let seed = master.next()
            let run = Run(index: i, seed: seed, d: d)
            let count = run.rng.int(10...40)
            for _ in 0..<count {
                run.step()
                totalOps += 1
                if !run.failures.isEmpty { break }
            }
            let cancels = run.rec.cancelled.count
            run.finish()
            drivenSwipes += run.drivenSwipes
            drivingMovesThroughHolds += run.drivingMovesThroughHolds
            touchCancels += run.rec.touchCancels.count
            lostEnds += run.lostEnds
            reusedIDs += run.reusedIDs
            guardHolds += run.guardHolds
            beganSelfCancels += run.beganSelfCancels
            totalRequests += run.ids.count
            sawCancel += cancels
            for o in run.rec.outcomes.values {
                outcomesByKind[o.outcome, default: 0] += 1
                if o.reason == .destroyed { sawDestroyedDrop += 1 }
                if run.immediate[o.requestID] == .deferred && o.outcome == .applied { sawDeferredApplied += 1 }
            }
            _ = sawInterrupted
            if !run.failures.isEmpty {
                failedRuns += 1
                if failedRuns <= 3 {
                    Issue.record("run \(i) (seed \(seed)): \(run.failures.joined(separator: "; "))\nops:\n\(run.opLog.suffix(15).joined(separator: "\n"))")
                }
            }
        }
        #expect(failedRuns == 0)
        // The generator reaches every interesting path.
        #expect(totalOps >= runs * 10)
        #expect(outcomesByKind[.applied, default: 0] > 1000)
        #expect(outcomesByKind[.refused, default: 0] > 1000)
        #expect(outcomesByKind[.dropped, default: 0] > 100)
        #expect(sawCancel > 100)
        #expect(sawDeferredApplied > 100)
        #expect(sawDestroyedDrop > 10)
        #expect(drivenSwipes > 400)
        #expect(drivingMovesThroughHolds > 25)
        #expect(touchCancels > 500)
        #expect(guardHolds > 100)
        #expect(beganSelfCancels > 20)
        #expect(lostEnds > 400)
        #expect(reusedIDs > 800)
        _ = totalRequests
    }
}
