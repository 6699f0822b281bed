// SPDX-License-Identifier: Apache-2.0
// Declared guard options (plugin.h ng_option_decl): reading and checking the
// declarations, checking configurations against them before create(), and
// declared defaults answering the typed getters.
import CNavGuard
@testable import NavGuardCore
import Testing

/// A declaration list in static-lifetime storage (never freed), ended by
/// NG_OPTION_END unless `terminate` is false.
private func declList(_ decls: [ng_option_decl], terminate: Bool = true) -> UnsafePointer<ng_option_decl> {
    let p = UnsafeMutablePointer<ng_option_decl>.allocate(capacity: decls.count + 1)
    for (i, d) in decls.enumerated() { p[i] = d }
    var end = ng_option_decl()
    end.size = UInt32(MemoryLayout<ng_option_decl>.size)
    if terminate { p[decls.count] = end }
    return UnsafePointer(p)
}

private func decl(_ type: Int32, _ name: String?, default dflt: String? = nil, min: Double = 1, max: Double = 0,
                  choices: [String] = []) -> ng_option_decl {
    var d = ng_option_decl()
    d.size = UInt32(MemoryLayout<ng_option_decl>.size)
    d.type = type
    d.name = name.map(leakedCString)
    d.doc = leakedCString("doc of \(name ?? "-")")
    d.default_json = dflt.map(leakedCString)
    d.min = min
    d.max = max
    if !choices.isEmpty {
        let c = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: choices.count + 1)
        for (i, s) in choices.enumerated() { c[i] = leakedCString(s) }
        c[choices.count] = nil
        d.choices = UnsafePointer(c)
    }
    return d
}

private func table(_ decls: [ng_option_decl]) -> Result<OptionTable, EngineError> {
    do { return .success(try OptionTable(declList(decls))) } catch { return .failure(error) }
}

private func json(_ s: String) -> JSONValue { try! JSON.parse(s) }

