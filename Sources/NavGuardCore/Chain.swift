import CNavGuard

/// One hot-path hook: the function, the instance and the slot, kept in an
/// unsafe buffer owned by the engine so the chain walk allocates nothing.
struct HookEntry {
    var request: (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ng_guard_request>?, UnsafeMutablePointer<ng_verdict>?) -> ng_vote)?
    var event: (@convention(c) (UnsafeMutableRawPointer?, UnsafePointer<ng_guard_event>?, UnsafeMutablePointer<ng_verdict>?) -> ng_vote)?
    var instance: UnsafeMutableRawPointer?
    var slot: Int
}

/// A guard's descriptor as a host reads it: at most its `size` bytes of the
/// plugin's struct (capped at ours), the rest zero; checked against the ABI
/// rule, the frozen minimum size, the id rule and its option declarations.
/// The loader, ng_chain_add and the validator all read descriptors here.
public struct GuardDescriptor {
    public let pointer: UnsafePointer<ng_plugin_descriptor>
    /// The zero-extended copy: fields past the plugin's `size` read as zero.
    public let d: ng_plugin_descriptor
    public let options: OptionTable
    public let id: String

    public static func read(_ p: UnsafePointer<ng_plugin_descriptor>) -> Result<GuardDescriptor, EngineError> {
        // abi_major, abi_minor and size lead every layout.
        let head = UnsafeRawPointer(p)
        let major = head.load(as: UInt32.self), minor = head.load(fromByteOffset: 4, as: UInt32.self)
        let size = Int(head.load(fromByteOffset: 8, as: UInt32.self))
        guard ng_plugin_abi_compatible(UInt32(NG_PLUGIN_ABI_MAJOR), UInt32(NG_PLUGIN_ABI_MINOR), major, minor) else {
            let what = major != UInt32(NG_PLUGIN_ABI_MAJOR) ? "ABI major mismatch" : "newer ABI minor than the host's"
            return .failure(EngineError(NG_E_ABI, "\(what): guard built for plugin ABI \(major).\(minor), host has \(NG_PLUGIN_ABI_MAJOR).\(NG_PLUGIN_ABI_MINOR)"))
        }
        guard size >= Int(NG_PLUGIN_DESCRIPTOR_MIN_SIZE) else {
            return .failure(EngineError(NG_E_GUARD, "descriptor size \(size) is smaller than \(NG_PLUGIN_DESCRIPTOR_MIN_SIZE), the size of plugin ABI 1.0's"))
        }
        var d = ng_plugin_descriptor()
        withUnsafeMutableBytes(of: &d) { $0.copyMemory(from: UnsafeRawBufferPointer(start: head, count: Swift.min(size, $0.count))) }
        guard let idp = d.id else { return .failure(EngineError(NG_E_GUARD, "descriptor has no id")) }
        if let m = Engine.validateID(idp) { return .failure(EngineError(NG_E_GUARD, m)) }
        if d.name == nil || d.version == nil || d.description == nil {
            return .failure(EngineError(NG_E_GUARD, "descriptor lacks name, version or description"))
        }
        if d.create == nil || d.destroy == nil { return .failure(EngineError(NG_E_GUARD, "descriptor lacks create or destroy")) }
        let id = String(cString: idp)
        do {
            let options = try OptionTable(d.options)
            return .success(GuardDescriptor(pointer: p, d: d, options: options, id: id))
        } catch {
            return .failure(EngineError(NG_E_GUARD, "guard \(id): \(error.message)"))
        }
    }
}

/// A guard instance in the chain and the host-services table it was given.
final class GuardSlot {
    unowned(unsafe) let engine: Engine
    let index: Int
    let descriptor: UnsafePointer<ng_plugin_descriptor>
    let d: ng_plugin_descriptor
    let options: OptionTable
    var instance: UnsafeMutableRawPointer?
    /// While create() runs: the last warning or error it logged, so that a
    /// failed create's reason reaches ng_errmsg and not only on_log.
    var creating = false
    var createReason: String?
    let host: UnsafeMutablePointer<ng_guard_host>
    let config: JSONValue
    let configText: CStr
    var stringCache: [String: CStr] = [:]
    // Scratch storage for deferred_get: valid until the next call.
    let scratchScreen: UnsafeMutablePointer<ng_screen>
    var scratchScreens: UnsafeMutablePointer<ng_screen>?
    var scratchCapacity = 0

