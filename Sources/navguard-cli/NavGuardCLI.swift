import ArgumentParser
import CNavGuard
import FoundationEssentials
import Glibc
import NavGuard
import NavGuardCore
import NavGuardCLIArgs

// navguard — NavGuard's command-line tool.
//
//   navguard plugins validate LIB.so [--json] [--config JSON|@FILE] [--expect-create-failure]
//   navguard plugins list [--config JSON|FILE] [--json]
//   navguard plugins available [--json]
//   navguard plugins info ID|LIB.so [--markdown]
//   navguard plugins docs            (docs/guards.md, from the built-ins' declarations)
//   navguard replay TRACE [--config CHAIN|@FILE]   (ng_replay; exit 0 identical, 1 diverged, 2 error)
//   navguard timeline TRACE -o OUT [--svg]          (OUT.json: Chrome trace; OUT.html: a picture; exit 2 unreadable)
//   navguard version
//
// The NavGuard module is linked in statically (and, in the release build, the
// Swift runtime too), so the installed bin/navguard needs nothing but libc.

/// The entry point: the arguments come from argv as the process got them
/// (NavGuardCLIArgs), not from /proc/self/cmdline, so the tool also works
/// in a chroot or container without /proc.
@main
enum Entry {
    static func main() {
        var argc: Int32 = 0
        let argv = ngcli_arguments(&argc)
        var arguments: [String] = []
        if let argv {
            for i in 1..<max(Int(argc), 1) { if let a = argv[i] { arguments.append(String(cString: a)) } }
        }
        NavGuardCLI.main(arguments)
    }
}

struct NavGuardCLI: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "navguard",
        abstract: "NavGuard command-line tool: guard plugins, and replaying and drawing traces.",
        // `navguard --version`: the library the tool carries (ng_version_string).
        version: "navguard \(String(cString: ng_version_string()))",
        subcommands: [Plugins.self, Replay.self, Timeline.self, Version.self])
}

struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the library version and the plugin ABI.")

    func run() throws {
        setDefaultPluginDirectory()
        let lib = String(cString: ng_version_string())
        print("navguard \(lib)")
        print("library: \(lib) (ng_version() = \(ng_version()); built with navguard.h \(NG_VERSION_STRING))")
        print("plugin ABI: \(NG_PLUGIN_ABI_MAJOR).\(NG_PLUGIN_ABI_MINOR) (entry symbol \(NG_PLUGIN_ENTRY_SYMBOL))")
        print("plugin directory: \(String(cString: ng_plugin_dir()))")
    }
}

struct Plugins: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Work with guard plugins.",
        subcommands: [Validate.self, List.self, Available.self, Info.self, Docs.self])
}

// MARK: - plugins validate

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the plugin conformance checks on a guard plugin library.",
        discussion: """
        Each group of checks runs in a child process, so a plugin that crashes \
        or hangs fails the check it was in instead of stopping the validator. \
        Prints one line per check (PASS, FAIL or WARN, the check, the detail \
        and its time) and exits non-zero when any check fails.
        """)

    @Argument(help: "The plugin shared library (.so).")
    var library: String

    @Flag(help: "Print the results as JSON.")
    var json = false

    @Option(help: ArgumentHelp("Guard configuration for the hook checks: a JSON object, or @FILE.", valueName: "json"))
    var config: String = "{}"

    @Option(help: ArgumentHelp("Seconds before a check group is considered hung.", valueName: "seconds"))
    var timeout: Double = 10

    @Flag(name: .shortAndLong, help: "Also print what the plugin wrote to stderr.")
    var verbose = false

    @Flag(name: .customLong("expect-create-failure"),
          help: "The guard must refuse the --config configuration (a check of its own validation); its hooks are then not exercised.")
    var expectCreateFailure = false

    /// Internal: run one check group in this process (the parent's child).
    @Option(help: .hidden)
    var child: String?

    mutating func run() throws {
        if let child {
            Glibc.exit(runChild(group: child, ValidationInput(path: library, config: config,
                                                              expectCreateFailure: expectCreateFailure)))
        }
        setDefaultPluginDirectory()
        var configText = config
        if config.hasPrefix("@") {
            switch readFile(String(config.dropFirst()), maxBytes: 1 << 20) {
            case .success(let b): configText = String(decoding: b, as: UTF8.self)
            case .failure(let e): throw ValidationError(e.message)
            }
        }
        let json = self.json
        if !json {
            print("navguard plugins validate \(library)")
            if configText != "{}" { print("hook checks use the configuration \(oneLine(configText))") }
        }
        // dlopen() searches the library path for a name without a slash: the
        // file the user named is what gets validated, so pass it absolute.
        let path = library.contains("/") ? library : realPath("./" + library)
        let input = ValidationInput(path: path, config: configText, expectCreateFailure: expectCreateFailure)
        let report = runValidation(input, timeout: timeout, verbose: verbose) { r in
            if !json {
                print(formatRecord(r))
                fflush(nil)
            }
        }
        if json {
            print(reportJSON(report))
        } else {
            if !report.notRun.isEmpty {
                print("not run (the plugin cannot be loaded): \(report.notRun.joined(separator: ", "))")
            }
            let scan = report.records.first(where: { $0.name == "load.scan-time" })?.detail ?? "n/a"
            print("time to scan: \(scan)")
            print("summary: \(report.records.count) checks: \(report.passed) pass, \(report.failed) fail, \(report.warned) warn; \(formatMS(report.ns)) in all")
            print(report.failed == 0 ? "result: \(library) conforms" : "result: \(library) does NOT conform")
        }
        if report.failed > 0 { throw ExitCode(1) }
    }
}