@Suite("guard options")
struct OptionsTests {
    let throttleLike = [
        decl(NG_OPT_INT, "interval_ms", default: "300", min: 0, max: 3_600_000),
        decl(NG_OPT_BOOL, "report", default: "true"),
        decl(NG_OPT_DOUBLE, "ratio", default: "0.5", min: 0, max: 1),
        decl(NG_OPT_STRING, "message"),
        decl(NG_OPT_ENUM, "mode", default: #""queue""#, choices: ["refuse", "queue"]),
        decl(NG_OPT_STRINGS, "routes", default: "[]", min: 0, max: 2),
    ]

    @Test func declarationsAreReadWithTheirDefaults() throws {
        let t = try table(throttleLike).get()
        #expect(t.declared && t.options.map(\.name) == ["interval_ms", "report", "ratio", "message", "mode", "routes"])
        #expect(t.option("interval_ms")?.defaultValue == .integer(300))
        #expect(t.option("message")?.defaultValue == nil)
        #expect(t.option("mode")?.choices == ["refuse", "queue"])
        #expect(t.value("interval_ms", in: json("{}")) == .integer(300), "absent: the default")
        #expect(t.value("interval_ms", in: json(#"{"interval_ms":5}"#)) == .integer(5))
        #expect(t.value("message", in: json("{}")) == nil, "no default: not set")
        // NULL: nothing declared, nothing checked.
        let none = try OptionTable(nil)
        #expect(!none.declared)
        #expect(throws: Never.self) { try none.check(json(#"{"anything":[1]}"#), guardID: "x.y") }
    }

    @Test func configurationsAreCheckedAgainstThem() throws {
        let t = try table(throttleLike).get()
        let good = #"{"interval_ms":0,"report":false,"ratio":1,"message":"m","mode":"refuse","routes":["a","b"]}"#
        #expect(throws: Never.self) { try t.check(json(good), guardID: "org.x.g") }
        #expect(throws: Never.self) { try t.check(json(#"{"ratio":0.25,"interval_ms":3600000}"#), guardID: "org.x.g") }
        let bad: [(String, String)] = [
            (#"{"intervl_ms":1}"#, #"guard org.x.g: unknown option "intervl_ms"; valid keys: interval_ms, report, ratio, message, mode, routes"#),
            (#"{"interval_ms":-1}"#, #"guard org.x.g: option "interval_ms" must be an integer in 0..3600000, not -1"#),
            (#"{"interval_ms":3600001}"#, #"guard org.x.g: option "interval_ms" must be an integer in 0..3600000, not 3600001"#),
            (#"{"interval_ms":2.5}"#, #"guard org.x.g: option "interval_ms" must be an integer in 0..3600000, not 2.5"#),
            (#"{"interval_ms":null}"#, #"guard org.x.g: option "interval_ms" must be an integer in 0..3600000, not null"#),
            (#"{"report":"yes"}"#, #"guard org.x.g: option "report" must be true or false, not "yes""#),
            (#"{"ratio":1.5}"#, #"guard org.x.g: option "ratio" must be a number in 0..1, not 1.5"#),
            (#"{"message":3}"#, #"guard org.x.g: option "message" must be a string, not 3"#),
            (#"{"mode":"QUEUE"}"#, #"guard org.x.g: option "mode" must be one of "refuse", "queue", not "QUEUE""#),
            (#"{"routes":["a","b","c"]}"#, #"guard org.x.g: option "routes" must be an array of 0..2 strings, not ["a","b","c"]"#),
            (#"{"routes":[1]}"#, #"guard org.x.g: option "routes" must be an array of 0..2 strings, not [1]"#),
        ]
        for (config, message) in bad {
            do { try t.check(json(config), guardID: "org.x.g"); Issue.record("\(config) passed") } catch {
                #expect(error.status == NG_E_PARSE && error.message == message, "\(error.message)")
            }
        }
        let empty = try table([]).get()
        do { try empty.check(json(#"{"k":1}"#), guardID: "org.x.none"); Issue.record("accepted") } catch {
            #expect(error.message == #"guard org.x.none: unknown option "k"; it takes no options"#)
        }
    }

    @Test func malformedDeclarationsAreRefused() {
        let cases: [([ng_option_decl], String)] = [
            ([decl(NG_OPT_INT, "a"), decl(NG_OPT_BOOL, "a")], "option \"a\" is declared twice"),
            ([decl(NG_OPT_INT, "")], "options[0] has an empty name"),
            ([decl(9, "t")], "option \"t\" has an unknown type 9"),
            ([decl(NG_OPT_ENUM, "e")], "option \"e\" (one-of) has no choices"),
            ([decl(NG_OPT_INT, "i", default: "\"x\"", min: 0, max: 5)], "option \"i\": its default \"x\" is not an integer in 0..5"),
            ([decl(NG_OPT_INT, "i", default: "9", min: 0, max: 5)], "option \"i\": its default 9 is not an integer in 0..5"),
            ([decl(NG_OPT_ENUM, "e", default: "\"c\"", choices: ["a", "b"])], "its default \"c\" is not one of \"a\", \"b\""),
            ([decl(NG_OPT_BOOL, "b", default: "tru")], "option \"b\": its default is not JSON"),
            ([decl(NG_OPT_DOUBLE, "d", min: .nan, max: 1)], "option \"d\" has a NaN bound"),
            ([decl(NG_OPT_ENUM, "mode", choices: ["refuse", "queue", "refuse"])],
             "option \"mode\" lists the choice \"refuse\" twice"),
            ([decl(NG_OPT_STRINGS, "routes", choices: ["a", "a"])], "option \"routes\" lists the choice \"a\" twice"),
        ]
        for (decls, message) in cases {
            guard case .failure(let e) = table(decls) else { Issue.record("\(message): accepted"); continue }
            #expect(e.status == NG_E_GUARD && e.message.contains(message), "\(e.message)")
        }
        // No terminator within NG_MAX_OPTIONS: refused, not read forever.
        let many = (0...Int(NG_MAX_OPTIONS)).map { decl(NG_OPT_BOOL, "o\($0)") }
        guard case .failure(let e) = table(many) else { Issue.record("65 options accepted"); return }
        #expect(e.message.contains("more than 64 options"))
        // A size below the frozen minimum.
        var small = decl(NG_OPT_BOOL, "s")
        small.size = 8
        guard case .failure(let e2) = table([small]) else { Issue.record("size 8 accepted"); return }
        #expect(e2.message.contains("below"))
        // A size far above any declaration is refused before it is used as
        // the stride (0xFFFFFFFF stepped the reads 4 GiB away: SIGSEGV).
        for wild in [UInt32.max, UInt32(Limits.maxOptionDeclSize + 1)] {
            var big = decl(NG_OPT_BOOL, "b")
            big.size = wild
            guard case .failure(let e3) = table([big]) else { Issue.record("size \(wild) accepted"); return }
            #expect(e3.status == NG_E_GUARD && e3.message == "options[0].size is \(wild), above 1024 (set it to sizeof(ng_option_decl))",
                    "\(e3.message)")
        }
    }

    @Test func aLaterLargerDeclarationStillReads() throws {
        // A plugin built when ng_option_decl has grown: its entries are larger
        // than ours; the host steps by the plugin's size and reads its prefix.
        let ours = MemoryLayout<ng_option_decl>.size
        let stride = ours + 16
        let raw = UnsafeMutableRawPointer.allocate(byteCount: stride * 3, alignment: 8)
        raw.initializeMemory(as: UInt8.self, repeating: 0xEE, count: stride * 3)
        for (i, d) in [decl(NG_OPT_INT, "a", default: "1", min: 0, max: 9), decl(NG_OPT_BOOL, "b"), decl(NG_OPT_INT, nil)].enumerated() {
            var x = d
            x.size = UInt32(stride)
            withUnsafeBytes(of: &x) { (raw + i * stride).copyMemory(from: $0.baseAddress!, byteCount: ours) }
        }
        let t = try OptionTable(raw.assumingMemoryBound(to: ng_option_decl.self))
        #expect(t.options.map(\.name) == ["a", "b"])
        #expect(t.option("a")?.defaultValue == .integer(1))
    }

    @Test func theHostAnswersAnAbsentKeyWithItsDefault() throws {
        let (e, _) = makeEngine()
        let decls = declList([decl(NG_OPT_INT, "box"), decl(NG_OPT_INT, "limit", default: "8", min: 1, max: 64),
                              decl(NG_OPT_STRINGS, "kinds", default: #"["push"]"#, min: 0, max: 7),
                              decl(NG_OPT_STRING, "label")])
        let g = TestGuard(descriptor: makeDescriptor(id: "test.options") { $0.options = decls })
        var seen: (Int64, Int, String?, Int32) = (0, 0, nil, 0)
        g.onCreate = { g in
            let h = g.h
            var limit: Int64 = 0, n = 0
            var first: UnsafePointer<CChar>?
            _ = h.pointee.config_int!(h, "limit", &limit)
            _ = h.pointee.config_list_count!(h, "kinds", &n)
            _ = h.pointee.config_list_get!(h, "kinds", 0, &first)
            var label: UnsafePointer<CChar>?
            seen = (limit, n, first.map { String(cString: $0) }, h.pointee.config_string!(h, "label", &label))
            return true
        }
        try g.add(to: e)
        #expect(seen.0 == 8 && seen.1 == 1 && seen.2 == "push", "declared defaults: \(seen)")
        #expect(seen.3 == NG_E_NOT_FOUND, "no default: not found")
        // And a configured value wins; a wrong one never reaches create().
        let g2 = TestGuard(descriptor: makeDescriptor(id: "test.options2") { $0.options = decls })
        g2.onCreate = g.onCreate
        try g2.add(to: e, extra: #""limit":3"#)
        #expect(seen.0 == 3)
        let g3 = TestGuard(descriptor: makeDescriptor(id: "test.options3") { $0.options = decls })
        #expect(statusOf { () throws(EngineError) in try g3.add(to: e, extra: #""limit":99"#) } == NG_E_PARSE)
        #expect(g3.createCount == 0)
        e.destroy()
    }

    @Test func aCreateFailureGivesItsLoggedReason() throws {
        let (e, _) = makeEngine()
        let g = TestGuard(id: "test.reason")
        g.onCreate = { g in
            g.h.pointee.log!(g.h, NG_LOG_INFO, "starting")
            g.h.pointee.log!(g.h, NG_LOG_ERROR, "the printer is offline")
            return false
        }
        do { try g.add(to: e); Issue.record("created") } catch {
            #expect(error.status == NG_E_GUARD && error.message == "guard test.reason failed to create: the printer is offline")
        }
        let quiet = TestGuard(id: "test.quiet")
        quiet.onCreate = { _ in false }
        do { try quiet.add(to: e); Issue.record("created") } catch {
            #expect(error.message == "guard test.quiet failed to create: it logged no reason")
        }
        e.destroy()
    }
}

@Suite("core rules of 0.2")
struct CoreRules02Tests {
    @Test func replaceStackKeepingTheTopRunsNoTransition() {
        let (e, rec) = makeEngine()
        e.push(2, flags: ANIMATED)
        try! e.finishTransition(.all)
        rec.reset()
        let r = e.submit(.replace([Screen(id: 9, route: "menu"), Screen(id: 2, route: "screen2")], flags: ANIMATED))
        #expect(r.status == .applied)
        #expect(e.ids == [9, 2])
        #expect(rec.transitions.isEmpty, "the top stayed: no will/did")
        #expect(e.inFlight(.screen) == 0 && e.inFlight(.bar) == 0)
        #expect(rec.outcomes[r.requestID]?.outcome == .applied)
        // A new top does run one.
        let r2 = e.submit(.replace([Screen(id: 9, route: "menu")], flags: ANIMATED))
        #expect(rec.transitions.count == 2 && e.inFlight(.screen) == r2.requestID)
    }

    @Test func aSnapshotWithADuplicateKeyIsRefused() {
        let (e, _) = makeEngine()
        var bytes = Array(#"{"navguard_snapshot":1,"screens":[{"id":1,"route":"home","route":"menu"}]}"#.utf8)
        let st = statusOf { () throws(EngineError) in
            try bytes.withUnsafeMutableBufferPointer { b throws(EngineError) in try e.restore(snapshot: UnsafeBufferPointer(b)) }
        }
        #expect(st == NG_E_PARSE)
        #expect(e.ids == [1])
    }

    @Test func pushingAStackedIdIsADuplicate() {
        let (e, _) = makeEngine()
        e.push(2)
        let r = e.push(1)
        #expect(r.status == .refused && r.reason == .duplicate && r.guardID == nil)
        #expect(r.message?.string == "screen id 1 is already in the stack")
    }
}

/// A touch cancelled by what its own began set off: dropped, never delivered
/// then cancelled (navguard.h, ng_event_submit).
@Suite("a touch cancelled during its own began")
struct BeganSelfCancelTests {
    private func began(_ e: Engine, _ id: UInt64) -> EventVerdict {
        var ev = ng_event()
        ev.size = UInt32(MemoryLayout<ng_event>.size)
        ev.type = NG_EVENT_TOUCH
        ev.phase = NG_TOUCH_BEGAN
        ev.touch_id = id
        return withUnsafePointer(to: &ev) { e.submitEvent($0) }
    }

    private func phase(_ e: Engine, _ p: Int32, _ id: UInt64) -> EventVerdict {
        var ev = ng_event()
        ev.size = UInt32(MemoryLayout<ng_event>.size)
        ev.type = NG_EVENT_TOUCH
        ev.phase = p
        ev.touch_id = id
        return withUnsafePointer(to: &ev) { e.submitEvent($0) }
    }

    @Test func aHoldTakenInItsVoteWithholdsIt() throws {
        let (e, rec) = makeEngine()
        let g = TestGuard(id: "test.began-hold")
        g.onEvent = { g, ev in
            if ev.event.pointee.phase == NG_TOUCH_BEGAN {
                var t: UInt64 = 0
                _ = g.h.pointee.hold_begin!(g.h, "began", UInt32(NG_MASK_TOUCH), 0, &t)
            }
            return NG_VOTE_ALLOW
        }
        try g.add(to: e)
        let v = began(e, 1)
        #expect(v.verdict == .drop && v.reason == .ignoring)
        // The drop names the hold that blocked it, and its owner.
        #expect(v.guardID.map { String(cString: $0) } == "test.began-hold")
        #expect(v.holdToken == 1 && v.holdLabel.map { String(cString: $0) } == "began")
        #expect(rec.touchCancels.isEmpty)
        #expect(e.touch(at: 0)?.state == NG_TOUCH_STATE_WITHHELD)
        #expect(phase(e, NG_TOUCH_ENDED, 1).reason == .withheld)
        e.destroy()
        #expect(rec.touchCancels.isEmpty)
    }

    @Test func aCancelSetOffByItsBeganDropsIt() throws {
        let (e, rec) = makeEngine()
        // A: takes a key hold inside the began vote; B: cancels every touch
        // when any hold begins. Together they would cancel the new touch
        // before its began's verdict returned.
        let a = TestGuard(id: "test.key-hold")
        a.onEvent = { g, ev in
            if ev.event.pointee.phase == NG_TOUCH_BEGAN && ev.event.pointee.touch_id == 2 {
                var t: UInt64 = 0
                _ = g.h.pointee.hold_begin!(g.h, "keys", UInt32(NG_MASK_KEY), 0, &t)
            }
            return NG_VOTE_ALLOW
        }
        let b = TestGuard(id: "test.cancel-on-hold")
        b.onHold = { g, n in if !n.ended { _ = g.h.pointee.touch_cancel!(g.h, 0) } }
        try a.add(to: e)
        try b.add(to: e)
        #expect(began(e, 1).verdict == .deliver)           // an earlier, ordinary touch
        let v = began(e, 2)
        #expect(v.verdict == .drop && v.reason == .cancelled)
        #expect(rec.touchCancels == [1], "the earlier touch gets its cancel; the new one none")
        #expect(phase(e, NG_TOUCH_MOVED, 2).reason == .withheld)
        #expect(phase(e, NG_TOUCH_ENDED, 2).reason == .withheld)
        #expect(phase(e, NG_TOUCH_ENDED, 1).reason == .cancelled)
        #expect(e.touchCount == 0)
        e.destroy()
        #expect(rec.touchCancels == [1])
    }
}
