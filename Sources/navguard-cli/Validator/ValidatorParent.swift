// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import Glibc
import NavGuardValidator

// The validator's parent side: runs each check group in a child process
// (this executable again, found without /proc, or the child program of
// --child-program), reads the child's result lines (NavGuardValidator's
// ChildLine), and turns a crash, a hang or a bad exit into a failed check.

/// What runs a check group: this tool (`plugins validate --child GROUP`),
/// or a child program (Sources/navguard-validator-child: the same checks,
/// built for the plugin's machine) behind a wrapper such as an emulator.
struct ChildCommand {
    var program: String?
    var wrapper: [String] = []

    func argv(_ group: String, _ input: ValidationInput) -> [String] {
        let create = input.expectCreateFailure ? ["--expect-create-failure"] : []
        guard let program else {
            return [selfExecutable(), "plugins", "validate", "--child", group, "--config", input.config] + create + [input.path]
        }
        return wrapper + [program, "--config", input.config] + create + [group, input.path]
    }
}

struct ChildRun {
    var exitCode: Int32?       // normal exit
    var signal: Int32?         // killed by a signal
    var timedOut = false
    var stdout = ""
    var stderr = ""
    var ns: Int64 = 0
}

/// Spawn `argv` (argv[0] found on PATH when it has no slash) with stdout and stderr piped; kill it after `timeout` seconds.
func runProcess(_ argv: [String], environment: [String], timeout: Double) throws(FileError) -> ChildRun {
    var outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
    guard pipe(&outPipe) == 0 else { throw FileError(message: "pipe: \(String(cString: strerror(errno)))") }
    guard pipe(&errPipe) == 0 else {
        close(outPipe[0]); close(outPipe[1])
        throw FileError(message: "pipe: \(String(cString: strerror(errno)))")
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
    posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
    for fd in [outPipe[0], outPipe[1], errPipe[0], errPipe[1]] { posix_spawn_file_actions_addclose(&actions, fd) }

    let cArgs: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
    let cEnv: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
    defer {
        for p in cArgs { free(p) }
        for p in cEnv { free(p) }
    }
    var pid: pid_t = 0
    let t0 = monotonicNS()
    let rc = posix_spawnp(&pid, argv[0], &actions, nil, cArgs, cEnv)
    close(outPipe[1])
    close(errPipe[1])
    guard rc == 0 else {
        close(outPipe[0]); close(errPipe[0])
        throw FileError(message: "cannot run \(argv[0]): \(String(cString: strerror(rc)))")
    }
    var run = ChildRun()
    var out: [UInt8] = [], err: [UInt8] = []
    var open = [outPipe[0], errPipe[0]]
    let deadline = t0 + Int64(timeout * 1e9)
    var buf = [UInt8](repeating: 0, count: 65536)
    while !open.isEmpty {
        let left = deadline - monotonicNS()
        if left <= 0 {
            kill(pid, SIGKILL)
            run.timedOut = true
            break
        }
        var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let n = poll(&fds, nfds_t(fds.count), Int32(min(left / 1_000_000 + 1, 1000)))
        if n < 0 {
            if errno == EINTR { continue }
            break
        }
        for p in fds where p.revents != 0 {
            let got = read(p.fd, &buf, buf.count)
            if got > 0 {
                if p.fd == outPipe[0] {
                    out.append(contentsOf: buf[0..<got])
                } else if err.count < 1 << 20 {
                    err.append(contentsOf: buf[0..<got])
                }
            } else if got == 0 || (errno != EINTR && errno != EAGAIN) {
                close(p.fd)
                open.removeAll { $0 == p.fd }
            }
        }
    }
    for fd in open { close(fd) }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    run.ns = monotonicNS() - t0
    // The W* macros are not imported: decode the wait status by hand.
    if status & 0x7f == 0 {
        run.exitCode = (status >> 8) & 0xff
    } else if status & 0x7f != 0x7f {
        run.signal = status & 0x7f
    }
    run.stdout = String(decoding: out, as: UTF8.self)
    run.stderr = String(decoding: err, as: UTF8.self)
    return run
}

func signalName(_ sig: Int32) -> String {
    let names: [Int32: String] = [SIGSEGV: "SIGSEGV", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE",
                                  SIGILL: "SIGILL", SIGTRAP: "SIGTRAP", SIGKILL: "SIGKILL", SIGTERM: "SIGTERM"]
    let desc = strsignal(sig).map { String(cString: $0) } ?? "signal \(sig)"
    return "\(names[sig] ?? "signal \(sig)") (\(desc))"
}

/// The environment for a child: ours, with the Swift runtime's backtracer
/// off (a crashing plugin should just die, quickly, with its signal).
func childEnvironment() -> [String] {
    var env: [String] = []
    var p = environ
    while let entry = p.pointee {
        let s = String(cString: entry)
        if !s.hasPrefix("SWIFT_BACKTRACE=") { env.append(s) }
        p += 1
    }
    env.append("SWIFT_BACKTRACE=enable=no")
    return env
}

/// Run one group in a child; its checks, with a crash or hang turned into a FAIL.
func runGroup(_ group: String, _ input: ValidationInput, child: ChildCommand, timeout: Double, verbose: Bool) -> [CheckRecord] {
    let argv = child.argv(group, input)
    let run: ChildRun
    do throws(FileError) { run = try runProcess(argv, environment: childEnvironment(), timeout: timeout) } catch {
        return [CheckRecord(status: .fail, name: group, ns: 0, detail: error.message)]
    }
    var records: [CheckRecord] = []
    var begun: String?
    var lastStep: String?
    var ended = false
    for rawLine in run.stdout.split(separator: "\n", omittingEmptySubsequences: true) {
        switch ChildLine.decode(rawLine) {
        case .begin(let name):
            begun = name
            lastStep = nil
        case .step(let what):
            lastStep = what
        case .result(let r):
            records.append(r)
            begun = nil
        case .end:
            ended = true
        case nil:
            continue
        }
    }
    if verbose && !run.stderr.isEmpty {
        for l in run.stderr.split(separator: "\n") { printError("  [\(group)] \(l)") }
    }
    if !ended || begun != nil || run.exitCode != 0 {
        var why: String
        if run.timedOut {
            why = "hung: killed after \(formatSeconds(timeout))"
        } else if let s = run.signal {
            why = "crashed: killed by \(signalName(s))"
        } else if let c = run.exitCode, c != 0 {
            why = "the process exited with status \(c)"
        } else {
            why = "the process stopped without finishing"
        }
        if let lastStep { why += " during: \(lastStep)" }
        let tail = run.stderr.split(separator: "\n").suffix(3).map { oneLine(String($0)) }
        if !tail.isEmpty { why += " (stderr: \(tail.joined(separator: " | ")))" }
        records.append(CheckRecord(status: .fail, name: begun ?? group, ns: run.ns, detail: why))
    }
    if records.isEmpty {
        records.append(CheckRecord(status: .fail, name: group, ns: run.ns, detail: "the child reported nothing"))
    }
    return records
}

func formatSeconds(_ s: Double) -> String {
    s == s.rounded() ? "\(Int(s)) s" : "\(s) s"
}

/// Every group of the table in order, each in its own child, until a gate fails.
func runValidation(_ input: ValidationInput, child: ChildCommand, timeout: Double, verbose: Bool,
                   progress: ((CheckRecord) -> Void)?) -> ValidationReport {
    var report = ValidationReport(path: input.path)
    let t0 = monotonicNS()
    var stop = false
    for group in checkGroups {
        if stop {
            report.notRun.append(group.name)
            continue
        }
        let recs = runGroup(group.name, input, child: child, timeout: timeout, verbose: verbose)
        for r in recs { progress?(r) }
        report.records += recs
        if recs.contains(where: { $0.status == .fail && group.gates.contains($0.name) }) { stop = true }
    }
    report.ns = monotonicNS() - t0
    return report
}
