// SPDX-License-Identifier: Apache-2.0
// Threads against the C API: other threads calling [owner] functions while
// the owner works and destroys the context, and a guard's own threads calling
// its host table. Nothing may crash or touch freed memory (`make test` also
// runs this suite under AddressSanitizer); every refused call says why.
import CNavGuard
import Glibc
import Synchronization
import Testing

/// Start `count` threads running `body(index)`; returns a join function.
private func spawn(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) -> () -> Void {
    final class Job: @unchecked Sendable {
        let body: @Sendable (Int) -> Void
        let index: Int
        init(_ body: @escaping @Sendable (Int) -> Void, _ index: Int) { self.body = body; self.index = index }
    }
    var threads: [pthread_t] = []
    for i in 0..<count {
        var tid = pthread_t()
        let arg = Unmanaged.passRetained(Job(body, i)).toOpaque()
        let rc = pthread_create(&tid, nil, { p in
            let job = Unmanaged<Job>.fromOpaque(p!).takeRetainedValue()
            job.body(job.index)
            return nil
        }, arg)
        precondition(rc == 0)
        threads.append(tid)
    }
    return { for t in threads { pthread_join(t, nil) } }
}

/// A handle shared with other threads: they read it without a lock on
/// purpose (a stale or half-destroyed handle is what they must survive).
private final class SharedHandle: @unchecked Sendable {
    let bits = Atomic<UInt>(0)
    var handle: OpaquePointer? { OpaquePointer(bitPattern: bits.load(ordering: .relaxed)) }
}

@Suite("thread stress", .serialized)
struct ThreadStressTests {
    @Test("other threads calling [owner] functions while the owner uses and destroys contexts")
    func ownerCallsRaceDestroy() {
        let shared = SharedHandle()
        let stop = Atomic<Bool>(false)
        let unexpected = Atomic<Int>(0)
        let calls = Atomic<Int>(0)
        let lastUnexpected = Atomic<Int>(-1)
        let join = spawn(3) { i in
            var t: UInt64 = 0
            var n = 0
            var r = ng_request()
            r.size = UInt32(MemoryLayout<ng_request>.size)
            r.kind = NG_REQ_POP
            var e = ng_event()
            e.size = UInt32(MemoryLayout<ng_event>.size)
            e.type = NG_EVENT_KEY
            while !stop.load(ordering: .relaxed) {
                guard let h = shared.handle else { continue }   // (destroy(NULL) is a no-op: NG_OK)
                let sts: [ng_status] = [
                    ng_hold_begin(h, "intruder", 0, 0, &t), ng_stack_count(h, &n), ng_request_submit(h, &r, nil),
                    ng_event_submit(h, &e, nil), ng_tick(h), ng_transition_finish(h, NG_TRACK_ALL),
                    ng_context_destroy(h), ng_context_detach(h),
                ]
                for (k, st) in sts.enumerated() where st != NG_E_THREAD && st != NG_E_HANDLE {
                    unexpected.add(1, ordering: .relaxed)
                    lastUnexpected.store(Int(k) * 100 + Int(st), ordering: .relaxed)
                }
                _ = ng_errmsg(h)
                // The one any-thread entry: accepted, the context is gone, or
                // its 4096 pending posts are full (nobody ticks it here).
                let p = ng_request_post(h, &r, nil)
                if p != NG_OK && p != NG_E_HANDLE && p != NG_E_NO_MEMORY { unexpected.add(1, ordering: .relaxed) }
                calls.add(sts.count + 2, ordering: .relaxed)
                if i == 0 { sched_yield() }
            }
        }
        var destroyed = 0
        for k in 0..<1500 {
            var o = ng_options()
            o.size = UInt32(MemoryLayout<ng_options>.size)
            o.clock = NG_CLOCK_MANUAL
            var h: OpaquePointer?
            #expect(ng_context_create(&o, &h) == NG_OK)
            shared.bits.store(UInt(bitPattern: h), ordering: .relaxed)
            "home".withCString { route in
                var root = ng_screen(id: 1, route: route, identity: nil)
                _ = ng_stack_set_root(h, &root)
            }
            var t: UInt64 = 0
            _ = ng_hold_begin(h, "owner", UInt32(NG_MASK_KEY), 0, &t)
            if k % 3 == 0 { _ = ng_tick(h) }
            #expect(ng_context_destroy(h) == NG_OK)
            destroyed += 1
        }
        stop.store(true, ordering: .relaxed)
        join()
        #expect(destroyed == 1500)
        #expect(unexpected.load(ordering: .relaxed) == 0,
                "only NG_E_THREAD / NG_E_HANDLE for other threads (call*100+status: \(lastUnexpected.load(ordering: .relaxed)))")
        #expect(calls.load(ordering: .relaxed) > 1000, "the other threads really ran")
    }

    @Test("a guard's own threads calling the host table while the owner runs")
    func guardThreadsCallTheHostTable() {
        StressGuard.reset()
        var o = ng_options()
        o.size = UInt32(MemoryLayout<ng_options>.size)
        o.clock = NG_CLOCK_MANUAL
        var h: OpaquePointer?
        #expect(ng_context_create(&o, &h) == NG_OK)
        "home".withCString { route in
            var root = ng_screen(id: 1, route: route, identity: nil)
            _ = ng_stack_set_root(h, &root)
        }
        #expect(ng_chain_add(h, stressGuardDescriptor, nil) == NG_OK)
        // The owner works: touches, holds, pushes; the guard's workers hammer
        // its host table meanwhile (the guard joins them in destroy()).
        for i in 0..<10_000 {
            var e = ng_event()
            e.size = UInt32(MemoryLayout<ng_event>.size)
            e.type = NG_EVENT_TOUCH
            e.touch_id = UInt64(i % 8)
            e.phase = i % 16 < 8 ? NG_TOUCH_BEGAN : NG_TOUCH_ENDED
            _ = ng_event_submit(h, &e, nil)
            if i % 100 == 0 {
                var t: UInt64 = 0
                _ = ng_hold_begin(h, "owner", UInt32(NG_MASK_KEY), 0, &t)
                _ = ng_hold_end(h, t)
            }
        }
        #expect(ng_context_destroy(h) == NG_OK)
        #expect(StressGuard.refused.load(ordering: .relaxed) > 100, "the workers ran and were refused")
        #expect(StressGuard.accepted.load(ordering: .relaxed) == 0, "no call from a worker was served")
    }
}

