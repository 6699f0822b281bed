// SPDX-License-Identifier: Apache-2.0
// Guards written with NavGuardPluginKit, driven by a NavGuardCore Engine (the
// same code libnavguard runs; the kit itself never sees the core).
//
// The guards count their instances in statics, so every test is in one
// serialized suite.
import CNavGuard
@testable import NavGuardCore
@testable import NavGuardPluginKit
import Testing

// MARK: Test guards

/// Counts live and released guard instances of every test guard type.
nonisolated(unsafe) var kitLiveInstances = 0
nonisolated(unsafe) var kitReleasedInstances = 0

/// Refuses pushes of "blocked" routes, drops key events with "drop_key",
/// and while the screen track is in flight defers pushes, applying the
/// oldest at the next screen DID (at most "max_deferred": an older one is
/// dropped, SUPERSEDED).
final class Gatekeeper: RequestVoting, EventVoting, TransitionObserving, OptionDeclaring {
    static let options: [GuardOption] = [
        .strings("blocked", default: [], count: 0...64, doc: "routes whose push is refused"),
        .int("max_deferred", default: 4, range: 1...64, doc: "pushes kept while a transition runs"),
        .int("drop_key", default: nil, range: -2_147_483_648...2_147_483_647, doc: "key code whose events are dropped"),
    ]
    let host: GuardHost
    let blocked: [String]
    let dropKey: Int?
    let maxDeferred: Int
    var deferred: [UInt64] = []

    init?(host: GuardHost) {
        guard let blocked = host.strings("blocked", default: []),
              let maxDeferred = host.int("max_deferred", default: 4), maxDeferred >= 1 else {
            host.log(.error, "gatekeeper: \"blocked\" must be a list of strings, \"max_deferred\" an integer >= 1")
            return nil
        }
        self.host = host
        self.blocked = blocked
        self.maxDeferred = maxDeferred
        dropKey = host.int("drop_key")
        deferred.reserveCapacity(maxDeferred)
        kitLiveInstances += 1
        host.log(.info, "gatekeeper: \(blocked.count) blocked routes")
    }

    deinit {
        kitLiveInstances -= 1
        kitReleasedInstances += 1
    }

    func vote(on request: GuardRequest) -> Vote {
        guard request.kind == NG_REQ_PUSH, let screen = request.screen else { return .allow }
        for route in blocked where screen.route == route {
            return .refuse(NG_REASON_POLICY, message: "route is blocked by the gatekeeper")
        }
        if request.attempt == 0 && host.isInFlight(NG_TRACK_SCREEN) {
            if deferred.count == maxDeferred {
                try? host.dropDeferred(deferred.removeFirst(), reason: NG_REASON_SUPERSEDED, message: "superseded")
            }
            deferred.append(request.id)
            return .defer
        }
        return .allow
    }

    func vote(on event: GuardEvent) -> EventVote {
        if event.type == NG_EVENT_KEY, let dropKey, event.code == Int64(dropKey) {
            return .drop(NG_REASON_POLICY, message: "key dropped")
        }
        return .deliver
    }

    func observe(transition: ng_transition_event) {
        if transition.track == NG_TRACK_SCREEN, transition.phase == NG_PHASE_DID, !deferred.isEmpty {
            try? host.applyDeferred(deferred.removeFirst())
        }
    }
}

/// Holds touches while a "modal" screen is on top: begins a hold when a push
/// of it is applied, ends it when a pop is; reports each hold it sees end.
final class ModalHold: OutcomeObserving, HoldObserving {
    let host: GuardHost
    var token: UInt64 = 0
    var notices: [GuardHoldNotice] = []
    var lastError: GuardError?

    init?(host: GuardHost) {
        self.host = host
        kitLiveInstances += 1
    }

    deinit {
        kitLiveInstances -= 1
        kitReleasedInstances += 1
    }

