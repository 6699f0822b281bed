// SPDX-License-Identifier: Apache-2.0
import CNavGuard

struct Hold {
    var token: UInt64
    var label: CStr?
    var mask: UInt32
    var beganNs: Int64
    var deadlineNs: Int64
    var owner: Actor
    /// The owning guard's id (nil: the host), kept with the hold: reports
    /// and drops name it even after the chain changed.
    var ownerID: UnsafePointer<CChar>?
    /// The request id of the transition it is tied to (it ends with that
    /// transition, and has no limit of its own), or 0.
    var transitionID: UInt64 = 0

    /// The one rule for how a hold ends when someone ends it: by its owner
    /// (or the host, which may end any hold) it ENDED; by another guard it
    /// was RELEASED from under its owner.
    func endReason(by actor: Actor) -> Int32 {
        actor == .host || actor == owner ? NG_HOLD_ENDED : NG_HOLD_RELEASED
    }
}

/// The live holds (input blocks) and the union of their masks.
///
/// Invariants:
///  * `mask` is the union of the live holds' masks: every event reads it,
///    so it is kept, not computed;
///  * tokens are unique and increase; an ended hold's token is never reused;
///  * at most `Limits.maxHolds` holds, each with a non-zero mask;
///  * a hold tied to a transition has no deadline: it ends when that
///    transition's screen track ends, never on its own.
struct HoldSet {
    private(set) var holds: [Hold] = []
    private(set) var mask: UInt32 = 0
    /// The token the next hold gets (a replay of a trace started
    /// mid-session continues the recording's sequence).
    var nextToken: UInt64 = 1

    init() { holds.reserveCapacity(16) }

    var count: Int { holds.count }
    var isEmpty: Bool { holds.isEmpty }
    subscript(i: Int) -> Hold { holds[i] }

    /// Add a hold; `mask` 0 means NG_MASK_DEFAULT, `maxDurationNs` 0 no limit.
    mutating func begin(label: CStr?, mask requested: UInt32, maxDurationNs: Int64, at t: Int64,
                        owner: Actor, ownerID: UnsafePointer<CChar>?, transitionID: UInt64 = 0) throws(EngineError) -> Hold {
        guard requested & ~UInt32(NG_MASK_ALL) == 0 else { throw EngineError(NG_E_RANGE, "unknown bits in the event mask") }
        guard maxDurationNs >= 0 else { throw EngineError(NG_E_RANGE, "negative hold duration") }
        guard holds.count < Limits.maxHolds else { throw EngineError(NG_E_NO_MEMORY, "too many live holds (\(Limits.maxHolds))") }
        let m = requested == 0 ? UInt32(NG_MASK_DEFAULT) : requested
        var deadline = Limits.noDeadline
        if maxDurationNs > 0 {
            let (sum, o) = t.addingReportingOverflow(maxDurationNs)
            deadline = o ? Limits.noDeadline - 1 : sum
        }
        let h = Hold(token: nextToken, label: label, mask: m, beganNs: t, deadlineNs: deadline, owner: owner,
                     ownerID: ownerID, transitionID: transitionID)
        nextToken += 1
        holds.append(h)
        mask |= m
        return h
    }

    func index(of token: UInt64) -> Int? { holds.firstIndex { $0.token == token } }
    func index(tiedTo transitionID: UInt64) -> Int? { holds.firstIndex { $0.transitionID == transitionID } }

    /// The oldest live hold whose mask covers `typeBit` (what a drop names).
    func blocking(_ typeBit: UInt32) -> Hold? {
        for h in holds where h.mask & typeBit != 0 { return h }
        return nil
    }
    func index(ownedBy actor: Actor) -> Int? { holds.firstIndex { $0.owner == actor } }

    mutating func remove(at i: Int) -> Hold {
        let h = holds.remove(at: i)
        var m: UInt32 = 0
        for x in holds { m |= x.mask }
        mask = m
        return h
    }

    /// The expired hold with the earliest deadline (ties: the older), or nil.
    func earliestExpired(at t: Int64) -> Int? {
        var best: Int?
        for (i, h) in holds.enumerated() where h.deadlineNs <= t {
            if best == nil || h.deadlineNs < holds[best!].deadlineNs { best = i }
        }
        return best
    }

    var earliestDeadline: Int64 {
        var d = Limits.noDeadline
        for h in holds { d = min(d, h.deadlineNs) }
        return d
    }

    /// A live hold as hosts and guards see it (ng_hold_view).
    func view(at i: Int) -> ng_hold_view? {
        guard i >= 0 && i < holds.count else { return nil }
        let h = holds[i]
        var v = ng_hold_view()
        v.size = UInt32(MemoryLayout<ng_hold_view>.size)
        v.token = h.token
        v.label = h.label.map { UnsafePointer($0.pointer) }
        v.mask = h.mask
        v.began_ns = h.beganNs
        v.deadline_ns = h.deadlineNs
        v.owner_id = h.ownerID
        v.transition_id = h.transitionID
        return v
    }
}
