import CNavGuard
import Glibc
import NavGuardCore
import Synchronization

/// What the ABI layer keeps per context: the engine, the C delegate, its
/// registry slot (which records the owner thread), the last error text and
/// the cross-thread mailbox.
final class ContextBox: EngineObserver {
    let engine: Engine
    let delegate: ng_delegate
    /// The options' manual clock start (for a trace's header).
    var manualStartNs: Int64 = 0
    /// The flight recorder, while recording.
    var recorder: Recorder?
    var handle: OpaquePointer?
    /// The registry slot (set at insert).
    var slot = 0
    /// Set by destroy, under the registry lock: posts are refused from then on.
    var closing = false
    let errbuf: UnsafeMutablePointer<CChar>
    static let errCapacity = 2048
    /// Requests posted from other threads, applied at the next tick.
    let mailboxLock = Lock()
    var mailbox: [Request] = []
    var mailboxBytes = 0
    let mailboxCount = Atomic<Int>(0)
    let nextPostedID = Atomic<UInt64>(0)
    /// Posted ids count up from here (NG_POSTED_ID_BASE; a replay of a
    /// trace NavGuard 0.2 recorded uses that version's 2^63). Set before any
    /// post.
    var postedIDBase = Limits.postedIDBase
    /// The host's on_wake was called and the owner has not ticked since:
    /// further posts need no wake-up.
    let wakePending = Atomic<Bool>(false)
    /// The deadline last given to the host's on_deadline.
    var reportedDeadline = Limits.noDeadline
    /// The latest event timestamp: an earlier one is raised to it.
    var lastEventNs: Int64 = 0
    static let maxPosted = 4096
    /// Pending posts are capped in memory too: 4096 replace-stacks of 4096
    /// screens each would otherwise hold tens of gigabytes.
    static let maxPostedBytes = 16 << 20

    /// About the memory a posted request holds (its screens and strings).
    static func footprint(_ r: Request) -> Int {
        var n = MemoryLayout<Request>.stride
        if let s = r.screen { n += s.route.count + s.identity.count + 2 }
        for s in r.screens { n += MemoryLayout<Screen>.stride + s.route.count + s.identity.count + 2 }
        return n
    }
    /// Whether this caller is the one to wake the owner (the first since
    /// its last tick). Any thread.
    func claimWake() -> Bool {
        wakePending.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }

    /// At the end of a call that changed state: tell the host's on_deadline
    /// when the next deadline moved (not from inside a callback: the outer
    /// call tells it once, at its end).
    @inline(__always)
    func reportDeadline() {
        guard let f = delegate.on_deadline, !engine.isInsideCallback else { return }
        let d = engine.nextDeadline()
        guard d != reportedDeadline else { return }
        reportedDeadline = d
        engine.callback { f(delegate.user, handle, d) }
    }

    init(engine: Engine, delegate: ng_delegate) {
        self.engine = engine
        self.delegate = delegate
        errbuf = .allocate(capacity: ContextBox.errCapacity)
        errbuf.initialize(repeating: 0, count: ContextBox.errCapacity)
        setError("no error")
    }

    deinit { errbuf.deallocate() }

    /// The text ng_errmsg returns; a longer one is cut on a UTF-8 character
    /// boundary and ends with "...".
    func setError(_ message: String) {
        var m = message
        m.withUTF8 { buf in
            var n = buf.count
            let cut = n > ContextBox.errCapacity - 1
            if cut {
                n = ContextBox.errCapacity - 4
                while n > 0 && buf[n] & 0xC0 == 0x80 { n -= 1 }   // not inside a character
            }
            if let base = buf.baseAddress {
                UnsafeMutableRawPointer(errbuf).copyMemory(from: base, byteCount: n)
            }
            if cut {
                errbuf[n] = 46; errbuf[n + 1] = 46; errbuf[n + 2] = 46
                n += 3
            }
            errbuf[n] = 0
        }
    }

