import ArgumentParser
import NavGuard
import NavGuardValidator

struct Timeline: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw a flight-recorder trace: a Chrome trace (OUT.json) and a page (OUT.html).",
        discussion: """
        OUT.json is in the Chrome Trace Event Format: open it in Perfetto UI \
        (ui.perfetto.dev) or chrome://tracing. Its tracks: screen and bar \
        transitions (an interactive swipe with its phases), holds, touches, \
        requests with their outcomes, other input, watchdog reports and \
        logs. OUT.html draws the same as a self-contained page (inline SVG); \
        a transition that never finished or was forced and a hold that \
        outlived its limit are red and labelled. With -o OUT.svg or --svg \
        only the SVG is written. A ring dump and a trace whose last line was \
        cut off are drawn too. Exits 0 when written, 1 when an output \
        cannot be written, 2 when the trace cannot be read.
        """)

    @Argument(help: "The trace (JSON Lines, docs/trace-format.md).")
    var trace: String

    @Option(name: .shortAndLong,
            help: ArgumentHelp("Write OUT.json and OUT.html (a .json or .html ending is dropped); OUT.svg writes only the SVG.",
                               valueName: "out"))
    var output: String

    @Flag(help: "Write only the SVG, to OUT.svg.")
    var svg = false

    func run() throws {
        let bytes: [UInt8]
        do throws(FileError) { bytes = try readFile(trace) } catch {
            printError("navguard timeline: \(error.message)")
            throw ExitCode(2)
        }
        let model: TimelineModel
        do throws(TraceError) {
            let t = try bytes.withUnsafeBufferPointer { b throws(TraceError) in try Trace.read(UnsafeRawBufferPointer(b)) }
            model = TimelineBuilder.build(t)
        } catch {
            printError("navguard timeline: \(trace): \(error.message)")
            throw ExitCode(2)
        }
        let source = trace.split(separator: "/").last.map(String.init) ?? trace
        let picture = TimelineSVG(model: model, source: source).render()
        var files: [(path: String, text: String)]
        if output.hasSuffix(".svg") {
            files = [(output, picture)]
        } else {
            var base = output
            for ext in [".json", ".html"] where base.hasSuffix(ext) { base.removeLast(ext.count) }
            files = svg ? [(base + ".svg", picture)]
                        : [(base + ".json", ChromeTrace.json(model, source: source)),
                           (base + ".html", TimelinePage.html(model, source: source, svg: picture))]
        }
        for f in files {
            do throws(FileError) { try writeFile(f.path, f.text) } catch {
                printError("navguard timeline: \(error.message)")
                throw ExitCode(1)
            }
        }
        for n in model.notes { print("note: \(n)") }
        for a in model.alarms { print("stuck at \(TimelineFormat.ms(a.t)): \(a.text)") }
        print("wrote " + files.map(\.path).joined(separator: " and "))
    }
}