    func observe(outcome: GuardOutcome) {
        guard outcome.outcome == NG_OUTCOME_APPLIED else { return }
        if outcome.kind == NG_REQ_PUSH, let top = host.top, top.route == "modal" {
            do { token = try host.beginHold(label: "modal", mask: UInt32(NG_MASK_TOUCH)) } catch { lastError = error }
        } else if outcome.kind == NG_REQ_POP, token != 0 {
            do { try host.endHold(token) } catch { lastError = error }
            token = 0
        }
    }

    func observe(hold: GuardHoldNotice) {
        notices.append(hold)
        if hold.ended, let label = hold.label {
            try? host.report("hold \(label.string) ended; \(host.stackCount) screens, mask now \(host.holdMask)")
        }
    }
}

/// Reads every configuration type and keeps what it read; fails create when
/// "fail" is true.
final class ConfigProbe: NavGuardGuard {
    nonisolated(unsafe) static var last: ConfigProbe?
    let host: GuardHost
    let int, missingInt, intFromString: Int?
    let intDefaulted, intDefaultedWrong: Int?
    let bool, boolFromInt: Bool?
    let double, doubleFromInt, doubleFromString: Double?
    let string, stringFromInt: String?
    let strings, stringsMixed, stringsFromString: [String]?
    let hasInt, hasMissing: Bool

    init?(host: GuardHost) {
        if host.bool("fail") == true {
            host.log(.error, "probe: told to fail")
            return nil
        }
        self.host = host
        int = host.int("i")
        missingInt = host.int("nope")
        intFromString = host.int("s")
        intDefaulted = host.int("nope", default: 42)
        intDefaultedWrong = host.int("s", default: 42)
        bool = host.bool("b")
        boolFromInt = host.bool("i")
        double = host.double("d")
        doubleFromInt = host.double("i")
        doubleFromString = host.double("s")
        string = host.string("s")
        stringFromInt = host.string("i")
        strings = host.strings("list")
        stringsMixed = host.strings("mixed")
        stringsFromString = host.strings("s")
        hasInt = host.contains("i")
        hasMissing = host.contains("nope")
        ConfigProbe.last = self
        kitLiveInstances += 1
    }

    deinit {
        kitLiveInstances -= 1
        kitReleasedInstances += 1
    }
}

/// Reports every "period_ms" (default 100) on the context's clock; offers
/// one extension.
final class Heartbeat: Ticking, ExtensionProviding {
    nonisolated(unsafe) static var capability: Int32 = 7
    let host: GuardHost
    let period: Int64
    var nextDeadline: Int64
    var beats = 0

    init?(host: GuardHost) {
        guard let ms = host.int("period_ms", default: 100), ms > 0 else {
            host.log(.error, "heartbeat: \"period_ms\" must be a positive integer")
            return nil
        }
        self.host = host
        period = Int64(ms) * 1_000_000
        nextDeadline = host.now + period
        kitLiveInstances += 1
    }

    deinit {
        kitLiveInstances -= 1
        kitReleasedInstances += 1
    }

    func tick(now: Int64) {
        beats += 1
        nextDeadline = now + period
        try? host.report("beat \(beats) at \(now)")
    }

    func getExtension(_ id: CString) -> UnsafeRawPointer? {
        id == "org.example.heartbeat/1" ? UnsafeRawPointer(&Heartbeat.capability) : nil
    }
}

/// Asks for a PIN before an admin screen: holds a push of "admin", asks the
/// host (topic org.example.admin-pin), and applies or drops it by the answer.
final class AdminPin: RequestVoting, AnswerObserving {
    let host: GuardHost
    var held: UInt64 = 0
    var answers: [ng_answer] = []
    init?(host: GuardHost) {
        guard host.hasQuestions else {
            host.log(.error, "admin-pin: the host cannot ask questions (plugin ABI 1.2)")
            return nil
        }
        self.host = host
    }
    func vote(on request: GuardRequest) -> Vote {
        guard request.kind == NG_REQ_PUSH, let s = request.screen, s.route == "admin", request.attempt == 0 else { return .allow }
        guard (try? host.ask(topic: "org.example.admin-pin", text: "PIN?", requestID: request.id, kind: request.kind)) != nil else {
            return .refuse(NG_REASON_ASKING, message: "another question is open")
        }
        held = request.id
        return .defer
    }
    func observe(answer: ng_answer, to question: GuardQuestion) {
        answers.append(answer)
        if answer == NG_ANSWER_YES { try? host.applyDeferred(held) } else {
            try? host.dropDeferred(held, reason: NG_REASON_DECLINED, message: "wrong PIN")
        }
    }
}

