// SPDX-License-Identifier: Apache-2.0
// The C ABI of include/navguard/navguard.h, exercised from Swift through the
// exported ng_* functions: handles, NULL pointers, enum ranges, sizes,
// strings, status names, callbacks, run to completion and threads.
import CNavGuard
import Glibc
import NavGuard
import Testing

// MARK: - Helpers

/// What the delegate saw.
final class ABIRec {
    struct Outcome {
        var id: UInt64, outcome: Int32, kind: Int32, reason: Int32, source: UInt32
        var guardID: String?, message: String?
        var thread: pthread_t
    }
    var outcomes: [Outcome] = []
    var transitions: [(track: Int32, phase: Int32, id: UInt64, flags: UInt32)] = []
    var holdEnds: [(token: UInt64, reason: Int32, label: String?)] = []
    var logs: [String] = []
    var depth = 0
    var maxDepth = 0
    var onOutcome: ((OpaquePointer?, ng_outcome) -> Void)?
    var onTransition: ((OpaquePointer?, ng_transition_event) -> Void)?

    func outcome(_ id: UInt64) -> [Outcome] { outcomes.filter { $0.id == id } }

    static func of(_ user: UnsafeMutableRawPointer?) -> ABIRec { Unmanaged<ABIRec>.fromOpaque(user!).takeUnretainedValue() }

    func enter() { depth += 1; maxDepth = max(maxDepth, depth) }
    func leave() { depth -= 1 }
}

func options(_ rec: ABIRec, clock: ng_clock_kind = NG_CLOCK_MANUAL) -> ng_options {
    var o = ng_options()
    o.size = UInt32(MemoryLayout<ng_options>.size)
    o.clock = clock
    o.manual_start_ns = 0
    o.default_duration_ns = 0
    o.delegate.size = UInt32(MemoryLayout<ng_delegate>.size)
    o.delegate.user = Unmanaged.passUnretained(rec).toOpaque()
    o.delegate.on_outcome = { user, ctx, out in
        let rec = ABIRec.of(user)
        rec.enter(); defer { rec.leave() }
        let o = out!.pointee
        rec.outcomes.append(.init(id: o.request_id, outcome: o.outcome, kind: o.kind, reason: o.reason, source: o.source,
                                  guardID: o.guard_id.map { String(cString: $0) },
                                  message: o.message.map { String(cString: $0) }, thread: pthread_self()))
        rec.onOutcome?(ctx, o)
    }
    o.delegate.on_transition = { user, ctx, ev in
        let rec = ABIRec.of(user)
        rec.enter(); defer { rec.leave() }
        let e = ev!.pointee
        rec.transitions.append((e.track, e.phase, e.request_id, e.flags))
        rec.onTransition?(ctx, e)
    }
    o.delegate.on_hold_end = { user, _, h in
        let rec = ABIRec.of(user)
        rec.enter(); defer { rec.leave() }
        rec.holdEnds.append((h!.pointee.token, h!.pointee.reason, h!.pointee.label.map { String(cString: $0) }))
    }
    o.delegate.on_log = { user, _, _, _, msg in
        ABIRec.of(user).logs.append(String(cString: msg!))
    }
    return o
}

/// A context with a recording delegate and a manual clock; destroyed with
/// the object unless the test destroyed it.
final class Ctx {
    let rec = ABIRec()
    var h: OpaquePointer?

    init(root: UInt64? = 1, clock: ng_clock_kind = NG_CLOCK_MANUAL) {
        var o = options(rec, clock: clock)
        let st = ng_context_create(&o, &h)
        precondition(st == NG_OK && h != nil, "ng_context_create: \(st)")
        if let root { precondition(setRoot(root, "root") == NG_OK) }
    }

    deinit { if let h { _ = ng_context_destroy(h) } }

    func setRoot(_ id: UInt64, _ route: String) -> ng_status {
        route.withCString { r in
            var s = ng_screen(id: id, route: r, identity: nil)
            return ng_stack_set_root(h, &s)
        }
    }

    /// Destroy and return the (now stale) handle.
    func destroy() -> OpaquePointer? {
        let old = h
        #expect(ng_context_destroy(h) == NG_OK)
        h = nil
        return old
    }

    var count: Int {
        var n = 0
        #expect(ng_stack_count(h, &n) == NG_OK)
        return n
    }

    var ids: [UInt64] {
        (0..<count).map { i in
            var info = ng_screen_info()
            info.size = UInt32(MemoryLayout<ng_screen_info>.size)
            #expect(ng_stack_get(h, i, &info) == NG_OK)
            return info.id
        }
    }

    var errmsg: String { String(cString: ng_errmsg(h)) }

    func inFlight(_ track: ng_track) -> UInt64 {
        var busy = false
        var id: UInt64 = 0
        #expect(ng_transition_in_flight(h, track, &busy, &id) == NG_OK)
        #expect(busy == (id != 0))
        return id
    }
}

func request(_ kind: ng_request_kind, flags: UInt32 = 0) -> ng_request {
    var r = ng_request()
    r.size = UInt32(MemoryLayout<ng_request>.size)
    r.kind = kind
    r.flags = flags
    return r
}

func result() -> ng_request_result {
    var r = ng_request_result()
    r.size = UInt32(MemoryLayout<ng_request_result>.size)
    return r
}

/// Submit a push whose route is the given raw bytes (NUL added).
func submitPush(_ h: OpaquePointer?, _ id: UInt64, routeBytes: [UInt8], flags: UInt32 = 0) -> (ng_status, ng_request_result) {
    var bytes = routeBytes.map { CChar(bitPattern: $0) }
    bytes.append(0)
    return bytes.withUnsafeBufferPointer { p in
        var r = request(NG_REQ_PUSH, flags: flags)
        r.screen = ng_screen(id: id, route: p.baseAddress, identity: nil)
        var out = result()
        let st = ng_request_submit(h, &r, &out)
        return (st, out)
    }
}

func submitPush(_ h: OpaquePointer?, _ id: UInt64, _ route: String = "screen", flags: UInt32 = 0) -> (ng_status, ng_request_result) {
    submitPush(h, id, routeBytes: Array(route.utf8), flags: flags)
}

func submit(_ h: OpaquePointer?, _ kind: ng_request_kind, flags: UInt32 = 0) -> (ng_status, ng_request_result) {
    var r = request(kind, flags: flags)
    var out = result()
    let st = ng_request_submit(h, &r, &out)
    return (st, out)
}

/// Run `body` on a new pthread and wait for it.
final class ThreadBody {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}

func onOtherThread(_ body: @escaping () -> Void) {
    let arg = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var tid = pthread_t()
    let rc = pthread_create(&tid, nil, { p in
        Unmanaged<ThreadBody>.fromOpaque(p!).takeRetainedValue().body()
        return nil
    }, arg)
    precondition(rc == 0, "pthread_create failed")
    pthread_join(tid, nil)
}

