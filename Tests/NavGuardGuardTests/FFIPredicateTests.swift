// SPDX-License-Identifier: Apache-2.0
// org.navguard.ffi-predicate: predicates are exported C functions of this
// test binary (@_cdecl), found through dlopen(NULL) when "library" is absent.
import CNavGuard
import Glibc
import NavGuardBuiltins
import Testing
@testable import NavGuardCore

// MARK: - Test predicates (C ABI, exported by the test executable)

/// What the last predicate call received. The suite is serialized.
struct FFISeen {
    var calls = 0
    var kind: Int32 = -1
    var route: String?
    var identity: String?
    var routeWasNull = false
    var depth: UInt64 = 0
    var source: UInt32 = 0
    var target: UInt64 = 0
    var attempt: UInt32 = 0
}
nonisolated(unsafe) var ffiSeen = FFISeen()
nonisolated(unsafe) var ffiBoolAnswer = true
nonisolated(unsafe) var ffiIntAnswer: Int32 = 1

private func str(_ p: UnsafePointer<CChar>?) -> String? { p.map { String(cString: $0) } }

@_cdecl("ngtest_allow_depth_lt3")
public func ngtestAllowDepthLt3(kind: Int32, depth: UInt64) -> Bool {
    ffiSeen.calls += 1
    ffiSeen.kind = kind
    ffiSeen.depth = depth
    return depth < 3
}

@_cdecl("ngtest_route_is_blocked")
public func ngtestRouteIsBlocked(route: UnsafePointer<CChar>?) -> Bool {
    ffiSeen.calls += 1
    ffiSeen.route = str(route)
    ffiSeen.routeWasNull = route == nil
    return ffiSeen.route == "blocked"
}

@_cdecl("ngtest_bool_answer")
public func ngtestBoolAnswer() -> Bool {
    ffiSeen.calls += 1
    return ffiBoolAnswer
}

/// Every argument, in the documented order; returns ffiIntAnswer.
@_cdecl("ngtest_all_forward")
public func ngtestAllForward(kind: Int32, route: UnsafePointer<CChar>?, identity: UnsafePointer<CChar>?,
                             depth: UInt64, source: UInt32, target: UInt64, attempt: UInt32) -> Int32 {
    ffiSeen = FFISeen(calls: ffiSeen.calls + 1, kind: kind, route: str(route), identity: str(identity),
                      routeWasNull: route == nil, depth: depth, source: source, target: target, attempt: attempt)
    return ffiIntAnswer
}

/// Every argument in reverse order, 32- and 64-bit values interleaved.
@_cdecl("ngtest_all_reverse")
public func ngtestAllReverse(attempt: UInt32, target: UInt64, source: UInt32, depth: UInt64,
                             identity: UnsafePointer<CChar>?, route: UnsafePointer<CChar>?, kind: Int32) -> Int32 {
    ffiSeen = FFISeen(calls: ffiSeen.calls + 1, kind: kind, route: str(route), identity: str(identity),
                      routeWasNull: route == nil, depth: depth, source: source, target: target, attempt: attempt)
    return ffiIntAnswer
}

// MARK: - Helpers

private let ffiID = "org.navguard.ffi-predicate"

private func ffiEngine(_ config: String, extra: [GuardSpec] = [],
                       root: Screen = Screen(id: 1, route: "home")) throws -> (Engine, GuardRecorder) {
    try makeGuardEngine(extra + [GuardSpec(ngg_ffi_predicate_descriptor(), config)], root: root)
}

private func push(_ e: Engine, _ id: UInt64, _ route: String, identity: String? = nil,
                  flags: UInt32 = 0, source: UInt32 = 0) -> SubmitResult {
    e.submit(Request.push(Screen(id: id, route: route, identity: identity), flags: flags, source: source))
}

/// The status of adding the guard with `config`, and why: its error log
/// lines and the error's message (which carries the host's reason for a
/// configuration refused before create, and the guard's for a failed create).
private func createFailure(_ config: String) -> (status: Int32, log: String) {
    let e = Engine(EngineConfig(clock: .manual(startNs: 0)))
    let rec = GuardRecorder()
    e.observer = rec
    var message = ""
    var st = NG_OK
    do { try e.addGuard(ngg_ffi_predicate_descriptor(), configText: config) } catch {
        st = error.status
        message = error.message
    }
    let errors = rec.logs.filter { $0.severity == NG_LOG_ERROR }
    return (st, (errors.map(\.message) + [message]).joined(separator: "\n"))
}

