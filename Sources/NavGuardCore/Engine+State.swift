// SPDX-License-Identifier: Apache-2.0
import CNavGuard

// The engine's state as one value: what a stack snapshot, a flight
// recorder's ring checkpoint and a mid-session trace's header are written
// from, and what a snapshot or a replayed trace is read into and restored
// through (`Engine.restore(_:)`).

extension Engine {
    /// The engine's state, one value. Taken from an engine (`Engine.state`)
    /// it holds every part, as the parts were at that instant: copies that
    /// share the engine's storage until either side changes (taking one
    /// allocates nothing). Built by a reader (`init(stack:)`, then
    /// `addPress`, `counters`) it holds the parts named in `parts`.
    ///
    /// Invariants:
    ///  * `stack` obeys the stack rules (`ScreenStack.problem`) whenever it
    ///    is non-empty: root first, ids non-zero and distinct; each screen
    ///    carries its flags and its focus token (0: none);
    ///  * `views` is a tree as ViewTree keeps it (parents before children);
    ///  * `holds`, `touches`, `transitions`, `deferred`, `questions` and
    ///    `presses` keep their own types' invariants (HoldSet, TouchTable,
    ///    Transitions, DeferredRequests, QuestionDesk, PressTable): at most
    ///    one open question, one transition per track, `maxLiveTouches`
    ///    touches and `maxLivePresses` presses, each key held at most once;
    ///  * `counters` are the ids the engine hands out next;
    ///  * `parts` names what the value holds: a part not in it is left as it
    ///    is by `restore`.
    public struct State {
        /// The parts of the engine's state, listed once: the names are the
        /// keys a trace header's `state` uses for them (docs/trace-format.md).
        public struct Parts: OptionSet, Sendable {
            public let rawValue: UInt16
            public init(rawValue: UInt16) { self.rawValue = rawValue }
            public static let stack = Parts(rawValue: 1 << 0)
            public static let views = Parts(rawValue: 1 << 1)
            public static let holds = Parts(rawValue: 1 << 2)
            public static let touches = Parts(rawValue: 1 << 3)
            public static let transitions = Parts(rawValue: 1 << 4)
            public static let deferred = Parts(rawValue: 1 << 5)
            public static let question = Parts(rawValue: 1 << 6)
            public static let presses = Parts(rawValue: 1 << 7)
            public static let counters = Parts(rawValue: 1 << 8)
            public static let all = Parts(rawValue: 0x1FF)
            /// What a ring checkpoint writes whole every time (the stack and
            /// views are written as changes): RingReader's "unknown" names.
            public static let live: Parts = [.holds, .touches, .transitions, .deferred, .question]
            /// What `restore` can recreate in another engine. The live parts
            /// name the host's callbacks and guards of the session they were
            /// live in: a state holding any of them is restored only empty.
            public static let restorable: Parts = [.stack, .views, .presses, .counters]

            /// The parts in their order, with their names.
            public static let names: [(part: Parts, name: StaticString)] = [
                (.stack, "stack"), (.views, "views"), (.holds, "holds"), (.touches, "touches"),
                (.transitions, "transitions"), (.deferred, "deferred"), (.question, "question"),
                (.presses, "presses"), (.counters, "counters")]
        }

        public internal(set) var parts: Parts
        /// The stack, root first.
        public internal(set) var stack: [Screen]
        public internal(set) var views: ViewTree
        var holds: HoldSet
        var touches: TouchTable
        var transitions: Transitions
        var deferred: DeferredRequests
        var questions: QuestionDesk
        var presses: PressTable
        /// The ids handed out next (setting them adds the part).
        public var counters: Counters { didSet { parts.insert(.counters) } }

        /// A state holding a stack only (empty: no part at all).
        @_optimize(size)
        public init(stack: [Screen] = []) {
            parts = stack.isEmpty ? [] : .stack
            self.stack = stack
            views = ViewTree()
            holds = HoldSet()
            touches = TouchTable()
            transitions = Transitions()
            deferred = DeferredRequests()
            questions = QuestionDesk()
            presses = PressTable()
            counters = Counters(requestID: 1, holdToken: 1, guardRequestID: Limits.guardRequestIDBase, questionID: 1)
        }

