// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore
import NavGuardTrace

// navguard.h, "Flight recorder and replay": replaying a trace (no context:
// the replay makes its own; Replay/ is how).

@c @implementation
public func ng_replay(_ trace: UnsafePointer<CChar>?, _ len: Int, _ options: UnsafePointer<ng_replay_options>?,
                      _ out: UnsafeMutablePointer<ng_replay_result>?) -> ng_status {
    guard let trace, let out else { return NG_E_NULL }
    guard out.pointee.size >= UInt32(MemoryLayout<ng_replay_result>.size) else { return NG_E_SIZE }
    var chain: String?
    if let options {
        var o = ng_replay_options()
        guard copySized(options, into: &o) >= MemoryLayout<ng_replay_options>.size else { return NG_E_SIZE }
        if let c = o.chain {
            do throws(EngineError) { chain = try readConfiguration(c, "chain") } catch {
                fillResult(out, ReplayOutcome(line: 0, report: "replay: \(error.message)\n"))
                return error.status
            }
        }
    }
    do throws(TraceError) {
        let t = try Trace.read(UnsafeRawBufferPointer(start: trace, count: len))
        fillResult(out, try Replayer(trace: t, chain: chain).run())
        return NG_OK
    } catch {
        fillResult(out, ReplayOutcome(line: error.line, report: "replay: \(error.message)\n"))
        return error.status
    }
}