func leaked(_ s: String) -> UnsafePointer<CChar> { UnsafePointer(strdup(s)!) }

/// A linked-in guard: refuses pushes to routes starting with "blocked",
/// allows everything else. Descriptor allocated once, never freed.
nonisolated(unsafe) var instantReadings: [Int64] = []

func monotonicNs() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

func abiGuardDescriptor(id: String, tweak: (inout ng_plugin_descriptor) -> Void = { _ in }) -> UnsafePointer<ng_plugin_descriptor> {
    var d = ng_plugin_descriptor()
    d.abi_major = UInt32(NG_PLUGIN_ABI_MAJOR)
    d.abi_minor = UInt32(NG_PLUGIN_ABI_MINOR)
    d.size = UInt32(MemoryLayout<ng_plugin_descriptor>.size)
    d.id = leaked(id)
    d.name = leaked("abi test guard")
    d.version = leaked("1")
    d.description = leaked("refuses blocked routes")
    d.create = { host, _ in UnsafeMutableRawPointer(mutating: host) }   // any non-NULL instance
    d.destroy = { _ in }
    d.on_request = { _, r, v in
        if let s = r!.pointee.screen, strncmp(s.pointee.route, "blocked", 7) == 0 {
            v!.pointee.reason = NG_REASON_POLICY
            v!.pointee.message = UnsafeRawPointer(("abi says no" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self)
            return NG_VOTE_REFUSE
        }
        return NG_VOTE_ALLOW
    }
    tweak(&d)
    let p = UnsafeMutablePointer<ng_plugin_descriptor>.allocate(capacity: 1)
    p.initialize(to: d)
    return UnsafePointer(p)
}

/// One call of every function that takes a context, with otherwise valid
/// arguments, so that the handle is the only thing that can be wrong.
func everyContextCall() -> [(String, (OpaquePointer?) -> ng_status)] {
    let guardDesc = abiGuardDescriptor(id: "abi.handle-check")
    return [
        ("ng_stack_set_root", { h in "r".withCString { var s = ng_screen(id: 5, route: $0, identity: nil); return ng_stack_set_root(h, &s) } }),
        ("ng_stack_count", { h in var n = 0; return ng_stack_count(h, &n) }),
        ("ng_stack_get", { h in
            var i = ng_screen_info(); i.size = UInt32(MemoryLayout<ng_screen_info>.size); return ng_stack_get(h, 0, &i) }),
        ("ng_stack_snapshot", { h in
            var p: UnsafeMutablePointer<CChar>?; var n = 0
            let st = ng_stack_snapshot(h, &p, &n); ng_free(p); return st }),
        ("ng_stack_restore", { h in
            let t = "{\"navguard_snapshot\":1,\"screens\":[{\"id\":1,\"route\":\"a\"}]}"
            return t.withCString { ng_stack_restore(h, $0, strlen($0)) } }),
        ("ng_request_submit", { h in var r = request(NG_REQ_POP); var o = result(); return ng_request_submit(h, &r, &o) }),
        ("ng_request_post", { h in var r = request(NG_REQ_POP); var id: UInt64 = 0; return ng_request_post(h, &r, &id) }),
        ("ng_transition_finish", { h in ng_transition_finish(h, NG_TRACK_ALL) }),
        ("ng_interactive_update", { h in ng_interactive_update(h, 0.5) }),
        ("ng_interactive_cancel", { h in ng_interactive_cancel(h) }),
        ("ng_interactive_release", { h in ng_interactive_release(h, true) }),
        ("ng_interactive_complete", { h in ng_interactive_complete(h) }),
        ("ng_track_get", { h in var t = ng_track_info(); t.size = UInt32(MemoryLayout<ng_track_info>.size); return ng_track_get(h, NG_TRACK_SCREEN, &t) }),
        ("ng_hold_get", { h in var v = ng_hold_view(); v.size = UInt32(MemoryLayout<ng_hold_view>.size); return ng_hold_get(h, 0, &v) }),
        ("ng_transition_in_flight", { h in var b = false; var id: UInt64 = 0; return ng_transition_in_flight(h, NG_TRACK_SCREEN, &b, &id) }),
        ("ng_hold_begin", { h in var t: UInt64 = 0; return ng_hold_begin(h, "x", 0, 0, &t) }),
        ("ng_hold_end", { h in ng_hold_end(h, 1) }),
        ("ng_hold_state", { h in var m: UInt32 = 0; var n = 0; return ng_hold_state(h, &m, &n) }),
        ("ng_tick", { h in ng_tick(h) }),
        ("ng_next_deadline", { h in var t: Int64 = 0; return ng_next_deadline(h, &t) }),
        ("ng_now", { h in var t: Int64 = 0; return ng_now(h, &t) }),
        ("ng_clock_set", { h in ng_clock_set(h, 1_000) }),
        ("ng_clock_advance", { h in ng_clock_advance(h, 1) }),
        ("ng_event_submit", { h in
            var e = ng_event(); e.size = UInt32(MemoryLayout<ng_event>.size); e.type = NG_EVENT_KEY
            var out = ng_event_result(); out.size = UInt32(MemoryLayout<ng_event_result>.size)
            return ng_event_submit(h, &e, &out) }),
        ("ng_view_set", { h in
            var v = ng_view(); v.size = UInt32(MemoryLayout<ng_view>.size); v.id = 10; v.alpha = 1
            v.frame = ng_rect(x: 0, y: 0, width: 10, height: 10)
            return ng_view_set(h, &v) }),
        ("ng_view_remove", { h in ng_view_remove(h, 10) }),
        ("ng_hit_test", { h in var v: UInt64 = 0; return ng_hit_test(h, 1, 1, &v) }),
        ("ng_touch_count", { h in var n = 0; return ng_touch_count(h, &n) }),
        ("ng_touch_get", { h in var t = ng_touch_info(); t.size = UInt32(MemoryLayout<ng_touch_info>.size); return ng_touch_get(h, 0, &t) }),
        ("ng_chain_add", { h in ng_chain_add(h, guardDesc, nil) }),
        ("ng_chain_count", { h in var n = 0; return ng_chain_count(h, &n) }),
        ("ng_chain_get_id", { h in var p: UnsafePointer<CChar>?; return ng_chain_get_id(h, 0, &p) }),
        ("ng_plugin_load", { h in ng_plugin_load(h, "/nonexistent/navguard-test-plugin.so", nil) }),
        ("ng_chain_configure", { h in ng_chain_configure(h, "{\"guards\":[]}") }),
        ("ng_chain_configure_file", { h in ng_chain_configure_file(h, "/nonexistent/navguard-chain.json") }),
        ("ng_context_detach", { h in ng_context_detach(h) }),
        ("ng_context_attach", { h in ng_context_attach(h) }),
        ("ng_context_destroy", { h in ng_context_destroy(h) }),
    ]
}

// MARK: - Tests

@Suite("C ABI")
struct ABITests {
    @Test("version and status names")
    func versionAndNames() {
        #expect(ng_version() == NG_VERSION_MAJOR * 1_000_000 + NG_VERSION_MINOR * 1_000 + NG_VERSION_PATCH)   // navguard.h's NG_VERSION_NUMBER
        #expect(String(cString: ng_version_string()) == NG_VERSION_STRING)
        var names = Set<String>()
        for s in 0..<NG_STATUS_COUNT {
            let n = String(cString: ng_strstatus(s))
            #expect(n != "unknown status", "status \(s)")
            #expect(!n.isEmpty)
            names.insert(n)
        }
        #expect(names.count == Int(NG_STATUS_COUNT), "every status has a distinct string")
        for s in [NG_STATUS_COUNT, -1, 1000, Int32.min] {
            #expect(String(cString: ng_strstatus(s)) == "unknown status")
        }
        #expect(String(cString: ng_strstatus(NG_E_HANDLE)).hasPrefix("NG_E_HANDLE"))

        var kinds = Set<String>()
        for k in 0..<NG_REQ_KIND_COUNT {
            let n = String(cString: ng_request_kind_name(k))
            #expect(n != "unknown", "kind \(k)")
            kinds.insert(n)
        }
        #expect(kinds.count == Int(NG_REQ_KIND_COUNT))
        #expect(String(cString: ng_request_kind_name(NG_REQ_KIND_COUNT)) == "unknown")
        var outcomes = Set<String>()
        for o in NG_OUTCOME_APPLIED...NG_OUTCOME_QUEUED { outcomes.insert(String(cString: ng_outcome_name(o))) }
        #expect(outcomes.count == 5 && !outcomes.contains("unknown"))
        #expect(String(cString: ng_outcome_name(5)) == "unknown")
        #expect(String(cString: ng_outcome_name(NG_OUTCOME_APPLIED)) == "applied")
    }

    @Test("every reason, including the input-event reasons, has a distinct name")
    func reasonNames() {
        var reasons = Set<String>()
        for r in 0..<NG_REASON_COUNT {
            let n = String(cString: ng_reason_name(r))
            #expect(n != "unknown", "reason \(r) has a name")
            reasons.insert(n)
        }
        #expect(reasons.count == Int(NG_REASON_COUNT))
        #expect(String(cString: ng_reason_name(NG_REASON_COUNT)) == "unknown")
        #expect(String(cString: ng_reason_name(NG_REASON_BUSY)) == "busy")
    }

    @Test("create and destroy; NULL destroy is a no-op")
    func createDestroy() {
        var h: OpaquePointer?
        #expect(ng_context_create(nil, &h) == NG_OK, "NULL options: defaults")
        #expect(h != nil)
        var now: Int64 = -1
        #expect(ng_now(h, &now) == NG_OK)
        #expect(ng_clock_set(h, 5) == NG_E_STATE, "monotonic clock cannot be set")
        #expect(ng_clock_advance(h, 5) == NG_E_STATE)
        var n = -1
        #expect(ng_stack_count(h, &n) == NG_OK && n == 0)
        #expect(ng_context_destroy(h) == NG_OK)
        #expect(ng_context_destroy(nil) == NG_OK)
        #expect(ng_context_destroy(h) == NG_E_HANDLE, "twice")

        let rec = ABIRec()
        var o = options(rec)
        o.manual_start_ns = 42
        #expect(ng_context_create(&o, &h) == NG_OK)
        #expect(ng_now(h, &now) == NG_OK && now == 42)
        #expect(ng_context_destroy(h) == NG_OK)
        #expect(rec.outcomes.isEmpty)
    }

    @Test("NULL, destroyed and foreign handles get NG_E_HANDLE from every function that takes a context")
    func badHandles() {
        let live = Ctx()
        let stale = Ctx().destroy()
        let liveBits = UInt(bitPattern: live.h)
        let bad: [(String, OpaquePointer?)] = [
            ("NULL", nil),
            ("destroyed", stale),
            ("foreign 0x1234", OpaquePointer(bitPattern: 0x1234)),
            ("foreign 0x1", OpaquePointer(bitPattern: 0x1)),
            ("foreign pointer-like", OpaquePointer(bitPattern: 0x7F00_DEAD_BEE0)),
            ("live slot, wrong generation", OpaquePointer(bitPattern: liveBits ^ (1 << 20))),
            ("all ones", OpaquePointer(bitPattern: UInt.max)),
        ]
        for (what, h) in bad {
            for (name, call) in everyContextCall() {
                let st = call(h)
                if name == "ng_context_destroy" && h == nil {
                    #expect(st == NG_OK, "ng_context_destroy(NULL) is a no-op")
                } else {
                    #expect(st == NG_E_HANDLE, "\(name) with a \(what) handle gave \(String(cString: ng_strstatus(st)))")
                }
            }
            #expect(ng_errmsg(h) != nil)
            #expect(!String(cString: ng_errmsg(h)).isEmpty)
        }
        // The live context was not disturbed by any of it.
        #expect(live.ids == [1])
        #expect(live.rec.outcomes.isEmpty)
    }

    @Test("NULL required pointers get NG_E_NULL")
    func nullPointers() {
        let c = Ctx()
        let h = c.h
        var o = options(c.rec)
        #expect(ng_context_create(&o, nil) == NG_E_NULL)
        #expect(ng_stack_set_root(h, nil) == NG_E_NULL)
        #expect(ng_stack_count(h, nil) == NG_E_NULL)
        #expect(ng_stack_get(h, 0, nil) == NG_E_NULL)
        #expect(ng_stack_snapshot(h, nil, nil) == NG_E_NULL)
        #expect(ng_stack_restore(h, nil, 0) == NG_E_NULL)
        #expect(ng_request_submit(h, nil, nil) == NG_E_NULL)
        #expect(ng_request_post(h, nil, nil) == NG_E_NULL)
        #expect(ng_transition_in_flight(h, NG_TRACK_SCREEN, nil, nil) == NG_E_NULL)
        #expect(ng_hold_begin(h, "x", 0, 0, nil) == NG_E_NULL)
        #expect(ng_next_deadline(h, nil) == NG_E_NULL)
        #expect(ng_now(h, nil) == NG_E_NULL)
        #expect(ng_event_submit(h, nil, nil) == NG_E_NULL)
        #expect(ng_view_set(h, nil) == NG_E_NULL)
        #expect(ng_hit_test(h, 0, 0, nil) == NG_E_NULL)
        #expect(ng_touch_count(h, nil) == NG_E_NULL)
        #expect(ng_touch_get(h, 0, nil) == NG_E_NULL)
        #expect(ng_chain_add(h, nil, nil) == NG_E_NULL)
        #expect(ng_chain_count(h, nil) == NG_E_NULL)
        #expect(ng_chain_get_id(h, 0, nil) == NG_E_NULL)
        #expect(ng_plugin_load(h, nil, nil) == NG_E_NULL)
        #expect(ng_chain_configure_file(h, nil) == NG_E_NULL)
        #expect(!c.errmsg.isEmpty)
        // Optional out pointers may be NULL.
        var r = request(NG_REQ_POP)
        #expect(ng_request_submit(h, &r, nil) == NG_OK)
        #expect(ng_hold_state(h, nil, nil) == NG_OK)
        var busy = true
        #expect(ng_transition_in_flight(h, NG_TRACK_BAR, &busy, nil) == NG_OK && !busy)
        var text: UnsafeMutablePointer<CChar>?
        #expect(ng_stack_snapshot(h, &text, nil) == NG_OK)
        #expect(text != nil)
        ng_free(text)
        ng_free(nil)
        #expect(c.ids == [1])
    }

    @Test("out-of-range enums and numbers get NG_E_RANGE")
    func ranges() {
        let rec = ABIRec()
        var h: OpaquePointer?
        var o = options(rec)
        o.clock = 7
        #expect(ng_context_create(&o, &h) == NG_E_RANGE)
        o = options(rec); o.manual_start_ns = -1
        #expect(ng_context_create(&o, &h) == NG_E_RANGE)
        o = options(rec); o.default_duration_ns = -1
        #expect(ng_context_create(&o, &h) == NG_E_RANGE)
        o = options(rec); o.size = 0
        #expect(ng_context_create(&o, &h) == NG_E_SIZE)

        let c = Ctx()
        for t: Int32 in [-1, 3, 100] { #expect(ng_transition_finish(c.h, t) == NG_E_RANGE, "finish track \(t)") }
        var b = false
        #expect(ng_transition_in_flight(c.h, NG_TRACK_ALL, &b, nil) == NG_E_RANGE)
        #expect(ng_transition_in_flight(c.h, 9, &b, nil) == NG_E_RANGE)
        for p in [Double.nan, -0.5, 1.5, .infinity] { #expect(ng_interactive_update(c.h, p) == NG_E_RANGE, "progress \(p)") }
        var t: UInt64 = 0
        #expect(ng_hold_begin(c.h, nil, 0x40, 0, &t) == NG_E_RANGE)
        #expect(ng_hold_begin(c.h, nil, 0x80000000, 0, &t) == NG_E_RANGE)
        #expect(ng_hold_begin(c.h, nil, 0, -1, &t) == NG_E_RANGE)
        var hc = 0
        #expect(ng_hold_state(c.h, nil, &hc) == NG_OK && hc == 0)
        #expect(ng_clock_set(c.h, 100) == NG_OK)
        #expect(ng_clock_set(c.h, 99) == NG_E_RANGE, "backwards")
        #expect(ng_clock_advance(c.h, -1) == NG_E_RANGE)
        #expect(ng_clock_advance(c.h, Int64.max) == NG_E_RANGE, "overflow")
        var now: Int64 = 0
        #expect(ng_now(c.h, &now) == NG_OK && now == 100)
        var out: UInt64 = 0
        #expect(ng_hit_test(c.h, .nan, 0, &out) == NG_E_RANGE)
        var ev = ng_event()
        ev.size = UInt32(MemoryLayout<ng_event>.size)
        ev.type = 99
        #expect(ng_event_submit(c.h, &ev, nil) == NG_E_RANGE)
        let fresh = Ctx(root: nil)
        "x".withCString { x in
            var root = ng_screen(id: 0, route: x, identity: nil)
            #expect(ng_stack_set_root(fresh.h, &root) == NG_E_RANGE, "id 0")
        }

        // Posting checks the request at once.
        var r = request(99)
        #expect(ng_request_post(c.h, &r, nil) == NG_E_RANGE)
        r = request(NG_REQ_POP, flags: 0x80)
        #expect(ng_request_post(c.h, &r, nil) == NG_E_RANGE)
        r = request(NG_REQ_POP, flags: UInt32(NG_REQF_TIMED))
        #expect(ng_request_post(c.h, &r, nil) == NG_E_RANGE, "TIMED needs ANIMATED")
        r = request(NG_REQ_POP)
        r.size = 8
        #expect(ng_request_post(c.h, &r, nil) == NG_E_SIZE)
        var next: Int64 = 0
        #expect(ng_next_deadline(c.h, &next) == NG_OK && next == Int64.max, "nothing was posted")
    }

    @Test("struct sizes are checked")
    func sizes() {
        let c = Ctx()
        var r = request(NG_REQ_POP)
        r.size = 4
        var out = result()
        #expect(ng_request_submit(c.h, &r, &out) == NG_E_SIZE)
        var info = ng_screen_info()
        #expect(ng_stack_get(c.h, 0, &info) == NG_E_SIZE, "size 0")
        info.size = UInt32(MemoryLayout<ng_screen_info>.size)
        #expect(ng_stack_get(c.h, 0, &info) == NG_OK && info.id == 1 && String(cString: info.route) == "root")
        #expect(String(cString: info.identity) == "root", "identity NULL means the route")
        #expect(ng_stack_get(c.h, 1, &info) == NG_E_NOT_FOUND)
        // A result with a smaller size gets only the fields inside it.
        var small = result()
        small.size = UInt32(MemoryLayout<ng_request_result>.offset(of: \ng_request_result.request_id)!)
        small.request_id = 777
        var pop = request(NG_REQ_POP)
        #expect(ng_request_submit(c.h, &pop, &small) == NG_OK)
        #expect(small.request_id == 777, "fields beyond size untouched")
        #expect(small.status == NG_OUTCOME_REFUSED)
    }

    @Test("requests without a root: NG_E_STATE; malformed content is refused INVALID with an id and one outcome")
    func malformedRequests() {
        let noRoot = Ctx(root: nil)
        var pop = request(NG_REQ_POP)
        var out = result()
        #expect(ng_request_submit(noRoot.h, &pop, &out) == NG_E_STATE)
        #expect(noRoot.rec.outcomes.isEmpty)

        let c = Ctx()
        // Invalid UTF-8 (a lone continuation, an overlong, a truncated sequence, a surrogate).
        let bad: [[UInt8]] = [[0x61, 0x80], [0xC0, 0xAF], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xFF]]
        var ids: [UInt64] = []
        for bytes in bad {
            let (st, res) = submitPush(c.h, 2, routeBytes: bytes)
            #expect(st == NG_OK)
            #expect(res.status == NG_OUTCOME_REFUSED)
            #expect(res.reason == NG_REASON_INVALID)
            #expect(res.request_id != 0)
            #expect(c.rec.outcome(res.request_id).count == 1)
            #expect(c.rec.outcome(res.request_id).first?.reason == NG_REASON_INVALID)
            #expect(c.errmsg.contains("UTF-8"), "\(c.errmsg)")
            ids.append(res.request_id)
        }
        #expect(Set(ids).count == ids.count)
        // 1025 bytes: too long; 1024: fine.
        let (st1, long) = submitPush(c.h, 2, String(repeating: "x", count: 1025))
        #expect(st1 == NG_OK && long.status == NG_OUTCOME_REFUSED && long.reason == NG_REASON_INVALID && long.request_id != 0)
        #expect(c.rec.outcome(long.request_id).count == 1)
        let (st2, max) = submitPush(c.h, 2, String(repeating: "é", count: 512))
        #expect(st2 == NG_OK && max.status == NG_OUTCOME_APPLIED, "1024 bytes is the limit, inclusive")
        // Other malformed content: bad kind, unknown flags, TIMED alone, empty route, NULL route, id 0.
        var k = request(42)
        var r = result()
        #expect(ng_request_submit(c.h, &k, &r) == NG_OK && r.status == NG_OUTCOME_REFUSED && r.reason == NG_REASON_INVALID)
        #expect(c.rec.outcome(r.request_id).first?.kind == 42)
        var f = request(NG_REQ_POP, flags: 0x10)
        #expect(ng_request_submit(c.h, &f, &r) == NG_OK && r.reason == NG_REASON_INVALID)
        var timedOnly = request(NG_REQ_POP, flags: UInt32(NG_REQF_TIMED))
        #expect(ng_request_submit(c.h, &timedOnly, &r) == NG_OK && r.reason == NG_REASON_INVALID)
        #expect(submitPush(c.h, 3, "").1.reason == NG_REASON_INVALID)
        var nullRoute = request(NG_REQ_PUSH)
        nullRoute.screen = ng_screen(id: 3, route: nil, identity: nil)
        #expect(ng_request_submit(c.h, &nullRoute, &r) == NG_OK && r.reason == NG_REASON_INVALID)
        #expect(submitPush(c.h, 0, "zero").1.reason == NG_REASON_INVALID)
        var rep = request(NG_REQ_REPLACE_STACK)
        #expect(ng_request_submit(c.h, &rep, &r) == NG_OK && r.reason == NG_REASON_INVALID, "NULL screens")
        var popTo0 = request(NG_REQ_POP_TO)
        #expect(ng_request_submit(c.h, &popTo0, &r) == NG_OK && r.reason == NG_REASON_INVALID, "target 0")
        #expect(c.ids == [1, 2])
        // Exactly one outcome per id, none without an id.
        let all = c.rec.outcomes.map(\.id)
        #expect(Set(all).count == all.count)
        #expect(!all.contains(0))
    }

    @Test("a long ng_errmsg is cut on a UTF-8 character boundary and marked")
    func longErrmsg() {
        let c = Ctx()
        let path = "/nonexistent/" + String(repeating: "é", count: 1500) + ".so"
        #expect(ng_chain_configure(c.h, "{\"guards\":[{\"path\":\"\(path)\"}]}") == NG_E_LOAD)
        let m = ng_errmsg(c.h)!
        let n = strlen(m)
        #expect(n > 1000 && n <= 2047)
        #expect(String(validatingCString: m) != nil, "valid UTF-8")
        #expect(String(cString: m).hasSuffix("..."))
    }

    @Test("a whole flow through the C functions")
    func flow() {
        let c = Ctx()
        let h = c.h
        // Animated push: WILL screen, WILL bar; finish: DID bar, DID screen.
        let (st, push) = submitPush(h, 2, "detail", flags: UInt32(NG_REQF_ANIMATED))
        #expect(st == NG_OK && push.status == NG_OUTCOME_APPLIED)
        #expect(c.rec.outcome(push.request_id).count == 1, "outcome before submit returned")
        #expect(c.inFlight(NG_TRACK_SCREEN) == push.request_id && c.inFlight(NG_TRACK_BAR) == push.request_id)
        #expect(ng_transition_finish(h, NG_TRACK_ALL) == NG_OK)
        #expect(c.rec.transitions.map { [$0.track, $0.phase] } == [[0, 0], [1, 0], [1, 1], [0, 1]])
        #expect(ng_transition_finish(h, NG_TRACK_ALL) == NG_E_NOT_FOUND)
        // Interactive back, cancelled: exact stack, CANCELLED twice, nothing in flight.
        let (_, swipe) = submit(h, NG_REQ_INTERACTIVE_BACK)
        #expect(swipe.status == NG_OUTCOME_APPLIED && c.ids == [1])
        #expect(ng_interactive_update(h, 0.3) == NG_OK)
        #expect(ng_interactive_cancel(h) == NG_OK)
        #expect(c.ids == [1, 2])
        #expect(c.rec.transitions.suffix(2).map(\.phase) == [NG_PHASE_CANCELLED, NG_PHASE_CANCELLED])
        #expect(c.inFlight(NG_TRACK_SCREEN) == 0 && c.inFlight(NG_TRACK_BAR) == 0)
        #expect(ng_interactive_cancel(h) == NG_E_NOT_FOUND)
        #expect(ng_interactive_update(h, 0.3) == NG_E_NOT_FOUND)
        // Timed transition and holds on the manual clock.
        var timed = request(NG_REQ_POP, flags: UInt32(NG_REQF_ANIMATED | NG_REQF_TIMED))
        timed.duration_ns = 50_000_000
        var res = result()
        #expect(ng_request_submit(h, &timed, &res) == NG_OK && res.status == NG_OUTCOME_APPLIED)
        var t1: UInt64 = 0, t2: UInt64 = 0
        #expect(ng_hold_begin(h, "short", 0, 300_000_000, &t1) == NG_OK)
        #expect(ng_hold_begin(h, "long", UInt32(NG_MASK_ALL), 1_300_000_000, &t2) == NG_OK)
        #expect(t1 != 0 && t2 != 0 && t1 != t2)
        var next: Int64 = 0
        #expect(ng_next_deadline(h, &next) == NG_OK && next == 50_000_000)
        #expect(ng_clock_set(h, 50_000_000) == NG_OK)
        #expect(ng_tick(h) == NG_OK)
        #expect(c.inFlight(NG_TRACK_SCREEN) == 0)
        #expect(ng_next_deadline(h, &next) == NG_OK && next == 300_000_000)
        #expect(ng_clock_set(h, 300_000_000) == NG_OK)
        #expect(ng_tick(h) == NG_OK)
        var mask: UInt32 = 0
        var n = 0
        #expect(ng_hold_state(h, &mask, &n) == NG_OK && mask == UInt32(NG_MASK_ALL) && n == 1)
        #expect(c.rec.holdEnds.map(\.token) == [t1] && c.rec.holdEnds.first?.reason == NG_HOLD_EXPIRED)
        #expect(c.rec.holdEnds.first?.label == "short")
        #expect(ng_hold_end(h, t1) == NG_E_NOT_FOUND)
        #expect(ng_hold_end(h, 12345) == NG_E_NOT_FOUND)
        #expect(ng_hold_end(h, t2) == NG_OK)
        #expect(ng_hold_state(h, &mask, &n) == NG_OK && mask == 0 && n == 0)
        #expect(c.rec.holdEnds.last?.reason == NG_HOLD_ENDED)
        // Snapshot and restore.
        _ = submitPush(h, 5, "five")
        var text: UnsafeMutablePointer<CChar>?
        var len = 0
        #expect(ng_stack_snapshot(h, &text, &len) == NG_OK)
        #expect(len == strlen(text!))
        let other = Ctx(root: 77)
        #expect(ng_stack_restore(other.h, text, len) == NG_OK)
        #expect(other.ids == [1, 5])
        #expect(ng_stack_restore(other.h, "nope", 4) == NG_E_PARSE)
        #expect(ng_stack_restore(other.h, text, len - 1) == NG_E_PARSE, "len bytes are read, no more")
        #expect(other.ids == [1, 5])
        ng_free(text)
        #expect(c.rec.maxDepth == 1)
    }

    @Test("one call, one instant: every clock reading in a call (core, guards, nested ng_now) agrees; the next call reads afresh")
    func oneCallOneInstant() {
        let c = Ctx(clock: NG_CLOCK_MONOTONIC)
        instantReadings.removeAll()
        let d = abiGuardDescriptor(id: "abi.clock-reader") {
            $0.on_request = { inst, r, _ in
                let host = inst!.assumingMemoryBound(to: ng_guard_host.self)
                instantReadings.append(r!.pointee.now_ns)
                for _ in 0..<3 {
                    let t0 = monotonicNs()
                    while monotonicNs() - t0 < 200_000 {}   // 0.2 ms: a fresh reading would differ
                    instantReadings.append(host.pointee.now!(host))
                }
                return NG_VOTE_ALLOW
            }
            $0.on_outcome = { inst, _ in
                let host = inst!.assumingMemoryBound(to: ng_guard_host.self)
                instantReadings.append(host.pointee.now!(host))
            }
        }
        #expect(ng_chain_add(c.h, d, nil) == NG_OK)
        let h = c.h
        c.rec.onOutcome = { _, _ in
            var t: Int64 = 0
            #expect(ng_now(h, &t) == NG_OK)    // from inside a callback: the same call's instant
            instantReadings.append(t)
        }
        _ = submitPush(c.h, 2, "two")
        let first = instantReadings
        #expect(first.count == 6 && Set(first).count == 1, "\(first)")
        instantReadings.removeAll()
        _ = submitPush(c.h, 3, "three")
        #expect(instantReadings.count == 6 && Set(instantReadings).count == 1)
        #expect(instantReadings[0] > first[0], "a new call reads the clock again")
    }

    @Test("guards through ng_chain_add: refusal names the guard; descriptor validation")
    func chain() {
        let c = Ctx()
        let d = abiGuardDescriptor(id: "abi.refuser")
        #expect(ng_chain_add(c.h, d, nil) == NG_OK)
        var n = 0
        #expect(ng_chain_count(c.h, &n) == NG_OK && n == 1)
        var id: UnsafePointer<CChar>?
        #expect(ng_chain_get_id(c.h, 0, &id) == NG_OK && String(cString: id!) == "abi.refuser")
        #expect(ng_chain_get_id(c.h, 1, &id) == NG_E_NOT_FOUND)
        let (_, r) = submitPush(c.h, 2, "blocked-screen")
        #expect(r.status == NG_OUTCOME_REFUSED && r.reason == NG_REASON_POLICY)
        #expect(r.guard_id.map { String(cString: $0) } == "abi.refuser")
        let o = c.rec.outcome(r.request_id).first
        #expect(o?.guardID == "abi.refuser" && o?.message == "abi says no")
        #expect(submitPush(c.h, 2, "fine").1.status == NG_OUTCOME_APPLIED)

        #expect(ng_chain_add(c.h, d, nil) == NG_E_GUARD, "duplicate id")
        let invalid: [(String, (inout ng_plugin_descriptor) -> Void)] = [
            ("ABI major mismatch", { $0.abi_major = UInt32(NG_PLUGIN_ABI_MAJOR) + 1 }),
            ("newer minor", { $0.abi_minor = UInt32(NG_PLUGIN_ABI_MINOR) + 1 }),
            ("small size", { $0.size = 16 }),
            ("id without dots", { $0.id = leaked("noDots") }),
            ("empty label", { $0.id = leaked("a..b") }),
            ("empty id", { $0.id = leaked("") }),
            ("create fails", { $0.create = { _, _ in nil } }),
        ]
        for (label, tweak) in invalid {
            let st = ng_chain_add(c.h, abiGuardDescriptor(id: "abi.bad", tweak: tweak), nil)
            let expected = label.hasPrefix("ABI") || label == "newer minor" ? NG_E_ABI : NG_E_GUARD
            #expect(st == expected, "\(label): \(String(cString: ng_strstatus(st)))")
            #expect(!c.errmsg.isEmpty)
        }
        #expect(ng_chain_add(c.h, abiGuardDescriptor(id: "abi.cfg"), "{not json") == NG_E_PARSE)
        #expect(ng_chain_add(c.h, abiGuardDescriptor(id: "abi.cfg2"), "[1]") == NG_E_PARSE)
        let badUTF8: [CChar] = (Array("{\"a\":\"".utf8) + [0xFF] + Array("\"}".utf8) + [0]).map { CChar(bitPattern: $0) }
        #expect(ng_chain_add(c.h, abiGuardDescriptor(id: "abi.cfg3"), badUTF8) == NG_E_UTF8)
        #expect(ng_chain_count(c.h, &n) == NG_OK && n == 1)
    }

    @Test("a request made inside a callback is QUEUED and runs after it; tick/destroy/restore are refused inside")
    func runToCompletion() {
        let c = Ctx()
        var inner: ng_request_result?
        var statuses: [String: ng_status] = [:]
        var order: [String] = []
        c.rec.onOutcome = { ctx, o in
            order.append("outcome \(o.request_id)")
            guard inner == nil else { return }
            var r = request(NG_REQ_POP)
            var out = result()
            statuses["submit"] = ng_request_submit(ctx, &r, &out)
            inner = out
            var n = 0
            statuses["count"] = ng_stack_count(ctx, &n)       // callback-safe
            statuses["tick"] = ng_tick(ctx)
            statuses["destroy"] = ng_context_destroy(ctx)
            statuses["restore"] = "{}".withCString { ng_stack_restore(ctx, $0, 2) }
            statuses["chain_add"] = ng_chain_add(ctx, abiGuardDescriptor(id: "abi.late"), nil)
            statuses["set_root"] = "x".withCString { var s = ng_screen(id: 9, route: $0, identity: nil); return ng_stack_set_root(ctx, &s) }
            order.append("callback returns")
        }
        let (_, outer) = submitPush(c.h, 2)
        let q = try! #require(inner)
        #expect(statuses["submit"] == NG_OK)
        #expect(q.status == NG_OUTCOME_QUEUED && q.request_id != 0)
        #expect(statuses["count"] == NG_OK)
        #expect(statuses["tick"] == NG_E_CALLBACK)
        #expect(statuses["destroy"] == NG_E_CALLBACK)
        #expect(statuses["restore"] == NG_E_CALLBACK)
        #expect(statuses["chain_add"] == NG_E_CALLBACK)
        #expect(statuses["set_root"] == NG_E_CALLBACK)
        #expect(order == ["outcome \(outer.request_id)", "callback returns", "outcome \(q.request_id)"])
        #expect(c.ids == [1], "the queued pop ran before the outer submit returned")
        #expect(c.rec.maxDepth == 1)
        #expect(c.count == 1, "the context survived the refused destroy")
    }

    @Test("ng_request_post from another thread is applied at the next ng_tick, its outcome on the owner thread")
    func postFromOtherThread() {
        let c = Ctx()
        let owner = pthread_self()
        let h = c.h
        var postStatus: ng_status = -1
        var postedID: UInt64 = 0
        var postThread = pthread_t()
        onOtherThread {
            postThread = pthread_self()
            "posted".withCString { route in
                var r = request(NG_REQ_PUSH)
                r.screen = ng_screen(id: 2, route: route, identity: nil)
                r.source = 77
                postStatus = ng_request_post(h, &r, &postedID)
            }
        }
        #expect(pthread_equal(postThread, owner) == 0, "really another thread")
        #expect(postStatus == NG_OK)
        #expect(postedID != 0)
        #expect(c.rec.outcomes.isEmpty, "nothing happens before the tick")
        #expect(c.ids == [1])
        var next: Int64 = -1, now: Int64 = -2
        #expect(ng_next_deadline(h, &next) == NG_OK && ng_now(h, &now) == NG_OK)
        #expect(next <= now, "posted work is due now")
        #expect(ng_tick(h) == NG_OK)
        #expect(c.ids == [1, 2])
        let o = c.rec.outcome(postedID)
        #expect(o.count == 1)
        #expect(o.first?.outcome == NG_OUTCOME_APPLIED)
        #expect(o.first?.source == 77)
        #expect(o.first.map { pthread_equal($0.thread, owner) != 0 } == true, "outcome on the owner thread")
        #expect(ng_next_deadline(h, &next) == NG_OK && next == Int64.max)
        // Ids of posted requests never collide with the owner's.
        let (_, own) = submitPush(h, 3)
        #expect(own.request_id != postedID)

        // Posted but never ticked: dropped (DESTROYED) at destroy, exactly once.
        var lateID: UInt64 = 0
        onOtherThread {
            var r = request(NG_REQ_POP)
            _ = ng_request_post(h, &r, &lateID)
        }
        let rec = c.rec
        _ = c.destroy()
        #expect(rec.outcome(lateID).count == 1)
        #expect(rec.outcome(lateID).first?.outcome == NG_OUTCOME_DROPPED)
        #expect(rec.outcome(lateID).first?.reason == NG_REASON_DESTROYED)
        var r = request(NG_REQ_POP)
        #expect(ng_request_post(h, &r, nil) == NG_E_HANDLE, "posting to a destroyed context")
    }

    @Test("a second thread using the context while the first is inside a callback gets NG_E_THREAD")
    func threadRule() {
        let c = Ctx()
        var fromOther: [String: ng_status] = [:]
        var postedInside: UInt64 = 0
        c.rec.onOutcome = { ctx, _ in
            guard fromOther.isEmpty else { return }
            onOtherThread {
                var n = 0
                fromOther["count"] = ng_stack_count(ctx, &n)
                var r = request(NG_REQ_POP)
                var out = result()
                fromOther["submit"] = ng_request_submit(ctx, &r, &out)
                fromOther["tick"] = ng_tick(ctx)
                fromOther["finish"] = ng_transition_finish(ctx, NG_TRACK_ALL)
                var t: UInt64 = 0
                fromOther["hold"] = ng_hold_begin(ctx, nil, 0, 0, &t)
                fromOther["destroy"] = ng_context_destroy(ctx)
                // The one cross-thread entry still works.
                fromOther["post"] = ng_request_post(ctx, &r, &postedInside)
            }
        }
        _ = submitPush(c.h, 2, flags: UInt32(NG_REQF_ANIMATED))
        for k in ["count", "submit", "tick", "finish", "hold", "destroy"] {
            #expect(fromOther[k] == NG_E_THREAD, "\(k) from a second thread: \(fromOther[k].map { String(cString: ng_strstatus($0)) } ?? "not called")")
        }
        #expect(fromOther["post"] == NG_OK)
        #expect(c.inFlight(NG_TRACK_SCREEN) != 0, "the second thread finished nothing")
        var mask: UInt32 = 1
        #expect(ng_hold_state(c.h, &mask, nil) == NG_OK && mask == 0)
        #expect(c.ids == [1, 2])
        // The posted pop runs at the next tick on the owner.
        #expect(ng_tick(c.h) == NG_OK)
        #expect(c.rec.outcome(postedInside).count == 1)
        // Not even when the owner is idle: the context belongs to its owner.
        var later: ng_status = -1
        let h = c.h
        onOtherThread { var n = 0; later = ng_stack_count(h, &n) }
        #expect(later == NG_E_THREAD)
    }

    @Test("a context belongs to its creator, or to the thread that attaches it after a detach")
    func ownershipHandoff() {
        let c = Ctx()
        let h = c.h
        var seen: [String: ng_status] = [:]
        var text = ""
        onOtherThread {
            var n = 0
            seen["count"] = ng_stack_count(h, &n)
            seen["attach while owned"] = ng_context_attach(h)
            seen["detach"] = ng_context_detach(h)
            text = String(cString: ng_errmsg(h))
        }
        #expect(seen["count"] == NG_E_THREAD && seen["attach while owned"] == NG_E_THREAD && seen["detach"] == NG_E_THREAD)
        #expect(text.contains("another thread"), "errmsg from another thread is a static text: \(text)")
        #expect(ng_context_attach(h) == NG_OK, "the owner attaching its own context")
        // Hand off: the creator detaches, a worker attaches and runs it.
        #expect(ng_context_detach(h) == NG_OK)
        var n = 0
        #expect(ng_stack_count(h, &n) == NG_E_THREAD, "detached: nobody owns it")
        var r = request(NG_REQ_POP)
        #expect(ng_request_post(h, &r, nil) == NG_OK, "posting still works")
        onOtherThread {
            seen["attach"] = ng_context_attach(h)
            var n = 0
            seen["worker count"] = ng_stack_count(h, &n)
            seen["worker tick"] = ng_tick(h)
        }
        #expect(seen["attach"] == NG_OK && seen["worker count"] == NG_OK && seen["worker tick"] == NG_OK)
        #expect(ng_stack_count(h, &n) == NG_E_THREAD, "the worker owns it now")
        #expect(ng_context_attach(h) == NG_E_THREAD)
        #expect(ng_context_destroy(h) == NG_E_THREAD, "only the owner destroys")
        onOtherThread { seen["worker destroy"] = ng_context_destroy(h) }
        #expect(seen["worker destroy"] == NG_OK)
        c.h = nil
        #expect(ng_stack_count(h, &n) == NG_E_HANDLE)
    }

    @Test("a guard's own thread gets nothing from the host table")
    func hostTableFromAnotherThread() {
        let c = Ctx()
        ThreadProbe.host = nil
        #expect(ng_chain_add(c.h, threadProbeDescriptor, nil) == NG_OK)
        let host = ThreadProbe.host!
        var results: [String: Int64] = [:]
        onOtherThread {
            var t: UInt64 = 0
            results["hold_begin"] = Int64(host.pointee.hold_begin(host, "worker", UInt32(NG_MASK_TOUCH), 0, &t))
            results["report"] = Int64(host.pointee.report(host, "from a worker"))
            var ti = ng_touch_info()
            ti.size = UInt32(MemoryLayout<ng_touch_info>.size)
            results["touch_get"] = Int64(host.pointee.touch_get(host, 0, &ti))
            results["stack_count"] = Int64(host.pointee.stack_count(host))
            results["now"] = host.pointee.now(host)
            host.pointee.log(host, NG_LOG_ERROR, "from a worker")
        }
        #expect(results["hold_begin"] == Int64(NG_E_THREAD) && results["report"] == Int64(NG_E_THREAD)
                && results["touch_get"] == Int64(NG_E_THREAD))
        #expect(results["stack_count"] == 0 && results["now"] == 0)
        var mask: UInt32 = 0
        #expect(ng_hold_state(c.h, &mask, nil) == NG_OK && mask == 0, "no hold was begun")
        #expect(!c.rec.logs.contains { $0.contains("from a worker") }, "the log line was dropped")
        // On the owner thread the same table works.
        #expect(host.pointee.stack_count(host) == 1)
        _ = c.destroy()
    }
}

/// A guard that keeps its host table where a test can reach it.
enum ThreadProbe { nonisolated(unsafe) static var host: UnsafePointer<ng_guard_host>? }
nonisolated(unsafe) let threadProbeDescriptor: UnsafePointer<ng_plugin_descriptor> = abiGuardDescriptor(id: "abi.thread-probe") {
    $0.create = { host, _ in
        ThreadProbe.host = host
        return UnsafeMutableRawPointer(bitPattern: 0x1)
    }
}

// MARK: - Destroy with guards

/// Shared by the guards of one test: what they saw, in order.
final class GuardLog {
    var lines: [String] = []
}

final class LoggingGuard {
    let log: GuardLog
    let name: String
    let defers: Bool
    init(log: GuardLog, name: String, defers: Bool) { self.log = log; self.name = name; self.defers = defers }
}

/// A guard whose config names its log ({"box": <GuardLog address>, "name": ..., "defer": bool}).
func loggingDescriptor(id: String) -> UnsafePointer<ng_plugin_descriptor> {
    abiGuardDescriptor(id: id) { d in
        d.create = { host, _ in
            guard let h = host else { return nil }
            var addr: Int64 = 0
            var name: UnsafePointer<CChar>?
            var defers = false
            guard h.pointee.config_int!(h, "box", &addr) == NG_OK,
                  h.pointee.config_string!(h, "name", &name) == NG_OK,
                  h.pointee.config_bool!(h, "defer", &defers) == NG_OK,
                  let raw = UnsafeRawPointer(bitPattern: Int(addr)) else { return nil }
            let log = Unmanaged<GuardLog>.fromOpaque(raw).takeUnretainedValue()
            let g = LoggingGuard(log: log, name: String(cString: name!), defers: defers)
            log.lines.append("create \(g.name)")
            return Unmanaged.passRetained(g).toOpaque()
        }
        d.destroy = { inst in
            let g = Unmanaged<LoggingGuard>.fromOpaque(inst!).takeRetainedValue()
            g.log.lines.append("destroy \(g.name)")
        }
        d.on_request = { inst, r, _ in
            let g = Unmanaged<LoggingGuard>.fromOpaque(inst!).takeUnretainedValue()
            return g.defers ? NG_VOTE_DEFER : NG_VOTE_ALLOW
        }
        d.on_outcome = { inst, o in
            let g = Unmanaged<LoggingGuard>.fromOpaque(inst!).takeUnretainedValue()
            g.log.lines.append("\(g.name) saw \(o!.pointee.request_id) \(o!.pointee.outcome)/\(o!.pointee.reason)")
        }
    }
}

extension ABITests {
    @Test("destroy drops deferred and posted requests (DESTROYED, once each) and destroys guards in reverse order")
    func destroyWithGuards() {
        let c = Ctx()
        let log = GuardLog()
        let addr = Int(bitPattern: Unmanaged.passUnretained(log).toOpaque())
        #expect(ng_chain_add(c.h, loggingDescriptor(id: "abi.first"), "{\"box\":\(addr),\"name\":\"first\",\"defer\":false}") == NG_OK)
        #expect(ng_chain_add(c.h, loggingDescriptor(id: "abi.second"), "{\"box\":\(addr),\"name\":\"second\",\"defer\":true}") == NG_OK)
        let (_, a) = submitPush(c.h, 2)
        let (_, b) = submitPush(c.h, 3, "three")
        #expect(a.status == NG_OUTCOME_DEFERRED && b.status == NG_OUTCOME_DEFERRED)
        #expect(a.guard_id.map { String(cString: $0) } == "abi.second")
        #expect(c.rec.outcomes.isEmpty)
        var posted: UInt64 = 0
        let h = c.h
        onOtherThread { var r = request(NG_REQ_POP); _ = ng_request_post(h, &r, &posted) }
        var t: UInt64 = 0
        #expect(ng_hold_begin(c.h, "at destroy", 0, 0, &t) == NG_OK)
        let rec = c.rec
        _ = c.destroy()
        for id in [a.request_id, b.request_id, posted] {
            let o = rec.outcome(id)
            #expect(o.count == 1, "request \(id)")
            #expect(o.first?.outcome == NG_OUTCOME_DROPPED && o.first?.reason == NG_REASON_DESTROYED)
        }
        #expect(rec.outcomes.count == 3)
        #expect(rec.holdEnds.map(\.reason) == [NG_HOLD_RELEASED])
        #expect(Array(log.lines.suffix(2)) == ["destroy second", "destroy first"], "reverse chain order")
        #expect(log.lines.filter { $0.hasPrefix("destroy") }.count == 2)
        #expect(log.lines.contains("first saw \(a.request_id) \(NG_OUTCOME_DROPPED)/\(NG_REASON_DESTROYED)"),
                "guards see the drops before they are destroyed")
    }
}