func adminPinDescriptor() -> UnsafePointer<ng_plugin_descriptor> {
    makeDescriptor(AdminPin.self, id: "org.example.kit.admin-pin", name: "admin-pin", version: "1",
                   description: "Asks for a PIN before an admin screen.")
}

func gatekeeperDescriptor() -> UnsafePointer<ng_plugin_descriptor> {
    makeDescriptor(Gatekeeper.self, id: "org.example.kit.gatekeeper", name: "gatekeeper", version: "1.0.0",
                   description: "Refuses blocked routes, drops a key, defers pushes during transitions.")
}

func gatekeeper2Descriptor() -> UnsafePointer<ng_plugin_descriptor> {
    makeDescriptor(Gatekeeper.self, id: "org.example.kit.gatekeeper2", name: "gatekeeper2",
                   version: "1.0.0", description: "A second id for the same type.")
}

func modalHoldDescriptor() -> UnsafePointer<ng_plugin_descriptor> {
    makeDescriptor(ModalHold.self, id: "org.example.kit.modal-hold", name: "modal-hold", version: "1",
                   description: "Holds touches while a modal is on top.")
}

func configProbeDescriptor() -> UnsafePointer<ng_plugin_descriptor> {
    makeDescriptor(ConfigProbe.self, id: "org.example.kit.config-probe", name: "config-probe", version: "1.0",
                   description: "Reads its configuration.")
}

func heartbeatDescriptor() -> UnsafePointer<ng_plugin_descriptor> {
    makeDescriptor(Heartbeat.self, id: "org.example.kit.heartbeat", name: "heartbeat", version: "1.0",
                   description: "Reports periodically.")
}

// MARK: Driving an engine

/// Votes on keys alone (wantedEvents): the chain never shows it a touch.
final class KeyCounter: EventVoting {
    static let wantedEvents = UInt32(NG_WANT_KEY)
    nonisolated(unsafe) static var seen: [Int32] = []
    init?(host: GuardHost) {}
    func vote(on event: GuardEvent) -> EventVote {
        KeyCounter.seen.append(event.event.type)
        return .deliver
    }
}

func keyCounterDescriptor() -> UnsafePointer<ng_plugin_descriptor> {
    makeDescriptor(KeyCounter.self, id: "org.example.kit.key-counter", name: "key-counter", version: "1",
                   description: "Counts the key events it is shown.")
}

final class KitRecorder: EngineObserver {
    var outcomes: [OutcomeRecord] = []
    /// Topics of the questions asked (the question's strings live only
    /// during the callback).
    var questions: [String] = []
    var onQuestion: ((ng_question) -> Void)?
    func engineQuestion(_ q: ng_question) {
        questions.append(String(cString: q.topic))
        onQuestion?(q)
    }
    var reports: [(guardID: String?, text: String)] = []
    var logs: [(severity: Int32, guardID: String?, message: String)] = []
    var holdEnds: [HoldEndRecord] = []

    func engineOutcome(_ outcome: OutcomeRecord) { outcomes.append(outcome) }
    func engineHoldEnded(_ hold: HoldEndRecord) { holdEnds.append(hold) }
    func engineReport(guardID: UnsafePointer<CChar>?, text: CStr) {
        reports.append((guardID.map { String(cString: $0) }, text.string))
    }
    func engineLog(severity: Int32, guardID: UnsafePointer<CChar>?, message: CStr) {
        logs.append((severity, guardID.map { String(cString: $0) }, message.string))
    }
    func outcome(of id: UInt64) -> OutcomeRecord? { outcomes.first { $0.requestID == id } }
}