        /// Every part, as given (Engine.state: copies, no allocation).
        init(stack: [Screen], views: ViewTree, holds: HoldSet, touches: TouchTable, transitions: Transitions,
             deferred: DeferredRequests, questions: QuestionDesk, presses: PressTable, counters: Counters) {
            parts = .all
            (self.stack, self.views, self.holds, self.touches, self.transitions) = (stack, views, holds, touches, transitions)
            (self.deferred, self.questions, self.presses, self.counters) = (deferred, questions, presses, counters)
        }

        // MARK: Reading

        public var stackCount: Int { stack.count }
        public func screen(at i: Int) -> Screen? { i >= 0 && i < stack.count ? stack[i] : nil }

        public var holdCount: Int { holds.count }
        public func hold(at i: Int) -> ng_hold_view? { holds.view(at: i) }

        /// Live touches (their moves stamped when the state was taken).
        public var touchCount: Int { touches.count }
        public func touch(at i: Int) -> ng_touch_info? { i >= 0 && i < touches.count ? touches.info(at: i) : nil }

        /// A track in flight, with the screens it goes from and to.
        public func track(_ t: Track) -> (info: ng_track_info, from: UInt64, to: UInt64)? {
            guard t.isOne, let info = transitions.view(t), let f = transitions.track(t) else { return nil }
            return (info, f.fromID, f.toID)
        }
        public var inFlight: Bool { !transitions.isIdle }

        public var deferredCount: Int { deferred.count }
        public func deferred(at i: Int) -> Request? { i >= 0 && i < deferred.count ? deferred[i] : nil }

        public var question: ng_question? { questions.open?.cValue }

        public var pressCount: Int { presses.count }
        public func press(at i: Int) -> Press? { i >= 0 && i < presses.count ? Press(presses[i]) : nil }

        /// How many of each live part there are, by its name (a
        /// mid-session trace's `live`).
        public var liveCounts: LiveCounts {
            State.liveCounts(holds, touches, transitions, deferred, questions, presses)
        }

        /// How many of each live part (one rule for a state and an engine).
        public typealias LiveCounts = (holds: Int, touches: Int, transitions: Int, deferred: Int, questions: Int, presses: Int)
        static func liveCounts(_ h: HoldSet, _ t: TouchTable, _ tr: Transitions, _ d: DeferredRequests, _ q: QuestionDesk,
                               _ p: PressTable) -> LiveCounts {
            (h.count, t.count, tr.isIdle ? 0 : 1, d.count, q.isOpen ? 1 : 0, p.count)
        }

        // MARK: Building (a reader)

        /// Add a live press; refused when it breaks PressTable's rules.
        @_optimize(size)
        public mutating func addPress(_ p: Press) throws(EngineError) {
            guard p.type == NG_EVENT_KEY || p.type == NG_EVENT_REMOTE, let state = LivePress.State(rawValue: p.state),
                  presses.index(p.type, p.device, p.code) == nil, !presses.isFull else {
                throw EngineError(NG_E_RANGE, "a press must be a key's or remote button's, delivered, withheld or cancelled, "
                                  + "each key held once, at most 64")
            }
            presses.down(LivePress(type: p.type, device: p.device, code: p.code, view: p.view, screen: p.screen,
                                   downNs: p.downNs, state: state))
            parts.insert(.presses)
        }

        /// The screen a reader builds from its text: the rules a snapshot's
        /// screens follow (a route, no NUL, within Limits.maxString).
        /// `what` and `index` name it in a refusal ("screens", 2: "screens[2]").
        @_optimize(size) @inline(never)
        public static func screen(id: UInt64, route: String, identity: String?, flags: UInt32, focus: UInt64,
                                  what list: StaticString, index: Int) throws(EngineError) -> Screen {
            let identity = identity ?? route
            // Routes and identities are handed out as C strings: no NUL inside.
            let problem: StaticString? =
                id == 0 ? ".id must be a non-zero integer"
                : route.isEmpty ? ".route is empty"
                : route.utf8.contains(0) || identity.utf8.contains(0) ? " has a NUL character in its route or identity"
                : route.utf8.count > Limits.maxString || identity.utf8.count > Limits.maxString ? " has a string longer than NG_MAX_STRING bytes"
                : screenFlagsProblem(flags) != nil ? ".flags must be NG_SCREENF_* bits" : nil
            if let problem { throw EngineError(NG_E_RANGE, "\(list)[\(index)]\(problem)") }
            var s = Screen(id: id, route: route, identity: identity, flags: flags)
            s.focus = focus
            return s
        }
    }

