// SPDX-License-Identifier: Apache-2.0
// Shared helpers for the built-in guard tests: a recording EngineObserver and
// small builders for an Engine with a guard chain on a manual clock.
import CNavGuard
import NavGuardBuiltins
@testable import NavGuardCore

/// Records every engine callback, in order.
final class GuardRecorder: EngineObserver {
    struct Report { var guardID: String?; var text: String }
    struct Log { var severity: Int32; var guardID: String?; var message: String }

    var outcomes: [OutcomeRecord] = []
    var transitions: [ng_transition_event] = []
    var holdEnds: [HoldEndRecord] = []
    var reports: [Report] = []
    var logs: [Log] = []
    var touchCancels: [ng_touch_info] = []

    init() {}

    func engineOutcome(_ outcome: OutcomeRecord) { outcomes.append(outcome) }
    func engineTransition(_ event: ng_transition_event) { transitions.append(event) }
    func engineHoldEnded(_ hold: HoldEndRecord) { holdEnds.append(hold) }
    func engineReport(guardID: UnsafePointer<CChar>?, text: CStr) {
        reports.append(Report(guardID: guardID.map { String(cString: $0) }, text: text.string))
    }
    func engineLog(severity: Int32, guardID: UnsafePointer<CChar>?, message: CStr) {
        logs.append(Log(severity: severity, guardID: guardID.map { String(cString: $0) }, message: message.string))
    }
    func engineTouchCancelled(_ touch: ng_touch_info) { touchCancels.append(touch) }

    /// Questions asked and how each ended; `onQuestion` answers like a host.
    struct Question { var id: UInt64; var topic: String; var text: String?; var request: UInt64; var kind: Int32; var screen: UInt64
                     var deadline: Int64 = 0 }
    var questions: [Question] = []
    var questionEnds: [(id: UInt64, answer: Int32)] = []
    var onQuestion: ((Question) -> Void)?
    func engineQuestion(_ q: ng_question) {
        let x = Question(id: q.question_id, topic: String(cString: q.topic), text: q.text.map { String(cString: $0) },
                         request: q.request_id, kind: q.kind, screen: q.screen_id, deadline: q.deadline_ns)
        questions.append(x)
        onQuestion?(x)
    }
    func engineQuestionEnded(_ q: ng_question, answer: Int32) { questionEnds.append((q.question_id, answer)) }

    /// The outcome recorded for a request id.
    func outcome(of id: UInt64) -> OutcomeRecord? { outcomes.first { $0.requestID == id } }

    /// Transition events of one phase (optionally one track).
    func phases(_ phase: Int32, track: Int32? = nil) -> [ng_transition_event] {
        transitions.filter { $0.phase == phase && (track == nil || $0.track == track!) }
    }

    var logText: String { logs.map(\.message).joined(separator: "\n") }
}

/// A guard to add: its descriptor and its configuration text.
struct GuardSpec {
    var descriptor: UnsafePointer<ng_plugin_descriptor>
    var config: String
    init(_ descriptor: UnsafePointer<ng_plugin_descriptor>, _ config: String = "{}") {
        self.descriptor = descriptor
        self.config = config
    }
}

/// An engine on a manual clock at `startNs`, with a root screen, an attached
/// recorder and the given chain.
func makeGuardEngine(_ guards: [GuardSpec], root: Screen = Screen(id: 1, route: "home"),
                     startNs: Int64 = 0) throws -> (Engine, GuardRecorder) {
    let e = Engine(EngineConfig(clock: .manual(startNs: startNs)))
    let rec = GuardRecorder()
    e.observer = rec
    try e.setRoot(root)
    for g in guards { try e.addGuard(g.descriptor, configText: g.config) }
    return (e, rec)
}

/// The NG_E_* status addGuard fails with, or NG_OK.
func addGuardStatus(_ e: Engine, _ d: UnsafePointer<ng_plugin_descriptor>, _ config: String) -> Int32 {
    do { try e.addGuard(d, configText: config); return NG_OK } catch { return error.status }
}

/// The NG_E_* status of a throwing engine call, or NG_OK.
func engineStatus(_ body: () throws(EngineError) -> Void) -> Int32 {
    do { try body(); return NG_OK } catch { return error.status }
}

let msNs: Int64 = 1_000_000
let animatedFlag = UInt32(NG_REQF_ANIMATED)

extension Engine {
    /// Submit an input event built in place.
    @discardableResult
    func submitTestEvent(type: Int32, phase: Int32 = 0, touchID: UInt64 = 0, view: UInt64 = 0,
                         x: Double = 0, y: Double = 0, code: Int64 = 0) -> EventVerdict {
        var ev = ng_event()
        ev.size = UInt32(MemoryLayout<ng_event>.size)
        ev.type = type
        ev.phase = phase
        ev.touch_id = touchID
        ev.timestamp_ns = now
        ev.x = x
        ev.y = y
        ev.code = code
        if view != 0 {
            ev.flags = UInt32(NG_EVF_HAS_TARGET)
            ev.target_view = view
        }
        return withUnsafePointer(to: &ev) { submitEvent($0) }
    }

    /// A touch phase on a host-hit-tested view.
    @discardableResult
    func submitTestTouch(_ phase: Int32, id: UInt64, view: UInt64) -> EventVerdict {
        submitTestEvent(type: NG_EVENT_TOUCH, phase: phase, touchID: id, view: view)
    }

    /// Screen ids of the stack, root first.
    var stackIDs: [UInt64] { (0..<stackCount).map { screen(at: $0)!.id } }
}