// MARK: - Tests

/// Whether the test executable's @_cdecl functions are visible to dlsym.
/// SwiftPM links test executables on Linux without --export-dynamic, so they
/// are not (run `swift test -Xlinker --export-dynamic` to include the tests
/// that need them); libc functions are always reachable through the host
/// program's global scope, so most tests use those.
let testExecutableExportsSymbols: Bool = dlsym(dlopen(nil, RTLD_NOW), "ngtest_allow_depth_lt3") != nil

@Suite("ffi-predicate guard", .serialized)
struct FFIPredicateTests {
    init() {
        ffiSeen = FFISeen()
        ffiBoolAnswer = true
        ffiIntAnswer = 1
    }

    @Test func descriptorIdentity() {
        let d = ngg_ffi_predicate_descriptor()!.pointee
        #expect(String(cString: d.id) == ffiID)
        #expect(d.on_request != nil)
        #expect(d.on_event == nil)
        #expect(Engine.validate(ngg_ffi_predicate_descriptor()) == nil)
    }

    @Test func hostProgramScopeReachesLibc() {
        // dlopen(NULL) — "library" absent — sees the program and its libraries.
        let me = dlopen(nil, RTLD_NOW)
        #expect(me != nil)
        #expect(dlsym(me, "abs") != nil)
        #expect(dlsym(me, "strcspn") != nil)
    }

    // MARK: libc functions (always available)