    /// A call from a callback that would add work past the work cap.
    @inline(never)
    func failCut() -> ng_status {
        fail(NG_E_NO_MEMORY, "refused: the work of the call that made this callback passed NG_MAX_WORK "
             + "(\(NG_MAX_WORK)); no work is added from callbacks until it returns")
    }

    /// The host call returns (outside any callback) and its work was cut:
    /// its status says so unless it failed on its own.
    @inline(never)
    func endCutCall(_ st: ng_status) -> ng_status {
        guard let e = engine.takeWorkCut() else { return st }
        return st == NG_OK ? fail(e.status, "the call was done, but \(e.message)") : st
    }

    /// A call from inside the flight recorder's writer.
    @inline(never)
    func failInWriter() -> ng_status {
        fail(NG_E_CALLBACK, "not allowed inside the flight recorder's write callback")
    }

    @inline(__always)
    func fail(_ status: ng_status, _ message: String) -> ng_status {
        setError(message)
        return status
    }

    /// The one size check of a struct the host passes to be filled
    /// (`type` "ng_screen_info": NG_SCREEN_INFO_MIN_SIZE, NG_SCREEN_INFO_INIT).
    /// nil when `size` reaches the frozen minimum; the text is built only on
    /// failure.
    @inline(__always)
    func failUndersized(_ size: UInt32, _ minimum: Int, _ type: StaticString) -> ng_status? {
        guard Int(size) < minimum else { return nil }
        let upper = String(describing: type).dropFirst(3).uppercased()
        return fail(NG_E_SIZE, "\(type).size is \(size), below NG_\(upper)_MIN_SIZE (set it with NG_\(upper)_INIT)")
    }

    func fail(_ e: any Error) -> ng_status {
        guard let e = e as? EngineError else { return fail(NG_E_STATE, "unexpected error \(e)") }
        setError(e.message)
        return e.status
    }

    // MARK: Flight recorder

    /// The call's arguments, once they passed validation.
    @inline(__always)
    func recordArgs(_ body: (TraceLine) -> Void) {
        if let r = recorder { r.args(engine.now, body) }
    }

    /// Results of the call, beside its status.
    @inline(__always)
    func recordResult(_ body: (TraceLine) -> Void) {
        recorder?.result(body)
    }

    /// A chain change: `via` names the function; the guards it added are
    /// the call's result.
    func recordChain(_ via: StaticString, config: String? = nil, path: String? = nil,
                     _ body: () -> ng_status) -> ng_status {
        let before = engine.guardCount
        recordArgs { w in
            w.field("via", literal: via)
            if let path { w.field("path", path) }
            if let config { w.field("config", config) }
        }
        let st = body()
        if st == NG_OK {
            recordResult { w in
                w.array("guards") { w in
                    for i in before..<engine.guardCount {
                        w.element()
                        TraceWrite.guardRecord(w, engine.guardRecord(at: i)!)
                    }
                }
            }
        }
        return st
    }

    func recorderLeave(_ rec: Recorder, _ st: ng_status, flush: Bool) {
        rec.leave(st, err: st == NG_OK ? nil : UnsafePointer(errbuf), t: engine.now)
        guard rec.isIdle else { return }
        if let why = rec.failed {
            // Told through on_log, then dropped: the host's own calls go on.
            stopRecording()
            let m = CStr("flight recorder stopped: \(why)")
            delegate.on_log?(delegate.user, handle, NG_LOG_ERROR, nil, UnsafePointer(m.pointer))
        } else if flush || rec.isOverFlushSize {
            rec.flush()
        }
    }

    /// Nothing has happened in the context yet: a trace started now replays
    /// from the beginning.
    var isFresh: Bool {
        engine.stackCount == 0 && engine.guardCount == 0 && engine.views.count == 0 && engine.holdCount == 0
            && engine.touchCount == 0
    }

    func stopRecording() {
        recorder?.close()
        recorder = nil
    }

    // MARK: EngineObserver → C delegate

    func engineOutcome(_ o: OutcomeRecord) {
        recorder?.callback("outcome") { TraceWrite.outcome($0, o) }
        guard let f = delegate.on_outcome else { return }
        var c = o.cValue
        f(delegate.user, handle, &c)
    }

