// SPDX-License-Identifier: Apache-2.0
import CNavGuard

// The engine's guard chain: adding and removing guards, and asking them.

extension Engine {
    // MARK: Adding guards

    public var guardCount: Int { chain.count }
    /// The guard in slot `i` as a record: id, version, origin, configuration.
    public func guardRecord(at i: Int) -> (id: UnsafePointer<CChar>, version: UnsafePointer<CChar>, origin: String?, config: CStr)? {
        guard i >= 0 && i < chain.count else { return nil }
        let s = chain[i]
        return (s.guardID, s.d.version!, s.origin, s.configText)
    }
    public func guardID(at i: Int) -> UnsafePointer<CChar>? { i >= 0 && i < chain.count ? chain[i].guardID : nil }

    /// Append a guard created from a descriptor, its configuration given as
    /// JSON text (nil: `{}`), checked against the guard's declared options
    /// before create().
    public func addGuard(_ p: UnsafePointer<ng_plugin_descriptor>, configText: String?, origin: String? = nil) throws(EngineError) {
        let desc = try admit(p)
        let text = configText ?? "{}"
        let config: JSONValue
        do throws(JSONError) { config = try JSON.parse(text) } catch {
            throw EngineError(NG_E_PARSE, "guard \(desc.id): configuration: \(error.message)")
        }
        try install(desc, config: config, text: text, origin: origin)
    }

    /// As addGuard(configText:), the configuration already parsed (a chain
    /// configuration's entry): not serialised and parsed again.
    public func addGuard(_ p: UnsafePointer<ng_plugin_descriptor>, config: JSONValue, origin: String? = nil) throws(EngineError) {
        let desc = try admit(p)
        try install(desc, config: config, text: JSON.serialize(config), origin: origin)
    }

    /// The checks before a guard's configuration is looked at.
    private func admit(_ p: UnsafePointer<ng_plugin_descriptor>) throws(EngineError) -> GuardDescriptor {
        guard !run.isBusy else { throw EngineError(NG_E_CALLBACK, "guards cannot be added inside a callback") }
        guard chain.count < Limits.maxGuards else { throw EngineError(NG_E_NO_MEMORY, "the chain already has \(Limits.maxGuards) guards") }
        // An ABI mismatch has its own status everywhere (ng_chain_add and the
        // loader alike): the integrator must rebuild the plugin, not fix it.
        let desc = try GuardDescriptor.read(p)
        if chain.contains(id: desc.d.id!) { throw EngineError(NG_E_GUARD, "duplicate guard id \(desc.id)") }
        return desc
    }

    private func install(_ desc: GuardDescriptor, config: JSONValue, text: String, origin: String?) throws(EngineError) {
        guard case .object = config else { throw EngineError(NG_E_PARSE, "guard \(desc.id): its configuration must be a JSON object") }
        try desc.options.check(config, guardID: desc.id)
        let slot = GuardSlot(engine: self, index: chain.count, descriptor: desc, config: config, configText: CStr(text),
                             origin: origin)
        installHostTable(slot)
        chain.append(slot)
        run.depth += 1
        slot.creating = true
        let inst = slot.d.create!(slot.host, UnsafePointer(slot.configText.pointer))
        slot.creating = false
        run.depth -= 1
        guard let inst else {
            // Holds a failed guard began are not left behind under an index
            // the next guard would inherit.
            while let i = holds.index(ownedBy: .guardSlot(slot.index)) { removeHold(at: i, reason: NG_HOLD_RELEASED) }
            chain.removeLast()
            drain()
            throw EngineError(NG_E_GUARD, "guard \(desc.id) failed to create: \(slot.createReason ?? "it logged no reason")")
        }
        slot.instance = inst
        chain.rebuildHooks()
        drain()
    }

    /// Destroy every guard (used when a chain configuration fails half way).
    public func removeAllGuards() {
        guard !run.isBusy else { return }
        destroyGuards()
        drain()
    }

    func destroyGuards() {
        for s in chain.slots.reversed() {
            if let inst = s.instance, let f = s.d.destroy {
                run.depth += 1
                f(inst)
                run.depth -= 1
            }
            s.instance = nil
        }
        chain.removeAll()
    }

    // MARK: Votes

    /// The scalar fields of a request as guards see it (screens are added by
    /// the caller, which decides how long their storage lives).
    func guardRequestHeader(_ r: Request) -> ng_guard_request {
        var g = ng_guard_request()
        g.size = UInt32(MemoryLayout<ng_guard_request>.size)
        g.request_id = r.id
        g.kind = r.kind.rawValue
        g.flags = r.flags
        g.source = r.source
        g.attempt = r.attempt
        g.target_id = r.targetID
        g.now_ns = now
        g.device = r.device
        return g
    }

    func runRequestChain(_ r: Request) -> ChainVote {
        if chain.requestHookCount == 0 { return .allow }
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
        run.beginVote()
        votesBegin()   // the request path is timed (VoteTimes.swift); the event path is not
        defer {
            votesEnd(g)
            run.endVote()
        }
        var verdict = ng_verdict()
        let hooks = chain.requestHooks
        let count = chain.requestHookCount
        var i = 0
        while i < count {
            let h = hooks[i]
            verdict.size = UInt32(MemoryLayout<ng_verdict>.size)
            verdict.reason = NG_REASON_NONE
            verdict.message = nil
            let v = h.request!(h.instance, &g, &verdict)
            voteLap(h.slot)
            if v != NG_VOTE_ALLOW {
                if v != NG_VOTE_REFUSE && v != NG_VOTE_DEFER {
                    return ChainVote(vote: NG_VOTE_REFUSE, slot: h.slot, reason: .policy,
                                     message: CStr("guard returned an unknown vote \(v)"))
                }
                let reason = Reason(givenByGuard: verdict.reason)
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
        return .allow
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
        if chain.isEmpty { return }
        var c = o.cValue
        for s in chain.slots { if let f = s.d.on_outcome, let inst = s.instance { f(inst, &c) } }
    }

    func guardsTransition(_ e: inout ng_transition_event) {
        for s in chain.slots { if let f = s.d.on_transition, let inst = s.instance { f(inst, &e) } }
    }

    func guardsHold(token: UInt64, label: CStr?, mask: UInt32, ended: Bool, reason: Int32) {
        if chain.isEmpty { return }
        var n = ng_hold_notice()
        n.size = UInt32(MemoryLayout<ng_hold_notice>.size)
        n.token = token
        n.label = label.map { UnsafePointer($0.pointer) }
        n.mask = mask
        n.ended = ended
        n.reason = reason
        for s in chain.slots { if let f = s.d.on_hold, let inst = s.instance { f(inst, &n) } }
    }

    func tickGuards(_ t: Int64) {
        for s in chain.slots {
            guard let tick = s.d.on_tick, let inst = s.instance else { continue }
            var due = true
            if let nd = s.d.next_deadline {
                run.depth += 1
                due = nd(inst) <= t
                run.depth -= 1
            }
            if due {
                run.depth += 1
                tick(inst, t)
                run.depth -= 1
            }
        }
    }

    func guardsNextDeadline() -> Int64 {
        var d = Limits.noDeadline
        for s in chain.slots {
            guard s.d.on_tick != nil, let nd = s.d.next_deadline, let inst = s.instance else { continue }
            run.depth += 1
            d = min(d, nd(inst))
            run.depth -= 1
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

    /// A guard's report or log: delivered after the hook that posted it.
    func post(_ note: Note) {
        run.append(.note(note))
        drain()
    }
}
