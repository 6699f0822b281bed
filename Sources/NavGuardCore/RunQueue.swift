// SPDX-License-Identifier: Apache-2.0
import CNavGuard

/// A notification waiting to be delivered to guards and the observer.
enum Note {
    case outcome(OutcomeRecord)
    case transition(ng_transition_event)
    case holdBegan(token: UInt64, label: CStr?, mask: UInt32)
    case holdEnded(HoldEndRecord)
    // The guard id is kept, not the slot: a guard whose create failed is
    // gone from the chain by the time its log is delivered.
    case report(guardID: UnsafePointer<CChar>?, text: CStr)
    case log(guardID: UnsafePointer<CChar>?, severity: Int32, message: CStr)
    case touchCancelled(ng_touch_info)
    case pressCancelled(ng_press_info)
    case questionAsked(Question)
    case questionEnded(Question, answer: Int32)
}

/// An action a guard asked for. Inside a vote it is queued and applied after
/// the vote (a guard may not change what the chain is deciding); elsewhere it
/// is applied at once. `Engine.act` is the one place that chooses.
enum GuardAction {
    case finish(track: Track, requestID: UInt64)
    case cancelInteractive(requestID: UInt64)
    case holdEnd(token: UInt64, by: Actor)
    case deferredDrop(requestID: UInt64, slot: Int, reason: Reason, message: CStr?)
}

/// Work run to completion, in order, after the callback that caused it.
enum Work {
    case note(Note)
    case evaluate(Request)
    case action(GuardAction)
}

/// The run-to-completion queue and the re-entrancy state around it.
///
/// Invariants:
///  * work runs in the order it was queued, each item once;
///  * nothing runs while `depth > 0` (a callback or guard hook is on the
///    stack) or while a drain is already running: callbacks never nest
///    inside work, work waits for the callback that caused it to return;
///  * `inVote` implies `depth > 0`: a vote is a guard hook;
///  * at most `Limits.maxWork` items are queued per burst (from empty to
///    empty: the work one host call sets off) before `overrun`: from then
///    until the queue is empty, hooks and callbacks may add no work (the
///    engine refuses it at its doors), so a burst is bounded and so is the
///    storage, which is given back after a large burst;
///  * every item is counted to the one who set it off (its `origin`): a
///    guard for what it adds through its host table, and for what that
///    work adds in turn as the core runs it (a guard's request's outcome
///    and transition notices are the guard's); the host for its own calls,
///    its callbacks included. A notice's receivers each add work through
///    their own door, so a notice passes no origin on.
struct RunQueue {
    private var items: [Work] = []
    /// Who set the items off, as runs: the items from index `start` on are
    /// `origin`'s (an `actor` value) up to the next run's start; items
    /// before the first run are the host's. A run begins only where the
    /// actor changes, so queuing costs one comparison and a call in which
    /// no guard acts records none.
    private var originRuns: [(start: Int, origin: UInt8)] = []
    /// The origin of the last item queued, and of the last item taken
    /// (with the next run `take` enters).
    private var queuedOrigin: UInt8 = 0
    private var takenOrigin: UInt8 = 0
    private var nextRun = 0
    private var head = 0
    /// Items queued in this burst.
    private(set) var burst = 0
    /// The burst passed Limits.maxWork: work is refused until it is empty.
    private(set) var overrun = false
    /// `overrun` was just set and the engine has not said so yet.
    var overrunUnlogged = false
    /// Who is adding work: 0 the host, slot + 1 a guard. A guard's host
    /// table sets it while the guard acts; `take` sets it to the origin of
    /// the item the core runs next. Counted in the second half of a burst
    /// only (a runaway is the only burst that long), to name who fed it.
    var actor = 0
    private var fed = [Int](repeating: 0, count: Limits.maxGuards + 1)
    /// > 0 while a callback or guard hook runs.
    var depth = 0
    var draining = false
    /// A guard's on_request or on_event runs: its actions wait for the verdict.
    private(set) var inVote = false

