import CNavGuard
import Glibc
import NavGuardCore
import Synchronization

/// What the ABI layer keeps per context: the engine, the C delegate, the
/// owner-thread guard, the last error text and the cross-thread mailbox.
final class ContextBox: EngineObserver {
    let engine: Engine
    let delegate: ng_delegate
    var handle: OpaquePointer?
    /// pthread_self() of the thread inside an API call, or 0.
    let owner = Atomic<UInt>(0)
    let errbuf: UnsafeMutablePointer<CChar>
    static let errCapacity = 2048
    /// Requests posted from other threads, applied at the next tick.
    let mailboxLock = Lock()
    var mailbox: [Request] = []
    let mailboxCount = Atomic<Int>(0)
    let nextPostedID = Atomic<UInt64>(0)
    static let maxPosted = 4096
    /// Posted ids come from the top half of the id space so that they never
    /// collide with the owner thread's ids (which count up from 1).
    static let postedIDBase: UInt64 = 1 << 63

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

    @inline(__always)
    func fail(_ status: ng_status, _ message: String) -> ng_status {
        setError(message)
        return status
    }

    func fail(_ e: any Error) -> ng_status {
        guard let e = e as? EngineError else { return fail(NG_E_STATE, "unexpected error \(e)") }
        setError(e.message)
        return e.status
    }

    // MARK: EngineObserver → C delegate

    func engineOutcome(_ o: OutcomeRecord) {
        guard let f = delegate.on_outcome else { return }
        var c = o.cValue
        f(delegate.user, handle, &c)
    }

    func engineTransition(_ event: ng_transition_event) {
        guard let f = delegate.on_transition else { return }
        var e = event
        f(delegate.user, handle, &e)
    }

    func engineHoldEnded(_ h: HoldEndRecord) {
        guard let f = delegate.on_hold_end else { return }
        var c = ng_hold_info()
        c.size = UInt32(MemoryLayout<ng_hold_info>.size)
        c.token = h.token
        c.label = h.label.map { UnsafePointer($0.pointer) }
        c.mask = h.mask
        c.reason = h.reason
        c.began_ns = h.beganNs
        c.ended_ns = h.endedNs
        f(delegate.user, handle, &c)
    }

    func engineReport(guardID: UnsafePointer<CChar>?, text: CStr) {
        delegate.on_report?(delegate.user, handle, guardID, UnsafePointer(text.pointer))
    }

    func engineLog(severity: Int32, guardID: UnsafePointer<CChar>?, message: CStr) {
        delegate.on_log?(delegate.user, handle, severity, guardID, UnsafePointer(message.pointer))
    }

    /// Posted requests that never reached a tick: dropped at destroy.
    func destroyEngine() {
        let posted = mailboxLock.withLock { () -> [Request] in
            defer { mailbox.removeAll() }
            return mailbox
        }
        engine.destroy(dropping: posted)
    }

    /// Move posted requests into the engine (owner thread, from ng_tick).
    func drainMailbox() {
        guard mailboxCount.load(ordering: .acquiring) > 0 else { return }
        let posted = mailboxLock.withLock { () -> [Request] in
            defer { mailbox.removeAll() }
            mailboxCount.store(0, ordering: .releasing)
            return mailbox
        }
        for r in posted { _ = engine.submit(r) }
    }
}

/// Reads the monotonic clock for contexts that did not ask for a manual one.
func monotonicNow() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) &* 1_000_000_000 &+ Int64(ts.tv_nsec)
}

/// Enter a context on the calling thread: look up the handle, claim the
/// context for this thread (nested calls from callbacks are allowed), run
/// `body`, release. Bad handles and concurrent use get a status.
@inline(__always)
func withContext(_ handle: OpaquePointer?, _ body: (ContextBox) -> ng_status) -> ng_status {
    guard let box = registry.lookup(handle) else { return NG_E_HANDLE }
    let me = UInt(bitPattern: Int(bitPattern: UInt(pthread_self())))
    let (claimed, current) = box.owner.compareExchange(expected: 0, desired: me, ordering: .acquiring)
    if !claimed && current != me {
        // No error text: writing it would race with the owner thread.
        return NG_E_THREAD
    }
    let status = body(box)
    if claimed { box.owner.store(0, ordering: .releasing) }
    return status
}

extension ContextBox {
    func engineTouchCancelled(_ touch: ng_touch_info) {
        guard let f = delegate.on_touch_cancel else { return }
        var t = touch
        f(delegate.user, handle, &t)
    }
}
