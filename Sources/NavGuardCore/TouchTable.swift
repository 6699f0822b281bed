import CNavGuard

/// A touch from its began until its ended/cancelled arrives from the host.
struct LiveTouch {
    var id: UInt64
    var view: UInt64
    var state: Int32     // NG_TOUCH_STATE_*
    var beganNs: Int64
}

public let maxLiveTouches = 64

/// The live touches, kept in a small array: a UI has a handful at most, and
/// a linear scan beats hashing while allocating nothing in steady state.
///
/// Invariants:
///  * a touch id is live at most once, and at most `maxLiveTouches` are live;
///  * a touch's view is fixed at its began (it gets its end there);
///  * its state only moves DELIVERED → CANCELLED, or is WITHHELD for life
///    (a touch dropped at began, or cancelled by its own began's work);
///  * `beganInProgress` names the touch whose began is being decided: a
///    cancel of it then turns the began's verdict into a drop
///    (`beganCancelled`) instead of a callback the host would get before the
///    began itself.
struct TouchTable {
    private(set) var touches: [LiveTouch] = []
    private(set) var beganInProgress: UInt64?
    private(set) var beganCancelled = false

    init() { touches.reserveCapacity(16) }

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

    mutating func began(_ t: LiveTouch) {
        assert(index(of: t.id) == nil && !isFull)
        touches.append(t)
    }

    mutating func remove(at i: Int) -> LiveTouch { touches.remove(at: i) }

    /// Cancel a delivered touch. Returns false when it is the touch whose
    /// began is being decided: that one is withheld instead, with no notice.
    mutating func cancel(at i: Int) -> Bool {
        assert(touches[i].state == NG_TOUCH_STATE_DELIVERED)
        if touches[i].id == beganInProgress {
            touches[i].state = NG_TOUCH_STATE_WITHHELD
            beganCancelled = true
            return false
        }
        touches[i].state = NG_TOUCH_STATE_CANCELLED
        return true
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
        let t = touches[i]
        var info = ng_touch_info()
        info.size = UInt32(MemoryLayout<ng_touch_info>.size)
        info.state = t.state
        info.touch_id = t.id
        info.view_id = t.view
        info.began_ns = t.beganNs
        return info
    }
}
