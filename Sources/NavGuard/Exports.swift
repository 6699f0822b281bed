import CNavGuard
import Glibc
import NavGuardCore

// The C ABI of include/navguard/navguard.h. Each export validates, converts
// and forwards to the core; the compiler checks every signature against the
// header (@c @implementation).

// MARK: Versions and names

@c @implementation
public func ng_version() -> Int32 { NG_VERSION_MAJOR * 1_000_000 + NG_VERSION_MINOR * 1_000 + NG_VERSION_PATCH }

// ng_version_string, ng_strstatus and the ng_*_name functions are C
// (Sources/NavGuardC/names.c), generated from the header's NG_*_MAP
// tables: the header is the one place each name and the version are written.

// MARK: Context

@c @implementation
public func ng_context_create(_ options: UnsafePointer<ng_options>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> ng_status {
    guard let out else { return NG_E_NULL }
    out.pointee = nil
    var o = ng_options()
    if let options {
        let declared = copySized(options, into: &o)
        guard declared >= Int(NG_OPTIONS_MIN_SIZE) else { return NG_E_SIZE }
    }
    var d = ng_delegate()
    if o.delegate.size != 0 {
        withUnsafePointer(to: o.delegate) { _ = copySized($0, into: &d) }
    }
    guard o.clock == NG_CLOCK_MONOTONIC || o.clock == NG_CLOCK_MANUAL else { return NG_E_RANGE }
    guard o.manual_start_ns >= 0, o.default_duration_ns >= 0 else { return NG_E_RANGE }
    let clock: ClockSource = o.clock == NG_CLOCK_MANUAL ? .manual(startNs: o.manual_start_ns) : .external(monotonicNow)
    let engine = Engine(EngineConfig(clock: clock, defaultDurationNs: o.default_duration_ns,
                                     stopwatch: monotonicCoarseNow))
    let box = ContextBox(engine: engine, delegate: d)
    guard let handle = registry.insert(box) else { return NG_E_NO_MEMORY }
    box.handle = handle
    box.manualStartNs = o.clock == NG_CLOCK_MANUAL ? o.manual_start_ns : 0
    engine.observer = box
    engine.ownerCheck = OwnerCheck(check: ownerCheck, arg: registry.ownerWord(slot: box.slot))
    out.pointee = handle
    return NG_OK
}

@c @implementation
public func ng_context_destroy(_ ctx: OpaquePointer?) -> ng_status {
    guard let ctx else { return NG_OK }
    // Only the owner thread gets here, and only it can destroy: no other
    // thread's call can be inside the context (they get NG_E_THREAD).
    return withContext(ctx) { box in
        if box.engine.isInsideCallback { return box.fail(NG_E_CALLBACK, "a context cannot be destroyed from its own callback") }
        // Recorded by hand: the box is gone when this closure returns.
        if let rec = box.recorder {
            rec.enter("destroy")
            rec.args(box.engine.now) { _ in }
        }
        // Posts are refused from here; the handle stays valid for the
        // owner's callbacks until the teardown is done.
        registry.close(box)
        // Posted requests not yet applied still get their outcome (dropped).
        box.destroyEngine()
        if let rec = box.recorder {
            rec.leave(NG_OK, err: nil, t: box.engine.now)
            box.stopRecording()
        }
        registry.remove(box).release()
        return NG_OK
    }
}

@c @implementation
public func ng_context_detach(_ ctx: OpaquePointer?) -> ng_status {
    withContext(ctx) { box in
        if box.engine.isInsideCallback { return box.fail(NG_E_CALLBACK, "a context cannot be detached from its own callback") }
        registry.detach(box)
        return NG_OK
    }
}

@c @implementation
public func ng_context_attach(_ ctx: OpaquePointer?) -> ng_status { registry.attach(ctx) }

@c @implementation
public func ng_errmsg(_ ctx: OpaquePointer?) -> UnsafePointer<CChar>! {
    var st = NG_OK
    guard let box = registry.owned(ctx, &st) else {
        // The owner's text is not read from another thread (it may be writing it).
        return st == NG_E_THREAD ? staticC("the context belongs to another thread (NG_E_THREAD)")
                                 : staticC("invalid context handle (NULL, destroyed or foreign)")
    }
    return UnsafePointer(box.takeUnretainedValue().errbuf)
}

// MARK: Stack

@c @implementation
public func ng_stack_set_root(_ ctx: OpaquePointer?, _ root: UnsafePointer<ng_screen>?) -> ng_status {
    withContext(ctx, record: "root") { box in
        guard let root else { return box.fail(NG_E_NULL, "root is NULL") }
        if box.engine.isInsideCallback { return box.fail(NG_E_CALLBACK, "ng_stack_set_root is not allowed inside a callback") }
        do {
            let s = try Screen(root.pointee, "root")
            box.recordArgs { w in w.key("screen"); TraceWrite.screen(w, s) }
            try box.engine.setRoot(s)
        } catch { return box.fail(error) }
        return NG_OK
    }
}

@c @implementation
public func ng_stack_count(_ ctx: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?) -> ng_status {
    withContext(ctx) { box in
        guard let out else { return box.fail(NG_E_NULL, "out_count is NULL") }
        out.pointee = box.engine.stackCount
        return NG_OK
    }
}

@c @implementation
public func ng_stack_get(_ ctx: OpaquePointer?, _ index: Int, _ out: UnsafeMutablePointer<ng_screen_info>?) -> ng_status {
    withContext(ctx) { box in
        guard let out else { return box.fail(NG_E_NULL, "out is NULL") }
        if let st = box.failUndersized(out.pointee.size, Int(NG_SCREEN_INFO_MIN_SIZE), "ng_screen_info") { return st }
        guard let s = box.engine.screen(at: index) else {
            return box.fail(NG_E_NOT_FOUND, "index \(index) is outside the stack (\(box.engine.stackCount) screens)")
        }
        writeSized(s.info, to: out)
        return NG_OK
    }
}

@c @implementation
public func ng_stack_snapshot(_ ctx: OpaquePointer?, _ outText: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLen: UnsafeMutablePointer<Int>?) -> ng_status {
    withContext(ctx) { box in
        guard let outText else { return box.fail(NG_E_NULL, "out_text is NULL") }
        var text = box.engine.snapshot()
        let n = text.utf8.count
        guard let mem = malloc(n + 1)?.assumingMemoryBound(to: CChar.self) else {
            return box.fail(NG_E_NO_MEMORY, "cannot allocate \(n + 1) bytes")
        }
        text.withUTF8 { buf in
            if let b = buf.baseAddress { UnsafeMutableRawPointer(mem).copyMemory(from: b, byteCount: n) }
        }
        mem[n] = 0
        outText.pointee = mem
        outLen?.pointee = n
        return NG_OK
    }
}

@c @implementation
public func ng_stack_restore(_ ctx: OpaquePointer?, _ text: UnsafePointer<CChar>?, _ len: Int) -> ng_status {
    withContext(ctx, record: "restore") { box in
        guard let text else { return box.fail(NG_E_NULL, "text is NULL") }
        if box.engine.isInsideCallback { return box.fail(NG_E_CALLBACK, "ng_stack_restore is not allowed inside a callback") }
        let buf = UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: len)
        box.recordArgs { w in
            let bytes = UnsafeRawBufferPointer(buf)
            if isValidUTF8(bytes) { w.key("snapshot"); w.string(bytes) } else { w.key("snapshot_hex"); w.hex(bytes) }
        }
        do { try box.engine.restore(snapshot: buf) } catch { return box.fail(error) }
        return NG_OK
    }
}

