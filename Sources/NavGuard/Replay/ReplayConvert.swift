// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardLibc
import NavGuardCore
import NavGuardTrace

// The replay context's delegate (callbacks → the comparison, each encoded
// as the recorder encodes it), and the result handed to ng_replay's caller.

extension Replayer {
    /// The replay context's delegate: every callback goes to `callback`,
    /// written as the recorder writes it.
    @_optimize(size)
    static func delegate(_ r: Replayer) -> ng_delegate {
        var d = ng_delegate()
        d.size = UInt32(MemoryLayout<ng_delegate>.size)
        d.user = Unmanaged.passUnretained(r).toOpaque()
        d.on_outcome = { user, _, o in
            let r = Unmanaged<Replayer>.fromOpaque(user!).takeUnretainedValue()
            let c = o!.pointee
            let rec = OutcomeRecord(requestID: c.request_id, kind: RequestKind(rawValue: c.kind),
                                    outcome: Outcome(rawValue: c.outcome), reason: Reason(rawValue: c.reason),
                                    source: c.source, guardID: c.guard_id, message: c.message.map { CStr(String(cString: $0)) })
            r.callback(.outcome) { TraceOutcome.encode(&$0, rec) }
        }
        d.on_transition = { user, _, e in
            let r = Unmanaged<Replayer>.fromOpaque(user!).takeUnretainedValue()
            let ev = e!.pointee
            r.callback(.transition) { TraceTransition.encode(&$0, ev) }
        }
        d.on_hold_end = { user, _, h in
            let r = Unmanaged<Replayer>.fromOpaque(user!).takeUnretainedValue()
            let x = h!.pointee
            r.callback(.holdEnd) { TraceHoldEnd.encode(&$0, x) }
        }
        d.on_report = { user, _, gid, text in
            let r = Unmanaged<Replayer>.fromOpaque(user!).takeUnretainedValue()
            r.callback(.report) { ReportCallback.encode(&$0, guardID: gid, text: text) }
        }
        d.on_log = { user, _, severity, gid, message in
            let r = Unmanaged<Replayer>.fromOpaque(user!).takeUnretainedValue()
            r.callback(.log) { LogCallback.encode(&$0, severity: severity, guardID: gid, message: message) }
        }
        d.on_touch_cancel = { user, _, t in
            let r = Unmanaged<Replayer>.fromOpaque(user!).takeUnretainedValue()
            let x = t!.pointee
            r.callback(.touchCancel) { TraceTouchCancel.encode(&$0, x) }
        }
        d.on_question = { user, _, q in
            let r = Unmanaged<Replayer>.fromOpaque(user!).takeUnretainedValue()
            let x = q!.pointee
            r.callback(.question) { TraceQuestion.encode(&$0, x) }
        }
        d.on_question_end = { user, _, q, answer in
            let r = Unmanaged<Replayer>.fromOpaque(user!).takeUnretainedValue()
            let x = q!.pointee
            r.callback(.questionEnd) { QuestionEndCallback.encode(&$0, x, answer: answer) }
        }
        d.on_press_cancel = { user, _, p in
            let r = Unmanaged<Replayer>.fromOpaque(user!).takeUnretainedValue()
            // A trace made before presses were recorded has none to compare.
            guard r.trace.header.recordsPressCancels else { return }
            let x = p!.pointee
            r.callback(.pressCancel) { TracePressCancel.encode(&$0, x) }
        }
        return d
    }
}

@_optimize(size)
func fillResult(_ out: UnsafeMutablePointer<ng_replay_result>, _ o: ReplayOutcome) {
    out.pointee.identical = o.identical
    out.pointee.calls = UInt64(o.calls)
    out.pointee.callbacks = UInt64(o.callbacks)
    out.pointee.line = UInt64(o.line)
    var text = o.report
    out.pointee.report = text.withUTF8 { buf in
        let p = malloc(buf.count + 1)!.assumingMemoryBound(to: CChar.self)
        UnsafeMutableRawPointer(p).copyMemory(from: buf.baseAddress!, byteCount: buf.count)
        p[buf.count] = 0
        return p
    }
}

extension ReplayOutcome {
    init(line: Int, report: String) {
        self.init()
        self.line = line
        self.report = report
    }
}