// MARK: - plugins list

/// A chain configuration given as JSON text, @FILE, or a file name.
func configText(_ arg: String) throws -> (text: String, name: String) {
    let trimmed = arg.drop { $0 == " " || $0 == "\n" || $0 == "\t" }
    if trimmed.hasPrefix("{") { return (arg, "(JSON text)") }
    let path = arg.hasPrefix("@") ? String(arg.dropFirst()) : arg
    switch readFile(path, maxBytes: 1 << 20) {
    case .success(let b): return (String(decoding: b, as: UTF8.self), realPath(path))
    case .failure(let e): throw ValidationError(e.message)
    }
}

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the guard chain a configuration (or the default chain) resolves to.",
        discussion: """
        The configuration is JSON text, a file, or @FILE: a full chain \
        ({"guards": [...]}) or the default chain edited ({"base": "default", \
        "edits": [...]}); see ng_chain_configure in navguard.h. Each guard is \
        loaded and created, so a configuration that lists cleanly is one \
        ng_chain_configure accepts.
        """)

    @Option(help: ArgumentHelp("A chain configuration: JSON text, a file or @FILE; default: the default chain.", valueName: "config"))
    var config: String?

    @Flag(help: "Print the chain as JSON.")
    var json = false

    func run() throws {
        setDefaultPluginDirectory()
        let search = pluginSearchPath()
        let (text, chainName) = try config.map(configText) ?? (String(cString: ng_default_chain()), "default (ng_default_chain)")
        var opts = ng_options()
        opts.size = UInt32(MemoryLayout<ng_options>.size)
        opts.clock = NG_CLOCK_MANUAL
        opts.delegate.size = UInt32(MemoryLayout<ng_delegate>.size)
        var ctx: OpaquePointer?
        let cs = ng_context_create(&opts, &ctx)
        guard cs == NG_OK else {
            printError("navguard: ng_context_create: \(statusName(cs))")
            throw ExitCode(1)
        }
        defer { _ = ng_context_destroy(ctx) }
        if !json {
            print("search path: \(search.joined(separator: ":"))")
            print("chain: \(chainName)")
        }
        let st = ng_chain_configure(ctx, text)
        guard st == NG_OK, let entries = try? resolveChain(text) else {
            printError("navguard: \(statusName(st))")
            printError("navguard: \(String(cString: ng_errmsg(ctx)))")
            throw ExitCode(1)
        }
        var rows: [(index: Int, id: String, name: String, version: String, path: String, config: String)] = []
        for (i, e) in entries.enumerated() {
            var name = "?", version = "?", id = e.id ?? "?"
            if let p = openLoaded(e.path), let g = try? GuardDescriptor.read(p) {
                id = g.id
                name = String(cString: g.d.name)
                version = String(cString: g.d.version)
            }
            rows.append((i, id, name, version, realPath(e.path), JSON.serialize(e.config)))
        }
        if json {
            var s = "{\n  \"search_path\": [\(search.map(jsonString).joined(separator: ", "))],\n  \"chain\": \(jsonString(chainName)),\n  \"guards\": [\n"
            s += rows.map {
                "    {\"index\": \($0.index), \"id\": \(jsonString($0.id)), \"name\": \(jsonString($0.name)), \"version\": \(jsonString($0.version)), \"path\": \(jsonString($0.path)), \"config\": \($0.config)}"
            }.joined(separator: ",\n")
            s += "\n  ]\n}"
            print(s)
            return
        }
        let idW = max(rows.map(\.id.count).max() ?? 0, 2) + 2
        let nameW = max(rows.map(\.name.count).max() ?? 0, 4) + 2
        let verW = max(rows.map(\.version.count).max() ?? 0, 7) + 2
        func col(_ s: String, _ w: Int) -> String { s + String(repeating: " ", count: max(w - s.count, 1)) }
        print(col("#", 4) + col("id", idW) + col("name", nameW) + col("version", verW) + "file")
        for r in rows {
            print(col(String(r.index), 4) + col(r.id, idW) + col(r.name, nameW) + col(r.version, verW) + r.path)
            if r.config != "{}" { print(String(repeating: " ", count: 4) + "config " + r.config) }
        }
        print("\(rows.count) guard\(rows.count == 1 ? "" : "s") in the chain")
    }
}