@c @implementation
public func ng_screen_set_flags(_ ctx: OpaquePointer?, _ screenID: UInt64, _ flags: UInt32) -> ng_status {
    withContext(ctx, record: "screen_flags") { box in
        box.recordArgs { w in
            w.field("id", screenID)
            w.field("flags", flags)
        }
        do { try box.engine.setScreenFlags(screenID, flags) } catch { return box.fail(error) }
        return NG_OK
    }
}

@c @implementation
public func ng_free(_ ptr: UnsafeMutableRawPointer?) { free(ptr) }

// MARK: Requests

@c @implementation
public func ng_request_submit(_ ctx: OpaquePointer?, _ request: UnsafePointer<ng_request>?, _ out: UnsafeMutablePointer<ng_request_result>?) -> ng_status {
    withContext(ctx, record: "submit") { box in
        guard let request else { return box.fail(NG_E_NULL, "request is NULL") }
        var c = ng_request()
        let declared = copySized(request, into: &c)
        guard declared >= minRequestSize else {
            return box.fail(NG_E_SIZE, "ng_request.size is too small; set it to sizeof(ng_request)")
        }
        if box.engine.stackCount == 0 { return box.fail(NG_E_STATE, "the stack has no root: call ng_stack_set_root first") }
        if let out, let st = box.failUndersized(out.pointee.size, Int(NG_REQUEST_RESULT_MIN_SIZE), "ng_request_result") { return st }
        var r: Request
        do throws(EngineError) { r = try Request(c, declared: declared, intern: box.engine) } catch {
            // Malformed content is refused, but still gets an id and an outcome.
            r = Request(kind: c.kind, flags: c.flags, source: c.source)
            r.invalidMessage = error.message
            box.setError(error.message)
        }
        box.recordArgs { w in
            w.object("req") { TraceWrite.request($0, r) }
            // What was wrong with it: replay cannot pass the same bad bytes.
            if let m = r.invalidMessage { w.field("invalid", m) }
        }
        let res = box.engine.submit(r)
        if let m = res.message { box.setError(m.string) }
        box.recordResult {
            TraceWrite.submitResult($0, status: res.status, id: res.requestID, reason: res.reason, guardID: res.guardID)
        }
        if let out {
            var o = ng_request_result()
            o.status = res.status
            o.request_id = res.requestID
            o.reason = res.reason
            o.guard_id = res.guardID
            writeSized(o, to: out)
        }
        return NG_OK
    }
}

