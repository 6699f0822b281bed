// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardLibc
import NavGuardCore

// A trace's first line (docs/trace-format.md, "The header"), and the state
// it may carry: a mid-session trace's starting point (what replay rebuilds),
// a ring dump's checkpoint (what its first record found: the timeline names
// every screen and draws what was already live).

// MARK: Checkpoint

/// What a ring keeps so that a dump can say what its first record found:
/// written before a call when the state changed since the last one (the
/// engine's stateVersion moved). A `full` one holds everything, the views and
/// the whole stack included; the others hold the stack as a change (keep
/// the first `keep` screens, then these) and the small parts whole. The
/// views between full checkpoints follow from the recorded view_set and
/// view_remove calls.
///
///     stack:       u32 keep, u32 n, n screens
///     views:       (full only) u32 n, n views, u32 views left out (too many for the ring)
///     holds:       u32 n, n × (u64 token, text label, u32 mask, i64 began, i64 deadline, text owner, u64 transition)
///     touches:     u32 n, n × (u64 id, u64 view, i32 state, i64 began)
///     transitions: u32 n, n × (i32 track, u64 request, i32 kind, u32 flags, i64 began, i64 deadline,
///                              u64 from, u64 to, f64 progress, i32 swipe, u64 driving touch)
///     deferred:    u32 n, n posted-style requests (u64 id, request)
///     question:    u8 0 or 1, then the question
public enum TraceCheckpoint {
    /// Room a full checkpoint keeps for its small parts after the views
    /// (past it, views are only counted: a checkpoint must fit its record).
    static let reserve = 16 << 10

    /// Write `s` (Engine.state) as a checkpoint: the stack from screen
    /// `keep` on (all of it when `full`), the views when `full`, the live
    /// parts whole.
    @_optimize(size)
    public static func encode(_ w: inout RecordWriter, _ s: Engine.State, full: Bool, keep: Int) {
        let count = s.stackCount
        let from = full ? 0 : min(keep, count)
        w.u32(UInt32(from))
        w.u32(UInt32(count - from))
        var i = from
        while i < count {
            TraceScreen.encode(&w, s.stack[i])
            i += 1
        }
        if full {
            // As many views as leave room for the rest; the others are counted.
            let count = w.p
            w.u32(0)
            var written: UInt32 = 0
            s.views.forEachView { v in
                guard w.room > reserve else { return }
                TraceView.encode(&w, v)
                written += 1
            }
            if !w.overflow { count.storeBytes(of: written.littleEndian, as: UInt32.self) }
            w.u32(UInt32(s.views.count) - written)
        }
        w.u32(UInt32(s.holdCount))
        for k in 0..<s.holdCount {
            let h = s.hold(at: k)!
            w.u64(h.token)
            w.text(h.label)
            w.u32(h.mask)
            w.i64(h.began_ns)
            w.i64(h.deadline_ns)
            w.text(h.owner_id)
            w.u64(h.transition_id)
        }
        w.u32(UInt32(s.touchCount))
        for k in 0..<s.touchCount {
            let t = s.touch(at: k)!
            w.u64(t.touch_id)
            w.u64(t.view_id)
            w.i32(t.state)
            w.i64(t.began_ns)
        }
        let screenTrack = s.track(.screen), barTrack = s.track(.bar)
        w.u32(UInt32((screenTrack != nil ? 1 : 0) + (barTrack != nil ? 1 : 0)))
        if let f = screenTrack { encodeTrack(&w, .screen, f) }
        if let f = barTrack { encodeTrack(&w, .bar, f) }
        w.u32(UInt32(s.deferredCount))
        for k in 0..<s.deferredCount { PostedRecord.encode(&w, s.deferred(at: k)!, postedNs: -1) }
        if let q = s.question {
            w.u8(1)
            TraceQuestion.encode(&w, q)
        } else {
            w.u8(0)
        }
    }

    @inline(__always)
    static func encodeTrack(_ w: inout RecordWriter, _ track: Track, _ f: (info: ng_track_info, from: UInt64, to: UInt64)) {
        let t = f.info
        w.i32(track.rawValue)
        w.u64(t.request_id)
        w.i32(t.kind)
        w.u32(t.flags)
        w.i64(t.began_ns)
        w.i64(t.deadline_ns)
        w.u64(f.from)
        w.u64(f.to)
        w.f64(t.progress)
        w.i32(t.swipe)
        w.u64(t.driving_touch)
    }