/// The descriptor of a plugin the chain already loaded (RTLD_NOLOAD: the
/// same copy), or of a plugin file opened now. Unchecked: pass it to
/// GuardDescriptor.read.
func openLoaded(_ path: String) -> UnsafePointer<ng_plugin_descriptor>? {
    let h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE | RTLD_NOLOAD) ?? dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)
    guard let h, let sym = dlsym(h, NG_PLUGIN_ENTRY_SYMBOL) else { return nil }
    return unsafeBitCast(sym, to: ng_plugin_entry_fn.self)()
}

// MARK: - plugins available

struct Available: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List every guard on the search path (NAVGUARD_PLUGIN_PATH, then the built-in directory).")

    @Flag(help: "Print the list as JSON.")
    var json = false

    func run() throws {
        setDefaultPluginDirectory()
        let found = availableGuards()
        if json {
            print("[\n" + found.map {
                "  {\"id\": \(jsonString($0.id)), \"name\": \(jsonString($0.name)), \"version\": \(jsonString($0.version)), \"path\": \(jsonString(realPath($0.path)))}"
            }.joined(separator: ",\n") + "\n]")
            return
        }
        print("search path: \(pluginSearchPath().joined(separator: ":"))")
        let idW = max(found.map(\.id.count).max() ?? 0, 2) + 2
        let verW = max(found.map(\.version.count).max() ?? 0, 7) + 2
        func col(_ s: String, _ w: Int) -> String { s + String(repeating: " ", count: max(w - s.count, 1)) }
        print(col("id", idW) + col("version", verW) + "file")
        for g in found { print(col(g.id, idW) + col(g.version, verW) + realPath(g.path)) }
        print("\(found.count) guard\(found.count == 1 ? "" : "s") found")
    }
}

// MARK: - plugins info

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Describe a guard: its id, name, version, hooks and configuration options.",
        discussion: "GUARD is a guard id (looked up along the search path, as a chain configuration would) or a plugin file.")

    @Argument(help: "A guard id (org.navguard.throttle) or a plugin file.")
    var guardName: String

    @Flag(help: "Print the description as Markdown (the format of docs/guards.md).")
    var markdown = false

    func run() throws {
        setDefaultPluginDirectory()
        let path: String
        if guardName.contains("/") || guardName.hasSuffix(".so") {
            path = guardName
        } else {
            do throws(EngineError) { path = try resolveChain("{\"guards\":[{\"id\":\(jsonString(guardName))}]}")[0].path } catch {
                printError("navguard: \(statusName(error.status)): \(error.message)")
                throw ExitCode(1)
            }
        }
        guard let p = openLoaded(path.contains("/") ? path : "./" + path) else {
            printError("navguard: \(path) is not a loadable guard plugin: \(dlerror().map { String(cString: $0) } ?? "no \(NG_PLUGIN_ENTRY_SYMBOL)")")
            throw ExitCode(1)
        }
        do throws(EngineError) {
            let g = try GuardDescriptor.read(p)
            print(markdown ? guardMarkdown(g) : guardText(g, path: realPath(path)), terminator: "")
        } catch {
            printError("navguard: \(path): \(statusName(error.status)): \(error.message)")
            throw ExitCode(1)
        }
    }
}