@c @implementation
public func ng_request_post(_ ctx: OpaquePointer?, _ request: UnsafePointer<ng_request>?, _ outID: UnsafeMutablePointer<UInt64>?) -> ng_status {
    guard registry.isLive(ctx) else { return NG_E_HANDLE }
    guard let request else { return NG_E_NULL }
    var c = ng_request()
    let declared = copySized(request, into: &c)
    guard declared >= minRequestSize else { return NG_E_SIZE }
    var r: Request
    do throws(EngineError) { r = try Request(c, declared: declared) } catch { return error.status }
    let bytes = ContextBox.footprint(r)
    var wake: (fn: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?) -> Void, user: UnsafeMutableRawPointer?)?
    let st = registry.withLocked(ctx) { box -> ng_status in
        guard let box else { return NG_E_HANDLE }
        return box.mailboxLock.withLock { () -> ng_status in
            guard box.mailbox.count < ContextBox.maxPosted,
                  box.mailboxBytes + bytes <= ContextBox.maxPostedBytes else { return NG_E_NO_MEMORY }
            box.mailboxBytes += bytes
            r.id = box.postedIDBase + box.nextPostedID.wrappingAdd(1, ordering: .relaxed).newValue
            box.mailbox.append(r)
            box.mailboxCount.store(box.mailbox.count, ordering: .releasing)
            outID?.pointee = r.id
            if let fn = box.delegate.on_wake, box.claimWake() { wake = (fn, box.delegate.user) }
            return NG_OK
        }
    }
    // Outside the locks: the host's wake-up may take its own.
    if let wake { wake.fn(wake.user, ctx) }
    return st
}

// MARK: Transitions

@c @implementation
public func ng_transition_finish(_ ctx: OpaquePointer?, _ track: ng_track) -> ng_status {
    withContext(ctx, record: "finish") { box in
        box.recordArgs { w in w.field("track", track, names: ng_track_name) }
        do { try box.engine.finishTransition(track) } catch { return box.fail(error) }
        return NG_OK
    }
}

@c @implementation
public func ng_interactive_update(_ ctx: OpaquePointer?, _ progress: Double) -> ng_status {
    withContext(ctx, record: "interactive_update") { box in
        box.recordArgs { w in w.field("progress", progress) }
        do { try box.engine.updateInteractive(progress) } catch { return box.fail(error) }
        return NG_OK
    }
}

@c @implementation
public func ng_interactive_cancel(_ ctx: OpaquePointer?) -> ng_status {
    withContext(ctx, record: "interactive_cancel") { box in
        box.recordArgs { _ in }
        do { try box.engine.cancelInteractive() } catch { return box.fail(error) }
        return NG_OK
    }
}

@c @implementation
public func ng_interactive_release(_ ctx: OpaquePointer?, _ finish: Bool) -> ng_status {
    withContext(ctx, record: "interactive_release") { box in
        box.recordArgs { w in w.field("finish", finish) }
        do { try box.engine.releaseInteractive(finish: finish) } catch { return box.fail(error) }
        return NG_OK
    }
}

