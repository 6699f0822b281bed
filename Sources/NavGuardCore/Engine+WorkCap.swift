// SPDX-License-Identifier: Apache-2.0
import CNavGuard

// The cap on the work one host call may set off (NG_MAX_WORK). RunQueue
// counts each burst and, past the cap, sets `overrun`; from then until the
// queue is empty the engine's doors refuse new work from hooks and callbacks
// (the host table's acting functions here, the C API's recorded calls in the
// ABI layer) with NG_E_NO_MEMORY. Work already queued still runs, so every
// request keeps its one outcome and every touch its one end.

extension Engine {
    /// Hooks and callbacks may add no more work until the queue is empty.
    public var isCuttingWork: Bool { run.overrun }

    /// The burst passed the cap: say so once, naming who fed it (work is
    /// counted to who set it off: RunQueue), and keep the error for the
    /// call's status.
    func noteOverrun() {
        run.overrunUnlogged = false
        let feeder = run.feeder
        let gid: UnsafePointer<CChar>? = feeder > 0 && feeder <= chain.count ? chain[feeder - 1].guardID : nil
        let who = gid.map { "guard \(String(cString: $0))'s hooks" } ?? "the host's callbacks"
        let text = "more than \(Limits.maxWork) pieces of work (NG_MAX_WORK) in one call, most of it added by \(who): "
            + "does a hook make new work for every notice it gets? Work added from hooks and callbacks is refused "
            + "(NG_E_NO_MEMORY) until the call returns; what was queued still runs"
        workCut = EngineError(NG_E_NO_MEMORY, text)
        run.append(.note(.log(guardID: gid, severity: NG_LOG_ERROR, message: CStr(text))))
    }

    /// The call's status once it returns (outside any callback): the cut,
    /// if its work was cut. Consumed.
    public func takeWorkCut() -> EngineError? {
        guard !run.isBusy, let e = workCut else { return nil }
        workCut = nil
        return e
    }
}
