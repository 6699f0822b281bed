// SPDX-License-Identifier: Apache-2.0
import CNavGuard

// The engine's holds: begun, ended, expired and read.

extension Engine {
    // MARK: Holds

    public var holdMask: UInt32 { holds.mask }
    public var holdCount: Int { holds.count }

    public func holdView(at i: Int) -> ng_hold_view? { holds.view(at: i) }

    /// Begin a hold; `tiedToTransition` (a guard's hold_begin_transition)
    /// ties it to the transition in flight instead of a time limit.
    public func beginHold(label: CStr?, mask: UInt32, maxDurationNs: Int64, by actor: Actor = .host,
                          tiedToTransition: Bool = false) throws(EngineError) -> UInt64 {
        guard !destroying else { throw EngineError(NG_E_STATE, "the context is being destroyed") }
        var transitionID: UInt64 = 0
        if tiedToTransition {
            guard let t = transitions.screen else {
                throw EngineError(NG_E_STATE, "no transition is in flight on the screen track to tie the hold to")
            }
            transitionID = t.requestID
        }
        let h = try holds.begin(label: label, mask: mask, maxDurationNs: maxDurationNs, at: now, owner: actor,
                                ownerID: actor.slot.map { chain[$0].guardID }, transitionID: transitionID)
        run.append(.note(.holdBegan(token: h.token, label: label, mask: h.mask)))
        // Input became blocked for touches: every delivered live touch gets
        // its cancel now, so no control stays highlighted waiting for a
        // release the host will never deliver.
        if h.mask & UInt32(NG_MASK_TOUCH) != 0 { cancelTouches(0) }
        // So do the keys and buttons of the types it blocks.
        cancelPressesForHold(mask: h.mask)
        drain()
        return h.token
    }

    public func endHold(_ token: UInt64, by actor: Actor = .host) throws(EngineError) {
        guard holds.index(of: token) != nil else {
            throw EngineError(NG_E_NOT_FOUND, "hold \(token) is not live (unknown or already ended)")
        }
        act(.holdEnd(token: token, by: actor))
    }

    func removeHold(at i: Int, reason: Int32) {
        let h = holds.remove(at: i)
        run.append(.note(.holdEnded(HoldEndRecord(token: h.token, label: h.label, mask: h.mask, reason: reason,
                                                  beganNs: h.beganNs, endedNs: now, owner: h.ownerID))))
    }

    /// The screen track of transition `requestID` ended: the holds tied to
    /// it end with it.
    func endHolds(tiedTo requestID: UInt64) {
        while let i = holds.index(tiedTo: requestID) { removeHold(at: i, reason: NG_HOLD_ENDED) }
    }
}