/// The guard of the second test: create() starts two workers that call the
/// host table until destroy() stops and joins them.
enum StressGuard {
    static let refused = Atomic<Int>(0)
    static let accepted = Atomic<Int>(0)
    static let stop = Atomic<Bool>(false)
    nonisolated(unsafe) static var join: (() -> Void)?
    static func reset() {
        refused.store(0, ordering: .relaxed)
        accepted.store(0, ordering: .relaxed)
        stop.store(false, ordering: .relaxed)
    }
}

private final class HostRef: @unchecked Sendable {
    let host: UnsafePointer<ng_guard_host>
    init(_ host: UnsafePointer<ng_guard_host>) { self.host = host }
}

nonisolated(unsafe) let stressGuardDescriptor: UnsafePointer<ng_plugin_descriptor> = abiGuardDescriptor(id: "abi.stress") {
    $0.create = { host, _ in
        let ref = HostRef(host!)
        StressGuard.join = spawn(2) { _ in
            let h = ref.host
            var t: UInt64 = 0
            var ti = ng_touch_info()
            ti.size = UInt32(MemoryLayout<ng_touch_info>.size)
            var hv = ng_hold_view()
            hv.size = UInt32(MemoryLayout<ng_hold_view>.size)
            while !StressGuard.stop.load(ordering: .relaxed) {
                h.pointee.log(h, NG_LOG_INFO, "from a worker")
                for st in [h.pointee.hold_begin(h, "worker", UInt32(NG_MASK_TOUCH), 0, &t),
                           h.pointee.report(h, "worker report"), h.pointee.touch_get(h, 0, &ti),
                           h.pointee.hold_get(h, 0, &hv), h.pointee.touch_cancel(h, 0)] {
                    if st == NG_E_THREAD { StressGuard.refused.add(1, ordering: .relaxed) }
                    else { StressGuard.accepted.add(1, ordering: .relaxed) }
                }
                if h.pointee.touch_count(h) != 0 || h.pointee.stack_count(h) != 0 || h.pointee.now(h) != 0 {
                    StressGuard.accepted.add(1, ordering: .relaxed)
                }
            }
        }
        return UnsafeMutableRawPointer(bitPattern: 0x1)
    }
    $0.destroy = { _ in
        StressGuard.stop.store(true, ordering: .relaxed)
        StressGuard.join?()
        StressGuard.join = nil
    }
}