    func engineTransition(_ event: ng_transition_event) {
        recorder?.callback("transition") { TraceWrite.transition($0, event) }
        guard let f = delegate.on_transition else { return }
        var e = event
        f(delegate.user, handle, &e)
    }

    func engineHoldEnded(_ h: HoldEndRecord) {
        recorder?.callback("hold_end") { w in
            TraceWrite.holdEnd(w, token: h.token, label: h.label.map { UnsafePointer($0.pointer) }, mask: h.mask,
                               reason: h.reason, began: h.beganNs, ended: h.endedNs)
        }
        guard let f = delegate.on_hold_end else { return }
        var c = ng_hold_info()
        c.size = UInt32(MemoryLayout<ng_hold_info>.size)
        c.token = h.token
        c.label = h.label.map { UnsafePointer($0.pointer) }
        c.mask = h.mask
        c.reason = h.reason
        c.began_ns = h.beganNs
        c.ended_ns = h.endedNs
        c.owner_id = h.owner
        f(delegate.user, handle, &c)
    }

    func engineQuestion(_ q: ng_question) {
        recorder?.callback("question") { TraceWrite.question($0, q) }
        guard let f = delegate.on_question else { return }
        var c = q
        f(delegate.user, handle, &c)
    }

    func engineQuestionEnded(_ q: ng_question, answer: Int32) {
        recorder?.callback("question_end") { TraceWrite.questionEnd($0, q, answer: answer) }
        guard let f = delegate.on_question_end else { return }
        var c = q
        f(delegate.user, handle, &c, answer)
    }

    func engineReport(guardID: UnsafePointer<CChar>?, text: CStr) {
        // The trace keeps the guard's text; what the library adds for the
        // host (slow votes, where the recording is) depends on timing and
        // files, which replay does not reproduce.
        recorder?.callback("report") { TraceWrite.report($0, guardID: guardID, text: UnsafePointer(text.pointer)) }
        var notes: [String] = []
        if let slow = engine.takeSlowVoteNote() { notes.append(slow) }
        // A watchdog report names where the record of what led to it is.
        if let rec = recorder, let g = guardID, strcmp(g, "org.navguard.watchdog") == 0 {
            if rec.isRing {
                let path = rec.nextDumpPath(slot: slot)
                let trace = rec.ringTrace(self)
                if let err = writeFile(path, trace) {
                    notes.append("flight recorder: could not dump the last \(rec.ringCount) records: \(err)")
                } else {
                    notes.append("flight recorder: the last \(rec.ringCount) records are in \(path)")
                }
            } else {
                rec.flush()
                notes.append(rec.path.map { "flight recorder: the whole session is in \($0)" }
                    ?? "flight recorder: the whole session went to the host's writer")
            }
        }
        guard !notes.isEmpty else {
            delegate.on_report?(delegate.user, handle, guardID, UnsafePointer(text.pointer))
            return
        }
        let full = CStr(text.string + (text.string.hasSuffix("\n") ? "" : "\n") + notes.joined(separator: "\n") + "\n")
        delegate.on_report?(delegate.user, handle, guardID, UnsafePointer(full.pointer))
    }

    func engineLog(severity: Int32, guardID: UnsafePointer<CChar>?, message: CStr) {
        recorder?.callback("log") {
            TraceWrite.log($0, severity: severity, guardID: guardID, message: UnsafePointer(message.pointer))
        }
        delegate.on_log?(delegate.user, handle, severity, guardID, UnsafePointer(message.pointer))
    }

    /// Posted requests that never reached a tick: dropped at destroy.
    func destroyEngine() {
        let posted = mailboxLock.withLock { () -> [Request] in
            defer { mailbox.removeAll(); mailboxBytes = 0 }
            return mailbox
        }
        // Recorded where they ended: inside the destroy that dropped them.
        for r in posted { recorder?.posted(r) }
        engine.destroy(dropping: posted)
    }