    /// The parts of one checkpoint record, each as the bytes of its items
    /// (a reader merges them: RingReader).
    struct Parts {
        var keep = 0
        var screens: [UnsafeRawBufferPointer] = []
        var views: [UnsafeRawBufferPointer]?
        var viewsLeftOut = 0
        var holds: [UnsafeRawBufferPointer] = []
        var touches: [UnsafeRawBufferPointer] = []
        var transitions: [UnsafeRawBufferPointer] = []
        var deferred: [UnsafeRawBufferPointer] = []
        var question: UnsafeRawBufferPointer?
    }

    /// Split a checkpoint's payload into its items (`scratch` takes their
    /// text, which is thrown away: formatting is how an item's end is found).
    @_optimize(size)
    static func split(_ r: inout RecordReader, full: Bool, scratch: TraceLine) -> Parts? {
        var p = Parts()
        @_optimize(size)
        func items(_ r: inout RecordReader, _ one: (inout RecordReader) -> Void) -> [UnsafeRawBufferPointer] {
            let n = r.u32()
            var out: [UnsafeRawBufferPointer] = []
            var i: UInt32 = 0
            while i < n && !r.bad {
                let start = r.p
                scratch.reset()
                one(&r)
                out.append(UnsafeRawBufferPointer(start: start, count: r.p - start))
                i += 1
            }
            return out
        }
        p.keep = Int(r.u32())
        p.screens = items(&r) { TraceScreen.format(&$0, scratch) }
        if full {
            p.views = items(&r) { TraceView.format(&$0, scratch) }
            p.viewsLeftOut = Int(r.u32())
        }
        p.holds = items(&r) { formatHold(&$0, scratch) }
        p.touches = items(&r) { formatTouch(&$0, scratch) }
        p.transitions = items(&r) { formatTrack(&$0, scratch) }
        p.deferred = items(&r) { r in scratch.begin(); PostedRecord.format(&r, scratch); scratch.end() }
        if r.u8() == 1 {
            let start = r.p
            TraceQuestion.format(&r, scratch)
            p.question = UnsafeRawBufferPointer(start: start, count: r.p - start)
        }
        return r.bad ? nil : p
    }

    /// `{"token":...,"label":...,"mask":...,"began":...,"deadline":...,"owner":...,"transition":...}`
    /// (deadline, owner and transition only when set).
    @_optimize(size)
    public static func formatHold(_ r: inout RecordReader, _ w: TraceLine) {
        w.begin()
        w.field("token", r.u64())
        w.field("label", text: r.text())
        w.field("mask", r.u32())
        w.field("began", r.i64())
        let deadline = r.i64()
        if deadline != Limits.noDeadline { w.field("deadline", deadline) }
        if let owner = r.text() { w.field("owner", text: owner) }
        let transition = r.u64()
        if transition != 0 { w.field("transition", transition) }
        w.end()
    }

    /// `{"touch":...,"view":...,"state":"delivered","began":...}`.
    @_optimize(size)
    public static func formatTouch(_ r: inout RecordReader, _ w: TraceLine) {
        w.begin()
        w.field("touch", r.u64())
        w.field("view", r.u64())
        w.field("state", r.i32(), .touchState)
        w.field("began", r.i64())
        w.end()
    }

    /// `{"track":"screen","id":...,"kind":"push","flags":...,"began":...,"deadline":...,"from":...,"to":...}`,
    /// and for an interactive back `"progress"`, `"swipe"` and `"driving_touch"`.
    @_optimize(size)
    public static func formatTrack(_ r: inout RecordReader, _ w: TraceLine) {
        w.begin()
        w.field("track", r.i32(), .track)
        w.field("id", r.u64())
        w.field("kind", r.i32(), .requestKind)
        w.field("flags", r.u32())
        w.field("began", r.i64())
        let deadline = r.i64()
        if deadline != Limits.noDeadline { w.field("deadline", deadline) }
        w.field("from", r.u64())
        w.field("to", r.u64())
        let progress = r.f64()
        let swipe = r.i32()
        let driving = r.u64()
        if swipe != NG_SWIPE_NONE {
            w.field("progress", progress)
            w.field("swipe", swipe, .swipeState)
            if driving != 0 { w.field("driving_touch", driving) }
        }
        w.end()
    }
}

// MARK: Reading the state back

