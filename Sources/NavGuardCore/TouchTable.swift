// SPDX-License-Identifier: Apache-2.0
import CNavGuard

/// A touch from its began until its ended/cancelled arrives from the host,
/// or until NavGuard ends it.
struct LiveTouch {
    var id: UInt64
    var view: UInt64
    var state: Int32     // NG_TOUCH_STATE_DELIVERED or _WITHHELD
    var beganNs: Int64
    /// Its latest event (began or moved): a touch that moves is alive.
    var lastNs: Int64
    /// It moved after `lastNs`, in a call that had not read the clock: the
    /// move's instant is the engine's next clock reading (`stamp`).
    var unstamped = false
    /// The latest began refused because of it (EXCLUSIVE, MULTI_TOUCH); 0:
    /// never. What makes a still touch worth a watchdog's attention.
    var inWayNs: Int64 = 0
}

public let maxLiveTouches = 64
/// Retired touches remembered, so that phases the host still sends for a
/// touch NavGuard cancelled are dropped as CANCELLED rather than INVALID.
let maxRetiredTouches = 16

/// The live touches, kept in a small array: a UI has a handful at most, and
/// a linear scan beats hashing while allocating nothing in steady state.
///
/// Invariants:
///  * a touch id is live at most once, and at most `maxLiveTouches` are live;
///  * a live touch is DELIVERED or WITHHELD; a touch NavGuard cancels is
///    retired at once (no longer live, its id free): it moves to `retired`,
///    a ring of the last `maxRetiredTouches`, until its end arrives or newer
///    ones push it out. So no id is ever blocked by an end that never comes;
///  * a touch's view is fixed at its began (it gets its end there);
///  * a moved event reads no clock (the event path's cost): a move in a
///    call that has no clock reading yet marks its touch `unstamped`, and
///    the engine's next reading stamps it (`stamp`), before anything reads
///    `lastNs` (`idlest`, `info`, `cancel`). So `lastNs` is never earlier
///    than the touch's latest event, and later only until that reading;
///  * `beganInProgress` names the touch whose began is being decided: a
///    cancel of it then turns the began's verdict into a drop
///    (`beganCancelled`) and the touch stays WITHHELD, instead of a callback
///    the host would get before the began itself.
struct TouchTable {
    private(set) var touches: [LiveTouch] = []
    private var retired: [(id: UInt64, view: UInt64, used: Bool)]
    private var retiredNext = 0
    /// Entries of `retired` in use: a began skips the scan when none is.
    private var retiredUsed = 0
    private(set) var beganInProgress: UInt64?
    private(set) var beganCancelled = false
    /// Counts changes to which touches are live and their states (not moves).
    private(set) var version: UInt64 = 0
    /// Some live touch is `unstamped`.
    private(set) var hasUnstamped = false

    init() {
        touches.reserveCapacity(16)
        retired = Array(repeating: (0, 0, false), count: maxRetiredTouches)
    }

    var count: Int { touches.count }
    var isFull: Bool { touches.count >= maxLiveTouches }
    subscript(i: Int) -> LiveTouch { touches[i] }
    var indices: Range<Int> { touches.indices }

    @inline(__always)
    func index(of id: UInt64) -> Int? {
        var i = 0
        while i < touches.count {
            if touches[i].id == id { return i }
            i += 1
        }
        return nil
    }

    var anyDelivered: Bool { touches.contains { $0.state == NG_TOUCH_STATE_DELIVERED } }

    /// Delivered live touches bound to a view.
    func delivered(on view: UInt64) -> Int {
        var n = 0
        for t in touches where t.view == view && t.state == NG_TOUCH_STATE_DELIVERED { n += 1 }
        return n
    }

    /// The live touch idle longest (the oldest latest event), when full.
    var idlest: Int? {
        assert(!hasUnstamped)
        var best: Int?
        for i in touches.indices where best == nil || touches[i].lastNs < touches[best!].lastNs { best = i }
        return best
    }

    /// A began on `target` was refused at `t` by the exclusive-touch rule
    /// (`sameView` false: every delivered touch on another view can be the
    /// cause) or the multiple-touch-off rule (`sameView`: those on its view).
    mutating func refusedBecauseOf(target: UInt64, sameView: Bool, at t: Int64) {
        for i in touches.indices where touches[i].state == NG_TOUCH_STATE_DELIVERED
            && (touches[i].view == target) == sameView {
            touches[i].inWayNs = max(t, 1)   // 0 says "never" (a manual clock starts at 0)
        }
    }

    mutating func began(_ t: LiveTouch) {
        assert(index(of: t.id) == nil && !isFull)
        forgetRetired(t.id)
        touches.append(t)
        version &+= 1
    }

    /// A move at `t`, or at the engine's next clock reading when nil.
    @inline(__always)
    mutating func moved(at i: Int, _ t: Int64?) {
        if let t {
            touches[i].lastNs = t
            touches[i].unstamped = false
        } else if !touches[i].unstamped {
            touches[i].unstamped = true
            hasUnstamped = true
        }
    }

    /// The engine read its clock: moves not yet dated happened by `t`.
    mutating func stamp(_ t: Int64) {
        for i in touches.indices where touches[i].unstamped {
            touches[i].lastNs = t
            touches[i].unstamped = false
        }
        hasUnstamped = false
    }

    /// The host ended it (or its end was lost): it leaves the table.
    mutating func remove(at i: Int) -> LiveTouch {
        version &+= 1
        return touches.remove(at: i)
    }

    /// Cancel a delivered touch: it is retired, and the notice for the host
    /// is returned. nil when it is the touch whose began is being decided:
    /// that one is withheld instead (it stays live), with no notice.
    mutating func cancel(at i: Int) -> ng_touch_info? {
        assert(touches[i].state == NG_TOUCH_STATE_DELIVERED)
        version &+= 1
        if touches[i].id == beganInProgress {
            touches[i].state = NG_TOUCH_STATE_WITHHELD
            beganCancelled = true
            return nil
        }
        var info = self.info(at: i)
        info.state = NG_TOUCH_STATE_CANCELLED
        let t = touches.remove(at: i)
        if !retired[retiredNext].used { retiredUsed += 1 }
        retired[retiredNext] = (t.id, t.view, true)
        retiredNext = (retiredNext + 1) % maxRetiredTouches
        return info
    }

    /// The view of a retired touch NavGuard still remembers, or nil.
    func retiredView(of id: UInt64) -> UInt64? {
        if retiredUsed == 0 { return nil }
        for r in retired where r.used && r.id == id { return r.view }
        return nil
    }

    /// A retired touch's end arrived (or its id began anew): forget it.
    mutating func forgetRetired(_ id: UInt64) {
        if retiredUsed == 0 { return }
        for k in retired.indices where retired[k].used && retired[k].id == id {
            retired[k].used = false
            retiredUsed -= 1
        }
    }

    mutating func startDeciding(_ id: UInt64) {
        beganInProgress = id
        beganCancelled = false
    }

    /// Whether the began just decided was cancelled by its own work.
    mutating func endDeciding() -> Bool {
        beganInProgress = nil
        return beganCancelled
    }

    func info(at i: Int) -> ng_touch_info {
        assert(!hasUnstamped)
        let t = touches[i]
        var info = ng_touch_info()
        info.size = UInt32(MemoryLayout<ng_touch_info>.size)
        info.state = t.state
        info.touch_id = t.id
        info.view_id = t.view
        info.began_ns = t.beganNs
        info.last_ns = t.lastNs
        info.in_way_ns = t.inWayNs
        return info
    }
}