// MARK: - plugins docs

struct Docs: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print docs/guards.md: every built-in guard (org.navguard.*) on the search path, from its declarations.",
        discussion: "make docs writes it; a ctest fails when the committed file differs.")

    func run() throws {
        setDefaultPluginDirectory()
        var out = """
        # The built-in guards

        Generated by `navguard plugins docs` (`make docs`) from each guard's
        declared options (plugin.h `ng_option_decl`); a test fails when this file
        and the guards disagree. `navguard plugins info ID` prints the same for any
        guard, yours included. The default chain is \(NG_DEFAULT_CHAIN_ORDER).


        """
        var found = 0
        for g in availableGuards() where g.id.hasPrefix("org.navguard.") {
            guard let p = openLoaded(g.path), let d = try? GuardDescriptor.read(p) else { continue }
            out += guardMarkdown(d)
            found += 1
        }
        guard found > 0 else {
            printError("navguard: no built-in guard on the search path \(pluginSearchPath().joined(separator: ":"))")
            throw ExitCode(1)
        }
        print(out, terminator: "")
    }
}

func hookNames(_ d: ng_plugin_descriptor) -> [String] {
    withUnsafePointer(to: d) { p in Hook.optional.filter { $0.isSet(in: p) }.map(\.name) }
}

func rangeText(_ o: OptionDecl) -> String {
    switch o.type {
    case NG_OPT_ENUM: return o.choices.joined(separator: " | ")
    case NG_OPT_STRINGS where !o.choices.isEmpty:
        return (o.bounded ? "\(Int(o.min))..\(Int(o.max)) of " : "any of ") + o.choices.joined(separator: " | ")
    case NG_OPT_INT, NG_OPT_DOUBLE, NG_OPT_STRINGS:
        guard o.bounded else { return "" }
        func n(_ d: Double) -> String { d > -1e15 && d < 1e15 && Double(Int64(d)) == d ? String(Int64(d)) : String(d) }
        return "\(n(o.min))..\(n(o.max))" + (o.type == NG_OPT_STRINGS ? " items" : "")
    default: return ""
    }
}

/// gst-inspect style.
func guardText(_ g: GuardDescriptor, path: String) -> String {
    let d = g.d
    var s = "Guard Details:\n"
    s += "  id           \(g.id)\n  name         \(String(cString: d.name))\n  version      \(String(cString: d.version))\n"
    s += "  description  \(String(cString: d.description))\n  file         \(path)\n"
    s += "  plugin ABI   \(d.abi_major).\(d.abi_minor) (descriptor \(d.size) bytes)\n"
    s += "\nHooks:\n  " + (hookNames(d).isEmpty ? "(none)" : hookNames(d).joined(separator: ", ")) + "\n"
    s += "\nOptions:\n"
    if !g.options.declared { return s + "  (not declared: the configuration is not checked)\n" }
    if g.options.options.isEmpty { return s + "  (none: any key is refused)\n" }
    for o in g.options.options {
        s += "  \(o.name)\n"
        s += "      \(o.doc)\n"
        s += "      type: \(OptionDecl.typeName(o.type))"
        let r = rangeText(o)
        if !r.isEmpty { s += "   range: \(r)" }
        s += "   default: \(o.defaultText ?? "(none)")\n"
    }
    return s
}

func guardMarkdown(_ g: GuardDescriptor) -> String {
    let d = g.d
    var s = "## \(g.id)\n\n\(String(cString: d.description))\n\n"
    s += "Version \(String(cString: d.version)); hooks: " + hookNames(d).map { "`\($0)`" }.joined(separator: ", ") + ".\n\n"
    if !g.options.declared { return s + "Options are not declared.\n\n" }
    if g.options.options.isEmpty { return s + "No options.\n\n" }
    s += "| option | type | range / choices | default | what it does |\n|---|---|---|---|---|\n"
    for o in g.options.options {
        func cell(_ t: String) -> String { t.split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|") }
        let r = cell(rangeText(o))
        s += "| `\(o.name)` | \(OptionDecl.typeName(o.type)) | \(r.isEmpty ? "" : "`\(r)`") | \(o.defaultText.map { "`\($0)`" } ?? "(none)") | \(cell(o.doc)) |\n"
    }
    return s + "\n"
}
