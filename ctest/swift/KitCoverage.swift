// SPDX-License-Identifier: Apache-2.0
// kit-coverage.so: a guard that uses every part of NavGuardPluginKit, built
// as any Swift guard is (Embedded Swift by default), so that the validator's
// run of every hook (validate_kit-coverage) shows the kit working where it
// ships: every hook protocol, declared options of each type, the typed
// configuration getters, state reads and actions, logs, reports, questions
// and an extension. Its policy is harmless: it refuses pushes past
// "max_depth", holds key input while a transition it watches is in flight,
// and answers questions it never asks.
import CNavGuard
import NavGuardPluginKit

final class KitCoverage: RequestVoting, EventVoting, OutcomeObserving, TransitionObserving, HoldObserving,
                         Ticking, AnswerObserving, ExtensionProviding, OptionDeclaring {
    static let options: [GuardOption] = [
        .int("max_depth", default: 64, range: 1...4096, doc: "the deepest stack a push may make"),
        .double("tick_ms", default: 250, range: 1...60000, doc: "how often to tick while a hold is live"),
        .bool("hold_keys", default: true, doc: "hold key input while a transition is in flight"),
        .string("label", default: "kit-coverage", doc: "the hold's label"),
        .oneOf("mode", default: "strict", ["strict", "lenient"], doc: "refuse or only log pushes past max_depth"),
        .strings("routes", default: ["home"], count: 0...16, doc: "routes never refused"),
    ]

    let host: GuardHost
    let maxDepth: Int
    let tickNs: Int64
    let holdKeys: Bool
    let label: String
    let strict: Bool
    let routes: [String]
    private(set) var nextDeadline: Int64 = noDeadline
    private var hold: UInt64?
    private var seen = 0
    /// The extension's capability: any address that stays valid does.
    private static let capability: StaticString = "org.example.kit-coverage/1"

    init?(host: GuardHost) {
        guard let maxDepth = host.int("max_depth"), let tickMs = host.double("tick_ms"),
              let holdKeys = host.bool("hold_keys"), let label = host.string("label"),
              let mode = host.string("mode"), let routes = host.strings("routes") else {
            host.log(.error, "kit-coverage: a declared option is missing (a host older than plugin ABI 1.1?)")
            return nil
        }
        guard host.contains("max_depth") || !host.contains("no_such_key") else { return nil }
        self.host = host
        self.maxDepth = maxDepth
        tickNs = Int64(tickMs * 1_000_000)
        self.holdKeys = holdKeys
        self.label = label
        strict = mode == "strict"
        self.routes = routes
        host.log(.debug, "kit-coverage: at most \(maxDepth) screens, ticks every \(tickMs) ms, \(routes.count) routes, ABI \(host.abiVersion.major).\(host.abiVersion.minor)")
    }

    func vote(on request: GuardRequest) -> Vote {
        seen &+= 1
        guard request.kind == NG_REQ_PUSH else { return .allow }
        if let screen = request.screen, routes.contains(where: { screen.route == $0 }) { return .allow }
        guard host.stackCount >= maxDepth else { return .allow }
        if !strict {
            host.log(.info, "kit-coverage: push \(request.id) past \(maxDepth) screens allowed")
            return .allow
        }
        return .refuse(NG_REASON_POLICY, message: "the stack would be deeper than max_depth")
    }

    func vote(on event: GuardEvent) -> EventVote {
        seen &+= 1
        // Reads only: touch and hold counts, the view under a touch.
        if event.type == NG_EVENT_TOUCH, host.touchCount > 4096 || host.holdCount > 4096 {
            return .drop(NG_REASON_POLICY, message: "too many touches or holds")
        }
        return .deliver
    }

    func observe(outcome: GuardOutcome) {
        if outcome.outcome == NG_OUTCOME_REFUSED, let id = outcome.guardID, id == "org.example.kit-coverage" {
            try? host.report("kit-coverage refused request \(outcome.requestID) (stack \(host.stackCount), top \(host.top?.route.string ?? "none"))")
        }
    }

    func observe(transition: ng_transition_event) {
        guard holdKeys else { return }
        if transition.phase == NG_PHASE_WILL, hold == nil {
            hold = try? host.beginHold(label: label, mask: UInt32(NG_MASK_KEY), maxDurationNs: 10_000_000_000)
            nextDeadline = hold == nil ? noDeadline : host.now + tickNs
        } else if transition.phase == NG_PHASE_DID, let token = hold {
            do throws(GuardError) { try host.endHold(token) } catch {
                host.log(.warn, "kit-coverage: ending hold \(token): \(error.description)")
            }
            hold = nil
            nextDeadline = noDeadline
        }
    }

    func observe(hold notice: GuardHoldNotice) {
        if notice.ended, notice.token == hold { hold = nil; nextDeadline = noDeadline }
    }

    func tick(now: Int64) {
        nextDeadline = hold == nil ? noDeadline : now + tickNs
    }

    func observe(answer: ng_answer, to question: GuardQuestion) {
        host.log(.info, "kit-coverage: question \(question.id) on \(question.topic.string) answered \(answer)")
    }

    func getExtension(_ id: CString) -> UnsafeRawPointer? {
        id == KitCoverage.capability ? UnsafeRawPointer(KitCoverage.capability.utf8Start) : nil
    }
}

@c(ng_plugin_entry)
public func entry() -> UnsafePointer<ng_plugin_descriptor>? {
    makeDescriptor(KitCoverage.self, id: "org.example.kit-coverage", name: "kit-coverage", version: "1.0.0",
                   description: "Uses every part of NavGuardPluginKit (a test guard).")
}
