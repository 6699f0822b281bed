// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import NavGuardTrace
import NavGuardValidator

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Count what went wrong across traces: refusals and drops per guard, stuck transitions and holds per screen.",
        discussion: """
        Reads every trace, ring dump or crash dump named (a fleet's, from \
        many machines) as `navguard timeline` does, and prints: per guard, \
        the requests it refused and dropped and the events it dropped, by \
        reason; per screen, the transitions to it, those stuck (never \
        finished) or forced (by the watchdog or another guard), the swipes \
        back cancelled on it (rolled back: it stayed on top; by the user or \
        a guard), and its longest holds (while it was on top). --json prints the same as one \
        JSON object, for a fleet's own dashboards; --format prometheus as \
        the text format of node_exporter's textfile collector (counters \
        navguard_refusals_total, navguard_drops_total (requests and events), \
        navguard_transitions_stuck_total, navguard_transitions_forced_total, \
        navguard_watchdog_actions_total, navguard_crash_dumps_total, \
        navguard_reports_total; gauge navguard_longest_hold_seconds). \
        Exits 2 when a trace cannot be read.
        """)

    @Argument(help: "The traces (JSON Lines), ring dumps or crash dumps.")
    var files: [String]

    @Flag(help: "Print the counts as JSON (the same as --format json).")
    var json = false

    @Option(help: ArgumentHelp("table, json, or prometheus (the text format node_exporter's textfile collector reads).", valueName: "format"))
    var format: String?

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to this file instead of standard output: a temporary file beside it (<out>.<pid>.tmp) renamed into place, so a reader (node_exporter) never sees half of it.", valueName: "out"))
    var output: String?

    func validate() throws {
        if files.isEmpty { throw ValidationError("name at least one trace") }
        if let format, !["table", "json", "prometheus"].contains(format) {
            throw ValidationError("--format must be table, json or prometheus, not '\(format)'")
        }
        if json, let format, format != "json" { throw ValidationError("--json and --format \(format) disagree") }
    }

    func run() throws {
        var models: [TimelineModel] = []
        for path in files {
            let trace = try readTrace(path, command: "stats")
            models.append(TimelineBuilder.build(trace, source: path, options: TimelineOptions(foldIdleNs: nil)))
        }
        let stats = StatsBuilder.build(models)
        let text: String
        switch json ? "json" : format ?? "table" {
        case "json": text = StatsFormat.json(stats)
        case "prometheus": text = StatsFormat.prometheus(stats)
        default: text = StatsFormat.table(stats)
        }
        guard let output else {
            print(text, terminator: "")
            return
        }
        try replaceFile(output, text, command: "stats")
    }
}

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Turn a crash dump (.ngbox) into a JSON Lines trace.",
        discussion: """
        A crash dump is the flight recorder's ring as a fatal-signal handler \
        wrote it (binary, docs/trace-format.md). The trace written is a ring \
        dump: its header says which signal, its first line's state what the \
        first record found. A JSON Lines trace is copied as it is. Exits 2 \
        when the file cannot be read or is no trace (an empty one, a crash \
        dump whose header does not describe it).
        """)

    @Argument(help: "The crash dump.")
    var dump: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Write the trace here instead of to standard output: a temporary file beside it (<out>.<pid>.tmp) renamed into place, so a reader (a collector picking up what a device sends back) never sees half of it.", valueName: "out"))
    var output: String?

    func run() throws {
        let bytes = try readTraceBytes(dump, command: "convert")
        var text = bytes
        var note: String?
        do throws(TraceError) {
            if bytes.withUnsafeBytes({ CrashDumpFile.isCrashDump($0) }) {
                let c = try bytes.withUnsafeBufferPointer { b throws(TraceError) in try CrashDumpFile.convert(UnsafeRawBufferPointer(b)) }
                text = c.text
                note = c.note
            } else {
                // Copied as it is, once it reads as a trace (an empty file is none).
                _ = try bytes.withUnsafeBufferPointer { b throws(TraceError) in try Trace.read(UnsafeRawBufferPointer(b)) }
            }
        } catch {
            printError("navguard convert: \(dump): \(error.message)")
            throw ExitCode(2)
        }
        if let note { printError("navguard convert: \(dump): \(note)") }
        if let output {
            try replaceFile(output, String(decoding: text, as: UTF8.self), command: "convert")
        } else {
            writeAll(1, String(decoding: text, as: UTF8.self))
        }
    }
}

/// Write `text` to `output` whole (stats -o, convert -o): into a temporary
/// file beside it, <output>.<pid>.tmp, renamed into place, so a reader
/// (node_exporter, a collector) never sees half a file and a failed write
/// leaves the old one as it was. On failure the temporary file is removed,
/// the error printed as "navguard <command>: ..." and the exit status is 1.
func replaceFile(_ output: String, _ text: String, command: String) throws {
    let tmp = "\(output).\(getpid()).tmp"
    // A leftover of this name (a dead process's, or planted) is removed, not
    // followed: unlink takes a symlink away, and the file is then created
    // exclusively. A symlink at `output` itself is replaced, not written
    // through.
    unlink(tmp)
    do throws(FileError) { try writeFile(tmp, text, exclusive: true) } catch {
        unlink(tmp)
        printError("navguard \(command): \(error.message)")
        throw ExitCode(1)
    }
    if rename(tmp, output) != 0 {
        let err = errno
        unlink(tmp)
        printError("navguard \(command): cannot rename \(tmp) to \(output): \(String(cString: strerror(err)))")
        throw ExitCode(1)
    }
}
