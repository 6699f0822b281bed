// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CNavGuard
import NavGuardValidator

struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay a flight-recorder trace and compare it with the recording.",
        discussion: """
        Re-runs every recorded call on a manual clock set to the instant it \
        ran at, against the recorded chain (each guard found by id on the \
        plugin search path, else at its recorded path) or against --config, \
        and compares every status, result and callback with the recording. \
        Exits 0 when everything matched, 1 at the first divergence (shown in \
        context), 2 when the trace cannot be read or replayed.
        """)

    @Argument(help: "The trace (JSON Lines, docs/trace-format.md).")
    var trace: String

    @Option(help: ArgumentHelp("Replay against this chain instead: a chain configuration as JSON text, or @FILE to read it from FILE.",
                               valueName: "chain"))
    var config: JSONArgument?

    func run() throws {
        setDefaultPluginDirectory()
        let bytes = try readTraceBytes(trace, command: "replay")
        let chain = try config?.read(for: "replay", requiringObject: true, exitCode: ExitCode(2)).text
        var result = ng_replay_result()
        result.size = UInt32(MemoryLayout<ng_replay_result>.size)
        var options = ng_replay_options()
        options.size = UInt32(MemoryLayout<ng_replay_options>.size)
        var text = bytes
        text.append(0)   // a non-NULL pointer even for an empty file
        let st: ng_status = text.withUnsafeBufferPointer { buf in
            let p = UnsafeRawPointer(buf.baseAddress!).assumingMemoryBound(to: CChar.self)
            if let chain {
                return chain.withCString { c in
                    options.chain = c
                    return ng_replay(p, buf.count - 1, &options, &result)
                }
            }
            return ng_replay(p, buf.count - 1, &options, &result)
        }
        let report = result.report.map { String(cString: $0) } ?? ""
        ng_free(result.report)
        if st != NG_OK {
            printError("navguard replay: \(trace): \(String(cString: ng_strstatus(st)))\n\(report)")
            throw ExitCode(2)
        }
        print(report, terminator: "")
        if !result.identical { throw ExitCode(1) }
    }
}
