import ArgumentParser
import CNavGuard
import FoundationEssentials
import Glibc

// navguard — NavGuard's command-line tool.
//
//   navguard plugins validate LIB.so [--json] [--config JSON|@FILE]
//   navguard plugins list [--config FILE] [--json]
//   navguard version
//
// The NavGuard module is linked in statically (and, in the release build, the
// Swift runtime too), so the installed bin/navguard needs nothing but libc.

@main
struct NavGuardCLI: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "navguard",
        abstract: "NavGuard command-line tool: validate and list guard plugins.",
        subcommands: [Plugins.self, Version.self])
}

struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print the library version and the plugin ABI.")

    func run() throws {
        setDefaultPluginDirectory()
        let lib = String(cString: ng_version_string())
        let header = NG_VERSION_MAJOR * 1_000_000 + NG_VERSION_MINOR * 1_000 + NG_VERSION_PATCH
        print("navguard \(lib)")
        print("library: \(lib) (ng_version() = \(ng_version()); header \(NG_VERSION_STRING) = \(header))")
        print("plugin ABI: \(NG_PLUGIN_ABI_MAJOR).\(NG_PLUGIN_ABI_MINOR) (entry symbol \(NG_PLUGIN_ENTRY_SYMBOL))")
        print("plugin directory: \(String(cString: ng_plugin_dir()))")
    }
}

struct Plugins: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Work with guard plugins.",
        subcommands: [Validate.self, List.self])
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

    /// Internal: run one check group in this process (the parent's child).
    @Option(help: .hidden)
    var child: String?

    mutating func run() throws {
        if let child {
            Glibc.exit(runChild(ChildOptions(group: child, path: library, config: config)))
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
        let report = runValidation(path: path, config: configText, timeout: timeout, verbose: verbose) { r in
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

/// The entries of a chain configuration, as the loader resolves them.
struct ChainConfig: Decodable {
    struct Entry: Decodable {
        var id: String?
        var path: String?
    }
    var guards: [Entry]
}

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the guard chain a configuration (or the default chain) resolves to.")

    @Option(help: ArgumentHelp("A chain configuration file ({\"guards\": [...]}); default: the default chain.", valueName: "file"))
    var config: String?

    @Flag(help: "Print the chain as JSON.")
    var json = false

    func run() throws {
        setDefaultPluginDirectory()
        let dir = String(cString: ng_plugin_dir())
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

        let text: String
        let st: ng_status
        if let config {
            st = ng_chain_configure_file(ctx, config)
            text = (try? String(decoding: readFile(config, maxBytes: 1 << 20).get(), as: UTF8.self)) ?? ""
        } else {
            st = ng_chain_configure(ctx, nil)
            text = String(cString: ng_default_chain())
        }
        let chainName = config.map { realPath($0) } ?? "default (ng_default_chain)"
        if !json {
            print("plugin directory: \(dir)")
            print("chain: \(chainName)")
        }
        guard st == NG_OK else {
            printError("navguard: \(statusName(st))")
            printError("navguard: \(String(cString: ng_errmsg(ctx)))")
            throw ExitCode(1)
        }
        var count = 0
        _ = ng_chain_count(ctx, &count)
        let entries = (try? JSONDecoder().decode(ChainConfig.self, from: Data(text.utf8)))?.guards ?? []

        var rows: [(index: Int, id: String, name: String, version: String, path: String)] = []
        for i in 0..<count {
            var idp: UnsafePointer<CChar>?
            _ = ng_chain_get_id(ctx, i, &idp)
            let id = idp.map { String(cString: $0) } ?? "?"
            var path = "?"
            if i < entries.count {
                if let p = entries[i].path {
                    path = p
                } else if let short = entries[i].id?.split(separator: ".").last {
                    path = "\(dir)/\(short).so"
                }
            }
            var name = "?", version = "?"
            // Already loaded by the chain: RTLD_NOLOAD finds the same copy.
            if path != "?", let h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE | RTLD_NOLOAD),
               let sym = dlsym(h, NG_PLUGIN_ENTRY_SYMBOL),
               let d = unsafeBitCast(sym, to: ng_plugin_entry_fn.self)() {
                name = d.pointee.name.map { String(cString: $0) } ?? "?"
                version = d.pointee.version.map { String(cString: $0) } ?? "?"
                path = realPath(path)
            }
            rows.append((i, id, name, version, path))
        }
        if json {
            var s = "{\n  \"plugin_dir\": \(jsonString(dir)),\n  \"chain\": \(jsonString(config.map { realPath($0) } ?? "default")),\n  \"guards\": [\n"
            s += rows.map {
                "    {\"index\": \($0.index), \"id\": \(jsonString($0.id)), \"name\": \(jsonString($0.name)), \"version\": \(jsonString($0.version)), \"path\": \(jsonString($0.path))}"
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
        }
        print("\(rows.count) guard\(rows.count == 1 ? "" : "s") in the chain")
    }
}
