// SPDX-License-Identifier: Apache-2.0
// The flight recorder's binary records and their JSON: numbers written
// exactly, every record kind written and read back by its one definition,
// ring dumps that begin with the state at their first record, the
// malformed-request rule, and readers that survive damaged bytes.
import CNavGuard
import Glibc
@testable import NavGuard
@testable import NavGuardTrace
import NavGuardCore
import Testing

/// `encode` then `format`, as a JSON object.
/// (`braces`: false for a part that writes its own, a screen or a view.)
private func formatted(braces: Bool = true, _ encode: (inout RecordWriter) -> Void, _ format: (inout RecordReader, TraceLine) -> Void) -> JSONValue {
    let line = TraceLine()
    if braces { line.begin() }
    withEncoded(encode) { format(&$0, line) }
    if braces { line.end() }
    return (try? JSON.parse(line.bytes)) ?? .string(String(decoding: line.bytes, as: UTF8.self))
}

/// A ring recorder's dump, parsed.
private func ringDump(_ c: Ctx) -> (header: JSONValue, lines: [String], trace: Trace?) {
    let path = "/tmp/navguard-format-test-\(getpid()).jsonl"
    unlink(path)
    defer { unlink(path) }
    #expect(ng_record_dump(c.h, path) == NG_OK)
    let text = readText(path)
    let lines = text.split(separator: "\n").map(String.init)
    let header = lines.first.flatMap { try? JSON.parse($0) } ?? .null
    let bytes = Array(text.utf8)
    let trace = try? bytes.withUnsafeBufferPointer { b throws(TraceError) in try Trace.read(UnsafeRawBufferPointer(b)) }
    return (header, lines, trace)
}

private func startRing(_ c: Ctx, records: UInt32) {
    var o = ng_record_options()
    o.size = UInt32(MemoryLayout<ng_record_options>.size)
    o.ring_records = records
    #expect(ng_record_start(c.h, &o) == NG_OK)
}

@Suite("Trace format")
struct TraceFormatTests {
    @Test("numbers: every magnitude written exactly, signed and unsigned, UInt64 above Int64.max as a string")
    func numbers() {
        var values: [UInt64] = [0, 1, 9, UInt64(Int64.max), UInt64(Int64.max) + 1, .max]
        var p: UInt64 = 1
        for _ in 0..<19 {
            p *= 10
            values += [p - 1, p, p + 1]
        }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 { values.append(UInt64.random(in: 0 ... .max, using: &rng) >> UInt64.random(in: 0...63, using: &rng)) }
        for v in values {
            let line = TraceLine()
            line.begin()
            line.field("u", v)
            if v <= UInt64(Int64.max) { line.field("i", -Int64(v)) }
            line.end()
            let text = String(decoding: line.bytes, as: UTF8.self)
            let parsed = try? JSON.parse(line.bytes)
            #expect(parsed?["u"]?.uint64 == v, "\(text)")
            if v <= UInt64(Int64.max) { #expect(parsed?["i"]?.int64 == -Int64(v), "\(text)") }
        }
    }

    @Test("strings: bytes that are not UTF-8 become U+FFFD, also after an escape (the slow path), so every line stays JSON")
    func strings() {
        let cases: [([UInt8], String)] = [
            ([0x61, 0xFF, 0x62], "a\u{FFFD}b"),
            ([0x00, 0x61, 0xFF], "\u{0}a\u{FFFD}"),            // escape first, then a bad byte
            ([0x22, 0xC3, 0xA9, 0xC3], "\"é\u{FFFD}"),          // a good é, then half of one
            ([0x0A, 0x61], "\na"),
        ]
        for (bytes, want) in cases {
            let line = TraceLine()
            line.begin()
            bytes.withUnsafeBytes { line.key("s"); line.string($0) }
            line.end()
            let parsed = try? JSON.parse(line.bytes)
            #expect(parsed?["s"]?.string == want, "\(bytes) wrote \(String(decoding: line.bytes, as: UTF8.self))")
        }
    }

    @Test("every call, result and callback: written by its definition, read back by the same")
    func everyRecord() {
        // A request with every field.
        var r = Request(kind: .replaceStack, flags: 1, source: 7)
        r.screens = [Screen(id: 2, route: "menu"), Screen(id: 3, route: "item \"x\"", identity: "i", flags: 1)]
        r.targetID = 9
        r.durationNs = 5
        r.drivingTouch = UInt64.max
        r.fromScreen = 2
        r.device = 1 << 40
        let req = formatted({ TraceRequest.encode(&$0, r) }) { TraceRequest.format(&$0, $1) }
        let back = try? TraceRequest(json: req)
        #expect(back?.kind == NG_REQ_REPLACE_STACK && back?.flags == 1 && back?.source == 7 && back?.target == 9
                && back?.durationNs == 5 && back?.touch == UInt64.max && back?.from == 2 && back?.device == 1 << 40,
               "\(JSON.serialize(req))")
        #expect(back?.screens.map { $0.route } == ["menu", "item \"x\""] && back?.screens[1].flags == 1 && back?.screens[1].identity == "i")

        var e = ng_event()
        e.type = NG_EVENT_TOUCH
        e.phase = NG_TOUCH_MOVED
        e.touch_id = UInt64.max
        e.x = 12.25
        e.y = -3
        e.flags = UInt32(NG_EVF_HAS_TARGET)
        e.target_view = 4
        e.code = -9
        e.timestamp_ns = 123
        let ev = formatted({ TraceEvent.encode(&$0, e) }) { TraceEvent.format(&$0, $1) }
        let e2 = try? TraceEvent.read(json: ev)
        #expect(e2?.touch_id == UInt64.max && e2?.x == 12.25 && e2?.y == -3 && e2?.target_view == 4 && e2?.code == -9
                && e2?.timestamp_ns == 123 && e2?.phase == NG_TOUCH_MOVED, "\(JSON.serialize(ev))")