/// A hold live at a checkpoint.
public struct TraceHold {
    public var token: UInt64
    public var label: String?
    public var mask: UInt32
    public var began: Int64
    public var deadline: Int64?
    /// The guard that began it; nil for the host.
    public var owner: String?
}

/// A touch live at a checkpoint.
public struct TraceTouch {
    public var touch: UInt64
    public var view: UInt64
    public var state: Int32
    public var began: Int64
}

/// A transition track in flight at a checkpoint.
public struct TraceTrack {
    public var track: Int32
    public var id: UInt64
    public var kind: Int32
    public var flags: UInt32
    public var began: Int64
    public var deadline: Int64?
    public var from: UInt64
    public var to: UInt64
    public var swipe: Int32?
    public var drivingTouch: UInt64?

    public var kindName: String { enumName(kind, ng_request_kind_name) }
}

/// The header's `state`: a mid-session trace's start (what replay rebuilds:
/// `stack`, `views`, `chain`, the counters, `live`), or a ring dump's
/// checkpoint (the stack, views and what was live, each item in full).
public struct TraceState {
    public var stack: [TraceScreen] = []
    public var views: [TraceView] = []
    public var viewsLeftOut = 0
    public var chain: [TraceGuard] = []
    /// Mid-session: counts of what was live (replay needs them all zero).
    public var live: [(name: String, count: Int64)] = []
    public var holds: [TraceHold] = []
    public var touches: [TraceTouch] = []
    public var transitions: [TraceTrack] = []
    public var deferred: [(id: UInt64, request: TraceRequest)] = []
    public var question: TraceQuestion?
    /// Parts a ring dump could not rebuild (its oldest full checkpoint was
    /// overwritten): "stack", "views".
    public var unknown: [String] = []
    public let json: JSONValue

    /// A mid-session trace's counters: the ids the recording context would
    /// have handed out next. Every id NavGuard hands out is below 2^53: a
    /// counter above it is refused (counting on from it could overflow).
    @_optimize(size)
    public func counters() throws(FieldError) -> (requestID: UInt64, holdToken: UInt64, guardRequestID: UInt64, questionID: UInt64,
                                           posted: UInt64) {
        try TraceState.counters(json)
    }

    @_optimize(size)
    static func counters(_ json: JSONValue) throws(FieldError) -> (requestID: UInt64, holdToken: UInt64, guardRequestID: UInt64,
                                                                questionID: UInt64, posted: UInt64) {
        @_optimize(size)
        func counter(_ key: String, _ dflt: UInt64) throws(FieldError) -> UInt64 {
            let n = try integer(json[key], "state.\(key)", as: UInt64.self, default: dflt)
            guard n <= 1 << 53 else { throw FieldError(message: "\"state.\(key)\" is \(n), above 2^53") }
            return n
        }
        return (try counter("next_request_id", 1), try counter("next_hold_token", 1),
                try counter("next_guard_request_id", Limits.guardRequestIDBase), try counter("next_question_id", 1),
                try counter("next_posted", 0))
    }

    init(json v: JSONValue) throws(FieldError) {
        json = v
        for s in v["stack"]?.array ?? [] { stack.append(try TraceScreen(json: s)) }
        for x in v["views"]?.array ?? [] { views.append(try TraceView(json: x)) }
        viewsLeftOut = Int(v["views_omitted"]?.int64 ?? 0)
        chain = (v["chain"]?.array ?? []).map { TraceGuard(json: $0) }
        for (k, n) in v["live"]?.object ?? [] { live.append((k, n.int64 ?? 0)) }
        for h in v["holds"]?.array ?? [] {
            holds.append(TraceHold(token: h["token"]?.uint64 ?? 0, label: h["label"]?.string,
                                   mask: UInt32(truncatingIfNeeded: h["mask"]?.int64 ?? 0), began: h["began"]?.int64 ?? 0,
                                   deadline: h["deadline"]?.int64, owner: h["owner"]?.string))
        }
        for t in v["touches"]?.array ?? [] {
            touches.append(TraceTouch(touch: t["touch"]?.uint64 ?? 0, view: t["view"]?.uint64 ?? 0,
                                      state: enumOrUnknown(t["state"], ng_touch_state_name, 0..<NG_TOUCH_STATE_COUNT), began: t["began"]?.int64 ?? 0))
        }
        for t in v["transitions"]?.array ?? [] {
            transitions.append(TraceTrack(track: enumValue(t["track"], ng_track_name, 0..<NG_TRACK_COUNT) ?? NG_TRACK_SCREEN,
                                          id: t["id"]?.uint64 ?? 0,
                                          kind: enumOrUnknown(t["kind"], ng_request_kind_name, 0..<NG_REQ_KIND_COUNT),
                                          flags: UInt32(truncatingIfNeeded: t["flags"]?.int64 ?? 0), began: t["began"]?.int64 ?? 0,
                                          deadline: t["deadline"]?.int64, from: t["from"]?.uint64 ?? 0, to: t["to"]?.uint64 ?? 0,
                                          swipe: t["swipe"].flatMap { enumValue($0, ng_swipe_state_name, 0..<NG_SWIPE_STATE_COUNT) },
                                          drivingTouch: t["driving_touch"]?.uint64))
        }
        for d in v["deferred"]?.array ?? [] {
            let (id, request, _) = try PostedRecord.read(d)
            deferred.append((id, request))
        }
        if let q = v["question"] { question = TraceQuestion(json: q) }
        unknown = (v["unknown"]?.array ?? []).compactMap { $0.string }
    }
}

