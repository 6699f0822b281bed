import CNavGuard
import NavGuardCore

// How the exports feed the flight recorder: a recorded call's arguments and
// results (withContext enters and leaves it), chain changes, and stopping.

extension ContextBox {
    /// The flight recorder, while recording (the bridge holds it: it also
    /// hears every callback).
    var recorder: Recorder? {
        get { bridge.recorder }
        set { bridge.recorder = newValue }
    }

    /// The call's arguments, once they passed validation.
    @inline(__always)
    func recordArgs(_ body: (TraceLine) -> Void) {
        if let r = recorder {
            if r.isOutermost { engine.trackDatedAt = nil }   // a host call begins
            r.args(engine.now, body)
        }
    }

    /// Results of the call, beside its status.
    @inline(__always)
    func recordResult(_ body: (TraceLine) -> Void) {
        recorder?.result(body)
    }

    /// A chain change: `via` names the function; the guards it added are
    /// the call's result.
    func recordChain(_ via: StaticString, config: String? = nil, path: String? = nil,
                     _ body: () throws(EngineError) -> Void) throws(EngineError) {
        let before = engine.guardCount
        recordArgs { w in
            w.field("via", literal: via)
            if let path { w.field("path", path) }
            if let config { w.field("config", config) }
        }
        try body()
        recordResult { w in
            w.array("guards") { w in
                for i in before..<engine.guardCount {
                    w.element()
                    TraceWrite.guardRecord(w, engine.guardRecord(at: i)!)
                }
            }
        }
    }

    /// A recorded call returns: its `ret`; a recorder whose writing failed
    /// is stopped here, once no call is in progress, and the host told
    /// through on_log (its own calls go on).
    func recorderLeave(_ rec: Recorder, _ st: ng_status, flush: Bool) {
        // A transition this host call began is dated from when the call
        // returned (a real clock moved meanwhile): "tr", for replay.
        var datedAt: Int64?
        if rec.isOutermost, let t = engine.trackDatedAt {
            datedAt = t
            engine.trackDatedAt = nil
        }
        rec.leave(st, err: st == NG_OK ? nil : UnsafePointer(errbuf), t: engine.now, datedAt: datedAt)
        guard rec.isIdle else { return }
        if let why = rec.failed {
            stopRecording()
            bridge.logError("flight recorder stopped: \(why)")
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
}
