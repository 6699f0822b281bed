// SPDX-License-Identifier: Apache-2.0
import CNavGuard

/// An interactive (swipe) back in flight: how far the finger got, which
/// touch drives it and what the host decided at release. (The stack a cancel
/// restores is kept by `Transitions`: this type holds no references, so the
/// per-event "is this the driving touch" check copies nothing.)
///
/// Invariants:
///  * `decision` is set at most once: a release is final, and completion
///    (by the host, a newer request or the watchdog) follows its direction;
///  * `drivingTouch` is non-nil only while the touch named by the request is
///    live and delivered (the engine calls `touchEnded` at its end or cancel),
///    and only that touch is exempt from holds;
///  * `sinceNs` is when the swipe entered its current state (its begin, its
///    driving touch's end, or its release): the watchdog's limit counts from
///    it, and never while the swipe is DRIVEN.
struct Swipe {
    enum Decision { case none, finish, cancel }

    let requestID: UInt64
    var progress: Double = 0
    /// The touch the request named (NG_REQF_TOUCH_DRIVEN), live or not.
    let namedTouch: UInt64?
    /// The named touch while it is live.
    private(set) var drivingTouch: UInt64?
    private(set) var decision: Decision = .none
    private(set) var sinceNs: Int64

    init(requestID: UInt64, touch: UInt64?, at t: Int64) {
        self.requestID = requestID
        namedTouch = touch
        drivingTouch = touch
        sinceNs = t
    }

    /// NG_SWIPE_*.
    var state: Int32 {
        switch decision {
        case .finish: return NG_SWIPE_FINISHING
        case .cancel: return NG_SWIPE_CANCELLING
        case .none: return drivingTouch != nil ? NG_SWIPE_DRIVEN : NG_SWIPE_UNDRIVEN
        }
    }

    /// Whether `id` is the live touch that drives this swipe.
    @inline(__always)
    func isDriving(_ id: UInt64) -> Bool { drivingTouch == id }

    /// The call that began the swipe returned `delta` after its instant.
    mutating func restamp(by delta: Int64) {
        let (t, o) = sinceNs.addingReportingOverflow(delta)
        sinceNs = o ? Int64.max - 1 : t
    }

    /// The driving touch ended or was cancelled. An undecided swipe is now
    /// unattended from this moment.
    mutating func touchEnded(at t: Int64) {
        drivingTouch = nil
        if decision == .none { sinceNs = t }
    }

    /// The host decided the direction; the touch, if still down, keeps its
    /// exemption until it ends.
    mutating func release(finish: Bool, at t: Int64) throws(EngineError) {
        guard decision == .none else {
            throw EngineError(NG_E_STATE, "the interactive back was already released to \(decision == .finish ? "finish" : "cancel"); complete it with ng_interactive_complete")
        }
        decision = finish ? .finish : .cancel
        sinceNs = t
    }
}
