// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore
import NavGuardTrace

// How the exports feed the flight recorder: a recorded call's arguments and
// results (withContext enters and leaves it), chain changes, and stopping.

extension ContextBox {
    /// The flight recorder, while recording (the bridge holds it: it also
    /// hears every callback).
    var recorder: Recorder? {
        get { bridge.recorder }
        set { bridge.recorder = newValue }
    }

    /// The call's arguments, once they passed validation (NavGuardTrace/TraceCalls.swift
    /// says how each call's are written).
    @inline(__always)
    func recordArgs(_ body: (inout RecordWriter) -> Void) {
        bridge.recording { $0.args(body) }
    }

    /// What the call returns beside its status.
    @inline(__always)
    func recordResult(_ result: @autoclosure () -> CallResult) {
        bridge.recording { $0.result(result()) }
    }

    /// A chain change: `via` names the function; the guards it added are
    /// the call's result.
    func recordChain(_ via: StaticString, config: String? = nil, path: String? = nil,
                     _ body: () throws(EngineError) -> Void) throws(EngineError) {
        let before = engine.guardCount
        recordArgs { ChainCall.encode(&$0, via: via, path: path, config: config) }
        try body()
        recordResult(.chain(from: before, to: engine.guardCount))
    }

    /// A recorded call returns: its `ret`; a recorder whose writing failed
    /// is stopped here, once no call is in progress, and the host told
    /// through on_log (its own calls go on).
    @inline(never)
    func recorderLeave(_ u: Unmanaged<Recorder>, _ st: ng_status, flush: Bool) {
        let why: String? = u._withUnsafeGuaranteedRef { rec in
            rec.leave(st, err: st == NG_OK ? nil : UnsafePointer(errbuf))
            guard rec.isIdle else { return nil }
            if _slowPath(rec.failed != nil) { return rec.failed }
            if flush || rec.isOverFlushSize { rec.flush() }
            return nil
        }
        // Stopped here, out of the recorder's own code.
        if _slowPath(why != nil) {
            stopRecording()
            bridge.logError("flight recorder stopped: \(why!)")
        }
    }

    /// A recorded call begins (out of line, as recorderLeave: every export's
    /// body would otherwise carry a copy).
    @inline(never)
    func recorderEnter(_ u: Unmanaged<Recorder>, _ fn: CallFn) {
        u._withUnsafeGuaranteedRef { $0.enter(fn) }
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
}
