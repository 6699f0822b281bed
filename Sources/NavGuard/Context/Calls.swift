// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardLibc
import NavGuardCore
import NavGuardTrace
import Synchronization

// How every [owner] export runs: find the caller's context, run the body,
// and turn what it throws into a status and the context's message, here and
// nowhere else (SQLite's one error funnel per handle).

/// Run an [owner] call that only reads state: the context when the calling
/// thread owns it (the thread that created it, or the one it was attached
/// to), otherwise NG_E_HANDLE or NG_E_THREAD with no text (writing the text
/// would race with the owner). The body's failure becomes the status.
@inline(__always)
func withContext(_ handle: OpaquePointer?, _ body: (ContextBox) throws(EngineError) -> Void) -> ng_status {
    var status = NG_OK
    guard let box = registry.owned(handle, &status) else { return status }
    // Borrowed, not retained: the owner's call cannot race its destruction.
    return box._withUnsafeGuaranteedRef { b in
        if let r = b.bridge.rec, r._withUnsafeGuaranteedRef({ $0.inWriter }) { return b.fail(.inWriter) }
        b.engine.beginCall()
        do throws(EngineError) { try body(b) } catch { return b.fail(error) }
        return NG_OK
    }
}

/// As withContext, for a call that changes state, which the flight recorder
/// records as `fn`: a call refused before it calls `recordArgs` is recorded
/// as rejected, with its status and message. Past the work cap, such a call
/// made from a callback is refused (NavGuardCore/Engine+WorkCap.swift). At its end the host's
/// on_deadline hears of a new deadline (`deadline` false: the body decides,
/// for continuous input). Without a recorder and on_deadline this costs two
/// loads and branches.
///
/// `entersWithArgs`: the body enters the recorder itself, with its
/// arguments, in one out-of-line call (`Recorder.enterArgs`), which saves a
/// call on every recorded event. Only for a body that, before then, only
/// validates (no callback, no state change, no record): a call refused
/// before it is entered here as it returns, and recorded as rejected, the
/// same records as entering first.
@inline(__always)
func withContext(_ handle: OpaquePointer?, record fn: CallFn, entersWithArgs: Bool = false, flush: Bool = false,
                 deadline: Bool = true, _ body: (ContextBox) throws(EngineError) -> Void) -> ng_status {
    var status = NG_OK
    guard let box = registry.owned(handle, &status) else { return status }
    return box._withUnsafeGuaranteedRef { b in
        let rec = b.bridge.rec
        if let rec, rec._withUnsafeGuaranteedRef({ $0.inWriter }) { return b.fail(.inWriter) }
        b.engine.beginCall()
        // The calls in progress before this one (entersWithArgs).
        var outer = 0
        if let rec {
            if entersWithArgs { outer = rec._withUnsafeGuaranteedRef { $0.callDepth } } else { b.recorderEnter(rec, fn) }
        }
        var st = NG_OK
        do throws(EngineError) {
            if b.engine.isCuttingWork { throw .workCut }
            try body(b)
        } catch {
            st = b.fail(error)
        }
        if _slowPath(b.engine.workCut != nil) { st = b.endCutCall(st) }
        if let rec {
            if entersWithArgs && rec._withUnsafeGuaranteedRef({ $0.callDepth }) == outer {
                // Not entered: refused before its arguments (recorded now,
                // as rejected), or it succeeded and left already (an
                // event's return written in place: Recorder.leaveEvent).
                if st != NG_OK {
                    b.recorderEnter(rec, fn)
                    b.recorderLeave(rec, st, flush: flush)
                }
            } else {
                b.recorderLeave(rec, st, flush: flush)
            }
        }
        if deadline { b.bridge.reportDeadline() }
        return st
    }
}

/// An [any-thread] call with no context message to set: its failure is its
/// status.
@inline(__always)
func anyThread(_ body: () throws(EngineError) -> ng_status) -> ng_status {
    do { return try body() } catch { return error.status }
}

extension EngineError {
    /// A call from inside the flight recorder's writer.
    static var inWriter: EngineError {
        EngineError(NG_E_CALLBACK, "not allowed inside the flight recorder's write callback")
    }

    /// A call from a callback that would add work past the work cap.
    static var workCut: EngineError {
        EngineError(NG_E_NO_MEMORY, "refused: the work of the call that made this callback passed NG_MAX_WORK "
                    + "(\(NG_MAX_WORK)); no work is added from callbacks until it returns")
    }

    static func null(_ what: StaticString) -> EngineError { EngineError(NG_E_NULL, "\(what) is NULL") }
}

/// The engine's owner check: host-table calls from a guard's own thread are
/// refused. The argument is the address of the slot's owner word (registry
/// memory is never freed): every host-table call makes this check, so it
/// reads one word and the thread pointer, nothing more.
let ownerCheck: @convention(c) (Int) -> Bool = { word in
    UnsafePointer<Atomic<UInt>>(bitPattern: word)!.pointee.load(ordering: .relaxed) == currentThread()
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
