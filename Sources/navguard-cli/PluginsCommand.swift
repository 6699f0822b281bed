// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CNavGuard
import Glibc
import NavGuardCore
import NavGuardLoader   // the plugin loader's search path and chain resolution
import NavGuardValidator

// navguard plugins validate | list | available | info | docs: the guard
// plugins, checked (Validator/), resolved from a chain configuration, found
// on the search path and described (Plugins/GuardDescription.swift).

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

    @Option(help: ArgumentHelp("Guard configuration for the hook checks: JSON text, or @FILE to read it from FILE.",
                               valueName: "json"))
    var config = JSONArgument(argument: "{}")

    @Option(help: ArgumentHelp("Seconds before a check group is considered hung.", valueName: "seconds"))
    var timeout: Double = 10

    @Flag(name: .shortAndLong, help: "Also print what the plugin wrote to stderr.")
    var verbose = false

    @Flag(name: .customLong("expect-create-failure"),
          help: "The guard must refuse the --config configuration (a check of its own validation); its hooks are then not exercised.")
    var expectCreateFailure = false

    @Option(name: .customLong("child-program"),
            help: ArgumentHelp("Run each check group in PROGRAM (navguard-validator-child, built for the plugin's machine) instead of in this tool.",
                               valueName: "program"))
    var childProgram: String?

    @Option(name: .customLong("child-wrapper"), parsing: .unconditionalSingleValue,
            help: ArgumentHelp("A word of the command that runs --child-program (repeat it: --child-wrapper qemu-aarch64-static --child-wrapper -L --child-wrapper ROOT).",
                               valueName: "word"))
    var childWrapper: [String] = []

    /// Internal: run one check group in this process (the parent's child).
    @Option(help: .hidden)
    var child: String?

    mutating func run() throws {
        if let child {
            // The parent passes the configuration it read, as text: used as given.
            Glibc.exit(runChild(group: child, ValidationInput(path: library, config: config.argument,
                                                              expectCreateFailure: expectCreateFailure)))
        }
        setDefaultPluginDirectory()
        let configText = try config.read(for: "plugins validate", exitCode: .validationFailure).text
        let json = self.json
        if !json {
            print("navguard plugins validate \(library)")
            if configText != "{}" { print("hook checks use the configuration \(oneLine(configText))") }
        }
        // dlopen() searches the library path for a name without a slash: the
        // file the user named is what gets validated, so pass it absolute.
        let path = library.contains("/") ? library : realPath("./" + library)
        let input = ValidationInput(path: path, config: configText, expectCreateFailure: expectCreateFailure)
        if !childWrapper.isEmpty && childProgram == nil {
            printError("navguard plugins validate: --child-wrapper needs --child-program")
            throw ExitCode.validationFailure
        }
        let child = ChildCommand(program: childProgram, wrapper: childWrapper)
        if !json, let program = childProgram {
            print("check groups run by \(oneLine((childWrapper + [program]).joined(separator: " ")))")
        }
        let report = runValidation(input, child: child, timeout: timeout, verbose: verbose) { r in
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

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the guard chain a configuration (or the default chain) resolves to.",
        discussion: """
        The configuration is JSON text, or @FILE to read it from FILE: a full chain \
        ({"guards": [...]}) or the default chain edited ({"base": "default", \
        "edits": [...]}); see ng_chain_configure in navguard.h. Each guard is \
        loaded and created, so a configuration that lists cleanly is one \
        ng_chain_configure accepts.
        """)

    @Option(help: ArgumentHelp("A chain configuration: JSON text, or @FILE to read it from FILE; default: the default chain.",
                               valueName: "chain"))
    var config: JSONArgument?

    @Flag(help: "Print the chain as JSON.")
    var json = false

    func run() throws {
        setDefaultPluginDirectory()
        let search = pluginSearchPath()
        let (text, chainName) = try config?.read(for: "plugins list", requiringObject: true, exitCode: .validationFailure)
            ?? (String(cString: ng_default_chain()), "default (ng_default_chain)")
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
