// SPDX-License-Identifier: Apache-2.0
/// The navigation stack, root first.
///
/// Invariants:
///  * every screen id is non-zero and appears once;
///  * `ids` holds exactly the stacked ids, so "is this id stacked" costs the
///    same at depth 4,000 as at depth 1 (a push asks it every time);
///  * at most `Limits.maxStack` screens (checked by the request rules
///    before a change, so the mutations here only assert it).
struct ScreenStack {
    private(set) var screens: [Screen] = []
    private var ids = Set<UInt64>()

    init() {}

    var count: Int { screens.count }
    var isEmpty: Bool { screens.isEmpty }
    var top: Screen? { screens.last }
    var topID: UInt64 { screens.last?.id ?? 0 }
    subscript(i: Int) -> Screen { screens[i] }

    func contains(id: UInt64) -> Bool { ids.contains(id) }
    func lastIndex(of id: UInt64) -> Int? {
        guard ids.contains(id) else { return nil }
        return screens.lastIndex { $0.id == id }
    }

    mutating func push(_ s: Screen) {
        let inserted = ids.insert(s.id).inserted
        assert(inserted && s.id != 0 && screens.count < Limits.maxStack)
        screens.append(s)
    }

    mutating func pop() {
        ids.remove(screens.removeLast().id)
    }

    /// Set a stacked screen's flags; false when the id is not stacked.
    mutating func setFlags(_ flags: UInt32, of id: UInt64) -> Bool {
        guard let i = lastIndex(of: id) else { return false }
        screens[i].flags = flags
        return true
    }

    /// Keep the screens up to and including index `i`.
    mutating func pop(after i: Int) {
        for s in screens[(i + 1)...] { ids.remove(s.id) }
        screens.removeSubrange((i + 1)...)
    }

    /// Replace every screen; `new` passed `problem(_:)`.
    mutating func replace(with new: [Screen]) {
        screens = new
        ids.removeAll(keepingCapacity: true)
        for s in new { ids.insert(s.id) }
    }

    /// Why a list of screens cannot be a stack, or nil (the one place the
    /// stack rules for replace-stack, restore and snapshots live).
    static func problem(_ screens: [Screen]) -> String? {
        if screens.isEmpty { return "a stack needs at least one screen" }
        if screens.count > Limits.maxStack { return "more than \(Limits.maxStack) screens" }
        var seen = Set<UInt64>()
        for s in screens {
            if s.id == 0 { return "screen id 0 is reserved" }
            if !seen.insert(s.id).inserted { return "screen id \(s.id) appears twice" }
        }
        return nil
    }
}