        let view = ViewSpec(id: 5, parent: 1, frame: Rect(x: 1, y: 2, width: 3, height: 4), order: 2, alpha: 0.5,
                            shape: .polygon([Point(x: 0, y: 0), Point(x: 1, y: 0), Point(x: 0, y: 1)]))
        let vj = formatted(braces: false, { TraceView.encode(&$0, view) }) { TraceView.format(&$0, $1) }
        let v2 = try? TraceView(json: vj)
        #expect(v2?.id == 5 && v2?.parent == 1 && v2?.w == 3 && v2?.alpha == 0.5 && v2?.points.count == 3
                && v2?.shapeKind == NG_SHAPE_POLYGON, "\(JSON.serialize(vj))")

        // Each call's arguments: its record read back as its CallArgs case.
        let calls: [(CallFn, (inout RecordWriter) -> Void)] = [
            (.root, { RootCall.encode(&$0, Screen(id: 1, route: "home")) }),
            (.submit, { SubmitCall.encode(&$0, r) }),
            (.event, { EventCall.encode(&$0, e) }),
            (.viewSet, { ViewSetCall.encode(&$0, view) }),
            (.viewRemove, { $0.u64(5) }),
            (.holdBegin, { HoldBeginCall.encode(&$0, label: CStr("net"), mask: 1, maxNs: 7) }),
            (.holdEnd, { $0.u64(3) }),
            (.finish, { $0.i32(NG_TRACK_BAR) }),
            (.interactiveUpdate, { $0.f64(0.5) }),
            (.interactiveRelease, { $0.bool(true) }),
            (.screenFlags, { $0.u64(2); $0.u32(1) }),
            (.questionAnswer, { $0.u64(4); $0.i32(NG_ANSWER_YES) }),
            (.restore, { w in [UInt8](arrayLiteral: 0xFF, 0x41).withUnsafeBytes { RestoreCall.encode(&w, $0) } }),
            (.clockSet, { $0.i64(8) }),
            (.chain, { ChainCall.encode(&$0, via: "ng_plugin_load", path: "/x.so", config: "{}") }),
            (.tick, { _ in }),
        ]
        for (fn, encode) in calls {
            let json = formatted(encode) { CallArgs.format(fn, &$0, $1) }
            #expect((try? CallArgs.read(fn, json)) != nil, "\(fn.name): \(JSON.serialize(json))")
        }
        let restore = formatted({ w in [UInt8](arrayLiteral: 0xFF, 0x41).withUnsafeBytes { RestoreCall.encode(&w, $0) } }) {
            CallArgs.format(.restore, &$0, $1)
        }
        if case .restore(let bytes)? = try? CallArgs.read(.restore, restore) { #expect(bytes == [0xFF, 0x41]) } else { Issue.record("restore") }

        // Results.
        let sub = formatted({ CallResult.encode(&$0, status: NG_OK, .submit(status: NG_OUTCOME_REFUSED, id: 3, reason: NG_REASON_BUSY, guardID: staticC("g")), err: nil) }) {
            CallResult.format(&$0, $1)
        }["ret"] ?? .null
        let tr = TraceResult(json: sub)
        #expect(tr.ok && tr.outcome == NG_OUTCOME_REFUSED && tr.id == 3 && tr.reason == NG_REASON_BUSY && tr.guardID == "g", "\(JSON.serialize(sub))")
        let failed = formatted({ CallResult.encode(&$0, status: NG_E_RANGE, .none, err: staticC("why")) }) { CallResult.format(&$0, $1) }["ret"] ?? .null
        #expect(TraceResult(json: failed).status == "NG_E_RANGE" && TraceResult(json: failed).err == "why")
        // A transition's return instant: "tr" beside "ret" on the line, read
        // back as the result's datedAt; the ret object is the same as without.
        let datedLine = formatted({ CallResult.encode(&$0, status: NG_OK, .token(6), err: nil, datedAt: 1_234_567_890_123) }) {
            CallResult.format(&$0, $1)
        }
        #expect(datedLine["tr"]?.int64 == 1_234_567_890_123, "\(JSON.serialize(datedLine))")
        let undated = formatted({ CallResult.encode(&$0, status: NG_OK, .token(6), err: nil) }) { CallResult.format(&$0, $1) }
        #expect(undated["tr"] == nil && datedLine["ret"].map(JSON.serialize) == undated["ret"].map(JSON.serialize),
                "\(JSON.serialize(datedLine)) / \(JSON.serialize(undated))")
        let record = TraceRecord(line: 2, kind: .ret, fn: "tick", value: datedLine, text: "")
        if case .ret(_, let res)? = try? record.entry() {
            #expect(res.datedAt == 1_234_567_890_123 && res.token == 6)
        } else {
            Issue.record("a ret with tr")
        }

        // Callbacks.
        let o = formatted({ TraceOutcome.encode(&$0, OutcomeRecord(requestID: 9, kind: .push, outcome: .dropped, reason: .busy,
                                                                   source: 2, guardID: staticC("g"), message: CStr("m"))) }) {
            TraceCallback.format(.outcome, &$0, $1)
        }
        if case .outcome(let x) = TraceCallback.read(.outcome, o) {
            #expect(x.id == 9 && x.kind == .push && x.outcome == .dropped && x.reason == .busy && x.source == 2 && x.guardID == "g" && x.message == "m")
        } else {
            Issue.record("outcome")
        }
        // A value this build does not name (a newer version's) is written as
        // its number and read back into the typed field unchanged.
        let newer = formatted({ TraceOutcome.encode(&$0, OutcomeRecord(requestID: 10, kind: RequestKind(rawValue: 99), outcome: .applied,
                                                                       reason: Reason(rawValue: 77), source: 0, guardID: nil, message: nil)) }) {
            TraceCallback.format(.outcome, &$0, $1)
        }
        #expect(newer["kind"]?.int64 == 99 && newer["reason"]?.int64 == 77, "\(JSON.serialize(newer))")
        if case .outcome(let x) = TraceCallback.read(.outcome, newer) {
            #expect(x.kind.rawValue == 99 && !x.kind.isKnown && x.reason.rawValue == 77 && x.kindName == "99")
        } else {
            Issue.record("an outcome with unknown values")
        }
        // on_press_cancel (0.4): every field, the cause and type by name.
        var p = ng_press_info()
        p.type = NG_EVENT_REMOTE
        p.device = UInt64.max
        p.code = Int64(NG_BUTTON_B)
        p.view_id = 0
        p.screen_id = 2
        p.down_ns = 1_000_000_007
        p.cause = NG_PRESS_DEVICE_REMOVED
        let pc = formatted({ TracePressCancel.encode(&$0, p) }) { TraceCallback.format(.pressCancel, &$0, $1) }
        #expect(pc["type"]?.string == "remote" && pc["cause"]?.string == "device-removed" && pc["view"] == nil
                && pc["screen"]?.uint64 == 2, "\(JSON.serialize(pc))")
        if case .pressCancel(let x) = TraceCallback.read(.pressCancel, pc) {
            #expect(x.type == NG_EVENT_REMOTE && x.device == UInt64.max && x.code == Int64(NG_BUTTON_B) && x.view == 0
                    && x.screen == 2 && x.down == 1_000_000_007 && x.cause == NG_PRESS_DEVICE_REMOVED && x.causeName == "device-removed")
        } else {
            Issue.record("press_cancel")
        }
        #expect(CallbackFn(name: "press_cancel") == .pressCancel && CallbackFn.pressCancel.rawValue == 9)
    }

    @Test("a ring dump begins with the state at its first record: every screen named, what was live listed")
    func ringCheckpoint() {
        let c = Ctx()
        var v = squareView(id: 7)
        #expect(ng_view_set(c.h, &v) == NG_OK)
        startRing(c, records: 10)
        v.id = 8
        v.parent = 7
        #expect(ng_view_set(c.h, &v) == NG_OK)   // after the ring's first checkpoint: rolled forward
        for i in 0..<12 { _ = submitPush(c.h, UInt64(100 + i), "r\(i)") }
        var token: UInt64 = 0
        #expect(ng_hold_begin(c.h, "net", UInt32(NG_MASK_TOUCH), 0, &token) == NG_OK)
        var e = touchEvent(NG_TOUCH_BEGAN, id: 4, x: 10, y: 10)
        #expect(ng_event_submit(c.h, &e, nil) == NG_OK)
        _ = submitPush(c.h, 200, "late", flags: UInt32(NG_REQF_ANIMATED))
        for i in 0..<20 { #expect(ng_clock_advance(c.h, Int64(i)) == NG_OK) }   // fills the window: the push leaves it
        let (header, lines, trace) = ringDump(c)
        #expect(lines.count == 11)
        let state = header["state"]
        let routes = state?["stack"]?.array?.compactMap { $0["route"]?.string } ?? []
        #expect(routes == ["root"] + (0..<12).map { "r\($0)" } + ["late"], "\(routes)")
        #expect(state?["views"]?.array?.compactMap { $0["id"]?.int64 }.sorted() == [7, 8], "the view set after the start, rolled forward")
        #expect(state?["holds"]?.array?.first?["label"]?.string == "net")
        #expect(state?["touches"]?.array?.first?["touch"]?.int64 == 4)
        let t = state?["transitions"]?.array ?? []
        #expect(t.count == 2 && t.allSatisfy { $0["kind"]?.string == "push" && $0["to"]?.int64 == 200 }, "the push to late, in flight")
        #expect(state?["unknown"] == nil)
        // The typed reader agrees.
        let s = (try? trace?.header.readState()) ?? nil
        #expect(s?.stack.count == 14 && s?.holds.first?.label == "net" && s?.touches.first?.touch == 4 && s?.transitions.count == 2)
        #expect(ng_record_stop(c.h) == NG_OK)
    }

    @Test("a large ring writes a checkpoint at most every so many records: its dump begins at one, never past what it knows")
    func ringCheckpointGap() {
        let c = Ctx()
        startRing(c, records: 100_000)   // a checkpoint at most every 195 records
        var e = ng_event()
        e.size = UInt32(MemoryLayout<ng_event>.size)
        e.type = NG_EVENT_TOUCH
        e.x = 1
        e.y = 1
        for i in 0..<300 {
            _ = submitPush(c.h, UInt64(1000 + i), "s\(i)")   // the stack changes at every call
            e.touch_id = UInt64(i)
            e.phase = NG_TOUCH_BEGAN
            _ = ng_event_submit(c.h, &e, nil)
            e.phase = NG_TOUCH_ENDED
            _ = ng_event_submit(c.h, &e, nil)
        }
        let (header, lines, trace) = ringDump(c)
        #expect(lines.count > 1 && lines.count <= 100_001)
        // The checkpoint is the stack before the first record's push: the
        // pushes in the records then make the stack as it is now.
        let first = (trace?.records ?? []).compactMap { r -> UInt64? in
            if case .call(.submit, _, .submit(let req, _), _)? = try? r.entry() { return req.screen?.id }
            return nil
        }
        let stack = header["state"]?["stack"]?.array?.compactMap { $0["id"]?.uint64 } ?? []
        #expect(stack + first == [1] + (0..<300).map { UInt64(1000 + $0) }, "state \(stack.count) screens, then \(first.count) pushes")
        #expect(ng_record_stop(c.h) == NG_OK)
    }

    @Test("a malformed request replays as the same refusal, by the rule SubmitCall states (no flag, no rewritten message)")
    func malformedRequest() {
        let c = Ctx(root: nil)
        let sink = TraceSink()
        #expect(recordToSink(c.h, sink) == NG_OK)
        #expect(c.setRoot(1, "home") == NG_OK)
        let (st, out) = submitPush(c.h, 2, routeBytes: [0x66, 0xFF, 0x66])   // not UTF-8
        #expect(st == NG_OK && out.status == NG_OUTCOME_REFUSED && out.reason == NG_REASON_INVALID)
        let (st2, out2) = submitPush(c.h, 3, "ok", flags: 0x8000)   // an unknown flag
        #expect(st2 == NG_OK && out2.reason == NG_REASON_INVALID)
        withExtendedLifetime(sink) { _ = c.destroy() }
        let submits = sink.lines.filter { $0.contains("\"fn\":\"submit\"") && $0.contains("\"invalid\":") }
        #expect(submits.count == 2 && !sink.text.contains("1073741824"), "\(submits)")
        let (rst, identical, report, _) = replay(sink.text)
        #expect(rst == NG_OK && identical, "\(report)")
    }

    @Test("damaged bytes: a ring image or a crash dump with garbage, cut short or out of order is read up to the damage, never past it")
    func damagedRings() {
        var rng = SystemRandomNumberGenerator()
        // A real ring image: records of a session.
        let c = Ctx()
        startRing(c, records: 1000)
        for i in 0..<50 { _ = submitPush(c.h, UInt64(10 + i), "p\(i)") }
        let (_, lines, _) = ringDump(c)
        #expect(lines.count > 50)
        // Its bytes as a crash dump would hold them, damaged at random
        // places: read up to the damage, never past it.
        var st = NG_OK
        let ring = registry.owned(c.h, &st)!.takeUnretainedValue().recorder!.ring.pointee
        let bytes = Array(UnsafeRawBufferPointer(start: ring.bytes + Int(ring.head), count: Int(ring.tail - ring.head)))
        let info = RingInfo(manualClock: true, manualStartNs: 0, defaultDurationNs: 1, postedBase: 1 << 52, records: 1000, ns: 0,
                            atNs: 0, droppedBefore: 0, crash: nil)
        let whole = bytes.withUnsafeBytes { RingReader.trace($0, info) }
        #expect(whole.note == nil && whole.lines == lines.count - 1)
        for _ in 0..<300 {
            var damaged = bytes
            var changed: [(at: Int, to: UInt8)] = []
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                changed.append((Int.random(in: 0..<damaged.count, using: &rng), UInt8.random(in: 0...255, using: &rng)))
                damaged[changed.last!.at] = changed.last!.to
            }
            let cut = Int.random(in: 0...damaged.count, using: &rng)
            let t = damaged[..<cut].withUnsafeBytes { RingReader.trace($0, info) }
            #expect(t.lines <= whole.lines)
            let parsed = Result { () throws(TraceError) in
                try t.text.withUnsafeBufferPointer { b throws(TraceError) in try Trace.read(UnsafeRawBufferPointer(b)) }
            }
            if case .failure(let e) = parsed {
                Issue.record("a damaged ring still reads as a trace: line \(e.line): \(e.message) (bytes changed: \(changed), cut at \(cut))")
            }
        }
        // A call dated before 0 (its instant's sign bit damaged) ends the
        // records: first_ns and every line's time stay >= 0.
        var early = bytes
        var at = 0
        while let h = early.withUnsafeBytes({ RecordHeader.load($0.baseAddress! + at, available: $0.count - at) }) {
            if h.kind == RecordKind.call.rawValue && at > 0 { break }
            at += Int(h.size)
        }
        #expect(at < early.count, "a call record after the first")
        early[at + RecordHeader.size + 7] |= 0x80
        let t = early.withUnsafeBytes { RingReader.trace($0, info) }
        #expect(t.note?.contains("dated before 0") == true && t.lines < whole.lines, "\(t.note ?? "no note")")
        #expect((try? t.text.withUnsafeBufferPointer { b throws(TraceError) in try Trace.read(UnsafeRawBufferPointer(b)) }) != nil)
        #expect(ng_record_stop(c.h) == NG_OK)
        // Crash-dump files made by hand: a header (each field as the
        // reader requires it: docs/trace-format.md), then random bytes.
        for n in [0, 8, 16, 104, 4096] {
            var file = [UInt8](repeating: 0, count: 128)
            for (i, b) in "NGBBOX01".utf8.enumerated() { file[i] = b }
            file[8] = 128
            file[12] = 1
            file[24] = 1      // pid
            file[64] = 100    // ring_records
            file[100] = 1
            let body = (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) }
            withUnsafeBytes(of: UInt64(n).littleEndian) { for (i, b) in $0.enumerated() { file[104 + i] = b } }
            file += body
            let out = try? file.withUnsafeBufferPointer { b throws(TraceError) in try CrashDumpFile.convert(UnsafeRawBufferPointer(b)) }
            #expect(out != nil, "a header and \(n) random bytes still convert")
            if let text = out?.text {
                let parsed = try? text.withUnsafeBufferPointer { b throws(TraceError) in try Trace.read(UnsafeRawBufferPointer(b)) }
                #expect(parsed?.header.start == "ring")
            }
        }
        // Too short, another layout: refused with a reason.
        let short = Array("NGBBOX01xx".utf8)
        #expect((try? short.withUnsafeBufferPointer { b throws(TraceError) in try CrashDumpFile.convert(UnsafeRawBufferPointer(b)) }) == nil)
        // A header field the file contradicts, or no writer writes: refused,
        // the error naming it (the first trapped: an overflowing sum).
        var good = [UInt8](repeating: 0, count: 128)
        for (i, b) in "NGBBOX01".utf8.enumerated() { good[i] = b }
        good[8] = 128
        good[12] = 1
        good[24] = 1
        good[64] = 1
        good[100] = 1
        good += bytes.prefix(bytes.count & ~7)
        withUnsafeBytes(of: UInt64(bytes.count & ~7).littleEndian) { for (i, b) in $0.enumerated() { good[104 + i] = b } }
        #expect((try? good.withUnsafeBufferPointer { b throws(TraceError) in try CrashDumpFile.convert(UnsafeRawBufferPointer(b)) }) != nil)
        for (field, offset, value) in [("dropped_lines", 88, UInt64.max), ("ring_records", 64, UInt64.max), ("header_size", 8, 0xFFFF_FFFF),
                                       ("records_bytes", 104, UInt64.max), ("pid", 24, 0), ("last_ns", 80, 1 << 63)] as [(String, Int, UInt64)] {
            var file = good
            let width = field == "header_size" ? 4 : 8
            withUnsafeBytes(of: value.littleEndian) { for (i, b) in $0.prefix(width).enumerated() { file[offset + i] = b } }
            var message = ""
            do throws(TraceError) {
                _ = try file.withUnsafeBufferPointer { b throws(TraceError) in try CrashDumpFile.convert(UnsafeRawBufferPointer(b)) }
            } catch {
                message = error.message
                #expect(error.status == NG_E_PARSE)
            }
            #expect(message.contains("\(field) (offset \(offset))"), "\(field): \(message)")
        }
    }
}