    @Test func intReturnFromTheHostProgram() throws {
        // int abs(int): abs(kind) is 0 only for push (kind 0): refused.
        let (e, rec) = try ffiEngine(#"{"symbol":"abs","args":["kind"],"returns":"int"}"#)
        let r = push(e, 2, "a")
        #expect(r.status == .refused)
        #expect(r.reason == .policy)
        #expect(r.guardID.map { String(cString: $0) } == ffiID)
        let msg = try #require(rec.outcome(of: r.requestID)?.message).string
        #expect(msg.contains("abs()") && msg.contains("returned 0"), "message: \(msg)")
        #expect(e.submit(Request.replace([Screen(id: 1, route: "home"), Screen(id: 2, route: "a")])).status == .applied)
        #expect(e.submit(Request(kind: .pop)).status == .applied)
        #expect(e.stackIDs == [1])
    }

    @Test func intReturnFromANamedLibrary() throws {
        let (e, _) = try ffiEngine(#"{"library":"libc.so.6","symbol":"abs","args":["kind"],"returns":"int"}"#)
        #expect(push(e, 2, "a").status == .refused)
        #expect(e.submit(Request.replace([Screen(id: 1, route: "home"), Screen(id: 2, route: "a")])).status == .applied)
        #expect(e.submit(Request(kind: .back)).status == .applied)
    }

    @Test func boolReturnRefuseWhenTrue() throws {
        // abs(kind) read as a bool (its low byte): false for push, true otherwise.
        let (e, rec) = try ffiEngine(#"{"symbol":"abs","args":["kind"],"returns":"bool","refuse_when":"true","reason":"busy"}"#)
        #expect(push(e, 2, "a").status == .applied)
        let r = e.submit(Request(kind: .pop))
        #expect(r.status == .refused && r.reason == .busy)
        let msg = rec.outcome(of: r.requestID)?.message?.string ?? ""
        #expect(msg.contains("abs()") && msg.contains("returned true"), "message: \(msg)")
        #expect(e.stackIDs == [1, 2])
    }

    @Test func routeAndIdentityPointersInEitherOrder() throws {
        // size_t strcspn(const char *s, const char *reject): asymmetric, so
        // the order of "route" and "identity" shows in the answer.
        let config = { (args: String) in #"{"symbol":"strcspn","args":\#(args),"returns":"int","kinds":["push"]}"# }
        let (e, _) = try ffiEngine(config(#"["route","identity"]"#))
        // strcspn("c", "abc") = 0: refused; strcspn("abc", "c") = 2: allowed.
        #expect(push(e, 2, "c", identity: "abc").status == .refused)
        #expect(push(e, 2, "abc", identity: "c").status == .applied)
        // Swapped order: the answers swap.
        let (e2, _) = try ffiEngine(config(#"["identity","route"]"#))
        #expect(push(e2, 2, "c", identity: "abc").status == .applied)
        #expect(push(e2, 3, "abc", identity: "c").status == .refused)
        // Identity defaults to the route: strcspn("x", "x") = 0.
        #expect(push(e2, 3, "x").status == .refused)
        #expect(e2.stackIDs == [1, 2])
    }

    @Test func depthIsPassedAs64Bit() throws {
        // int strncmp(route, identity, depth): equal in the first `depth`
        // bytes gives 0 (refused).
        let (e, _) = try ffiEngine(#"{"symbol":"strncmp","args":["route","identity","depth"],"returns":"int","kinds":["push"]}"#)
        #expect(push(e, 2, "abc", identity: "abd").status == .refused)   // depth 1: "a" == "a"
        #expect(push(e, 2, "x", identity: "y").status == .applied)       // depth 1
        #expect(push(e, 3, "abc", identity: "abd").status == .refused)   // depth 2: "ab" == "ab"
        #expect(push(e, 3, "p", identity: "q").status == .applied)
        #expect(push(e, 4, "abc", identity: "abd").status == .applied)   // depth 3: "abc" != "abd"
        #expect(e.stackIDs == [1, 2, 3, 4])
    }

    @Test func routeAsAnIntegerOnReplaceStack() throws {
        // int atoi(route): replace-stack passes its new top screen.
        let (e, _) = try ffiEngine(#"{"symbol":"atoi","args":["route"],"returns":"int","kinds":["replace-stack","push"]}"#)
        #expect(e.submit(Request.replace([Screen(id: 5, route: "12"), Screen(id: 6, route: "0")])).status == .refused)
        #expect(e.submit(Request.replace([Screen(id: 5, route: "0"), Screen(id: 6, route: "12")])).status == .applied)
        #expect(e.stackIDs == [5, 6])
        #expect(push(e, 7, "0").status == .refused)
        #expect(push(e, 7, "3").status == .applied)
    }

    @Test func sourceAndTarget() throws {
        // abs(source) with 32-bit values; labs(target) with the pop-to id.
        let (e, _) = try ffiEngine(#"{"symbol":"abs","args":["source"],"returns":"int"}"#)
        #expect(push(e, 2, "a", source: 0).status == .refused)
        #expect(push(e, 2, "a", source: 7).status == .applied)
        #expect(push(e, 3, "b", source: 0x8000_0000).status == .applied)   // abs(INT_MIN) != 0
        let (t, _) = try ffiEngine(#"{"symbol":"labs","args":["target"],"returns":"int","kinds":["pop-to","pop"]}"#)
        #expect(push(t, 2, "a").status == .applied)
        #expect(push(t, 3, "b").status == .applied)
        #expect(t.submit(Request(kind: .pop)).status == .refused)  // target 0
        #expect(t.submit(Request.popTo(1)).status == .applied)           // target 1
        #expect(t.stackIDs == [1])
    }

    @Test func attemptAfterDeferral() throws {
        // The transition guard queues the second push; re-evaluated with
        // attempt 1 it is refused by abs(attempt) != 0 and ends DROPPED.
        let (e, rec) = try ffiEngine(#"{"symbol":"abs","args":["attempt"],"returns":"int","refuse_when":"true"}"#,
                                     extra: [GuardSpec(ngg_transition_descriptor(), #"{"mode":"queue"}"#)])
        #expect(push(e, 2, "a", flags: animatedFlag).status == .applied)   // attempt 0
        let r = push(e, 3, "b", flags: animatedFlag)
        #expect(r.status == .deferred)
        try e.finishTransition(.all)
        let o = try #require(rec.outcome(of: r.requestID))
        #expect(o.outcome == .dropped)
        #expect(o.reason == .policy)
        #expect(o.guardID.map { String(cString: $0) } == ffiID)
        #expect(e.stackIDs == [1, 2])
    }

    @Test func kindsFilter() throws {
        // abs(kind) refuses only push; restricted to pop it never refuses a push.
        let (e, _) = try ffiEngine(#"{"symbol":"abs","args":["kind"],"returns":"int","refuse_when":"true","kinds":["pop","back"]}"#)
        #expect(push(e, 2, "a").status == .applied)            // not asked
        #expect(push(e, 3, "b").status == .applied)
        #expect(e.submit(Request(kind: .pop)).status == .refused)
        #expect(e.submit(Request(kind: .back)).status == .refused)
        #expect(e.submit(Request(kind: .popToRoot)).status == .applied)   // not asked
        #expect(e.stackIDs == [1])
        // An empty list applies to nothing.
        let (n, _) = try ffiEngine(#"{"symbol":"abs","args":["kind"],"returns":"int","kinds":[]}"#)
        #expect(push(n, 2, "a").status == .applied)
    }

    @Test func everyReasonName() throws {
        let table: [(String, Reason)] = [("busy", .busy), ("duplicate", .duplicate),
                                         ("throttled", .throttled), ("ignoring", .ignoring),
                                         ("policy", .policy)]
        for (name, reason) in table {
            let (e, _) = try ffiEngine(#"{"symbol":"abs","args":["kind"],"returns":"int","reason":"\#(name)"}"#)
            let r = push(e, 2, "a")
            #expect(r.status == .refused && r.reason == reason, "reason \(name)")
        }
    }

    // MARK: predicates of the test executable (need --export-dynamic)

    @Test(.enabled(if: testExecutableExportsSymbols, "the test executable does not export its @_cdecl functions"))
    func boolPredicateOfTheHostProgram() throws {
        let (e, rec) = try ffiEngine(#"{"symbol":"ngtest_allow_depth_lt3","args":["kind","depth"]}"#)
        #expect(push(e, 2, "a").status == .applied)        // depth 1
        #expect(ffiSeen.kind == NG_REQ_PUSH && ffiSeen.depth == 1)
        #expect(push(e, 3, "b").status == .applied)        // depth 2
        let r = push(e, 4, "c")                                        // depth 3: false -> refused
        #expect(r.status == .refused && r.reason == .policy)
        let msg = rec.outcome(of: r.requestID)?.message?.string ?? ""
        #expect(msg.contains("ngtest_allow_depth_lt3") && msg.contains("false"), "message: \(msg)")
        #expect(e.submit(Request(kind: .pop)).status == .refused)
        #expect(ffiSeen.kind == NG_REQ_POP && ffiSeen.depth == 3 && ffiSeen.calls == 4)
        ffiSeen = FFISeen()
        let (b, _) = try ffiEngine(#"{"symbol":"ngtest_bool_answer"}"#)
        ffiBoolAnswer = false
        #expect(push(b, 2, "a").status == .refused)
        ffiBoolAnswer = true
        #expect(push(b, 2, "a").status == .applied)
        #expect(ffiSeen.calls == 2)
        let (rb, _) = try ffiEngine(#"{"symbol":"ngtest_route_is_blocked","args":["route"],"refuse_when":"true"}"#)
        #expect(push(rb, 2, "blocked").status == .refused)
        #expect(push(rb, 2, "open").status == .applied)
        #expect(rb.submit(Request(kind: .pop)).status == .applied)
        #expect(ffiSeen.routeWasNull)
    }

    @Test(.enabled(if: testExecutableExportsSymbols, "the test executable does not export its @_cdecl functions"))
    func everyArgumentForwardAndReverse() throws {
        for (symbol, args) in [("ngtest_all_forward", #"["kind","route","identity","depth","source","target","attempt"]"#),
                               ("ngtest_all_reverse", #"["attempt","target","source","depth","identity","route","kind"]"#)] {
            ffiSeen = FFISeen()
            ffiIntAnswer = 7
            let (e, rec) = try ffiEngine(#"{"symbol":"\#(symbol)","returns":"int","args":\#(args)}"#,
                                         extra: [GuardSpec(ngg_transition_descriptor(), #"{"mode":"queue"}"#)])
            #expect(push(e, 2, "detail", identity: "item-42", source: 9).status == .applied)
            #expect(ffiSeen.kind == NG_REQ_PUSH && ffiSeen.route == "detail" && ffiSeen.identity == "item-42")
            #expect(ffiSeen.depth == 1 && ffiSeen.source == 9 && ffiSeen.target == 0 && ffiSeen.attempt == 0)
            ffiIntAnswer = -1                      // non-zero (negative): allow
            #expect(push(e, 3, "more", flags: animatedFlag, source: 0xFFFF_FFFF).status == .applied)
            #expect(ffiSeen.identity == "more" && ffiSeen.source == 0xFFFF_FFFF)
            let d = e.submit(Request.popTo(1))     // queued behind the transition
            #expect(d.status == .deferred)
            try e.finishTransition(.all)
            #expect(ffiSeen.kind == NG_REQ_POP_TO && ffiSeen.target == 1 && ffiSeen.depth == 3 && ffiSeen.attempt == 1)
            #expect(ffiSeen.routeWasNull && ffiSeen.identity == nil)
            #expect(rec.outcome(of: d.requestID)?.outcome == .applied)
            ffiIntAnswer = 0
            let r = push(e, 4, "x")
            #expect(r.status == .refused, "\(symbol)")
            let msg = rec.outcome(of: r.requestID)?.message?.string ?? ""
            #expect(msg.contains(symbol) && msg.contains("returned 0"), "message: \(msg)")
            ffiSeen = FFISeen()
            #expect(e.submit(Request.replace([Screen(id: 10, route: "r0"), Screen(id: 11, route: "r1", identity: "top")])).status == .refused)
            #expect(ffiSeen.kind == NG_REQ_REPLACE_STACK && ffiSeen.route == "r1" && ffiSeen.identity == "top")
        }
    }

    // MARK: create failures

    @Test func missingLibraryFails() {
        let f = createFailure(#"{"library":"libnavguard-no-such-library.so.9","symbol":"abs"}"#)
        #expect(f.status == NG_E_GUARD)
        #expect(f.log.contains("cannot load library") && f.log.contains("libnavguard-no-such-library.so.9"), "log: \(f.log)")
    }

    @Test func missingSymbolFails() {
        let f = createFailure(#"{"symbol":"ngtest_no_such_function","args":["kind"]}"#)
        #expect(f.status == NG_E_GUARD)
        #expect(f.log.contains("ngtest_no_such_function") && f.log.contains("not found"), "log: \(f.log)")
        let g = createFailure(#"{"library":"libc.so.6","symbol":"ngtest_no_such_function"}"#)
        #expect(g.status == NG_E_GUARD)
        #expect(g.log.contains("libc.so.6"), "log: \(g.log)")
    }

    @Test func unknownArgumentFails() {
        // The arguments are the declared items of "args": the host refuses others.
        let f = createFailure(#"{"symbol":"abs","args":["kind","colour"]}"#)
        #expect(f.status == NG_E_PARSE)
        #expect(f.log.contains(#"not ["kind","colour"]"#), "log: \(f.log)")
    }

    @Test func badConfigurationsFail() {
        // Refused by the host against the declared options, before create.
        let declared: [(String, String)] = [
            (#"{"symbol":42}"#, #"option "symbol" must be a string, not 42"#),
            (#"{"symbol":"abs","library":7}"#, #"option "library" must be a string"#),
            (#"{"symbol":"abs","returns":"float"}"#, #"option "returns" must be one of "bool", "int""#),
            (#"{"symbol":"abs","returns":1}"#, #"option "returns" must be one of"#),
            (#"{"symbol":"abs","refuse_when":"maybe"}"#, #"option "refuse_when" must be one of "false", "true""#),
            (#"{"symbol":"abs","refuse_when":false}"#, #"option "refuse_when" must be one of"#),
            (#"{"symbol":"abs","reason":"at-root"}"#, #"option "reason" must be one of "busy""#),
            (#"{"symbol":"abs","args":"kind"}"#, #"option "args" must be an array of 0..16 strings"#),
            (#"{"symbol":"abs","args":["kind",3]}"#, #"option "args" must be an array of 0..16 strings"#),
            (#"{"symbol":"abs","kinds":"push"}"#, #"option "kinds" must be an array of 0..7 strings"#),
            (#"{"symbol":"abs","args":["kind","kind","kind","kind","kind","kind","kind","kind","kind","kind","kind","kind","kind","kind","kind","kind","kind"]}"#,
             #"option "args" must be an array of 0..16 strings"#),
            (#"{"symbol":"abs","arg":["kind"]}"#, #"unknown option "arg"; valid keys: library, symbol, args, returns, refuse_when, kinds, reason"#),
            (#"{"symbol":"abs","kinds":["push","jump"]}"#, #"option "kinds" must be an array of 0..7 strings from push,"#),
            (#"{"symbol":"abs","args":["kind","colour"]}"#, #"option "args" must be an array of 0..16 strings from kind, route,"#),
        ]
        for (config, fragment) in declared {
            let f = createFailure(config)
            #expect(f.status == NG_E_PARSE, "config \(config)")
            #expect(f.log.contains(fragment), "config \(config): \(f.log)")
        }
        // Refused by the guard's own create, which says why.
        let own: [(String, String)] = [
            (#"{}"#, "\"symbol\" is required"),
            (#"{"symbol":""}"#, "empty"),
        ]
        for (config, fragment) in own {
            let f = createFailure(config)
            #expect(f.status == NG_E_GUARD, "config \(config)")
            #expect(f.log.contains(fragment) && f.log.contains("failed to create: ffi-predicate:"), "config \(config): \(f.log)")
        }
    }
}