    /// Move posted requests into the engine (owner thread, from ng_tick).
    func drainMailbox() {
        // Cleared before the mailbox is taken: a post after this wakes the
        // owner again (at worst once too often), never too rarely.
        wakePending.store(false, ordering: .releasing)
        guard mailboxCount.load(ordering: .acquiring) > 0 else { return }
        let posted = mailboxLock.withLock { () -> [Request] in
            defer { mailbox.removeAll(); mailboxBytes = 0 }
            mailboxCount.store(0, ordering: .releasing)
            return mailbox
        }
        // All recorded first, right after the tick's line: replay posts them
        // before its tick.
        if let rec = recorder { for r in posted { rec.posted(r) } }
        for r in posted { _ = engine.submit(r) }
    }
}

/// The monotonic clock to the kernel's tick (a few ms): what guards' votes
/// are timed with, against a limit of NG_SLOW_VOTE_MS. About 3 ns a reading
/// where CLOCK_MONOTONIC takes 20.
func monotonicCoarseNow() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts)
    return Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec)
}

/// Reads the monotonic clock for contexts that did not ask for a manual one.
func monotonicNow() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec)
}

/// Run `body` with the context when the calling thread owns it (the thread
/// that created it, or the one it was attached to); otherwise NG_E_HANDLE or
/// NG_E_THREAD, and no error text (writing it would race with the owner).
@inline(__always)
func withContext(_ handle: OpaquePointer?, _ body: (ContextBox) -> ng_status) -> ng_status {
    var status = NG_OK
    guard let box = registry.owned(handle, &status) else { return status }
    // Borrowed, not retained: the owner's call cannot race its destruction.
    return box._withUnsafeGuaranteedRef { b in
        if let r = b.recorder, r.inWriter { return b.failInWriter() }
        b.engine.beginCall()
        return body(b)
    }
}

/// As withContext, for a call that changes state, which the flight recorder
/// records as `fn`: a call refused before it calls `recordArgs` is recorded
/// as rejected, with its status and message. At its end the host's
/// on_deadline hears of a new deadline (`deadline` false: the body decides,
/// for continuous input). Without a recorder and on_deadline this costs two
/// loads and branches.
@inline(__always)
func withContext(_ handle: OpaquePointer?, record fn: StaticString, flush: Bool = false, deadline: Bool = true,
                 _ body: (ContextBox) -> ng_status) -> ng_status {
    var status = NG_OK
    guard let box = registry.owned(handle, &status) else { return status }
    return box._withUnsafeGuaranteedRef { b in
        if let r = b.recorder, r.inWriter { return b.failInWriter() }
        b.engine.beginCall()
        // The calls recorded are those that change state: past the work
        // cap, one made from a callback is refused (WorkCap.swift).
        var st: ng_status
        if let rec = b.recorder {
            rec.enter(fn)
            st = b.engine.isCuttingWork ? b.failCut() : body(b)
            if _slowPath(b.engine.workCut != nil) { st = b.endCutCall(st) }
            b.recorderLeave(rec, st, flush: flush)
        } else {
            st = b.engine.isCuttingWork ? b.failCut() : body(b)
            if _slowPath(b.engine.workCut != nil) { st = b.endCutCall(st) }
        }
        if deadline { b.reportDeadline() }
        return st
    }
}

/// The engine's owner check: host-table calls from a guard's own thread are
/// refused. The argument is the address of the slot's owner word (registry
/// memory is never freed): every host-table call makes this check, so it
/// reads one word and the thread pointer, nothing more.
let ownerCheck: @convention(c) (Int) -> Bool = { word in
    UnsafePointer<Atomic<UInt>>(bitPattern: word)!.pointee.load(ordering: .relaxed) == currentThread()
}

extension ContextBox {
    func engineTouchCancelled(_ touch: ng_touch_info) {
        recorder?.callback("touch_cancel") { TraceWrite.touchCancel($0, touch) }
        guard let f = delegate.on_touch_cancel else { return }
        var t = touch
        f(delegate.user, handle, &t)
    }
}