/// What replay rebuilds from a mid-session header's `state`, read into
/// the engine's state (Engine.State: the stack with its focus tokens, the
/// live presses, the ids handed out next) beside what is made through the
/// C API (the chain, the views) and the posted ids' counter. Reads only
/// what replay uses (TraceState reads the rest, for a trace's readers).
public struct TraceStart {
    public var engine: Engine.State
    public var nextPosted: UInt64
    public var views: [TraceView] = []
    public var chain: [TraceGuard] = []
    /// Counts of what was live; `presses` restored when listed (0.4).
    public var live: [(name: String, count: Int64)] = []

    @_optimize(size)
    init(json v: JSONValue) throws(FieldError) {
        let n = try TraceState.counters(v)
        nextPosted = n.posted
        for x in v["views"]?.array ?? [] { views.append(try TraceView(json: x)) }
        chain = (v["chain"]?.array ?? []).map { TraceGuard(json: $0) }
        for (k, c) in v["live"]?.object ?? [] { live.append((k, c.int64 ?? 0)) }
        let tokens = v["focus"]?.array ?? []
        var screens: [TraceScreen] = []
        var focus: [UInt64] = []
        for (i, x) in (v["stack"]?.array ?? []).enumerated() {
            screens.append(try TraceScreen(json: x))
            focus.append(i < tokens.count ? try integer(tokens[i], "state.focus", as: UInt64.self) : 0)
        }
        var presses: [Engine.Press] = []
        for p in v["presses"]?.array ?? [] {
            presses.append(Engine.Press(
                type: enumOrUnknown(p["type"], ng_event_type_name, 0..<NG_EVENT_TYPE_COUNT),
                device: try integer(p["device"], "presses.device", as: UInt64.self),
                code: try integer(p["code"], "presses.code", as: Int64.self),
                view: try integer(p["view"], "presses.view", as: UInt64.self),
                screen: try integer(p["screen"], "presses.screen", as: UInt64.self),
                downNs: try integer(p["down"], "presses.down", as: Int64.self),
                state: p["state"]?.string.flatMap(Engine.Press.state(named:)) ?? UInt8.max))
        }
        do throws(EngineError) {
            var list: [Screen] = []
            for (i, t) in screens.enumerated() {
                list.append(try Engine.State.screen(id: t.id, route: t.route, identity: t.identity, flags: t.flags,
                                                    focus: focus[i], what: "state.stack", index: i))
            }
            engine = Engine.State(stack: list)
            for p in presses { try engine.addPress(p) }
        } catch {
            throw FieldError(message: "state: \(error.message)")
        }
        engine.counters = Engine.Counters(requestID: n.requestID, holdToken: n.holdToken, guardRequestID: n.guardRequestID,
                                          questionID: n.questionID)
    }
}

// MARK: Header

/// Why a ring dump was written by a crash: the fatal signal.
public struct TraceCrash {
    public var signal: Int32
    public var name: String
    public var pid: Int64
}

/// The first line of a trace, read back.
public struct TraceHeader {
    public var version: Int64
    public var library: String?
    public var pluginABI: String?
    public var manualClock: Bool
    public var manualStartNs: Int64
    public var defaultDurationNs: Int64
    /// "create", "mid-session" or "ring".
    public var start: String
    public var atNs: Int64
    public var postedBase: UInt64?
    /// A ring dump: records dropped before its first, and that first one's instant.
    public var dropped: Int64 = 0
    public var firstNs: Int64?
    public var state: TraceState?
    public var crash: TraceCrash?
    /// A crash dump that could not be read whole says why.
    public var damage: String?
    /// The recording keeps on_press_cancel (`"press_cancel":true`, 0.4): a
    /// trace without it (0.3's) has no such lines for replay to compare.
    public var recordsPressCancels = false
    public let json: JSONValue