    var guardID: UnsafePointer<CChar> { d.id! }

    init(engine: Engine, index: Int, descriptor: GuardDescriptor, config: JSONValue, configText: CStr) {
        self.engine = engine
        self.index = index
        self.descriptor = descriptor.pointer
        self.d = descriptor.d
        self.options = descriptor.options
        self.config = config
        self.configText = configText
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

struct ChainVote {
    var vote: Int32
    var slot: Int
    var reason: Int32
    var message: CStr?
}

extension Engine {
    // MARK: Adding guards

    public var guardCount: Int { slots.count }
    public func guardID(at i: Int) -> UnsafePointer<CChar>? { i >= 0 && i < slots.count ? slots[i].guardID : nil }

    /// Why a descriptor is refused, or nil (GuardDescriptor.read).
    public static func validate(_ p: UnsafePointer<ng_plugin_descriptor>) -> String? {
        if case .failure(let e) = GuardDescriptor.read(p) { return e.message }
        return nil
    }

    /// The reverse-DNS id rule (the one place it lives).
    public static func validateID(_ id: UnsafePointer<CChar>) -> String? {
        var n = 0
        var dots = 0
        var prev: CChar = 46
        while id[n] != 0 {
            let c = UInt8(bitPattern: id[n])
            let ok = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c == 45 || c == 95 || c == 46
            if !ok { return "guard id has a character outside [A-Za-z0-9._-]" }
            if c == 46 {
                if prev == 46 { return "guard id has an empty label" }
                dots += 1
            }
            prev = id[n]
            n += 1
            if n > 128 { return "guard id is longer than 128 bytes" }
        }
        if n == 0 || dots == 0 || prev == 46 { return "guard id must be reverse-DNS (e.g. org.example.guard)" }
        return nil
    }

    /// Append a guard created from a descriptor. `config` is a JSON object,
    /// checked against the guard's declared options before create().
    public func addGuard(_ p: UnsafePointer<ng_plugin_descriptor>, configText: String?) throws(EngineError) {
        guard depth == 0, !draining else { throw EngineError(NG_E_CALLBACK, "guards cannot be added inside a callback") }
        guard slots.count < Limits.maxGuards else { throw EngineError(NG_E_NO_MEMORY, "the chain already has \(Limits.maxGuards) guards") }
        // An ABI mismatch has its own status everywhere (ng_chain_add and the
        // loader alike): the integrator must rebuild the plugin, not fix it.
        let desc: GuardDescriptor
        switch GuardDescriptor.read(p) {
        case .success(let x): desc = x
        case .failure(let e): throw e
        }
        for s in slots where strcmpC(s.guardID, desc.d.id!) {
            throw EngineError(NG_E_GUARD, "duplicate guard id \(desc.id)")
        }
        let text = configText ?? "{}"
        let config: JSONValue
        switch JSON.parse(text) {
        case .success(let v):
            guard case .object = v else { throw EngineError(NG_E_PARSE, "guard \(desc.id): its configuration must be a JSON object") }
            config = v
        case .failure(let e):
            throw EngineError(NG_E_PARSE, "guard \(desc.id): configuration: \(e.message)")
        }
        try desc.options.check(config, guardID: desc.id)
        let slot = GuardSlot(engine: self, index: slots.count, descriptor: desc, config: config, configText: CStr(text))
        installHostTable(slot)
        slots.append(slot)
        depth += 1
        slot.creating = true
        let inst = slot.d.create!(slot.host, UnsafePointer(slot.configText.pointer))
        slot.creating = false
        depth -= 1
        guard let inst else {
            // Holds a failed guard began are not left behind under an index
            // the next guard would inherit.
            while let i = holds.firstIndex(where: { $0.owner == slot.index }) { removeHold(at: i, reason: NG_HOLD_RELEASED) }
            slots.removeLast()
            drain()
            throw EngineError(NG_E_GUARD, "guard \(desc.id) failed to create: \(slot.createReason ?? "it logged no reason")")
        }
        slot.instance = inst
        rebuildHooks()
        drain()
    }

    func rebuildHooks() {
        requestHookCount = 0
        eventHookCount = 0
        for s in slots {
            if let f = s.d.on_request {
                requestHooks[requestHookCount] = HookEntry(request: f, event: nil, instance: s.instance, slot: s.index)
                requestHookCount += 1
            }
            if let f = s.d.on_event {
                eventHooks[eventHookCount] = HookEntry(request: nil, event: f, instance: s.instance, slot: s.index)
                eventHookCount += 1
            }
        }
    }

    /// Destroy every guard (used when a chain configuration fails half way).
    public func removeAllGuards() {
        guard depth == 0, !draining else { return }
        destroyGuards()
        drain()
    }

    func destroyGuards() {
        for s in slots.reversed() {
            if let inst = s.instance, let f = s.d.destroy {
                depth += 1
                f(inst)
                depth -= 1
            }
            s.instance = nil
        }
        requestHookCount = 0
        eventHookCount = 0
        slots.removeAll()
    }

    // MARK: Votes

    /// The scalar fields of a request as guards see it (screens are added by
    /// the caller, which decides how long their storage lives).
    func guardRequestHeader(_ r: Request) -> ng_guard_request {
        var g = ng_guard_request()
        g.size = UInt32(MemoryLayout<ng_guard_request>.size)
        g.request_id = r.id
        g.kind = r.kind
        g.flags = r.flags
        g.source = r.source
        g.attempt = r.attempt
        g.target_id = r.targetID
        g.now_ns = now
        return g
    }

    func runRequestChain(_ r: Request) -> ChainVote {
        if requestHookCount == 0 { return ChainVote(vote: NG_VOTE_ALLOW, slot: -1, reason: 0, message: nil) }
        var g = guardRequestHeader(r)
        var screen = ng_screen()
        if let s = r.screen {
            screen.id = s.id
            screen.route = UnsafePointer(s.route.pointer)
            screen.identity = UnsafePointer(s.identity.pointer)
        }
        return withUnsafePointer(to: &screen) { sp -> ChainVote in
            if r.screen != nil { g.screen = sp }
            return withScreens(r.screens) { list, count in
                g.screens = list
                g.screen_count = count
                return walkRequestHooks(&g)
            }
        }
    }

    func walkRequestHooks(_ g: inout ng_guard_request) -> ChainVote {
        inVote = true
        depth += 1
        defer { inVote = false; depth -= 1 }
        var verdict = ng_verdict()
        var i = 0
        while i < requestHookCount {
            let h = requestHooks[i]
            verdict.size = UInt32(MemoryLayout<ng_verdict>.size)
            verdict.reason = NG_REASON_NONE
            verdict.message = nil
            let v = h.request!(h.instance, &g, &verdict)
            if v != NG_VOTE_ALLOW {
                if v != NG_VOTE_REFUSE && v != NG_VOTE_DEFER {
                    return ChainVote(vote: NG_VOTE_REFUSE, slot: h.slot, reason: NG_REASON_POLICY,
                                     message: CStr("guard returned an unknown vote \(v)"))
                }
                var reason = verdict.reason
                if reason <= NG_REASON_NONE || reason >= NG_REASON_COUNT { reason = NG_REASON_POLICY }
                // Guards refuse with the same static texts again and again:
                // reuse a recent copy instead of allocating per refusal.
                let msg = verdict.message.flatMap { m -> CStr? in
                    let n = boundedLength(m)
                    return isValidUTF8(UnsafeRawBufferPointer(start: m, count: n)) ? intern(m, n) : CStr("(guard message was not valid UTF-8)")
                }
                return ChainVote(vote: v, slot: h.slot, reason: reason, message: msg)
            }
            i += 1
        }
        return ChainVote(vote: NG_VOTE_ALLOW, slot: -1, reason: 0, message: nil)
    }

    func withScreens<T>(_ screens: [Screen], _ body: (UnsafePointer<ng_screen>?, Int) -> T) -> T {
        if screens.isEmpty { return body(nil, 0) }
        return withUnsafeTemporaryAllocation(of: ng_screen.self, capacity: screens.count) { buf in
            for (i, s) in screens.enumerated() {
                buf[i] = ng_screen(id: s.id, route: UnsafePointer(s.route.pointer), identity: UnsafePointer(s.identity.pointer))
            }
            return body(UnsafePointer(buf.baseAddress), screens.count)
        }
    }

    // MARK: Observers

    func guardsOutcome(_ o: OutcomeRecord) {
        if slots.isEmpty { return }
        var c = o.cValue
        for s in slots { if let f = s.d.on_outcome, let inst = s.instance { f(inst, &c) } }
    }

    func guardsTransition(_ e: inout ng_transition_event) {
        for s in slots { if let f = s.d.on_transition, let inst = s.instance { f(inst, &e) } }
    }

    func guardsHold(token: UInt64, label: CStr?, mask: UInt32, ended: Bool, reason: Int32) {
        if slots.isEmpty { return }
        var n = ng_hold_notice()
        n.size = UInt32(MemoryLayout<ng_hold_notice>.size)
        n.token = token
        n.label = label.map { UnsafePointer($0.pointer) }
        n.mask = mask
        n.ended = ended
        n.reason = reason
        for s in slots { if let f = s.d.on_hold, let inst = s.instance { f(inst, &n) } }
    }

    func tickGuards(_ t: Int64) {
        for s in slots {
            guard let tick = s.d.on_tick, let inst = s.instance else { continue }
            var due = true
            if let nd = s.d.next_deadline {
                depth += 1
                due = nd(inst) <= t
                depth -= 1
            }
            if due {
                depth += 1
                tick(inst, t)
                depth -= 1
            }
        }
    }

    func guardsNextDeadline() -> Int64 {
        var d = Limits.noDeadline
        for s in slots {
            guard s.d.on_tick != nil, let nd = s.d.next_deadline, let inst = s.instance else { continue }
            depth += 1
            d = min(d, nd(inst))
            depth -= 1
        }
        return d
    }

    // MARK: Host services used by guards

    func guardRequest(_ r: Request, slot: GuardSlot) -> ng_guard_request {
        var g = guardRequestHeader(r)
        if let s = r.screen {
            slot.scratchScreen.pointee = ng_screen(id: s.id, route: UnsafePointer(s.route.pointer), identity: UnsafePointer(s.identity.pointer))
            g.screen = UnsafePointer(slot.scratchScreen)
        }
        if !r.screens.isEmpty {
            if slot.scratchCapacity < r.screens.count {
                slot.scratchScreens?.deallocate()
                slot.scratchScreens = .allocate(capacity: r.screens.count)
                slot.scratchCapacity = r.screens.count
            }
            for (i, s) in r.screens.enumerated() {
                slot.scratchScreens![i] = ng_screen(id: s.id, route: UnsafePointer(s.route.pointer), identity: UnsafePointer(s.identity.pointer))
            }
            g.screens = UnsafePointer(slot.scratchScreens)
            g.screen_count = r.screens.count
        }
        return g
    }

    func deferredApply(_ id: UInt64, slot: Int) -> Bool {
        guard let i = deferred.firstIndex(where: { $0.request.id == id && $0.slot == slot }) else { return false }
        var r = deferred.remove(at: i).request
        r.attempt += 1
        queue.append(.evaluate(r))
        if !inVote { drain() }
        return true
    }

    func deferredDrop(_ id: UInt64, slot: Int, reason: Int32, message: CStr?) -> Bool {
        guard deferred.contains(where: { $0.request.id == id && $0.slot == slot }) else { return false }
        let rs = reason > NG_REASON_NONE && reason < NG_REASON_COUNT ? reason : NG_REASON_POLICY
        if inVote {
            queue.append(.action(.deferredDrop(requestID: id, slot: slot, reason: rs, message: message)))
        } else {
            perform(.deferredDrop(requestID: id, slot: slot, reason: rs, message: message))
            drain()
        }
        return true
    }

    func post(report text: CStr, slot: Int) {
        queue.append(.note(.report(guardID: slots[slot].guardID, text: text)))
        if !inVote { drain() }
    }

    func post(log message: CStr, severity: Int32, slot: Int) {
        queue.append(.note(.log(guardID: slots[slot].guardID, severity: severity, message: message)))
        if !inVote { drain() }
    }

    public func deferredRequest(at i: Int) -> Request? { i >= 0 && i < deferred.count ? deferred[i].request : nil }
}

@inline(__always)
func strcmpC(_ a: UnsafePointer<CChar>, _ b: UnsafePointer<CChar>) -> Bool {
    var i = 0
    while true {
        if a[i] != b[i] { return false }
        if a[i] == 0 { return true }
        i += 1
    }
}

/// Length of a C string, bounded by the string limit (longer is cut).
func boundedLength(_ p: UnsafePointer<CChar>) -> Int {
    var n = 0
    while n < Limits.maxString && p[n] != 0 { n += 1 }
    return n
}