    init() {
        items.reserveCapacity(64)
        originRuns.reserveCapacity(16)
    }

    var hasWork: Bool { head < items.count }
    /// Inside a callback, a hook or a drain: work queued now runs later.
    var isBusy: Bool { depth > 0 || draining }

    @inline(__always)
    mutating func append(_ w: Work) {
        let o = UInt8(truncatingIfNeeded: actor)
        if o != queuedOrigin { beginRun(o) }
        items.append(w)
        burst &+= 1
        if burst > Limits.maxWork / 2 { countLongBurst() }
    }

    @inline(never)
    private mutating func beginRun(_ o: UInt8) {
        originRuns.append((items.count, o))
        queuedOrigin = o
    }

    @inline(never)
    private mutating func countLongBurst() {
        fed[actor] += 1
        if burst > Limits.maxWork && !overrun {
            overrun = true
            overrunUnlogged = true
        }
    }

    /// Who added the most work in the second half of this burst: 0 the host
    /// (its callbacks), slot + 1 a guard.
    var feeder: Int { fed.indices.max { fed[$0] < fed[$1] } ?? 0 }

    /// The next item, consumed; the storage is kept for the next burst
    /// (unless a long one made it large). What running it adds is counted
    /// to its origin (Engine.deliver counts a notice's to the host); once
    /// the queue is empty, to the host again.
    @inline(__always)
    mutating func take() -> Work? {
        guard head < items.count else {
            if head > 0 { endBurst() }
            return nil
        }
        if nextRun < originRuns.count && originRuns[nextRun].start == head {
            takenOrigin = originRuns[nextRun].origin
            nextRun += 1
        }
        actor = Int(takenOrigin)
        // Moved out, a payload-free item left in its place (its references
        // go with it): no copy of the item (a transition notice is ~100
        // bytes) and no retain and release of what it holds.
        var w = Work.action(.finish(track: .screen, requestID: 0))
        swap(&w, &items[head])
        head += 1
        return w
    }

    /// The queue ran empty: the burst is over.
    @inline(never)
    private mutating func endBurst() {
        if items.capacity > 4096 {
            items = []
            items.reserveCapacity(64)
        } else {
            items.removeAll(keepingCapacity: true)
        }
        if !originRuns.isEmpty {
            if originRuns.capacity > 4096 {
                originRuns = []
                originRuns.reserveCapacity(16)
            } else {
                originRuns.removeAll(keepingCapacity: true)
            }
        }
        queuedOrigin = 0
        takenOrigin = 0
        nextRun = 0
        actor = 0
        head = 0
        if burst > Limits.maxWork / 2 { for i in fed.indices { fed[i] = 0 } }
        burst = 0
        overrun = false
    }

    mutating func beginVote() {
        inVote = true
        depth += 1
    }

    mutating func endVote() {
        inVote = false
        depth -= 1
    }

    mutating func noteTransition(_ track: Track, _ phase: TransitionPhase, flags: UInt32, _ t: TrackInFlight,
                                 to: UInt64? = nil, depth: UInt32? = nil) {
        var e = ng_transition_event()
        e.size = UInt32(MemoryLayout<ng_transition_event>.size)
        e.track = track.rawValue
        e.phase = phase.rawValue
        e.flags = flags
        e.request_id = t.requestID
        e.kind = t.kind.rawValue
        e.from_id = t.fromID
        e.to_id = to ?? t.toID
        e.depth = depth ?? t.depth
        append(.note(.transition(e)))
        // A track began in this call: its times are set when the call returns.
        if phase == .will { trackStarted = true }
    }

    /// A transition began since the engine last restamped one.
    var trackStarted = false

    /// Destroy resets the flags: nothing above it is still running.
    mutating func resetForDestroy() {
        actor = 0
        depth = 0
        draining = false
        inVote = false
    }
}