    /// A live press as a state shows it.
    public struct Press: Equatable, Sendable {
        public var type: Int32
        public var device: UInt64
        public var code: Int64
        public var view: UInt64
        public var screen: UInt64
        public var downNs: Int64
        /// An index of `stateNames`.
        public var state: UInt8

        /// What a press's state is called in a trace (PressTable's states).
        public static let stateNames: [StaticString] = ["delivered", "withheld", "cancelled"]

        /// The state `name` names, or nil.
        public static func state(named name: String) -> UInt8? {
            stateNames.firstIndex { $0.description == name }.map { UInt8($0) }
        }

        public init(type: Int32, device: UInt64, code: Int64, view: UInt64, screen: UInt64, downNs: Int64, state: UInt8) {
            (self.type, self.device, self.code, self.view, self.screen, self.downNs, self.state) =
                (type, device, code, view, screen, downNs, state)
        }

        init(_ p: LivePress) {
            self.init(type: p.type, device: p.device, code: p.code, view: p.view, screen: p.screen, downNs: p.downNs,
                      state: p.state.rawValue)
        }
    }

    /// The engine's state now, every part (touch moves stamped first, as
    /// every reading of a touch does).
    @_optimize(size)
    public var state: State {
        stampMoves()
        return State(stack: stack.screens, views: views, holds: holds, touches: touches, transitions: transitions,
                     deferred: deferred, questions: questions, presses: presses, counters: counters)
    }

    /// Restore the parts `s` holds; the others are left as they are. The
    /// live parts (holds, touches, transitions, deferred requests, the
    /// question) are restored only empty, and only into an engine with
    /// none; presses only into an engine that knows none (a press is owed
    /// exactly one end). Nothing changes when it throws. An open question
    /// about the old stack ends WITHDRAWN before this returns.
    @_optimize(size)
    public func restore(_ s: State) throws(EngineError) {
        guard run.depth == 0 else { throw .inCallback("restore") }
        let live = s.parts.intersection(State.Parts.live)
        if !live.isEmpty {
            let l = s.liveCounts
            guard l.holds + l.touches + l.transitions + l.deferred + l.questions == 0 else {
                throw EngineError(NG_E_STATE, "live holds, touches, transitions, deferred requests and questions cannot be restored")
            }
            let m = liveCounts
            guard m.holds + m.touches + m.transitions + m.deferred + m.questions == 0 else {
                throw EngineError(NG_E_STATE, "the context has live holds, touches, transitions, deferred requests or questions")
            }
        }
        if s.parts.contains(.presses) && presses.count != 0 {
            throw EngineError(NG_E_STATE, "the context knows presses already")
        }
        if s.parts.contains(.counters) {
            let c = s.counters
            guard c.requestID >= 1, c.holdToken >= 1, c.questionID >= 1 else {
                throw EngineError(NG_E_RANGE, "an id counter is below its first value")
            }
        }
        if s.parts.contains(.stack) {
            guard transitions.isIdle else { throw EngineError(NG_E_STATE, "a transition is in flight") }
            if let msg = ScreenStack.problem(s.stack) { throw EngineError(NG_E_RANGE, msg) }
        }
        // Every check is above: from here nothing throws. The stack last,
        // so that what its restore drains (a withdrawn question's outcome)
        // sees the restored counters, presses and views.
        if s.parts.contains(.counters) { counters = s.counters }
        if s.parts.contains(.presses) { presses = s.presses }
        if s.parts.contains(.views) { views = s.views }
        if s.parts.contains(.stack) { installStack(s.stack) }
    }

    /// Counts of the live parts (State.liveCounts, without taking a state).
    var liveCounts: State.LiveCounts { State.liveCounts(holds, touches, transitions, deferred, questions, presses) }
}
