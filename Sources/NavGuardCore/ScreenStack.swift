// SPDX-License-Identifier: Apache-2.0
/// The navigation stack, root first.
///
/// Invariants:
///  * every screen id is non-zero and appears once;
///  * `ids` holds exactly the stacked ids, so "is this id stacked" costs the
///    same at depth 4,000 as at depth 1 (a push asks it every time);
///  * at most `Limits.maxStack` screens (checked by the request rules
///    before a change, so the mutations here only assert it);
///  * `generation` moves with every change of the screens (push, pop,
///    replace), not of their flags. A copy set aside (the stack before a
///    swipe) keeps the generation it had, so a generation says "unchanged"
///    only to someone who looks at every change: the engine does (its
///    `stack` observer), for the open question (QuestionDesk). Focus
///    tokens, like flags, are not a change of the screens.
struct ScreenStack {
    private(set) var screens: [Screen] = []
    private var ids = Set<UInt64>()
    private(set) var generation: UInt64 = 0

    init() {}

    var count: Int { screens.count }
    var isEmpty: Bool { screens.isEmpty }
    var top: Screen? { screens.last }
    var topID: UInt64 { screens.last?.id ?? 0 }
    subscript(i: Int) -> Screen { screens[i] }

    func contains(id: UInt64) -> Bool { ids.contains(id) }
    func lastIndex(of id: UInt64) -> Int? {
        // The top first (the usual case: a transition's screen, a scoped
        // request's): one comparison, no hashing.
        let top = screens.count - 1
        if top >= 0 && screens[top].id == id { return top }
        guard ids.contains(id) else { return nil }
        return screens.lastIndex { $0.id == id }
    }

    mutating func push(_ s: Screen) {
        let inserted = ids.insert(s.id).inserted
        assert(inserted && s.id != 0 && screens.count < Limits.maxStack)
        screens.append(s)
        generation &+= 1
    }

    mutating func pop() {
        ids.remove(screens.removeLast().id)
        generation &+= 1
    }

    /// Set a stacked screen's flags; false when the id is not stacked.
    mutating func setFlags(_ flags: UInt32, of id: UInt64) -> Bool {
        guard let i = lastIndex(of: id) else { return false }
        screens[i].flags = flags
        return true
    }

    /// Set a stacked screen's focus token; false when the id is not stacked.
    mutating func setFocus(_ token: UInt64, of id: UInt64) -> Bool {
        guard let i = lastIndex(of: id) else { return false }
        screens[i].focus = token
        return true
    }

    /// A stacked screen's focus token, nil when the id is not stacked (the
    /// top is found first: the usual case costs one comparison).
    func focus(of id: UInt64) -> UInt64? {
        guard let i = lastIndex(of: id) else { return nil }
        return screens[i].focus
    }

    /// Keep the screens up to and including index `i`.
    mutating func pop(after i: Int) {
        guard i + 1 < screens.count else { return }
        for s in screens[(i + 1)...] { ids.remove(s.id) }
        screens.removeSubrange((i + 1)...)
        generation &+= 1
    }

    /// Replace every screen; `new` passed `problem(_:)`.
    mutating func replace(with new: [Screen]) {
        screens = new
        ids.removeAll(keepingCapacity: true)
        for s in new { ids.insert(s.id) }
        generation &+= 1
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
