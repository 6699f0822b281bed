// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore
import Synchronization

/// The requests other threads post (ng_request_post), applied at the owner's
/// next ng_tick, and whether the owner has been woken for them.
///
/// Any thread may post; only the owner takes.
///
/// Invariants:
///  * at most `maxPosted` requests and `maxBytes` of their screens and
///    strings wait (4096 replace-stacks of 4096 screens each would otherwise
///    hold tens of gigabytes);
///  * `waiting` mirrors the list's count, so the owner learns there is
///    nothing to take without the lock;
///  * ids count up from `base` (NG_POSTED_ID_BASE) and are never reused;
///  * `woken` is set by the first post after the owner's last take and
///    cleared by the take, before the list is taken: a post after the take
///    wakes the owner again (at worst once too often), never too rarely.
final class Mailbox: Sendable {
    static let maxPosted = 4096
    static let maxBytes = 16 << 20

    private struct Queue {
        var requests: [Request] = []
        /// When each was posted, on the context's clock.
        var postedNs: [Int64] = []
        var bytes = 0
    }

    private let queue = Lock(Queue())
    private let waiting = Atomic<Int>(0)
    private let nextID = Atomic<UInt64>(0)
    private let woken = Atomic<Bool>(false)
    private let baseID = Atomic<UInt64>(Limits.postedIDBase)
    /// A manual clock's reading, kept by its owner for posts from other
    /// threads (a monotonic clock is read where the post is); -1 for none.
    private let manualNs = Atomic<Int64>(-1)

    /// The owner set the manual clock (or created the context with it).
    func manualClockMoved(to t: Int64) { manualNs.store(t, ordering: .relaxed) }

    /// Now on the context's clock, from any thread: when a post happened
    /// (the flight recorder draws how long it waited for its tick).
    private func postInstant() -> Int64 {
        let m = manualNs.load(ordering: .relaxed)
        return m >= 0 ? m : monotonicNow()
    }

    /// Posted ids count up from here; a replay of a trace NavGuard 0.2
    /// recorded uses that version's 2^63. Set before any post.
    var base: UInt64 {
        get { baseID.load(ordering: .relaxed) }
        set { baseID.store(newValue, ordering: .relaxed) }
    }

    /// How many ids have been handed out (a mid-session trace records it,
    /// and its replay continues from it).
    var counter: UInt64 {
        get { nextID.load(ordering: .relaxed) }
        set { nextID.store(newValue, ordering: .relaxed) }
    }

    var isEmpty: Bool { waiting.load(ordering: .acquiring) == 0 }

    /// About the memory a posted request holds (its screens and strings).
    private static func footprint(_ r: Request) -> Int {
        var n = MemoryLayout<Request>.stride
        if let s = r.screen { n += s.route.count + s.identity.count + 2 }
        for s in r.screens { n += MemoryLayout<Screen>.stride + s.route.count + s.identity.count + 2 }
        return n
    }

    /// Any thread: queue `r` under a new id. `wake` says whether this caller
    /// is the one to wake the owner (the first since its last take).
    func post(_ r: Request) throws(EngineError) -> (id: UInt64, wake: Bool) {
        var r = r
        let bytes = Mailbox.footprint(r)
        let at = postInstant()
        let id = try queue.withLock { q throws(EngineError) -> UInt64 in
            guard q.requests.count < Mailbox.maxPosted, q.bytes + bytes <= Mailbox.maxBytes else {
                throw EngineError(NG_E_NO_MEMORY, "\(Mailbox.maxPosted) posts or \(Mailbox.maxBytes >> 20) MiB pending")
            }
            q.bytes += bytes
            r.id = base + nextID.wrappingAdd(1, ordering: .relaxed).newValue
            q.requests.append(r)
            q.postedNs.append(at)
            waiting.store(q.requests.count, ordering: .releasing)
            return r.id
        }
        let wake = woken.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        return (id, wake)
    }

    /// Owner: everything posted so far, oldest first, with when each was posted.
    func take() -> (requests: [Request], postedNs: [Int64]) {
        woken.store(false, ordering: .releasing)
        guard !isEmpty else { return ([], []) }
        return queue.withLock { q in
            defer { q = Queue() }
            waiting.store(0, ordering: .releasing)
            return (q.requests, q.postedNs)
        }
    }

    /// [any-thread] Claim the owner's wake-up for a guard's own thread
    /// (plugin.h `wake`): true when nobody has woken it since its last take.
    func claimWake() -> Bool {
        woken.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }
}
