// SPDX-License-Identifier: Apache-2.0
import CNavGuard

/// The verdict on one event.
public struct EventVerdict {
    public var verdict: Verdict
    public var reason: Reason
    public var target: UInt64
    public var guardID: UnsafePointer<CChar>?
    /// IGNORING: the hold that blocked it (its owner is `guardID`).
    public var holdToken: UInt64 = 0
    public var holdLabel: UnsafePointer<CChar>? = nil

    @inline(__always)
    static func deliver(_ target: UInt64) -> EventVerdict {
        EventVerdict(verdict: .deliver, reason: .none, target: target, guardID: nil)
    }

    @inline(__always)
    static func drop(_ reason: Reason, _ target: UInt64, _ guardID: UnsafePointer<CChar>? = nil) -> EventVerdict {
        EventVerdict(verdict: .drop, reason: reason, target: target, guardID: guardID)
    }

    /// Dropped because `hold` blocks the event's type: named after its owner.
    static func ignoring(_ target: UInt64, by hold: Hold?) -> EventVerdict {
        var v = EventVerdict.drop(.ignoring, target, hold?.ownerID)
        v.holdToken = hold?.token ?? 0
        v.holdLabel = hold?.label.map { UnsafePointer($0.pointer) }
        return v
    }
}