func makeEngine(_ guards: [(UnsafePointer<ng_plugin_descriptor>, String)]) throws -> (Engine, KitRecorder) {
    let e = Engine(EngineConfig(clock: .manual(startNs: 0)))
    let rec = KitRecorder()
    e.observer = rec
    try e.setRoot(Screen(id: 1, route: "home"))
    for (d, config) in guards { try e.addGuard(d, configText: config) }
    return (e, rec)
}

func push(_ id: UInt64, _ route: String, animated: Bool = false) -> Request {
    Request.push(Screen(id: id, route: route), flags: animated ? UInt32(NG_REQF_ANIMATED) : 0)
}

func keyEvent(_ e: Engine, code: Int64) -> EventVerdict {
    var ev = ng_event()
    ev.size = UInt32(MemoryLayout<ng_event>.size)
    ev.type = NG_EVENT_KEY
    ev.code = code
    ev.timestamp_ns = e.now
    return withUnsafePointer(to: &ev) { e.submitEvent($0) }
}

func touch(_ e: Engine, _ phase: Int32, id: UInt64, view: UInt64) -> EventVerdict {
    var ev = ng_event()
    ev.size = UInt32(MemoryLayout<ng_event>.size)
    ev.type = NG_EVENT_TOUCH
    ev.phase = phase
    ev.touch_id = id
    ev.flags = UInt32(NG_EVF_HAS_TARGET)
    ev.target_view = view
    ev.timestamp_ns = e.now
    return withUnsafePointer(to: &ev) { e.submitEvent($0) }
}

func addStatus(_ e: Engine, _ d: UnsafePointer<ng_plugin_descriptor>, _ config: String) -> Int32 {
    do { try e.addGuard(d, configText: config); return NG_OK } catch { return error.status }
}

// MARK: Tests

@Suite(.serialized) struct PluginKitTests {
    @Test func descriptorHasOnlyTheImplementedHooks() {
        let g = gatekeeperDescriptor().pointee
        #expect(g.abi_major == UInt32(NG_PLUGIN_ABI_MAJOR) && g.abi_minor == UInt32(NG_PLUGIN_ABI_MINOR))
        #expect(Int(g.size) == MemoryLayout<ng_plugin_descriptor>.size)
        #expect(String(cString: g.id) == "org.example.kit.gatekeeper")
        #expect(String(cString: g.version) == "1.0.0")
        #expect(g.create != nil && g.destroy != nil)
        #expect(g.on_request != nil && g.on_event != nil && g.on_transition != nil)
        #expect(g.on_outcome == nil && g.on_hold == nil && g.on_tick == nil && g.next_deadline == nil && g.get_extension == nil)

        // Declared options, ended by a NULL name; a guard that declares none
        // leaves `options` NULL (unchecked, as a 1.0 guard).
        let opts = try! OptionTable(g.options)
        #expect(opts.declared && opts.options.map(\.name) == ["blocked", "max_deferred", "drop_key"])
        #expect(opts.option("max_deferred")?.defaultValue == .integer(4))
        #expect(opts.option("blocked")?.defaultText == "[]" && opts.option("drop_key")?.defaultValue == nil)
        #expect(opts.option("blocked")?.min == 0 && opts.option("blocked")?.max == 64)

        let m = modalHoldDescriptor().pointee
        #expect(m.options == nil)
        #expect(String(cString: m.version) == "1")
        #expect(m.on_outcome != nil && m.on_hold != nil)
        #expect(m.on_request == nil && m.on_event == nil && m.on_transition == nil && m.on_tick == nil)

        let p = configProbeDescriptor().pointee
        #expect(p.on_request == nil && p.on_event == nil && p.on_outcome == nil && p.on_transition == nil
                && p.on_hold == nil && p.on_tick == nil && p.next_deadline == nil && p.get_extension == nil)

        let h = heartbeatDescriptor().pointee
        #expect(h.on_tick != nil && h.next_deadline != nil && h.get_extension != nil && h.on_request == nil)

