// SPDX-License-Identifier: Apache-2.0
// The flight recorder and replay through the C API: what a trace holds,
// replays that match and replays that do not, the ring, the host's writer,
// and traces that are cut, corrupted, hand-edited or from a newer version.
// (Replays against plugin files are in ctest/c/test_record.c: the Swift
// tests have no plugin directory.)
import CNavGuard
import Glibc
import NavGuard
import NavGuardTrace
import Testing

/// A host writer that collects the trace in memory.
final class TraceSink {
    var bytes: [UInt8] = []
    var chunks = 0
    var stopAfter = Int.max
    var text: String { String(decoding: bytes, as: UTF8.self) }
    var lines: [String] { text.split(separator: "\n").map(String.init) }
}

func recordToSink(_ h: OpaquePointer?, _ sink: TraceSink) -> ng_status {
    var o = ng_record_options()
    o.size = UInt32(MemoryLayout<ng_record_options>.size)
    o.user = Unmanaged.passUnretained(sink).toOpaque()
    o.write = { user, data, len in
        let s = Unmanaged<TraceSink>.fromOpaque(user!).takeUnretainedValue()
        s.bytes.append(contentsOf: UnsafeRawBufferPointer(start: data, count: len))
        s.chunks += 1
        return s.chunks < s.stopAfter
    }
    return ng_record_start(h, &o)
}

/// Replay `text`; the status, whether identical, the report and its line.
func replay(_ text: String, chain: String? = nil) -> (ng_status, Bool, String, UInt64) {
    var out = ng_replay_result()
    out.size = UInt32(MemoryLayout<ng_replay_result>.size)
    var o = ng_replay_options()
    o.size = UInt32(MemoryLayout<ng_replay_options>.size)
    var bytes = Array(text.utf8).map { CChar(bitPattern: $0) }
    let n = bytes.count
    bytes.append(0)
    let st: ng_status = bytes.withUnsafeBufferPointer { p in
        if let chain { return chain.withCString { c in o.chain = c; return ng_replay(p.baseAddress, n, &o, &out) } }
        return ng_replay(p.baseAddress, n, &o, &out)
    }
    let report = out.report.map { String(cString: $0) } ?? ""
    ng_free(out.report)
    return (st, out.identical, report, out.line)
}

