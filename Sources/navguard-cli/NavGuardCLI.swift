// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import CNavGuard
import NavGuardCLIArgs

// navguard — NavGuard's command-line tool. This file is the root command;
// each subcommand has its own file:
//
//   PluginsCommand.swift   navguard plugins validate LIB.so [--json] [--config JSON|@FILE] [--expect-create-failure]
//                          navguard plugins list [--config JSON|@FILE] [--json]
//                          navguard plugins available [--json]
//                          navguard plugins info ID|LIB.so [--markdown]
//                          navguard plugins docs   (docs/guards.md, from the built-ins' declarations)
//   ReplayCommand.swift    navguard replay TRACE [--config JSON|@FILE]   (ng_replay; exit 0 identical, 1 diverged, 2 error)
//   TimelineCommand.swift  navguard timeline TRACE... -o OUT [--svg] [--from MS] [--to MS] [--no-fold]
//                          (OUT.json: Chrome trace; OUT.html: a picture; exit 2 unreadable)
//   StatsCommand.swift     navguard stats TRACE... [--json]   (refusals and drops per guard, stuck transitions per screen)
//                          navguard convert DUMP.ngbox [-o OUT.jsonl]   (a crash dump as a JSON Lines trace)
//   VersionCommand.swift   navguard version
//
// Every --config is a JSONArgument (JSON text, or @FILE), and every file is
// read and written through Files.swift.
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
        subcommands: [Plugins.self, Replay.self, Timeline.self, Stats.self, Convert.self, Version.self])
}
