// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardLibc
import NavGuardCore

// The validator's child side: `navguard plugins validate --child GROUP LIB.so`
// (or navguard-validator-child, the same code built for the plugin's
// machine) runs one check group (ValidatorGroups.swift) in this process and
// reports each check to the parent as ChildLine lines on its stdout. A crash or hang
// of the plugin kills only the child; the parent reports the check that was
// running as failed.

final class ChildReporter {
    let fd: Int32
    init(fd: Int32) { self.fd = fd }
    func send(_ line: ChildLine) { writeAll(fd, line.encode()) }
}

nonisolated(unsafe) var reporter: ChildReporter!

/// Tell the parent what is about to happen (named in a crash report).
func step(_ what: String) { reporter.send(.step(what)) }

/// Run one check: timed; a contract breach recorded by the proxy during it
/// (or a write to the host table) fails it, a doubtful behaviour warns.
func check(_ name: String, _ body: () -> CheckResult) {
    reporter.send(.begin(name))
    let v0 = Proxy.violations.count
    let w0 = Proxy.warnings.count
    Proxy.violationsMark = v0
    Proxy.warningsMark = w0
    let t0 = monotonicNS()
    var r = body()
    let dt = monotonicNS() - t0
    Proxy.checkHosts()
    if Proxy.violations.count > v0 {
        r = .fail(Proxy.violations[v0...].joined(separator: "; ") + (r.detail.isEmpty ? "" : " [\(r.detail)]"))
    } else if Proxy.warnings.count > w0 && r.status == .pass {
        r = .warn(Proxy.warnings[w0...].joined(separator: "; ") + (r.detail.isEmpty ? "" : " [\(r.detail)]"))
    }
    reporter.send(.result(CheckRecord(status: r.status, name: name, ns: dt, detail: r.detail)))
}

/// Entry of the child process. Returns the exit status.
public func runChild(group name: String, _ input: ValidationInput) -> Int32 {
    // Our results go to the original stdout; the plugin's stdout to stderr.
    let fd = dup(1)
    dup2(2, 1)
    reporter = ChildReporter(fd: fd)
    defer { reporter.send(.end) }
    guard let group = checkGroups.first(where: { $0.name == name }) else {
        check(name) { .fail("unknown check group \(name)") }
        return 0
    }
    switch group.run {
    case .file(let run):
        run(input)
    case .descriptor(let run):
        guard let g = loadedDescriptor(input.path) else { return notLoadable(name) }
        run(input, g)
    case .proxy(let run):
        guard let g = loadedDescriptor(input.path) else { return notLoadable(name) }
        run(input, PluginUnderTest(descriptor: g, proxy: Proxy.install(g)))
    }
    return 0
}

/// The plugin's descriptor as the loader reads it, without reporting (the
/// load group has reported why when there is none).
func loadedDescriptor(_ path: String) -> GuardDescriptor? {
    guard let d = openLoaded(path) else { return nil }
    return try? GuardDescriptor.read(d)
}

private func notLoadable(_ group: String) -> Int32 {
    check(group) { .fail("the plugin could not be loaded (see the load checks)") }
    return 0
}