@c @implementation
public func ng_interactive_complete(_ ctx: OpaquePointer?) -> ng_status {
    withContext(ctx, record: "interactive_complete") { box in
        box.recordArgs { _ in }
        do { try box.engine.completeInteractive() } catch { return box.fail(error) }
        return NG_OK
    }
}

@c @implementation
public func ng_track_get(_ ctx: OpaquePointer?, _ track: ng_track, _ out: UnsafeMutablePointer<ng_track_info>?) -> ng_status {
    withContext(ctx) { box in
        guard let out else { return box.fail(NG_E_NULL, "out is NULL") }
        if let st = box.failUndersized(out.pointee.size, Int(NG_TRACK_INFO_MIN_SIZE), "ng_track_info") { return st }
        guard track == NG_TRACK_SCREEN || track == NG_TRACK_BAR else {
            return box.fail(NG_E_RANGE, "track \(track) is not NG_TRACK_SCREEN or NG_TRACK_BAR")
        }
        guard let info = box.engine.trackView(track) else {
            return box.fail(NG_E_NOT_FOUND, "no transition in flight on the \(String(cString: ng_track_name(track))) track")
        }
        writeSized(info, to: out)
        return NG_OK
    }
}

@c @implementation
public func ng_transition_in_flight(_ ctx: OpaquePointer?, _ track: ng_track, _ outBusy: UnsafeMutablePointer<Bool>?, _ outRequestID: UnsafeMutablePointer<UInt64>?) -> ng_status {
    withContext(ctx) { box in
        guard let outBusy else { return box.fail(NG_E_NULL, "out_busy is NULL") }
        guard track == NG_TRACK_SCREEN || track == NG_TRACK_BAR else {
            return box.fail(NG_E_RANGE, "track \(track) is not NG_TRACK_SCREEN or NG_TRACK_BAR")
        }
        let id = box.engine.inFlight(track)
        outBusy.pointee = id != 0
        outRequestID?.pointee = id
        return NG_OK
    }
}

// MARK: Holds

@c @implementation
public func ng_hold_begin(_ ctx: OpaquePointer?, _ label: UnsafePointer<CChar>?, _ mask: UInt32, _ maxDurationNs: Int64, _ outToken: UnsafeMutablePointer<UInt64>?) -> ng_status {
    withContext(ctx, record: "hold_begin") { box in
        guard let outToken else { return box.fail(NG_E_NULL, "out_token is NULL") }
        let l: CStr?
        switch readString(label, "label", allowNull: true, intern: box.engine) {
        case .success(let x): l = x
        case .failure(let e): return box.fail(e)
        }
        box.recordArgs { w in
            w.field("label", l)
            w.field("mask", mask)
            w.field("max_ns", maxDurationNs)
        }
        do {
            let token = try box.engine.beginHold(label: l, mask: mask, maxDurationNs: maxDurationNs)
            outToken.pointee = token
            box.recordResult { w in w.field("token", token) }
        } catch { return box.fail(error) }
        return NG_OK
    }
}

@c @implementation
public func ng_hold_end(_ ctx: OpaquePointer?, _ token: UInt64) -> ng_status {
    withContext(ctx, record: "hold_end") { box in
        box.recordArgs { w in w.field("token", token) }
        do { try box.engine.endHold(token) } catch { return box.fail(error) }
        return NG_OK
    }
}

@c @implementation
public func ng_hold_state(_ ctx: OpaquePointer?, _ outMask: UnsafeMutablePointer<UInt32>?, _ outCount: UnsafeMutablePointer<Int>?) -> ng_status {
    withContext(ctx) { box in
        outMask?.pointee = box.engine.holdMask
        outCount?.pointee = box.engine.holdCount
        return NG_OK
    }
}

@c @implementation
public func ng_hold_get(_ ctx: OpaquePointer?, _ index: Int, _ out: UnsafeMutablePointer<ng_hold_view>?) -> ng_status {
    withContext(ctx) { box in
        guard let out else { return box.fail(NG_E_NULL, "out is NULL") }
        if let st = box.failUndersized(out.pointee.size, Int(NG_HOLD_VIEW_MIN_SIZE), "ng_hold_view") { return st }
        guard let v = box.engine.holdView(at: index) else {
            return box.fail(NG_E_NOT_FOUND, "index \(index) is outside the live holds (\(box.engine.holdCount))")
        }
        writeSized(v, to: out)
        return NG_OK
    }
}

// MARK: Questions