    /// The header line; its times and posted_base are checked (replay sets
    /// its clock from them), the rest is read as it is.
    init(json v: JSONValue) throws(TraceError) {
        json = v
        guard let given = v["navguard_trace"] else {
            throw TraceError(status: NG_E_PARSE, line: 1, message: "not a NavGuard trace (no \"navguard_trace\" in the first line)")
        }
        guard let version = given.int64, version >= 1 else {
            throw TraceError(status: NG_E_PARSE, line: 1,
                             message: "\"navguard_trace\" is \(clip(JSON.serialize(given))): a trace format version is a whole number from 1")
        }
        guard version <= Trace.version else {
            throw TraceError(status: NG_E_RANGE, line: 1,
                             message: "trace format version \(version); this library reads version \(Trace.version) (a newer NavGuard wrote it)")
        }
        self.version = version
        do throws(FieldError) {
            atNs = try nanoseconds(v["at_ns"], "at_ns")
            manualStartNs = try nanoseconds(v["manual_start_ns"], "manual_start_ns")
            defaultDurationNs = try nanoseconds(v["default_duration_ns"], "default_duration_ns")
            // A ring dump's: counts and instants, shown and subtracted from.
            dropped = try integer(v["dropped"], "dropped", as: Int64.self)
            guard dropped >= 0 else { throw FieldError(message: "\"dropped\" is \(dropped): a count of records is >= 0") }
            firstNs = try v["first_ns"].map { x throws(FieldError) in try nanoseconds(x, "first_ns") }
        } catch { throw error.error(line: 1) }
        // Posted ids count up from posted_base (2^52; NavGuard 0.2's
        // began at 2^63): above that, counting on could overflow.
        if let base = v["posted_base"] {
            guard let b = base.uint64, b >= 1, b <= 1 << 63 else {
                throw TraceError(status: NG_E_PARSE, line: 1,
                                 message: "line 1: \"posted_base\" is \(clip(JSON.serialize(base))), not an integer in 1...2^63")
            }
            postedBase = b
        }
        library = v["library"]?.string
        pluginABI = v["plugin_abi"]?.string
        manualClock = v["clock"]?.string == "manual"
        start = v["start"]?.string ?? "create"
        damage = v["damage"]?.string
        recordsPressCancels = v["press_cancel"]?.bool == true
        if let c = v["crash"] {
            crash = TraceCrash(signal: Int32(clamping: c["signal"]?.int64 ?? 0), name: c["name"]?.string ?? "?",
                               pid: c["pid"]?.int64 ?? 0)
        }
        // The state is read when asked for (replay reads it with its own
        // checks; a trace's other users tolerate a bad one).
        state = nil
    }

    /// Whether the header carries a state (mid-session, a ring's checkpoint).
    public var hasState: Bool { json["state"] != nil }

    /// A mid-session header's state as replay restores it (nil when it has none).
    @_optimize(size)
    public func readStart() throws(FieldError) -> TraceStart? {
        guard let s = json["state"] else { return nil }
        return try TraceStart(json: s)
    }

    /// The header's state, read (nil when it has none).
    @_optimize(size)
    public func readState() throws(FieldError) -> TraceState? {
        guard let s = json["state"] else { return nil }
        return try TraceState(json: s)
    }

    /// The header of a trace recorded from `e` (a file or writer; a ring's
    /// header is written at its dump: RingReader). A mid-session one carries
    /// the engine's state (Engine.state) and the chain.
    @_optimize(size)
    public static func write(_ w: TraceLine, _ e: Engine, manualStartNs: Int64, postedBase: UInt64, nextPosted: UInt64,
                             midSession: Bool) {
        w.begin()
        writeCommon(w, manualClock: e.isManualClock, manualStartNs: manualStartNs, defaultDurationNs: e.defaultTransitionNs,
                    start: midSession ? "mid-session" : "create", atNs: e.now, postedBase: postedBase)
        w.field("press_cancel", true)
        if midSession {
            w.key("state")
            writeState(w, e.state, chain: e, nextPosted: nextPosted)
        }
        w.end()
        w.newline()
    }

