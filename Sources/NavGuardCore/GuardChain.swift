// SPDX-License-Identifier: Apache-2.0
import CNavGuard

/// One hot-path hook: the function, the instance and the slot, kept in an
/// unsafe buffer owned by the engine so the chain walk allocates nothing.
struct HookEntry {
    var request: (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ng_guard_request>?, UnsafeMutablePointer<ng_verdict>?) -> ng_vote)?
    var event: (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ng_guard_event>?, UnsafeMutablePointer<ng_verdict>?) -> ng_vote)?
    var instance: UnsafeMutableRawPointer?
    var slot: Int
}

/// A guard instance in the chain and the host-services table it was given.
final class GuardSlot {
    /// The engine outlives its slots; kept unmanaged so that host calls
    /// borrow it instead of retaining it around every call.
    let engineRef: Unmanaged<Engine>
    var engine: Engine { engineRef.takeUnretainedValue() }
    let index: Int
    let descriptor: UnsafePointer<ng_plugin_descriptor>
    let d: ng_plugin_descriptor
    /// The events its on_event is called for (GuardDescriptor.eventMask).
    let eventMask: UInt32
    let options: OptionTable
    var instance: UnsafeMutableRawPointer?
    /// While create() runs: the last warning or error it logged, so that a
    /// failed create's reason reaches ng_errmsg and not only on_log.
    var creating = false
    var createReason: String?
    let host: UnsafeMutablePointer<ng_guard_host>
    /// The host's wake-up, for the guard's own threads (plugin.h `wake`).
    let wakeHook: WakeHook
    let config: JSONValue
    let configText: CStr
    /// Where the guard came from (the plugin file), for the host's records;
    /// nil for a descriptor the host passed itself.
    let origin: String?
    var stringCache: [String: CStr] = [:]
    // Scratch storage for deferred_get: valid until the next call.
    let scratchScreen: UnsafeMutablePointer<ng_screen>
    var scratchScreens: UnsafeMutablePointer<ng_screen>?
    var scratchCapacity = 0

    var guardID: UnsafePointer<CChar> { d.id! }

    init(engine: Engine, index: Int, descriptor: GuardDescriptor, config: JSONValue, configText: CStr, origin: String?) {
        self.engineRef = Unmanaged.passUnretained(engine)
        self.index = index
        self.descriptor = descriptor.pointer
        self.d = descriptor.d
        self.eventMask = descriptor.eventMask
        self.options = descriptor.options
        self.config = config
        self.configText = configText
        self.origin = origin
        wakeHook = engine.wakeHook
        host = .allocate(capacity: 1)
        host.initialize(to: ng_guard_host())
        scratchScreen = .allocate(capacity: 1)
        scratchScreen.initialize(to: ng_screen())
    }

    deinit {
        host.deinitialize(count: 1)
        host.deallocate()
        scratchScreen.deallocate()
        scratchScreens?.deallocate()
    }

    func cached(_ key: String, _ value: String) -> UnsafePointer<CChar> {
        if let c = stringCache[key], c.string == value { return UnsafePointer(c.pointer) }
        let c = CStr(value)
        stringCache[key] = c
        return UnsafePointer(c.pointer)
    }
}

/// The chain's answer on a request: ALLOW (no slot), or the first guard's
/// REFUSE or DEFER with its slot, reason and message.
struct ChainVote {
    var vote: Int32
    var slot: Int?
    var reason: Reason
    var message: CStr?

    static let allow = ChainVote(vote: NG_VOTE_ALLOW, slot: nil, reason: .none, message: nil)
}

/// The guards in chain order and the hook tables the hot paths walk.
///
/// Invariants:
///  * slot `i` has `index == i`; guard ids are unique; at most
///    `Limits.maxGuards` slots;
///  * the hook tables list exactly the created slots' non-NULL on_request
///    and on_event hooks, in chain order: they are rebuilt on every change,
///    and live in unsafe buffers so a walk allocates and retains nothing;
///  * there is one event table per NG_WANT_* bit, listing the on_event
///    hooks of the guards whose event mask has that bit: an event walks only
///    the guards that asked for it (none, for a moved touch on the default
///    chain), at no cost per guard that did not.
final class GuardChain {
    private(set) var slots: [GuardSlot] = []
    let requestHooks: UnsafeMutablePointer<HookEntry>
    private(set) var requestHookCount = 0
    /// `wantBits` tables of `Limits.maxGuards` entries, and their counts.
    private let eventHooks: UnsafeMutablePointer<HookEntry>
    private let eventHookCounts: UnsafeMutablePointer<Int>
    static var wantBits: Int { UInt32(NG_WANT_ALL).nonzeroBitCount }

    init() {
        requestHooks = .allocate(capacity: Limits.maxGuards)
        eventHooks = .allocate(capacity: Limits.maxGuards * GuardChain.wantBits)
        eventHookCounts = .allocate(capacity: GuardChain.wantBits)
        eventHookCounts.initialize(repeating: 0, count: GuardChain.wantBits)
    }

    deinit {
        requestHooks.deallocate()
        eventHooks.deallocate()
        eventHookCounts.deallocate()
    }

    /// The on_event hooks an event of NG_WANT_* bit `want` is shown to, in
    /// chain order.
    @inline(__always)
    func eventHooks(for want: UInt32) -> (hooks: UnsafeMutablePointer<HookEntry>, count: Int) {
        let k = want.trailingZeroBitCount
        return (eventHooks + k * Limits.maxGuards, eventHookCounts[k])
    }

    var count: Int { slots.count }
    var isEmpty: Bool { slots.isEmpty }
    subscript(i: Int) -> GuardSlot { slots[i] }

    func contains(id: UnsafePointer<CChar>) -> Bool { slots.contains { strcmpC($0.guardID, id) } }

    /// Add a slot (not yet created: it has no hooks until `rebuildHooks`).
    func append(_ s: GuardSlot) {
        precondition(s.index == slots.count && slots.count < Limits.maxGuards)
        slots.append(s)
    }

    func removeLast() {
        slots.removeLast()
        rebuildHooks()
    }

    func removeAll() {
        slots.removeAll()
        rebuildHooks()
    }

    func rebuildHooks() {
        requestHookCount = 0
        eventHookCounts.update(repeating: 0, count: GuardChain.wantBits)
        for s in slots where s.instance != nil {
            if let f = s.d.on_request {
                requestHooks[requestHookCount] = HookEntry(request: f, event: nil, instance: s.instance, slot: s.index)
                requestHookCount += 1
            }
            if let f = s.d.on_event {
                for k in 0..<GuardChain.wantBits where s.eventMask & (UInt32(1) << UInt32(k)) != 0 {
                    eventHooks[k * Limits.maxGuards + eventHookCounts[k]] =
                        HookEntry(request: nil, event: f, instance: s.instance, slot: s.index)
                    eventHookCounts[k] += 1
                }
            }
        }
    }
}