/// A session on a fresh context, recorded from its creation: pushes (one
/// animated, finished), a request made inside a callback, views and
/// touches, a hold over a touch, a swipe back driven by a finger and
/// released to cancel, a bad call, and destroy.
func recordedSession(clock: ng_clock_kind = NG_CLOCK_MANUAL) -> TraceSink {
    let c = Ctx(root: nil, clock: clock)
    let sink = TraceSink()
    #expect(recordToSink(c.h, sink) == NG_OK)
    #expect(c.setRoot(1, "home") == NG_OK)
    let h = c.h
    c.rec.onOutcome = { _, o in
        // A request made from inside a callback (queued, run to completion).
        if o.kind == NG_REQ_PUSH && o.outcome == NG_OUTCOME_APPLIED && o.request_id == 1 {
            _ = submitPush(h, 99, "from-callback")
        }
    }
    _ = submitPush(c.h, 2, "menu")
    _ = submitPush(c.h, 3, "item", flags: UInt32(NG_REQF_ANIMATED))
    if clock == NG_CLOCK_MANUAL { #expect(ng_clock_advance(c.h, 30_000_000) == NG_OK) }
    #expect(ng_transition_finish(c.h, NG_TRACK_ALL) == NG_OK)
    var v = squareView(id: 7)
    #expect(ng_view_set(c.h, &v) == NG_OK)
    var e = touchEvent(NG_TOUCH_BEGAN, id: 1, x: 50.5, y: 20)
    var r = ng_event_result()
    r.size = UInt32(MemoryLayout<ng_event_result>.size)
    #expect(ng_event_submit(c.h, &e, &r) == NG_OK && r.target_view == 7)
    var token: UInt64 = 0
    #expect(ng_hold_begin(c.h, "network \"quoted\"\n", UInt32(NG_MASK_TOUCH), 200_000_000, &token) == NG_OK)
    e.phase = NG_TOUCH_ENDED
    #expect(ng_event_submit(c.h, &e, &r) == NG_OK)
    if clock == NG_CLOCK_MANUAL {
        #expect(ng_clock_advance(c.h, 300_000_000) == NG_OK)   // the hold expires at the tick
    } else {
        #expect(ng_hold_end(c.h, token) == NG_OK)
    }
    #expect(ng_tick(c.h) == NG_OK)
    // A swipe back driven by a finger, released to cancel.
    e.phase = NG_TOUCH_BEGAN
    e.touch_id = 2
    #expect(ng_event_submit(c.h, &e, &r) == NG_OK)
    var back = request(NG_REQ_INTERACTIVE_BACK, flags: UInt32(NG_REQF_TOUCH_DRIVEN))
    back.driving_touch = 2
    var out = result()
    #expect(ng_request_submit(c.h, &back, &out) == NG_OK)
    #expect(ng_interactive_update(c.h, 0.25) == NG_OK)
    #expect(ng_interactive_release(c.h, false) == NG_OK)
    #expect(ng_interactive_complete(c.h) == NG_OK)
    e.phase = NG_TOUCH_ENDED
    #expect(ng_event_submit(c.h, &e, &r) == NG_OK)
    #expect(ng_hold_end(c.h, 12345) == NG_E_NOT_FOUND)    // a failing call is recorded with its status
    #expect(ng_event_submit(c.h, nil, nil) == NG_E_NULL)   // refused before it did anything: "rejected"
    _ = c.destroy()
    return sink
}

@Suite("Flight recorder")
struct RecorderTests {
    @Test("a session recorded from creation replays identically; every call, result and callback is there")
    func roundTrip() {
        let sink = recordedSession()
        let lines = sink.lines
        #expect(lines.first?.hasPrefix("{\"navguard_trace\":1,") == true)
        #expect(lines.first?.contains("\"start\":\"create\"") == true)
        // The one-line form for a call without callbacks, and the call/ret
        // pair around callbacks and a call made inside one of them.
        #expect(lines.contains { $0.hasPrefix("{\"k\":\"call\",\"fn\":\"view_set\"") && $0.contains("\"ret\":{\"st\":\"NG_OK\"}") })
        let push = lines.firstIndex { $0.hasPrefix("{\"k\":\"call\",\"fn\":\"submit\"") && $0.contains("\"menu\"") }!
        #expect(!lines[push].contains("\"ret\""))
        #expect(lines[push + 1].hasPrefix("{\"k\":\"cb\",\"fn\":\"outcome\""))
        #expect(lines[push + 2].hasPrefix("{\"k\":\"call\",\"fn\":\"submit\"") && lines[push + 2].contains("from-callback")
                && lines[push + 2].contains("\"status\":\"queued\""))
        #expect(lines.contains { $0.contains("\"fn\":\"hold_end\",\"t\":") && $0.contains("\"st\":\"NG_E_NOT_FOUND\"") })
        #expect(lines.contains { $0.contains("\"fn\":\"event\"") && $0.contains("\"rejected\":true") && $0.contains("NG_E_NULL") })
        #expect(lines.contains { $0.contains("\"label\":\"network \\\"quoted\\\"\\n\"") })
        #expect(lines.contains { $0.hasPrefix("{\"k\":\"cb\",\"fn\":\"transition\"") && $0.contains("\"phase\":\"cancelled\"") })
        #expect(lines.last?.hasPrefix("{\"k\":\"call\",\"fn\":\"destroy\"") == true)
        let (st, identical, report, _) = replay(sink.text)
        #expect(st == NG_OK && identical, "\(report)")
        #expect(report.contains("identical"))
    }

    @Test("a monotonic-clock session replays identically on replay's manual clock: one instant per call")
    func monotonicRoundTrip() {
        let sink = recordedSession(clock: NG_CLOCK_MONOTONIC)
        #expect(sink.lines.first?.contains("\"clock\":\"monotonic\"") == true)
        let (st, identical, report, _) = replay(sink.text)
        #expect(st == NG_OK && identical, "\(report)")
    }

    @Test("clock calls refused by a monotonic clock replay as refused (replay itself runs on a manual clock)")
    func monotonicClockCalls() {
        let c = Ctx(root: nil, clock: NG_CLOCK_MONOTONIC)
        let sink = TraceSink()
        #expect(recordToSink(c.h, sink) == NG_OK)
        #expect(c.setRoot(1, "home") == NG_OK)
        #expect(ng_clock_set(c.h, 5) == NG_E_STATE)
        #expect(ng_clock_advance(c.h, 5) == NG_E_STATE)
        _ = submitPush(c.h, 2, "menu")
        withExtendedLifetime(sink) { _ = c.destroy() }
        let (st, identical, report, _) = replay(sink.text)
        #expect(st == NG_OK && identical, "\(report)")
    }

    @Test("a changed trace diverges at the changed line, and the report shows the input, the recording and now")
    func divergence() {
        let sink = recordedSession()
        // Hand-edit: the touch's began now misses the view.
        var lines = sink.lines
        let i = lines.firstIndex { $0.contains("\"fn\":\"event\"") && $0.contains("\"phase\":\"began\"") && $0.contains("\"touch\":1") }!
        lines[i] = lines[i].replacingFirst("\"x\":50.5", with: "\"x\":500.5")
        let (st, identical, report, line) = replay(lines.joined(separator: "\n") + "\n")
        #expect(st == NG_OK && !identical)
        #expect(line == UInt64(i + 1), "\(report)")
        #expect(report.contains("diverged at line \(i + 1)") && report.contains("input:") && report.contains("recorded:")
                && report.contains("now:"))
        #expect(report.contains("\"view\":7") && report.contains("\"view\":0"))
    }

    @Test("replaying against another chain: a guard that refuses pushes diverges at the first push")
    func otherChain() {
        let sink = recordedSession()
        // No plugin files here: a chain that cannot be built is an error naming it.
        let (st, _, report, _) = replay(sink.text, chain: "{\"guards\":[{\"id\":\"org.example.nowhere\"}]}")
        #expect(st == NG_E_LOAD && report.contains("org.example.nowhere"), "\(report)")
        let (st2, identical, report2, _) = replay(sink.text, chain: "{\"guards\":[]}")
        #expect(st2 == NG_OK && identical, "the recording had an empty chain too: \(report2)")
    }

    @Test("bad traces: empty, not a trace, a corrupted line, a newer version, a cut-off last line, a ring dump")
    func badTraces() {
        let text = recordedSession().text
        var lines = text.split(separator: "\n").map(String.init)

        var r = replay("")
        #expect(r.0 == NG_E_PARSE && r.2.contains("empty"))
        r = replay("hello\n")
        #expect(r.0 == NG_E_PARSE && r.3 == 1 && r.2.contains("not a NavGuard trace"))
        r = replay("{\"something\":1}\n")
        #expect(r.0 == NG_E_PARSE && r.2.contains("navguard_trace"))
        r = replay(lines[0].replacingFirst("\"navguard_trace\":1", with: "\"navguard_trace\":2") + "\n")
        #expect(r.0 == NG_E_RANGE && r.2.contains("version 2"), "\(r.2)")

        var corrupt = lines
        corrupt[4] = String(corrupt[4].dropLast(3))
        r = replay(corrupt.joined(separator: "\n") + "\n")
        #expect(r.0 == NG_E_PARSE && r.3 == 5 && r.2.contains("line 5"), "\(r.2)")

        var unknown = lines
        let call = unknown.firstIndex { $0.hasPrefix("{\"k\":\"call\",\"fn\":\"view_set\"") }!
        unknown[call] = unknown[call].replacingFirst("\"fn\":\"view_set\"", with: "\"fn\":\"teleport\"")
        r = replay(unknown.joined(separator: "\n") + "\n")
        #expect(r.0 == NG_E_PARSE && r.2.contains("teleport"), "\(r.2)")

        // A trace cut in the middle of its last line (a kiosk that lost
        // power) replays up to the last whole line.
        let cut = String(text.dropLast(40))
        r = replay(cut)
        #expect(r.0 == NG_OK && r.1, "\(r.2)")
        #expect(r.2.contains("cut off"))

        lines[0] = lines[0].replacingFirst("\"start\":\"create\"", with: "\"start\":\"ring\"")
        r = replay(lines.joined(separator: "\n") + "\n")
        #expect(r.0 == NG_E_STATE && r.2.contains("ring dump"))

        // Random bytes and every prefix of a real trace: never a crash.
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let junk = String(decoding: (0..<Int.random(in: 0..<300, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }, as: UTF8.self)
            _ = replay(junk)
        }
        for n in stride(from: 0, to: text.utf8.count, by: 97) { _ = replay(String(text.prefix(n))) }
    }

    @Test("a ring that wrapped counts every line it dropped: dropped + the lines shown = the lines a file trace has")
    func ringDroppedCount() {
        // The same calls into a ring that wraps many times (1 MiB, its
        // least) and into a file: the ring counts the lines it drops in
        // batches, and must count each one once.
        func session(_ h: OpaquePointer?) {
            for i in 0..<12_000 {
                _ = submitPush(h, UInt64(100 + i), "screen-\(i)")
                _ = submit(h, NG_REQ_POP)
            }
        }
        let path = "/tmp/navguard-ring-dropped-\(getpid()).jsonl"
        let filePath = "/tmp/navguard-ring-dropped-\(getpid())-file.jsonl"
        unlink(path)
        unlink(filePath)
        defer { unlink(path); unlink(filePath) }
        let ring = Ctx(), file = Ctx()
        var o = ng_record_options()
        o.size = UInt32(MemoryLayout<ng_record_options>.size)
        o.ring_records = 10
        #expect(ng_record_start(ring.h, &o) == NG_OK)
        filePath.withCString { p in
            var f = ng_record_options()
            f.size = UInt32(MemoryLayout<ng_record_options>.size)
            f.path = p
            #expect(ng_record_start(file.h, &f) == NG_OK)
        }
        session(ring.h)
        session(file.h)
        #expect(ng_record_dump(ring.h, path) == NG_OK)
        #expect(ng_record_stop(file.h) == NG_OK)
        let dump = readText(path).split(separator: "\n")
        let fileLines = readText(filePath).split(separator: "\n").count - 1   // less its header
        guard let header = dump.first, let r = header.firstRange(of: "\"dropped\":") else {
            Issue.record("no dropped count in \(dump.first ?? "")")
            return
        }
        let dropped = Int(header[r.upperBound...].prefix { $0.isNumber }) ?? -1
        #expect(fileLines > 40_000, "the session wraps the ring: \(fileLines) lines")
        #expect(dropped + dump.count - 1 == fileLines, "dropped \(dropped) + shown \(dump.count - 1) vs \(fileLines)")
    }

    @Test("ring mode keeps the newest records; a dump is a trace that says so and is refused by replay")
    func ring() {
        let c = Ctx()
        var o = ng_record_options()
        o.size = UInt32(MemoryLayout<ng_record_options>.size)
        o.ring_records = 10
        #expect(ng_record_start(c.h, &o) == NG_OK)
        for i in 0..<40 { _ = submitPush(c.h, UInt64(100 + i), "r\(i)") }
        let path = "/tmp/navguard-ring-test-\(getpid()).jsonl"
        unlink(path)
        defer { unlink(path) }
        #expect(ng_record_dump(c.h, path) == NG_OK)
        let text = readText(path)
        let lines = text.split(separator: "\n")
        #expect(lines.count == 11, "a header and the newest 10 records")
        #expect(lines[0].contains("\"start\":\"ring\"") && lines[0].contains("\"dropped\":"))
        // The records are the newest (r0's push is gone); the header's
        // checkpoint still names r0, which is on the stack.
        let records = lines.dropFirst().joined(separator: "\n")
        #expect(records.contains("\"route\":\"r39\"") && !records.contains("\"route\":\"r0\""))
        #expect(lines[0].contains("\"state\":{\"stack\":[") && lines[0].contains("\"route\":\"r0\""))
        #expect(replay(text).0 == NG_E_STATE)
        #expect(ng_record_dump(c.h, "/nonexistent-dir/x.jsonl") == NG_E_IO)
        #expect(ng_record_dump(c.h, path) == NG_E_IO, "the name is taken: a dump writes a new file only")
        #expect(ng_record_stop(c.h) == NG_OK)
        #expect(ng_record_stop(c.h) == NG_E_STATE)
        #expect(ng_record_dump(c.h, path) == NG_E_STATE)
    }

    @Test("options: exactly one destination; one recorder at a time; not inside a callback; a file that cannot be created")
    func options() {
        let c = Ctx()
        var o = ng_record_options()
        o.size = UInt32(MemoryLayout<ng_record_options>.size)
        #expect(ng_record_start(c.h, &o) == NG_E_RANGE)
        #expect(ng_record_start(c.h, nil) == NG_E_NULL)
        o.ring_records = 5
        o.path = UnsafePointer(strdup("/tmp/x.jsonl"))
        #expect(ng_record_start(c.h, &o) == NG_E_RANGE)
        free(UnsafeMutablePointer(mutating: o.path))
        o.path = nil
        o.ring_records = 0
        o.ring_ns = -1
        #expect(ng_record_start(c.h, &o) == NG_E_RANGE)
        o.size = 8
        #expect(ng_record_start(c.h, &o) == NG_E_SIZE)
        let sink = TraceSink()
        defer { withExtendedLifetime(sink) { _ = c.destroy() } }
        #expect(recordToSink(c.h, sink) == NG_OK)
        #expect(recordToSink(c.h, TraceSink()) == NG_E_STATE)
        // Started after the root was set: a mid-session trace.
        #expect(sink.lines.first?.contains("\"start\":\"mid-session\"") == true)
        #expect(sink.lines.first?.contains("\"stack\":[{\"id\":1,") == true)
        var inside = NG_OK
        let h = c.h
        c.rec.onOutcome = { _, _ in inside = ng_record_stop(h) }
        _ = submitPush(c.h, 2)
        #expect(inside == NG_E_CALLBACK)
        #expect(ng_record_stop(c.h) == NG_OK)
        var f = ng_record_options()
        f.size = UInt32(MemoryLayout<ng_record_options>.size)
        f.path = UnsafePointer(strdup("/nonexistent-dir/trace.jsonl"))
        #expect(ng_record_start(c.h, &f) == NG_E_IO)
        #expect(c.errmsg.contains("/nonexistent-dir/trace.jsonl"))
        free(UnsafeMutablePointer(mutating: f.path))
    }

    @Test("a mid-session trace replays from the recorded stack and views when nothing was live; otherwise it is refused")
    func midSession() {
        let c = Ctx()
        var v = squareView(id: 3, side: 50)
        #expect(ng_view_set(c.h, &v) == NG_OK)
        _ = submitPush(c.h, 2, "menu")
        let sink = TraceSink()
        #expect(recordToSink(c.h, sink) == NG_OK)
        _ = submitPush(c.h, 4, "item")
        var e = touchEvent(NG_TOUCH_BEGAN, id: 9, x: 10, y: 10)
        #expect(ng_event_submit(c.h, &e, nil) == NG_OK)
        _ = c.destroy()
        let (st, identical, report, _) = replay(sink.text)
        #expect(st == NG_OK && identical, "\(report)")

        let busy = Ctx()
        var token: UInt64 = 0
        #expect(ng_hold_begin(busy.h, "live", 0, 0, &token) == NG_OK)
        let sink2 = TraceSink()
        #expect(recordToSink(busy.h, sink2) == NG_OK)
        let r = replay(sink2.text)
        #expect(r.0 == NG_E_STATE && r.2.contains("1 holds"), "\(r.2)")
        withExtendedLifetime(sink2) { _ = busy.destroy() }
    }

    @Test("a mid-session trace carries the stack's focus tokens and the live presses into replay (Engine.State)")
    func midSessionFocusAndPresses() {
        func key(_ phase: Int32, code: Int64) -> ng_event {
            var e = ng_event()
            e.size = UInt32(MemoryLayout<ng_event>.size)
            e.type = NG_EVENT_KEY
            e.phase = phase
            e.touch_id = 5
            e.code = code
            return e
        }
        // Focus only: the pop hands back the root's token, recorded in its
        // transition line; replay must have it on the restored root.
        let f = Ctx()
        _ = submitPush(f.h, 2, "menu")
        #expect(ng_screen_set_focus(f.h, 1, 0xF00D) == NG_OK)
        let focusSink = TraceSink()
        #expect(recordToSink(f.h, focusSink) == NG_OK)
        #expect(focusSink.lines.first?.contains("\"focus\":[61453,0]") == true, "\(focusSink.lines.first ?? "")")
        #expect(submit(f.h, NG_REQ_POP).0 == NG_OK)
        _ = f.destroy()
        #expect(focusSink.lines.contains { $0.contains("\"k\":\"cb\",\"fn\":\"transition\"") && $0.contains("\"focus\":61453") })
        let fr = replay(focusSink.text)
        #expect(fr.0 == NG_OK && fr.1, "\(fr.2)")

        // A key held before the recording began (delivered), and focus: the
        // pop cancels the press (a press_cancel line) and the key's up is
        // dropped CANCELLED; without the press replay would deliver both.
        let c = Ctx()
        var v = squareView(id: 3, side: 50)
        #expect(ng_view_set(c.h, &v) == NG_OK)
        _ = submitPush(c.h, 2, "menu")
        #expect(ng_screen_set_focus(c.h, 1, 0xF00D) == NG_OK)
        var down = key(NG_KEY_DOWN, code: 13)
        var r = ng_event_result()
        r.size = UInt32(MemoryLayout<ng_event_result>.size)
        #expect(ng_event_submit(c.h, &down, &r) == NG_OK && r.verdict == NG_VERDICT_DELIVER)
        let sink = TraceSink()
        #expect(recordToSink(c.h, sink) == NG_OK)
        let header = sink.lines.first ?? ""
        #expect(header.contains("\"presses\":[{\"type\":\"key\",\"device\":5,\"code\":13,"), "\(header)")
        #expect(header.contains("\"state\":\"delivered\"}]"), "\(header)")
        #expect(submit(c.h, NG_REQ_POP).0 == NG_OK)
        var up = key(NG_KEY_UP, code: 13)
        #expect(ng_event_submit(c.h, &up, &r) == NG_OK && r.verdict == NG_VERDICT_DROP)
        _ = c.destroy()
        #expect(sink.lines.contains { $0.contains("\"fn\":\"press_cancel\"") }, "\(sink.text)")
        let (st, identical, report, _) = replay(sink.text)
        #expect(st == NG_OK && identical, "\(report)")

        // A press the header counts but does not list (a 0.3 trace's
        // header): refused, as before.
        let old = sink.text.replacingFirst(header, with: header.replacingFirst("\"presses\":[", with: "\"x_presses\":["))
        let o = replay(old)
        #expect(o.0 == NG_E_STATE && o.2.contains("1 presses"), "\(o.2)")
    }

    @Test("a writer that asks to stop ends the recording with a log line; the host's calls go on")
    func writerStops() {
        let c = Ctx()
        let sink = TraceSink()
        sink.stopAfter = 2
        defer { withExtendedLifetime(sink) { _ = c.destroy() } }
        #expect(recordToSink(c.h, sink) == NG_OK)
        for i in 0..<2000 { _ = submitPush(c.h, UInt64(10 + i), "long-route-name-\(i)") }
        #expect(c.rec.logs.contains { $0.contains("flight recorder stopped") })
        #expect(ng_record_stop(c.h) == NG_E_STATE, "already stopped")
        #expect(c.count == 2001)
    }
}

extension String {
    func replacingFirst(_ a: String, with b: String) -> String { replacing(a, with: b, maxReplacements: 1) }
}

func readText(_ path: String) -> String {
    guard let f = fopen(path, "rb") else { return "" }
    defer { fclose(f) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = fread(&chunk, 1, chunk.count, f)
        if n <= 0 { break }
        bytes.append(contentsOf: chunk[0..<n])
    }
    return String(decoding: bytes, as: UTF8.self)
}
