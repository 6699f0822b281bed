// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore
import NavGuardTrace

// navguard.h, "Context": creating, destroying, handing over and asking about
// a context. (ng_version, ng_version_string and the names are C:
// Sources/NavGuardC/names.c, generated from the header's tables.)

@c @implementation
public func ng_context_create(_ options: UnsafePointer<ng_options>?, _ out: UnsafeMutablePointer<OpaquePointer?>?) -> ng_status {
    anyThread { () throws(EngineError) -> ng_status in
        guard let out else { throw .null("out") }
        out.pointee = nil
        var o = ng_options()
        if let options {
            guard copySized(options, into: &o) >= Int(NG_OPTIONS_MIN_SIZE) else { return NG_E_SIZE }
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
        if o.clock == NG_CLOCK_MANUAL { box.mailbox.manualClockMoved(to: o.manual_start_ns) }
        engine.observer = box.bridge
        engine.ownerCheck = OwnerCheck(check: ownerCheck, arg: registry.ownerWord(slot: box.slot))
        engine.wakeHook = WakeHook(wake: guardWake, arg: Int(bitPattern: Unmanaged.passUnretained(box).toOpaque()))
        out.pointee = handle
        return NG_OK
    }
}

/// plugin.h `wake`, from a guard's own thread: the host's on_wake, once
/// until the owner's next tick. The box outlives its guards.
private let guardWake: @convention(c) (Int) -> Void = { arg in
    let box = Unmanaged<ContextBox>.fromOpaque(UnsafeRawPointer(bitPattern: arg)!).takeUnretainedValue()
    if box.mailbox.claimWake() { box.bridge.wake() }
}

@c @implementation
public func ng_context_destroy(_ ctx: OpaquePointer?) -> ng_status {
    guard let ctx else { return NG_OK }
    // Only the owner thread gets here, and only it can destroy: no other
    // thread's call can be inside the context (they get NG_E_THREAD).
    return withContext(ctx) { box throws(EngineError) in
        if box.engine.isInsideCallback { throw EngineError(NG_E_CALLBACK, "a context cannot be destroyed from its own callback") }
        // Recorded by hand: the box is gone when this closure returns.
        if let rec = box.recorder {
            rec.enter(.destroy)
            rec.args { NoArgsCall.encode(&$0) }
        }
        // Posts are refused from here; the handle stays valid for the
        // owner's callbacks until the teardown is done.
        registry.close(box)
        // Posted requests not yet applied still get their outcome (dropped).
        box.destroyEngine()
        if let rec = box.recorder {
            rec.leave(NG_OK, err: nil)
            box.stopRecording()
        }
        registry.remove(box).release()
    }
}

@c @implementation
public func ng_context_detach(_ ctx: OpaquePointer?) -> ng_status {
    withContext(ctx) { box throws(EngineError) in
        if box.engine.isInsideCallback { throw EngineError(NG_E_CALLBACK, "a context cannot be detached from its own callback") }
        registry.detach(box)
    }
}

@c @implementation
public func ng_context_attach(_ ctx: OpaquePointer?) -> ng_status {
    let st = registry.attach(ctx)
    guard st == NG_OK else { return st }
    // This thread owns it now: the flight recorder's crash dumps follow.
    var owned = NG_OK
    registry.owned(ctx, &owned)?._withUnsafeGuaranteedRef { $0.recorder?.ownerMoved() }
    return NG_OK
}

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