@c @implementation
public func ng_question_answer(_ ctx: OpaquePointer?, _ questionID: UInt64, _ answer: ng_answer) -> ng_status {
    withContext(ctx, record: "question_answer") { box in
        box.recordArgs { w in
            w.field("id", questionID)
            w.field("answer", answer, names: ng_answer_name)
        }
        do { try box.engine.answerQuestion(questionID, answer) } catch { return box.fail(error) }
        return NG_OK
    }
}

@c @implementation
public func ng_question_get(_ ctx: OpaquePointer?, _ out: UnsafeMutablePointer<ng_question>?) -> ng_status {
    withContext(ctx) { box in
        guard let out else { return box.fail(NG_E_NULL, "out is NULL") }
        if let st = box.failUndersized(out.pointee.size, Int(NG_QUESTION_MIN_SIZE), "ng_question") { return st }
        guard let q = box.engine.openQuestion else { return box.fail(NG_E_NOT_FOUND, "no question is open") }
        writeSized(q, to: out)
        return NG_OK
    }
}

// MARK: Time

@c @implementation
public func ng_tick(_ ctx: OpaquePointer?) -> ng_status {
    withContext(ctx, record: "tick", flush: true) { box in
        if box.engine.isInsideCallback { return box.fail(NG_E_CALLBACK, "ng_tick is not allowed inside a callback") }
        box.recordArgs { _ in }
        box.drainMailbox()
        do { try box.engine.tick() } catch { return box.fail(error) }
        return NG_OK
    }
}

@c @implementation
public func ng_next_deadline(_ ctx: OpaquePointer?, _ out: UnsafeMutablePointer<Int64>?) -> ng_status {
    withContext(ctx) { box in
        guard let out else { return box.fail(NG_E_NULL, "out_ns is NULL") }
        out.pointee = box.mailboxCount.load(ordering: .acquiring) > 0 ? box.engine.now : box.engine.nextDeadline()
        return NG_OK
    }
}

@c @implementation
public func ng_now(_ ctx: OpaquePointer?, _ out: UnsafeMutablePointer<Int64>?) -> ng_status {
    withContext(ctx) { box in
        guard let out else { return box.fail(NG_E_NULL, "out_ns is NULL") }
        out.pointee = box.engine.now
        return NG_OK
    }
}

@c @implementation
public func ng_clock_set(_ ctx: OpaquePointer?, _ nowNs: Int64) -> ng_status {
    withContext(ctx, record: "clock_set") { box in
        box.recordArgs { w in w.field("ns", nowNs) }
        do { try box.engine.setTime(nowNs) } catch { return box.fail(error) }
        return NG_OK
    }
}

@c @implementation
public func ng_clock_advance(_ ctx: OpaquePointer?, _ deltaNs: Int64) -> ng_status {
    withContext(ctx, record: "clock_advance") { box in
        box.recordArgs { w in w.field("ns", deltaNs) }
        do { try box.engine.advanceTime(deltaNs) } catch { return box.fail(error) }
        return NG_OK
    }
}

// MARK: Guard chain

@c @implementation
public func ng_chain_add(_ ctx: OpaquePointer?, _ descriptor: UnsafePointer<ng_plugin_descriptor>?, _ configJSON: UnsafePointer<CChar>?) -> ng_status {
    withContext(ctx, record: "chain") { box in
        guard let descriptor else { return box.fail(NG_E_NULL, "descriptor is NULL") }
        var config: String?
        if let configJSON {
            switch readStringUnbounded(configJSON, "config_json") {
            case .success(let s): config = s
            case .failure(let e): return box.fail(e)
            }
        }
        return box.recordChain("ng_chain_add", config: config) {
            do { try box.engine.addGuard(descriptor, configText: config) } catch { return box.fail(error) }
            return NG_OK
        }
    }
}

@c @implementation
public func ng_chain_count(_ ctx: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?) -> ng_status {
    withContext(ctx) { box in
        guard let out else { return box.fail(NG_E_NULL, "out_count is NULL") }
        out.pointee = box.engine.guardCount
        return NG_OK
    }
}

@c @implementation
public func ng_chain_get_id(_ ctx: OpaquePointer?, _ index: Int, _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> ng_status {
    withContext(ctx) { box in
        guard let out else { return box.fail(NG_E_NULL, "out_id is NULL") }
        guard let id = box.engine.guardID(at: index) else {
            return box.fail(NG_E_NOT_FOUND, "index \(index) is outside the chain (\(box.engine.guardCount) guards)")
        }
        out.pointee = id
        return NG_OK
    }
}
