// SPDX-License-Identifier: Apache-2.0
import CNavGuard

/// A key or controller button held down: from its down until its up
/// arrives, or until its device is removed or a newer down replaces it.
struct LivePress {
    var type: Int32      // NG_EVENT_KEY or NG_EVENT_REMOTE
    var device: UInt64
    var code: Int64
    var view: UInt64
    var screen: UInt64
    var downNs: Int64
    var state: State

    enum State: UInt8 {
        /// Its down was delivered: it is owed its up or one cancel.
        case delivered
        /// Its down was dropped: the host never saw it, nor sees the rest.
        case withheld
        /// NavGuard cancelled it: its repeats and up are dropped CANCELLED.
        case cancelled
    }

    @inline(__always)
    func isKey(_ type: Int32, _ device: UInt64, _ code: Int64) -> Bool {
        self.code == code && self.device == device && self.type == type
    }
}

public let maxLivePresses = 64

/// Why a press was cancelled (NG_PRESS_*).
enum PressCause: Int32 {
    case lost = 0, transition = 1, hold = 2, deviceRemoved = 3, destroyed = 4
}

/// The presses NavGuard knows, in a fixed-capacity array the context owns:
/// a handful are down at once, a linear scan beats hashing, and nothing is
/// allocated per press.
///
/// Invariants:
///  * a (type, device, code) is known at most once, and at most
///    `maxLivePresses` presses are known (the array never grows past the
///    capacity reserved at init, so it never reallocates);
///  * a press is DELIVERED, WITHHELD or CANCELLED; only a DELIVERED press is
///    owed an end, and it gets exactly one: its up (it leaves) or a cancel
///    (`cancel`, which hands back the host's notice and makes it CANCELLED).
///    A press never goes back to DELIVERED;
///  * a CANCELLED or WITHHELD press stays until its up, a newer down on its
///    key, its device's removal or a full table: so its repeats are dropped
///    until the key is pressed again;
///  * `downInProgress` is the key whose down is being decided: a cancel of it
///    makes it CANCELLED with no notice (`downCancelled`), since the host has
///    not seen the down yet; the down is dropped instead.
struct PressTable {
    private(set) var presses: [LivePress] = []
    private var downInProgress: (type: Int32, device: UInt64, code: Int64)?
    private(set) var downCancelled = false

    init() { presses.reserveCapacity(maxLivePresses) }

    var count: Int { presses.count }
    var isFull: Bool { presses.count >= maxLivePresses }
    subscript(i: Int) -> LivePress { presses[i] }

    @inline(__always)
    func index(_ type: Int32, _ device: UInt64, _ code: Int64) -> Int? {
        var i = 0
        while i < presses.count {
            if presses[i].isKey(type, device, code) { return i }
            i += 1
        }
        return nil
    }

    var anyDelivered: Bool { presses.contains { $0.state == .delivered } }

    /// The entry a full table gives up for a new down: the oldest that is
    /// owed nothing, else the oldest delivered one.
    var evictable: Int? {
        if let i = presses.firstIndex(where: { $0.state != .delivered }) { return i }
        return presses.isEmpty ? nil : 0
    }

    mutating func down(_ p: LivePress) {
        assert(index(p.type, p.device, p.code) == nil && !isFull)
        presses.append(p)
    }

    /// Its up arrived (or it is forgotten): it leaves the table.
    @discardableResult
    mutating func remove(at i: Int) -> LivePress {
        presses.remove(at: i)
    }

    /// Cancel a delivered press: it becomes CANCELLED, and the notice for
    /// the host is returned; nil when it is the down being decided (no
    /// notice: its down is dropped instead).
    mutating func cancel(at i: Int, cause: PressCause) -> ng_press_info? {
        assert(presses[i].state == .delivered)
        presses[i].state = .cancelled
        if let d = downInProgress, presses[i].isKey(d.type, d.device, d.code) {
            downCancelled = true
            return nil
        }
        return info(at: i, cause: cause)
    }

    mutating func startDeciding(_ type: Int32, _ device: UInt64, _ code: Int64) {
        downInProgress = (type, device, code)
        downCancelled = false
    }

    /// Whether the down just decided was cancelled by its own work.
    mutating func endDeciding() -> Bool {
        downInProgress = nil
        return downCancelled
    }

    func info(at i: Int, cause: PressCause) -> ng_press_info {
        let p = presses[i]
        var info = ng_press_info()
        info.size = UInt32(MemoryLayout<ng_press_info>.size)
        info.type = p.type
        info.device = p.device
        info.code = p.code
        info.view_id = p.view
        info.screen_id = p.screen
        info.down_ns = p.downNs
        info.cause = cause.rawValue
        return info
    }
}