        #expect(Engine.validate(gatekeeperDescriptor()) == nil)
        #expect(Engine.validate(heartbeatDescriptor()) == nil)
    }

    @Test func asksTheHostAndHearsTheAnswer() throws {
        #expect(adminPinDescriptor().pointee.on_answer != nil && gatekeeperDescriptor().pointee.on_answer == nil)
        for yes in [true, false] {
            let (e, rec) = try makeEngine([(adminPinDescriptor(), "{}")])
            rec.onQuestion = { q in try! e.answerQuestion(q.question_id, yes ? NG_ANSWER_YES : NG_ANSWER_NO) }
            let r = e.submit(push(2, "admin"))
            #expect(r.status == .deferred)
            #expect(rec.questions == ["org.example.admin-pin"])
            let o = try #require(rec.outcome(of: r.requestID))
            #expect(o.outcome == (yes ? .applied : .dropped))
            #expect(yes || (o.reason == .declined && o.message?.string == "wrong PIN"))
            e.destroy()
        }
    }

    @Test func descriptorIsBuiltOncePerTypeAndID() {
        #expect(gatekeeperDescriptor() == gatekeeperDescriptor())
        let other = gatekeeper2Descriptor()
        #expect(other != gatekeeperDescriptor())
        #expect(unsafeBitCast(other.pointee.create, to: UnsafeRawPointer.self)
                != unsafeBitCast(gatekeeperDescriptor().pointee.create, to: UnsafeRawPointer.self))
        // Both ids can be in one chain, each with its own instance.
        let before = kitLiveInstances
        let e = try? makeEngine([(gatekeeperDescriptor(), "{}"), (other, #"{"blocked": ["x"]}"#)])
        #expect(e != nil && kitLiveInstances == before + 2)
        e?.0.destroy()
        #expect(kitLiveInstances == before)
    }

    @Test func refusesAllowsAndLogs() throws {
        let (e, rec) = try makeEngine([(gatekeeperDescriptor(), #"{"blocked": ["admin", "secret"]}"#)])
        let refused = e.submit(push(2, "admin"))
        #expect(refused.status == .refused)
        #expect(refused.reason == .policy)
        #expect(refused.guardID.map { String(cString: $0) } == "org.example.kit.gatekeeper")
        #expect(refused.message?.string == "route is blocked by the gatekeeper")
        #expect(e.submit(push(3, "settings")).status == .applied)
        #expect(e.submit(Request(kind: .pop)).status == .applied)
        #expect(rec.logs.contains { $0.severity == NG_LOG_INFO && $0.guardID == "org.example.kit.gatekeeper"
                                    && $0.message == "gatekeeper: 2 blocked routes" })
        e.destroy()
    }

    @Test func defersThenAppliesOrDrops() throws {
        let (e, rec) = try makeEngine([(gatekeeperDescriptor(), #"{"max_deferred": 1}"#)])
        let first = e.submit(push(2, "a", animated: true))
        #expect(first.status == .applied)
        let second = e.submit(push(3, "b"))
        #expect(second.status == .deferred)
        #expect(String(cString: second.guardID!) == "org.example.kit.gatekeeper")
        // A third supersedes the second (max_deferred 1): dropped by the guard.
        let third = e.submit(push(4, "c"))
        #expect(third.status == .deferred)
        #expect(rec.outcome(of: second.requestID)?.outcome == .dropped)
        #expect(rec.outcome(of: second.requestID)?.reason == .superseded)
        #expect(rec.outcome(of: second.requestID)?.message?.string == "superseded")
        #expect(e.deferredCount == 1)
        // The screen track's DID: the guard applies the deferred push.
        try e.finishTransition(.all)
        #expect(rec.outcome(of: third.requestID)?.outcome == .applied)
        #expect(e.deferredCount == 0)
        #expect((0..<e.stackCount).map { e.screen(at: $0)!.id } == [1, 2, 4])
        e.destroy()
    }

    @Test func dropsEvents() throws {
        let (e, _) = try makeEngine([(gatekeeperDescriptor(), #"{"drop_key": 27}"#)])
        let dropped = keyEvent(e, code: 27)
        #expect(dropped.verdict == .drop)
        #expect(dropped.reason == .policy)
        #expect(dropped.guardID.map { String(cString: $0) } == "org.example.kit.gatekeeper")
        #expect(keyEvent(e, code: 13).verdict == .deliver)
        #expect(touch(e, NG_TOUCH_BEGAN, id: 1, view: 5).verdict == .deliver)
        #expect(touch(e, NG_TOUCH_ENDED, id: 1, view: 5).verdict == .deliver)
        e.destroy()
    }

    @Test func eventMaskIsTheGuardsWantedEvents() throws {
        #expect(keyCounterDescriptor().pointee.event_mask == UInt32(NG_WANT_KEY))
        #expect(gatekeeperDescriptor().pointee.event_mask == 0)   // every event
        #expect(Engine.validate(keyCounterDescriptor()) == nil)
        KeyCounter.seen = []
        let (e, _) = try makeEngine([(keyCounterDescriptor(), "{}")])
        #expect(touch(e, NG_TOUCH_BEGAN, id: 1, view: 5).verdict == .deliver)
        #expect(touch(e, NG_TOUCH_ENDED, id: 1, view: 5).verdict == .deliver)
        #expect(keyEvent(e, code: 13).verdict == .deliver)
        #expect(KeyCounter.seen == [NG_EVENT_KEY])
        e.destroy()
    }

    @Test func readsTypedConfig() throws {
        let config = #"{"i": 5, "b": true, "d": 2.5, "s": "text", "list": ["x", "y"], "mixed": ["x", 1]}"#
        let (e, _) = try makeEngine([(configProbeDescriptor(), config)])
        let p = try #require(ConfigProbe.last)
        #expect(p.int == 5)
        #expect(p.missingInt == nil)
        #expect(p.intFromString == nil)
        #expect(p.intDefaulted == 42)
        #expect(p.intDefaultedWrong == nil)       // wrong type is not defaulted
        #expect(p.bool == true)
        #expect(p.boolFromInt == nil)
        #expect(p.double == 2.5)
        #expect(p.doubleFromInt == 5)
        #expect(p.doubleFromString == nil)
        #expect(p.string == "text")
        #expect(p.stringFromInt == nil)
        #expect(p.strings == ["x", "y"])
        #expect(p.stringsMixed == nil)
        #expect(p.stringsFromString == nil)
        #expect(p.hasInt && !p.hasMissing)
        ConfigProbe.last = nil
        e.destroy()
    }

    @Test func failedCreateThrowsGuardErrorAndLogs() throws {
        let (e, rec) = try makeEngine([])
        let before = kitLiveInstances
        #expect(addStatus(e, configProbeDescriptor(), #"{"fail": true}"#) == NG_E_GUARD)
        // The gatekeeper declares its options: these never reach its init.
        #expect(addStatus(e, gatekeeperDescriptor(), #"{"blocked": "admin"}"#) == NG_E_PARSE)
        #expect(addStatus(e, gatekeeperDescriptor(), #"{"max_deferred": 0}"#) == NG_E_PARSE)
        #expect(addStatus(e, gatekeeperDescriptor(), #"{"blockd": []}"#) == NG_E_PARSE)
        #expect(addStatus(e, heartbeatDescriptor(), #"{"period_ms": "soon"}"#) == NG_E_GUARD)
        #expect(e.guardCount == 0)
        #expect(kitLiveInstances == before)
        #expect(rec.logs.contains { $0.severity == NG_LOG_ERROR && $0.message == "probe: told to fail" })
        #expect(!rec.logs.contains { $0.guardID == "org.example.kit.gatekeeper" })
        // The kit adds a debug line after an init that returned nil.
        #expect(rec.logs.contains { $0.severity == NG_LOG_DEBUG && $0.guardID == "org.example.kit.heartbeat"
                                    && $0.message == "NavGuardPluginKit: init(host:) returned nil" })
        // A good configuration still works afterwards.
        #expect(addStatus(e, gatekeeperDescriptor(), "{}") == NG_OK)
        e.destroy()
    }

    @Test func beginsAndEndsHoldsAndReports() throws {
        let (e, rec) = try makeEngine([(modalHoldDescriptor(), "{}")])
        #expect(e.submit(push(2, "modal")).status == .applied)
        #expect(e.holdCount == 1)
        #expect(e.holdMask == UInt32(NG_MASK_TOUCH))
        #expect(touch(e, NG_TOUCH_BEGAN, id: 1, view: 9).reason == .ignoring)
        #expect(keyEvent(e, code: 1).verdict == .deliver)
        #expect(e.submit(Request(kind: .pop)).status == .applied)
        #expect(e.holdCount == 0)
        #expect(rec.holdEnds.count == 1 && rec.holdEnds[0].label?.string == "modal")
        #expect(rec.holdEnds[0].reason == NG_HOLD_ENDED)       // the guard's own hold
        #expect(rec.reports.count == 1)
        #expect(rec.reports.first?.guardID == "org.example.kit.modal-hold")
        #expect(rec.reports.first?.text == "hold modal ended; 1 screens, mask now 0")

        let g = try #require(instance(of: ModalHold.self, in: e, at: 0))
        #expect(g.notices.map(\.ended) == [false, true])
        #expect(g.notices.allSatisfy { $0.mask == UInt32(NG_MASK_TOUCH) })
        #expect(g.lastError == nil)
        // Ending an ended hold is an error the guard sees as GuardError.
        #expect(throws: GuardError.notFound) { try g.host.endHold(1) }
        e.destroy()
    }

    @Test func ticksAndOffersExtensions() throws {
        let (e, rec) = try makeEngine([(heartbeatDescriptor(), #"{"period_ms": 10}"#)])
        #expect(e.nextDeadline() == 10_000_000)
        try e.advanceTime(9_000_000)
        try e.tick()
        #expect(rec.reports.isEmpty)
        try e.advanceTime(1_000_000)
        try e.tick()
        #expect(rec.reports.map(\.text) == ["beat 1 at 10000000"])
        #expect(e.nextDeadline() == 20_000_000)

        let d = heartbeatDescriptor().pointee
        let inst = e.chain.slots[0].instance
        let known = "org.example.heartbeat/1".withCString { d.get_extension!(inst, $0) }
        #expect(known?.load(as: Int32.self) == 7)
        #expect("org.example.heartbeat/2".withCString { d.get_extension!(inst, $0) } == nil)
        #expect("org.example.heartbeat/1x".withCString { d.get_extension!(inst, $0) } == nil)
        #expect("".withCString { d.get_extension!(inst, $0) } == nil)
        e.destroy()
    }

    @Test func hostReadsState() throws {
        let (e, _) = try makeEngine([(modalHoldDescriptor(), "{}")])
        let h = try #require(instance(of: ModalHold.self, in: e, at: 0)).host
        #expect(e.submit(push(2, "menu", animated: true)).status == .applied)
        #expect(h.stackCount == 2)
        #expect(h.screen(at: 0)?.route.string == "home")
        #expect(h.top?.id == 2 && h.top?.route.string == "menu" && h.top?.identity.string == "menu")
        #expect(h.top!.route == h.top!.identity && h.top!.route.hashValue == h.top!.identity.hashValue)
        #expect(h.screen(at: 2) == nil && h.screen(at: -1) == nil)
        #expect(h.isInFlight(NG_TRACK_SCREEN))
        #expect(h.track(NG_TRACK_SCREEN)?.kind == NG_REQ_PUSH)
        try e.finishTransition(.all)
        #expect(!h.isInFlight(NG_TRACK_SCREEN) && h.track(NG_TRACK_BAR) == nil)
        try e.advanceTime(5)
        #expect(h.now == 5)
        #expect(touch(e, NG_TOUCH_BEGAN, id: 3, view: 4).verdict == .deliver)
        #expect(h.touchCount == 1 && h.touch(at: 0)?.touch_id == 3 && h.touchCount(onView: 4) == 1)
        #expect(h.viewFlags(4) == nil)
        #expect(h.deferredCount == 0 && h.deferred(at: 0) == nil)
        #expect(h.abiVersion.major == UInt32(NG_PLUGIN_ABI_MAJOR))
        e.destroy()
    }

    @Test func instancesAreReleasedAtDestroy() throws {
        let live = kitLiveInstances
        let released = kitReleasedInstances
        let (e, _) = try makeEngine([(gatekeeperDescriptor(), "{}"), (modalHoldDescriptor(), "{}"),
                                     (configProbeDescriptor(), "{}"), (heartbeatDescriptor(), "{}")])
        ConfigProbe.last = nil
        #expect(kitLiveInstances == live + 4)
        e.destroy()
        #expect(kitLiveInstances == live)
        #expect(kitReleasedInstances == released + 4)
    }

    /// Uses up the pool of create() functions, after registering every
    /// descriptor the other tests use (so they keep working in any order).
    @Test func tooManyGuardTypesFailCreateCleanly() throws {
        let used = [gatekeeperDescriptor(), gatekeeper2Descriptor(), modalHoldDescriptor(),
                    configProbeDescriptor(), heartbeatDescriptor(), adminPinDescriptor(), keyCounterDescriptor()]
        var made: [UnsafePointer<ng_plugin_descriptor>] = []
        for id in fillerIDs { made.append(makeDescriptor(ConfigProbe.self, id: id, name: "filler", version: "1", description: "filler")) }
        #expect(Set(made + used).count == fillerIDs.count + used.count)
        let (e, rec) = try makeEngine([])
        // The last slots that fit still work; past the pool, create fails.
        var statuses: [Int32] = []
        for d in made { statuses.append(addStatus(e, d, "{}")) }
        ConfigProbe.last = nil
        let fitting = maxGuardTypes - used.count
        #expect(statuses.count == fitting + 1)
        #expect(statuses.prefix(fitting).allSatisfy { $0 == NG_OK })
        #expect(statuses.last == NG_E_GUARD)
        #expect(e.guardCount == fitting)
        #expect(rec.logs.contains { $0.severity == NG_LOG_ERROR && $0.message.contains("more than 32 guard types") })
        e.destroy()
    }

    @Test func cStringComparesWithoutCopying() {
        "route".withCString { p in
            let s = CString(p)
            #expect(s == "route" && s == String("route") && s != "rout" && s != "routes" && s != "")
            #expect(s.hasPrefix("rou") && !s.hasPrefix("routes") && s.utf8Count == 5 && !s.isEmpty)
            "route".withCString { q in #expect(s == CString(q)) }
        }
        "".withCString { p in #expect(CString(p).isEmpty && CString(p) == "") }
    }
}

/// The Swift guard instance behind chain slot `i` (through the kit's box).
func instance<G: AnyObject>(of: G.Type, in e: Engine, at i: Int) -> G? {
    guard i < e.chain.slots.count, let inst = e.chain.slots[i].instance else { return nil }
    return GuardBox.from(inst).instance as? G
}

/// Ids for filling the create() pool (one more than it has room for).
let fillerIDs: [StaticString] = [
    "org.example.kit.f00", "org.example.kit.f01", "org.example.kit.f02", "org.example.kit.f03",
    "org.example.kit.f04", "org.example.kit.f05", "org.example.kit.f06", "org.example.kit.f07",
    "org.example.kit.f08", "org.example.kit.f09", "org.example.kit.f10", "org.example.kit.f11",
    "org.example.kit.f12", "org.example.kit.f13", "org.example.kit.f14", "org.example.kit.f15",
    "org.example.kit.f16", "org.example.kit.f17", "org.example.kit.f18", "org.example.kit.f19",
    "org.example.kit.f20", "org.example.kit.f21", "org.example.kit.f22", "org.example.kit.f23",
    "org.example.kit.f24", "org.example.kit.f25",
]
