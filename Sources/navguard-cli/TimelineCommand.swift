// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import NavGuardTrace
import NavGuardValidator

struct Timeline: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw flight-recorder traces: a Chrome trace (OUT.json) and a page (OUT.html).",
        discussion: """
        OUT.json is in the Chrome Trace Event Format: open it in Perfetto UI \
        (ui.perfetto.dev) or chrome://tracing. Its tracks: screen and bar \
        transitions (an interactive swipe with its phases; focus tokens set \
        and handed back, marked on it), holds, touches, key and button \
        presses (one track per device: each press named by its button, "A", \
        "dpad-up", or key code, cancels with their cause, a device removed), \
        requests with their outcomes and how long they waited (posted from \
        another thread, or queued), other input, watchdog reports and logs. \
        OUT.html draws the same as a self-contained page (inline SVG) under a \
        headline that says when the watchdog (or another guard) acted and \
        what it did, what never finished, and a crash; a transition that \
        never finished or was forced and a hold that outlived its limit are \
        red and labelled; long idle stretches are folded. Request ids read \
        #7 (the host's), #p3 (the third posted), #g2 (a guard's own); the \
        mouse's touch id reads "mouse". With several traces (a fleet's \
        dumps), the page begins with one lane per trace, then each in full; \
        the Chrome trace has one process per trace. With -o OUT.svg or --svg \
        only the SVG is written. Ring dumps, crash dumps (.ngbox) and traces \
        whose last line was cut off are drawn too. Exits 0 when written, 1 \
        when an output cannot be written, 2 when a trace cannot be read.
        """)

    @Argument(help: "The traces (JSON Lines, docs/trace-format.md), ring dumps or crash dumps.")
    var traces: [String]

    @Option(name: .shortAndLong,
            help: ArgumentHelp("Write OUT.json and OUT.html (a .json or .html ending is dropped); OUT.svg writes only the SVG.",
                               valueName: "out"))
    var output: String

    @Flag(help: "Write only the SVG, to OUT.svg.")
    var svg = false

    @Option(help: ArgumentHelp("Draw from this many milliseconds after the trace's start.", valueName: "ms"))
    var from: Double?

    @Option(help: ArgumentHelp("Draw up to this many milliseconds after the trace's start.", valueName: "ms"))
    var to: Double?

    @Flag(name: .customLong("no-fold"), help: "Do not fold long idle stretches.")
    var noFold = false

    func validate() throws {
        if traces.isEmpty { throw ValidationError("name at least one trace") }
        if let from, let to, to < from { throw ValidationError("--to (\(to)) is before --from (\(from))") }
        if let from, from < 0 { throw ValidationError("--from is negative") }
    }

    func run() throws {
        var options = TimelineOptions()
        options.fromMs = from
        options.toMs = to
        if noFold { options.foldIdleNs = nil }
        var models: [TimelineModel] = []
        for path in traces {
            let trace = try readTrace(path, command: "timeline")
            models.append(TimelineBuilder.build(trace, source: path.split(separator: "/").last.map(String.init) ?? path, options: options))
        }
        let pictures = models.map { TimelineSVG(model: $0).render() }
        let fleet = models.count > 1 ? FleetSVG(models: models).render() : nil
        var files: [(path: String, text: String)]
        let svgOnly = fleet ?? pictures[0]
        if output.hasSuffix(".svg") {
            files = [(output, svgOnly)]
        } else {
            var base = output
            for ext in [".json", ".html"] where base.hasSuffix(ext) { base.removeLast(ext.count) }
            files = svg ? [(base + ".svg", svgOnly)]
                        : [(base + ".json", ChromeTrace.json(models)),
                           (base + ".html", TimelinePage.html(models, fleet: fleet, pictures: pictures))]
        }
        for f in files {
            do throws(FileError) { try writeFile(f.path, f.text) } catch {
                printError("navguard timeline: \(error.message)")
                throw ExitCode(1)
            }
        }
        for m in models {
            let prefix = models.count > 1 ? "\(m.source): " : ""
            for n in m.notes { print("\(prefix)note: \(n)") }
            for h in m.headline { print("\(prefix)at \(TimelineFormat.ms(h.t)): \(h.text)") }
        }
        print("wrote " + files.map(\.path).joined(separator: " and "))
    }
}

/// A trace file's bytes (JSON Lines, or a crash dump), or the command's
/// exit 2 with the reason on stderr. The first bytes say how long it may be
/// (Trace.fileLimit): a longer file, or one that is no trace, is refused
/// before the rest is read.
func readTraceBytes(_ path: String, command: String) throws -> [UInt8] {
    do throws(FileError) {
        return try readFile(path, maxBytes: Trace.maxTextBytes, maxWhat: "the largest trace navguard reads") { prefix throws(FileError) in
            do throws(TraceError) {
                let n = try Trace.fileLimit(prefix: prefix)
                return CrashDumpFile.isCrashDump(prefix)
                    ? FileLimit(bytes: n, what: n == CrashDumpFile.maxFileBytes ? "a crash dump can be" : "what its crash dump header's records_bytes (offset 104) says")
                    : FileLimit(bytes: n, what: "the largest trace navguard reads")
            } catch {
                throw FileError(message: "\(path): \(error.message)")
            }
        }
    } catch {
        printError("navguard \(command): \(error.message)")
        throw ExitCode(2)
    }
}

/// A trace read from a file (JSON Lines, or a crash dump converted), or the
/// command's exit 2 with the reason on stderr.
func readTrace(_ path: String, command: String) throws -> Trace {
    let bytes = try readTraceBytes(path, command: command)
    do throws(TraceError) {
        return try bytes.withUnsafeBufferPointer { b throws(TraceError) in try Trace.read(UnsafeRawBufferPointer(b)) }
    } catch {
        printError("navguard \(command): \(path): \(error.message)")
        throw ExitCode(2)
    }
}
