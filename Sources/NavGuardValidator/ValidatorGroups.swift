// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore

// The check groups: the one list the parent runs (in this order, one child
// process each) and the child dispatches on. A group's checks are in
// Checks/, in a file named for what they check.

/// What `navguard plugins validate` was asked, as parent and child both see it.
public struct ValidationInput: Sendable {
    public var path: String
    /// --config: the guard configuration for the hook checks.
    public var config: String
    /// --expect-create-failure: the configuration is meant to be refused.
    public var expectCreateFailure = false

    public init(path: String, config: String, expectCreateFailure: Bool = false) {
        self.path = path
        self.config = config
        self.expectCreateFailure = expectCreateFailure
    }
}

/// The plugin under test, loaded in the child.
struct PluginUnderTest {
    /// The loader's reading of the plugin's descriptor (GuardDescriptor.read).
    var descriptor: GuardDescriptor
    /// The validator's proxy of it (Proxy.swift): what the checks add to a chain.
    var proxy: UnsafePointer<ng_plugin_descriptor>
}

public struct CheckGroup: Sendable {
    /// What the group needs before it can run, and the function that runs it.
    enum Run: Sendable {
        /// Nothing: the file as given.
        case file(@Sendable (ValidationInput) -> Void)
        /// A plugin that loads with a descriptor the loader accepts.
        case descriptor(@Sendable (ValidationInput, GuardDescriptor) -> Void)
        /// That, behind the proxy.
        case proxy(@Sendable (ValidationInput, PluginUnderTest) -> Void)
    }

    public let name: String
    /// Checks whose failure stops the run: nothing after them can be
    /// exercised. The group's own name stands for a failure outside any
    /// check (its process could not run, or died before its first check).
    public let gates: Set<String>
    let run: Run

    init(_ name: String, gates: Set<String> = [], _ run: Run) {
        self.name = name
        self.gates = gates
        self.run = run
    }
}

public let checkGroups: [CheckGroup] = [
    CheckGroup("file", gates: ["file.exists"], .file(fileChecks)),
    CheckGroup("load", gates: ["load", "load.dlopen", "load.entry-symbol", "load.entry",
                               "descriptor.abi", "descriptor.size", "descriptor.id", "descriptor.lifecycle"],
               .file(loadChecks)),
    CheckGroup("create.empty", .proxy(createEmptyChecks)),
    CheckGroup("create.config", .proxy(createConfigCheck)),
    CheckGroup("extension", .proxy(extensionChecks)),
    CheckGroup("options", .proxy(optionChecks)),
] + garbageConfigs.map { garbage in
    CheckGroup("create.garbage.\(garbage.label)", .proxy { _, plugin in garbageCheck(plugin, garbage) })
} + [
    hookGroup("hooks.requests", requestChecks),
    hookGroup("hooks.transitions", transitionChecks),
    hookGroup("hooks.holds", holdChecks),
    hookGroup("hooks.ticks", tickChecks),
    hookGroup("hooks.events", eventChecks),
    hookGroup("hooks.questions", questionChecks),
    CheckGroup("lifecycle", .proxy(lifecycleChecks)),
    CheckGroup("loader", .descriptor(loaderChecks)),
]

/// A hooks.* group: one context with the guard created from --config, the
/// family's checks on it, then `<group>.destroy` (HookChecks.swift).
private func hookGroup(_ name: String, _ checks: @escaping @Sendable (Harness) -> Void) -> CheckGroup {
    CheckGroup(name, .proxy { input, plugin in withGuard(name, plugin.proxy, input.config, checks) })
}