    /// A mid-session header's `state` object, from `s`: the stack, its
    /// focus tokens, the views, the chain, the counters, the live parts'
    /// counts and the live presses (replay restores the stack with its
    /// tokens, the presses and the counters).
    @_optimize(size)
    static func writeState(_ w: TraceLine, _ s: Engine.State, chain e: Engine, nextPosted: UInt64) {
        // The header is written once: one copy of the number writer (its
        // field functions are inlined for the per-call records).
        @inline(never) func put(_ k: StaticString?, _ v: UInt64, signed: Bool = false) {
            if let k { w.key(k) } else { w.element() }
            if signed { w.int(Int64(bitPattern: v)) } else { w.uint(v) }
        }
        func put(_ k: StaticString, _ v: Int64) { put(k, UInt64(bitPattern: v), signed: true) }
        w.begin()
        w.array("stack") { w in
            for screen in s.stack {
                w.element()
                withEncoded({ TraceScreen.encode(&$0, screen) }) { TraceScreen.format(&$0, w) }
            }
        }
        // The stack's focus tokens, in its order (0: none), when any is set.
        var focus = false
        for screen in s.stack where screen.focus != 0 { focus = true }
        if focus {
            w.array("focus") { w in
                for screen in s.stack { put(nil, screen.focus) }
            }
        }
        w.array("views") { w in
            for v in s.views.allViews() {
                w.element()
                withEncoded({ TraceView.encode(&$0, v) }) { TraceView.format(&$0, w) }
            }
        }
        w.array("chain") { w in
            for i in 0..<e.guardCount {
                w.element()
                withEncoded({ TraceGuard.encode(&$0, e.guardRecord(at: i)!) }) { TraceGuard.format(&$0, w) }
            }
        }
        let n = s.counters
        put("next_request_id", n.requestID)
        put("next_hold_token", n.holdToken)
        put("next_guard_request_id", n.guardRequestID)
        put("next_question_id", n.questionID)
        put("next_posted", nextPosted)
        let live = s.liveCounts
        w.key("live")
        w.begin()
        put("holds", Int64(live.holds))
        put("touches", Int64(live.touches))
        put("transitions", Int64(live.transitions))
        put("deferred", Int64(live.deferred))
        put("questions", Int64(live.questions))
        put("presses", Int64(live.presses))
        w.end()
        if s.pressCount > 0 {
            w.key("presses")
            w.raw(0x5B)
            for i in 0..<s.pressCount {
                let p = s.press(at: i)!
                if i > 0 { w.raw(0x2C) }
                w.begin()
                w.field("type", p.type, .eventType)
                put("device", p.device)
                put("code", p.code)
                put("view", p.view)
                put("screen", p.screen)
                put("down", p.downNs)
                w.field("state", literal: Engine.Press.stateNames[Int(p.state)])
                w.end()
            }
            w.raw(0x5D)
        }
        w.end()
    }

    /// The keys every header has, in their order.
    @_optimize(size)
    static func writeCommon(_ w: TraceLine, manualClock: Bool, manualStartNs: Int64, defaultDurationNs: Int64,
                            start: StaticString, atNs: Int64, postedBase: UInt64) {
        w.field("navguard_trace", Trace.version)
        w.field("library", name: ng_version_string())
        w.key("plugin_abi")
        var abi = "\(NG_PLUGIN_ABI_MAJOR).\(NG_PLUGIN_ABI_MINOR)"
        abi.withUTF8 { w.string(UnsafeRawBufferPointer($0)) }
        w.field("clock", manualClock ? NG_CLOCK_MANUAL : NG_CLOCK_MONOTONIC, .clockKind)
        w.field("manual_start_ns", manualStartNs)
        w.field("default_duration_ns", defaultDurationNs)
        w.field("start", literal: start)
        w.field("at_ns", atNs)
        w.field("posted_base", postedBase)
    }
}

/// Run `format` over what `encode` writes (a part written once, outside any
/// hot path: a header's state, replay's results and callbacks).
@_optimize(size)
public func withEncoded(_ encode: (inout RecordWriter) -> Void, _ format: (inout RecordReader) -> Void) {
    var size = 4096
    while true {
        let buf = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buf.deallocate() }
        var w = RecordWriter(buf, end: buf + size)
        encode(&w)
        if !w.overflow {
            var r = RecordReader(buf, end: w.p)
            format(&r)
            return
        }
        size *= 4
    }
}
