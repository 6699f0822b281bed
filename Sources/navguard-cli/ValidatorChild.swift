import CNavGuard
import Glibc
import NavGuard
import NavGuardCore

// The checks, run inside the validator's child process, one check group per
// process (`navguard plugins validate --child GROUP LIB.so`). A crash or hang
// of the plugin kills only the child; the parent reports the check that was
// running as failed.
//
// Line protocol on the child's stdout (the plugin's own stdout is sent to
// stderr so it cannot mix in), tab-separated, each line prefixed "@@NGV":
//   @@NGV BEGIN  <check>
//   @@NGV STEP   <what is about to be done>
//   @@NGV RESULT <PASS|FAIL|WARN> <check> <nanoseconds> <detail>
//   @@NGV END

enum CheckStatus: String {
    case pass = "PASS", fail = "FAIL", warn = "WARN"
}

struct CheckResult {
    var status: CheckStatus
    var detail: String
    static func pass(_ d: String) -> CheckResult { CheckResult(status: .pass, detail: d) }
    static func fail(_ d: String) -> CheckResult { CheckResult(status: .fail, detail: d) }
    static func warn(_ d: String) -> CheckResult { CheckResult(status: .warn, detail: d) }
}

let protocolPrefix = "@@NGV"

final class ChildReporter {
    let fd: Int32
    init(fd: Int32) { self.fd = fd }
    func line(_ fields: [String]) {
        writeAll(fd, ([protocolPrefix] + fields.map(oneLine)).joined(separator: "\t") + "\n")
    }
}

nonisolated(unsafe) var reporter: ChildReporter!

/// Tell the parent what is about to happen (named in a crash report).
func step(_ what: String) { reporter.line(["STEP", what]) }

/// Run one check: timed; a contract breach recorded by the proxy during it
/// (or a write to the host table) fails it, a doubtful behaviour warns.
func check(_ name: String, _ body: () -> CheckResult) {
    reporter.line(["BEGIN", name])
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
    reporter.line(["RESULT", r.status.rawValue, name, String(dt), r.detail])
}

/// The check groups, in the order the parent runs them. Groups after "load"
/// need a loadable plugin with a valid descriptor.
let checkGroups: [String] = [
    "file", "load", "create.empty", "create.config", "extension", "options",
] + garbageConfigs.map { "create.garbage.\($0.label)" } + [
    "hooks.requests", "hooks.transitions", "hooks.holds", "hooks.ticks", "hooks.events",
    "lifecycle", "loader",
]

/// Configurations a guard must survive: created, or refused with a status.
let garbageConfigs: [(label: String, json: String)] = {
    func nested(_ depth: Int, _ leaf: String) -> String {
        String(repeating: "{\"a\":[", count: depth) + leaf + String(repeating: "]}", count: depth)
    }
    return [
        ("wrong-types", #"{"mode":123,"limit":"x","interval_ms":-5,"keep":[],"mask":"all","report":"yes","every_view_exclusive":1,"hold_during_transitions":{},"symbol":7,"library":false,"args":"kind","kinds":{"push":true},"blocked_routes":"home","max_depth":[1]}"#),
        ("nested", "{\"mode\":\(nested(15, "1")),\"limit\":\(nested(15, "\"x\"")),\"args\":\(nested(14, "[]"))}"),
        ("too-deep", nested(100, "0")),
        ("unknown-keys", #"{"validator_unknown_key":true,"x":{"y":[1,2,3]},"emoji 💥":"\u0000","":"","interval_ms_":5}"#),
        ("huge-numbers", #"{"interval_ms":9223372036854775807,"limit":-9223372036854775808,"mask":4294967296,"max_ms":1e308,"timeout_ms":-1e308,"max_depth":1.5}"#),
        ("nulls", #"{"mode":null,"keep":null,"limit":null,"interval_ms":null,"mask":null,"symbol":null,"library":null,"args":null,"blocked_routes":null}"#),
        ("lists", #"{"blocked_routes":[1,null,{},[],""],"args":["kind","no-such-arg",3],"kinds":["push","warp"],"mode":["queue"],"routes":[]}"#),
        ("empty-strings", #"{"mode":"","keep":"","symbol":"","library":"","returns":"","refuse_when":"","reason":""}"#),
        ("long-strings", "{\"mode\":\"\(String(repeating: "q", count: 600))\",\"symbol\":\"\(String(repeating: "s", count: 300))\"}"),
        ("truncated", #"{"mode":"queue","limit":"#),
        ("not-object", "[1,2,3]"),
    ]
}()

struct ChildOptions {
    var group: String
    var path: String
    var config: String
    /// --expect-create-failure: the configuration is meant to be refused.
    var expectCreateFailure = false
}

/// Entry of the child process. Returns the exit status.
func runChild(_ o: ChildOptions) -> Int32 {
    // Our results go to the original stdout; the plugin's stdout to stderr.
    let fd = dup(1)
    dup2(2, 1)
    reporter = ChildReporter(fd: fd)
    let group = o.group
    if group == "file" {
        fileChecks(o.path)
    } else if group == "load" {
        loadChecks(o.path)
    } else {
        guard let d = quietLoad(o.path) else {
            check(group) { .fail("the plugin could not be loaded (see the load checks)") }
            reporter.line(["END"])
            return 0
        }
        let proxy = Proxy.install(d)
        if group == "create.empty" {
            createEmptyChecks(proxy)
        } else if group == "create.config" {
            createConfigCheck(proxy, config: o.config, expectFailure: o.expectCreateFailure)
        } else if group == "options" {
            optionChecks(proxy, config: o.config)
        } else if group == "extension" {
            extensionChecks(proxy, config: o.config)
        } else if group.hasPrefix("create.garbage.") {
            let label = String(group.dropFirst("create.garbage.".count))
            if let g = garbageConfigs.first(where: { $0.label == label }) {
                garbageCheck(proxy, g.label, g.json)
            } else {
                check(group) { .fail("unknown check group \(group)") }
            }
        } else if group == "hooks.requests" {
            withGuard(group, proxy, o.config) { requestChecks($0) }
        } else if group == "hooks.transitions" {
            withGuard(group, proxy, o.config) { transitionChecks($0) }
        } else if group == "hooks.holds" {
            withGuard(group, proxy, o.config) { holdChecks($0) }
        } else if group == "hooks.ticks" {
            withGuard(group, proxy, o.config) { tickChecks($0) }
        } else if group == "hooks.events" {
            withGuard(group, proxy, o.config) { eventChecks($0) }
        } else if group == "lifecycle" {
            lifecycleChecks(proxy, config: o.config)
        } else if group == "loader" {
            loaderChecks(o.path, d, config: o.config)
        } else {
            check(group) { .fail("unknown check group \(group)") }
        }
    }
    reporter.line(["END"])
    return 0
}

// MARK: - file

func fileChecks(_ path: String) {
    var ok = false
    check("file.exists") {
        var st = stat()
        guard stat(path, &st) == 0 else { return .fail("\(path): \(String(cString: strerror(errno)))") }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return .fail("\(path) is not a regular file") }
        ok = true
        return .pass("\(realPath(path)), \(st.st_size) bytes")
    }
    guard ok else { return }
    check("file.exports") {
        let bytes: [UInt8]
        switch readFile(path) {
        case .success(let b): bytes = b
        case .failure(let e): return .fail(e.message)
        }
        switch ELF.exports(of: bytes) {
        case .failure(let e):
            return e.message.hasPrefix("no section headers") ? .warn("cannot list the exports: \(e.message)") : .fail(e.message)
        case .success(let elf):
            let names = elf.exported.map(\.name)
            if elf.fileType != ELF.ET_DYN { return .fail("ELF type \(elf.fileType), not a shared object (ET_DYN)") }
            if names.isEmpty { return .fail("no exported symbol: \(NG_PLUGIN_ENTRY_SYMBOL) is missing (.dynsym has \(elf.dynsymCount) entries)") }
            if names == [NG_PLUGIN_ENTRY_SYMBOL] {
                let s = elf.exported[0]
                if s.type != 2 && s.type != 10 {
                    return .fail("\(NG_PLUGIN_ENTRY_SYMBOL) is \(ELF.typeName(s.type)), not a function")
                }
                return .pass("exactly one exported symbol: \(NG_PLUGIN_ENTRY_SYMBOL) (\(ELF.typeName(s.type)) \(ELF.bindingName(s.binding)))")
            }
            let extra = names.filter { $0 != NG_PLUGIN_ENTRY_SYMBOL }
            let shown = extra.prefix(8).joined(separator: ", ") + (extra.count > 8 ? ", ..." : "")
            let missing = names.contains(NG_PLUGIN_ENTRY_SYMBOL) ? "" : "; \(NG_PLUGIN_ENTRY_SYMBOL) is not exported"
            return .fail("\(names.count) exported symbols, expected only \(NG_PLUGIN_ENTRY_SYMBOL): \(shown)\(missing) (link with a version script: { global: ng_plugin_entry; local: *; };)")
        }
    }
}

// MARK: - load and descriptor

/// dlopen + ng_plugin_entry without reporting (groups after "load").
func quietLoad(_ path: String) -> UnsafePointer<ng_plugin_descriptor>? {
    guard let h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE), let sym = dlsym(h, NG_PLUGIN_ENTRY_SYMBOL) else { return nil }
    let entry = unsafeBitCast(sym, to: ng_plugin_entry_fn.self)
    guard let d = entry() else { return nil }
    // The loader's own rules (ABI, frozen minimum size, id, declarations).
    guard case .success = GuardDescriptor.read(d) else { return nil }
    return d
}

func loadChecks(_ path: String) {
    var handle: UnsafeMutableRawPointer?
    var entry: ng_plugin_entry_fn?
    var d: UnsafePointer<ng_plugin_descriptor>?
    var scan: Int64 = 0

    check("load.dlopen") {
        step("dlopen(RTLD_NOW|RTLD_LOCAL|RTLD_NODELETE)")
        let t0 = monotonicNS()
        handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)
        scan += monotonicNS() - t0
        guard handle != nil else {
            return .fail("dlopen(RTLD_NOW|RTLD_LOCAL|RTLD_NODELETE): \(dlerror().map { String(cString: $0) } ?? "unknown error")")
        }
        return .pass("dlopen(RTLD_NOW|RTLD_LOCAL|RTLD_NODELETE) succeeded")
    }
    guard let handle else { return }
    check("load.entry-symbol") {
        let t0 = monotonicNS()
        let sym = dlsym(handle, NG_PLUGIN_ENTRY_SYMBOL)
        scan += monotonicNS() - t0
        guard let sym else { return .fail("dlsym(\(NG_PLUGIN_ENTRY_SYMBOL)): \(dlerror().map { String(cString: $0) } ?? "not found")") }
        entry = unsafeBitCast(sym, to: ng_plugin_entry_fn.self)
        return .pass("\(NG_PLUGIN_ENTRY_SYMBOL) found")
    }
    guard let entry else { return }
    check("load.entry") {
        step("call \(NG_PLUGIN_ENTRY_SYMBOL)()")
        let t0 = monotonicNS()
        d = entry()
        scan += monotonicNS() - t0
        guard let d else { return .fail("\(NG_PLUGIN_ENTRY_SYMBOL)() returned NULL") }
        step("call \(NG_PLUGIN_ENTRY_SYMBOL)() again")
        if entry() != d { return .warn("\(NG_PLUGIN_ENTRY_SYMBOL)() returned a different descriptor on a second call (it should be static)") }
        return .pass("returned a descriptor (the same one on a second call)")
    }
    check("load.scan-time") {
        let detail = "dlopen + dlsym + \(NG_PLUGIN_ENTRY_SYMBOL)(): \(formatMS(scan))"
        return scan < 100 * Harness.ms ? .pass(detail) : .warn(detail + " (over 100 ms: does the plugin do work at load?)")
    }
    guard let d else { return }
    let ours = MemoryLayout<ng_plugin_descriptor>.size
    var abiOK = false
    check("descriptor.abi") {
        let major = d.pointee.abi_major, minor = d.pointee.abi_minor
        let built = "built for plugin ABI \(major).\(minor), host has \(NG_PLUGIN_ABI_MAJOR).\(NG_PLUGIN_ABI_MINOR)"
        // plugin.h's one rule, as the loader applies it.
        guard ng_plugin_abi_compatible(UInt32(NG_PLUGIN_ABI_MAJOR), UInt32(NG_PLUGIN_ABI_MINOR), major, minor) else {
            return .fail((major != UInt32(NG_PLUGIN_ABI_MAJOR) ? "abi_major mismatch: " : "newer abi_minor than the host's: ") + built)
        }
        abiOK = true
        return .pass(built)
    }
    guard abiOK else { return }
    var sizeOK = false
    check("descriptor.size") {
        let size = Int(d.pointee.size)
        if size < Int(NG_PLUGIN_DESCRIPTOR_MIN_SIZE) {
            return .fail("size \(size) is smaller than \(NG_PLUGIN_DESCRIPTOR_MIN_SIZE), plugin ABI 1.0's descriptor")
        }
        sizeOK = true
        if size > ours { return .warn("size \(size) is larger than this host's sizeof(ng_plugin_descriptor) = \(ours) for the same ABI minor") }
        if size < ours { return .pass("size \(size): an older layout (the host reads the fields after it as zero)") }
        return .pass("size \(size) = sizeof(ng_plugin_descriptor)")
    }
    guard sizeOK else { return }
    var id = ""
    check("descriptor.id") {
        step("read descriptor->id")
        guard let p = d.pointee.id else { return .fail("id is NULL") }
        guard isValidUTF8C(p, limit: 4096) else { return .fail("id is not valid UTF-8") }
        id = text(p) ?? ""
        if let why = Engine.validateID(p) { return .fail("id \"\(id)\": \(why)") }
        return .pass(id)
    }
    check("descriptor.strings") {
        var problems: [String] = []
        var shown: [String] = []
        for (field, p) in [("name", d.pointee.name), ("version", d.pointee.version), ("description", d.pointee.description)] {
            step("read descriptor->\(field)")
            guard let p else { problems.append("\(field) is NULL"); continue }
            if p[0] == 0 { problems.append("\(field) is empty"); continue }
            if !isValidUTF8C(p) { problems.append("\(field) is not valid UTF-8"); continue }
            if strnlen(p, Int(NG_MAX_STRING) + 1) > Int(NG_MAX_STRING) { problems.append("\(field) is longer than \(NG_MAX_STRING) bytes") }
            if field != "description" { shown.append("\(field) \"\(text(p) ?? "")\"") }
        }
        return problems.isEmpty ? .pass(shown.joined(separator: ", ") + ", description set") : .fail(problems.joined(separator: "; "))
    }
    check("descriptor.lifecycle") {
        var missing: [String] = []
        if d.pointee.create == nil { missing.append("create") }
        if d.pointee.destroy == nil { missing.append("destroy") }
        return missing.isEmpty ? .pass("create and destroy are set") : .fail("\(missing.joined(separator: " and ")) is NULL")
    }
    check("descriptor.hooks") {
        let x = d.pointee
        let hooks: [(String, Bool)] = [
            ("on_request", x.on_request != nil), ("on_event", x.on_event != nil), ("on_outcome", x.on_outcome != nil),
            ("on_transition", x.on_transition != nil), ("on_hold", x.on_hold != nil), ("on_tick", x.on_tick != nil),
            ("next_deadline", x.next_deadline != nil), ("get_extension", x.get_extension != nil),
        ]
        let set = hooks.filter(\.1).map(\.0)
        if set.isEmpty { return .warn("no hook is set: the guard can neither vote nor observe") }
        if x.on_tick != nil && x.next_deadline == nil { return .warn("on_tick is set without next_deadline: it is never called") }
        return .pass("set: " + set.joined(separator: ", "))
    }
    check("descriptor.file-name") {
        guard !id.isEmpty, let file = pluginFileName(forID: id) else { return .warn("no id to compare with") }
        let base = path.split(separator: "/").last.map(String.init) ?? path
        if base == file { return .pass("\(base) matches the id's last label (loadable as {\"id\": \"\(id)\"})") }
        return .warn("file \(base) is not \(file): a chain entry {\"id\": \"\(id)\"} would not find it on the search path (a {\"path\": ...} entry works)")
    }
    check("descriptor.options") {
        switch GuardDescriptor.read(d) {
        case .failure(let e): return .fail(e.message)
        case .success(let g):
            if !g.options.declared {
                return .warn("no options declared (descriptor `options`, plugin ABI 1.1): the host cannot check its "
                             + "configuration, and `navguard plugins info` cannot list it")
            }
            if g.options.options.isEmpty { return .pass("declares that it takes no options") }
            return .pass("\(g.options.options.count) declared: " + g.options.options.map { "\($0.name) (\(OptionDecl.typeName($0.type)))" }.joined(separator: ", "))
        }
    }
}

// MARK: - create

/// Statuses of ng_chain_add that mean "refused cleanly": the guard's create
/// failed (NG_E_GUARD), or the core rejected the configuration text first.
let cleanFailures: Set<ng_status> = [NG_E_GUARD, NG_E_PARSE, NG_E_TOO_LONG, NG_E_UTF8]

func createEmptyChecks(_ proxy: UnsafePointer<ng_plugin_descriptor>) {
    for (name, config) in [("create.empty-config", Optional("{}")), ("create.null-config", nil)] {
        check(name) {
            let h = Harness()
            let logs0 = h.logs.count
            step("ng_chain_add with config \(config ?? "NULL")")
            let (st, why) = h.addGuard(proxy, config: config)
            if st == NG_OK {
                step("ng_context_destroy")
                h.destroy()
                return .pass("created with config \(config ?? "NULL")")
            }
            if !cleanFailures.contains(st) { return .fail("ng_chain_add: unexpected \(why)") }
            step("ng_context_destroy")
            h.destroy()
            if h.logs.count == logs0 {
                return .warn("create failed cleanly but logged nothing through host->log (it should say why): \(why)")
            }
            return .pass("failed cleanly with config \(config ?? "NULL"): \(why)")
        }
    }
    check("create.destroy") {
        let h = Harness()
        let creates = Proxy.calls[Hook.create.rawValue], destroys = Proxy.calls[Hook.destroy.rawValue]
        let (st, why) = h.addGuard(proxy, config: "{}")
        guard st == NG_OK else { return .pass("not applicable: create failed with {} (\(why))") }
        step("ng_context_destroy")
        let ds = h.destroy()
        if ds != NG_OK { return .fail("ng_context_destroy: \(statusName(ds))") }
        let c = Proxy.calls[Hook.create.rawValue] - creates, dd = Proxy.calls[Hook.destroy.rawValue] - destroys
        if c != 1 || dd != 1 { return .fail("create called \(c) times, destroy \(dd) times (expected once each)") }
        return .pass("created, destroyed once; host table untouched")
    }
}

func extensionChecks(_ proxy: UnsafePointer<ng_plugin_descriptor>, config: String) {
    check("extension.unknown-id") {
        guard let getExtension = Proxy.real.pointee.get_extension else { return .pass("get_extension is NULL (no extensions)") }
        let h = Harness()
        var (st, why) = h.addGuard(proxy, config: config)
        if st != NG_OK && config != "{}" { (st, why) = h.addGuard(proxy, config: "{}") }
        guard st == NG_OK, let inst = Proxy.liveInstance() else {
            return .warn("not checked: no instance (create failed: \(why))")
        }
        var found: [String] = []
        for id in ["org.navguard.validator.unknown/1", "org.navguard.validator.unknown/1 ", "", "org.navguard.report/999999",
                   String(repeating: "x", count: 2000)] {
            step("get_extension(instance, \"\(id.prefix(40))\")")
            if getExtension(inst, id) != nil { found.append("\"\(id.prefix(40))\"") }
        }
        h.destroy()
        if !found.isEmpty { return .fail("get_extension returned non-NULL for unknown id(s) \(found.joined(separator: ", "))") }
        return .pass("NULL for \"org.navguard.validator.unknown/1\" and 4 other unknown ids")
    }
}

func garbageCheck(_ proxy: UnsafePointer<ng_plugin_descriptor>, _ label: String, _ json: String) {
    check("create.garbage.\(label)") {
        let h = Harness()
        step("ng_chain_add with the \(label) configuration")
        let (st, why) = h.addGuard(proxy, config: json)
        if st != NG_OK {
            if !cleanFailures.contains(st) { return .fail("ng_chain_add: unexpected \(why)") }
            step("ng_context_destroy")
            h.destroy()
            return .pass("refused cleanly: \(why)")
        }
        // Created: it must also work with that configuration.
        step("push, pop, touch and tick with the \(label) configuration")
        h.submit(NG_REQ_PUSH, animated: true, screen: h.newScreen("garbage"))
        h.settle()
        h.submit(NG_REQ_POP)
        h.settle()
        h.touch(on: Harness.button)
        h.advance(10 * Harness.second)
        h.tick()
        step("ng_context_destroy")
        h.destroy()
        return .pass("accepted, and ran: \(h.outcomeSummary(since: 0))")
    }
}

// MARK: - hooks

/// A context with the guard under test (config from --config), or a warning.
func withGuard(_ group: String, _ proxy: UnsafePointer<ng_plugin_descriptor>, _ config: String, _ body: (Harness) -> Void) {
    let h = Harness()
    step("ng_chain_add with config \(config)")
    let (st, why) = h.addGuard(proxy, config: config)
    guard st == NG_OK else {
        check(group) { .warn("hooks not exercised: create failed with config \(config): \(why) (pass a working configuration with --config)") }
        return
    }
    body(h)
    check("\(group).destroy") {
        step("ng_context_destroy")
        let ds = h.destroy()
        if ds != NG_OK { return .fail("ng_context_destroy: \(statusName(ds))") }
        let bad = Proxy.instances.filter { $0.destroyed != 1 }
        if !bad.isEmpty { return .fail("\(bad.count) instance(s) not destroyed exactly once") }
        return .pass("context destroyed; " + hookCounts())
    }
}

func hookCounts() -> String {
    let set: [Hook] = Hook.allCases.filter { hookIsSet($0) }
    return "hook calls: " + set.map { "\($0.name) \(Proxy.calls[$0.rawValue])" }.joined(separator: ", ")
}

func hookIsSet(_ h: Hook) -> Bool {
    let d = Proxy.proxy.pointee
    switch h {
    case .create: return d.create != nil
    case .destroy: return d.destroy != nil
    case .onRequest: return d.on_request != nil
    case .onEvent: return d.on_event != nil
    case .onOutcome: return d.on_outcome != nil
    case .onTransition: return d.on_transition != nil
    case .onHold: return d.on_hold != nil
    case .onTick: return d.on_tick != nil
    case .nextDeadline: return d.next_deadline != nil
    case .getExtension: return d.get_extension != nil
    }
}

/// The check passes unless NavGuard itself reported an unexpected status, or
/// the guard cancelled a touch from inside that touch's began vote.
func finish(_ h: Harness, _ m: Harness.Mark, extra: String = "") -> CheckResult {
    let detail = h.summary(since: m) + (extra.isEmpty ? "" : "; " + extra)
    if h.beganSelfCancels.count > m.selfCancels {
        return .fail("the guard's action inside a touch's began vote cancelled or blocked that very touch before its "
                     + "verdict returned (NavGuard dropped the began instead): "
                     + h.beganSelfCancels[m.selfCancels...].prefix(3).joined(separator: ", ")
                     + "; take holds and cancel touches after the began, e.g. from on_tick or a later event")
    }
    if h.anomalies.count > m.anomalies {
        return .warn(detail + "; unexpected statuses: " + h.anomalies[m.anomalies...].prefix(3).joined(separator: "; "))
    }
    return .pass(detail)
}

func requestChecks(_ h: Harness) {
    // Every request kind, immediate and animated (the host ends the animation).
    let kinds: [(String, ng_request_kind)] = [
        ("push", NG_REQ_PUSH), ("pop", NG_REQ_POP), ("pop-to", NG_REQ_POP_TO), ("pop-to-root", NG_REQ_POP_TO_ROOT),
        ("replace-stack", NG_REQ_REPLACE_STACK), ("back", NG_REQ_BACK),
    ]
    for (name, kind) in kinds {
        check("request.\(name)") {
            let m = h.mark()
            for animated in [false, true] {
                h.ensureDepth(4)
                h.source += 1
                let how = animated ? "animated" : "immediate"
                step("submit \(name) (\(how))")
                switch kind {
                case NG_REQ_PUSH:
                    h.submit(kind, animated: animated, screen: h.newScreen("detail", identity: "item-\(h.nextScreenID)"))
                    h.settle()
                    step("submit \(name) of the top screen's identity (\(how))")
                    h.submit(kind, animated: animated, screen: h.newScreen("same", identity: "same"))
                    h.settle()
                    h.submit(kind, animated: animated, screen: h.newScreen("same", identity: "same"))
                case NG_REQ_POP_TO:
                    h.submit(kind, animated: animated, target: h.screenID(at: 1))
                    h.settle()
                    step("submit \(name) an unknown screen (\(how))")
                    h.submit(kind, animated: animated, target: 999_999)
                case NG_REQ_REPLACE_STACK:
                    h.submit(kind, animated: animated, stack: [h.newScreen("home2"), h.newScreen("list"), h.newScreen("detail")])
                default:
                    h.submit(kind, animated: animated)
                }
                if animated {
                    step("finish the bar track, then the screen track")
                    _ = ng_transition_finish(h.ctx, NG_TRACK_BAR)
                    _ = ng_transition_finish(h.ctx, NG_TRACK_SCREEN)
                }
                h.settle()
            }
            // Two in a row without time passing (throttles, duplicates).
            step("submit \(name) twice at once")
            h.ensureDepth(4)
            for _ in 0..<2 {
                switch kind {
                case NG_REQ_PUSH: h.submit(kind, screen: h.newScreen("twice", identity: "twice"))
                case NG_REQ_POP_TO: h.submit(kind, target: h.screenID(at: 0))
                case NG_REQ_REPLACE_STACK: h.submit(kind, stack: [h.newScreen("a"), h.newScreen("b")])
                default: h.submit(kind)
                }
            }
            h.settle()
            return finish(h, m)
        }
    }
    check("request.interactive-back") {
        let m = h.mark()
        for commit in [false, true] {
            h.ensureDepth(3)
            h.source += 1
            step("interactive back begin")
            let r = h.submit(NG_REQ_INTERACTIVE_BACK, animated: true)
            if r.status == NG_OUTCOME_APPLIED {
                for p in [0.1, 0.35, 0.6, 0.2] {
                    step("interactive back update \(p)")
                    h.advance(16 * Harness.ms)
                    _ = ng_interactive_update(h.ctx, p)
                    h.tick()
                }
                step(commit ? "interactive back finish" : "interactive back cancel")
                if commit { _ = ng_transition_finish(h.ctx, NG_TRACK_ALL) } else { _ = ng_interactive_cancel(h.ctx) }
            }
            h.settle()
        }
        step("interactive back without the animated flag")
        h.submit(NG_REQ_INTERACTIVE_BACK)
        _ = ng_interactive_cancel(h.ctx)
        h.settle()
        return finish(h, m)
    }
    check("request.timed") {
        let m = h.mark()
        h.ensureDepth(2)
        step("push animated + timed (200 ms), then let the clock run")
        h.submit(NG_REQ_PUSH, animated: true, timed: true, duration: 200 * Harness.ms, screen: h.newScreen("timed"))
        for _ in 0..<5 { h.advance(60 * Harness.ms); h.tick() }
        step("pop animated + timed (context default)")
        h.submit(NG_REQ_POP, animated: true, timed: true)
        h.advance(Harness.second)
        h.tick()
        h.settle()
        return finish(h, m)
    }
    check("request.busy") {
        let m = h.mark()
        h.ensureDepth(3)
        step("push animated, then every kind while it runs")
        h.submit(NG_REQ_PUSH, animated: true, screen: h.newScreen("slow"))
        h.source += 1
        h.submit(NG_REQ_PUSH, animated: true, screen: h.newScreen("during"))
        h.submit(NG_REQ_POP, animated: true)
        h.submit(NG_REQ_BACK, animated: true)
        h.submit(NG_REQ_POP_TO_ROOT)
        h.submit(NG_REQ_INTERACTIVE_BACK, animated: true)
        step("finish, then let queued requests run")
        for _ in 0..<6 {
            _ = ng_transition_finish(h.ctx, NG_TRACK_ALL)
            h.advance(100 * Harness.ms)
            h.tick()
        }
        h.settle()
        return finish(h, m)
    }
    check("request.posted") {
        let m = h.mark()
        h.ensureDepth(2)
        step("ng_request_post push and pop, then tick")
        h.post(NG_REQ_PUSH, screen: h.newScreen("posted"))
        h.post(NG_REQ_POP)
        h.tick()
        h.settle()
        return finish(h, m)
    }
    check("request.invalid") {
        let m = h.mark()
        step("submit malformed requests (the core refuses them as invalid)")
        h.submit(99)
        h.submit(NG_REQ_PUSH, screen: ng_screen(id: 0, route: nil, identity: nil))
        h.submit(NG_REQ_REPLACE_STACK, stack: [])
        h.settle()
        return finish(h, m)
    }
}

func transitionChecks(_ h: Harness) {
    check("transition.tracks") {
        let m = h.mark()
        h.ensureDepth(2)
        step("push animated; finish the screen track, then the bar track")
        h.submit(NG_REQ_PUSH, animated: true, screen: h.newScreen("t1"))
        _ = ng_transition_finish(h.ctx, NG_TRACK_SCREEN)
        h.advance(50 * Harness.ms)
        _ = ng_transition_finish(h.ctx, NG_TRACK_BAR)
        step("finish with nothing in flight")
        _ = ng_transition_finish(h.ctx, NG_TRACK_ALL)
        h.settle()
        return finish(h, m)
    }
    check("transition.interrupted") {
        let m = h.mark()
        step("push animated, then pop and replace while it runs (may be refused busy)")
        h.submit(NG_REQ_PUSH, animated: true, screen: h.newScreen("t2"))
        h.advance(10 * Harness.ms)
        h.submit(NG_REQ_POP, animated: true, source: 900)
        h.advance(10 * Harness.ms)
        h.submit(NG_REQ_REPLACE_STACK, animated: true, stack: [h.newScreen("r1"), h.newScreen("r2")], source: 901)
        h.settle()
        h.settle()
        return finish(h, m)
    }
    check("transition.never-finished") {
        let m = h.mark()
        step("push animated and never finish it; let a minute pass in ticks")
        h.submit(NG_REQ_PUSH, animated: true, screen: h.newScreen("stuck"))
        for _ in 0..<60 { h.advance(Harness.second); h.tick() }
        h.settle()
        return finish(h, m)
    }
}

func holdChecks(_ h: Harness) {
    check("hold.begin-end") {
        let m = h.mark()
        step("hold begin (all events), request and events during it, end")
        let t = h.holdBegin("validator.all", mask: NG_MASK_ALL)
        h.ensureDepth(2)
        h.submit(NG_REQ_PUSH, screen: h.newScreen("held"))
        h.touch(on: Harness.button)
        h.event(NG_EVENT_KEY, code: 13)
        h.expect(ng_hold_end(h.ctx, t), "ng_hold_end")
        step("end the same hold again, and an unknown token")
        _ = ng_hold_end(h.ctx, t)
        _ = ng_hold_end(h.ctx, 987_654_321)
        h.settle()
        return finish(h, m)
    }
    check("hold.expire") {
        let m = h.mark()
        step("overlapping holds of 300 ms and 1.3 s; advance and tick")
        h.holdBegin("validator.short", mask: NG_MASK_DEFAULT, max: 300 * Harness.ms)
        h.holdBegin("validator.long", mask: NG_MASK_TOUCH, max: 1300 * Harness.ms)
        for _ in 0..<20 { h.advance(100 * Harness.ms); h.tick(); h.event(NG_EVENT_MOTION, code: 1) }
        h.settle()
        return finish(h, m)
    }
    check("hold.touch-cancel") {
        let m = h.mark()
        step("touch began, then a hold over touches (the touch is cancelled), then its end")
        let id = h.nextTouchID
        h.nextTouchID += 1
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: id, at: Harness.point(of: Harness.multi))
        let t = h.holdBegin("validator.block", mask: NG_MASK_TOUCH, max: Harness.second)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_MOVED, touch: id, at: Harness.point(of: Harness.multi))
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_ENDED, touch: id, at: Harness.point(of: Harness.multi))
        _ = ng_hold_end(h.ctx, t)
        h.settle()
        return finish(h, m)
    }
    check("hold.during-transition") {
        let m = h.mark()
        step("hold during an animated push; end both")
        h.ensureDepth(2)
        h.submit(NG_REQ_PUSH, animated: true, screen: h.newScreen("h1"))
        let t = h.holdBegin("validator.transition", mask: 0)
        h.touch(on: Harness.circle)
        _ = ng_transition_finish(h.ctx, NG_TRACK_ALL)
        _ = ng_hold_end(h.ctx, t)
        h.settle()
        return finish(h, m)
    }
}

func tickChecks(_ h: Harness) {
    check("tick.advance") {
        let m = h.mark()
        let steps: [Int64] = [0, 1, Harness.ms, 16 * Harness.ms, 100 * Harness.ms, Harness.second, 10 * Harness.second,
                              3600 * Harness.second]
        for s in steps {
            step("advance \(s) ns and tick")
            h.advance(s)
            h.tick()
        }
        return finish(h, m)
    }
    check("tick.deadlines") {
        let m = h.mark()
        step("animated push + timed hold; follow ng_next_deadline")
        h.ensureDepth(2)
        h.submit(NG_REQ_PUSH, animated: true, timed: true, screen: h.newScreen("deadline"))
        h.holdBegin("validator.deadline", mask: NG_MASK_KEY, max: 500 * Harness.ms)
        var followed = 0
        for _ in 0..<200 {
            var next: Int64 = 0
            h.expect(ng_next_deadline(h.ctx, &next), "ng_next_deadline")
            guard next != Int64.max else { break }
            let now = h.now
            if next > now { h.expect(ng_clock_set(h.ctx, next), "ng_clock_set") }
            step("tick at the next deadline")
            h.tick()
            followed += 1
            if next <= now { h.advance(Harness.ms) }
        }
        h.settle()
        let ticks = hookIsSet(.onTick) ? "on_tick called \(Proxy.calls[Hook.onTick.rawValue]) times so far" : "no on_tick hook"
        return finish(h, m, extra: "followed \(followed) deadlines; \(ticks)")
    }
}

func eventChecks(_ h: Harness) {
    check("event.touch-phases") {
        let m = h.mark()
        for v in [Harness.button, Harness.multi, Harness.circle, Harness.star, Harness.hidden, Harness.disabled, Harness.window] {
            step("touch began/moved/ended on view \(v)")
            h.touch(on: v)
            step("touch began/moved/cancelled on view \(v)")
            h.touch(on: v, cancel: true)
            h.advance(Harness.second)
        }
        step("a touch outside every view")
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 500, at: (-10, -10))
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_ENDED, touch: 500, at: (-10, -10))
        return finish(h, m)
    }
    check("event.touch-target") {
        let m = h.mark()
        step("touches with a host target (NG_EVF_HAS_TARGET)")
        h.touch(on: Harness.circle, useTarget: true)
        h.touch(on: Harness.button, useTarget: true)
        step("a touch targeting an unregistered view")
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 600, at: (1, 1), target: 4242)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_ENDED, touch: 600, at: (1, 1), target: 4242)
        return finish(h, m)
    }
    check("event.multi-touch") {
        let mark = h.mark()
        step("two touches on a multi-touch view, one on the exclusive button meanwhile")
        let b = Harness.point(of: Harness.button), mt = Harness.point(of: Harness.multi), c = Harness.point(of: Harness.circle)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 700, at: mt)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 701, at: (mt.0 + 5, mt.1))
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 702, at: b)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 703, at: c)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 704, at: c)
        for id: UInt64 in 700...704 { h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_MOVED, touch: id, at: mt) }
        for id: UInt64 in 700...704 { h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_ENDED, touch: id, at: mt) }
        step("exclusive button first, then other views")
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 710, at: b)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 711, at: mt)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_CANCELLED, touch: 710, at: b)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_ENDED, touch: 711, at: mt)
        return finish(h, mark)
    }
    check("event.bad-sequences") {
        let m = h.mark()
        step("began twice, moved/ended for unknown touches")
        let p = Harness.point(of: Harness.multi)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 800, at: p)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 800, at: p)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_MOVED, touch: 801, at: p)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_ENDED, touch: 802, at: p)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_ENDED, touch: 800, at: p)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_ENDED, touch: 800, at: p)
        return finish(h, m)
    }
    check("event.types") {
        let m = h.mark()
        let types: [(String, ng_event_type)] = [("motion", NG_EVENT_MOTION), ("remote", NG_EVENT_REMOTE), ("key", NG_EVENT_KEY),
                                                ("scroll", NG_EVENT_SCROLL), ("hover", NG_EVENT_HOVER)]
        for (name, t) in types {
            for phase: Int32 in 0..<3 {
                step("\(name) event, subtype \(phase)")
                h.event(t, phase: phase, touch: UInt64(phase), at: Harness.point(of: Harness.button), code: Int64(phase) * 7 + 1)
            }
            h.event(t, phase: 0, at: (-1, -1), target: Harness.circle, code: -1)
            h.advance(5 * Harness.ms)
        }
        return finish(h, m)
    }
    check("event.view-removed") {
        let m = h.mark()
        step("touch began on a view, the view removed, the touch ends")
        let p = Harness.point(of: Harness.star)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 900, at: p)
        h.removeView(Harness.star)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_MOVED, touch: 900, at: p)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_ENDED, touch: 900, at: p)
        h.addViews()
        return finish(h, m)
    }
    check("event.during-transition") {
        let m = h.mark()
        step("touches and keys while an animated push runs")
        h.ensureDepth(2)
        h.submit(NG_REQ_PUSH, animated: true, screen: h.newScreen("anim"))
        h.touch(on: Harness.button)
        h.event(NG_EVENT_KEY, code: 27)
        h.event(NG_EVENT_REMOTE, code: 3)
        _ = ng_transition_finish(h.ctx, NG_TRACK_ALL)
        h.touch(on: Harness.button)
        h.settle()
        return finish(h, m)
    }
}

// MARK: - lifecycle and loader

func lifecycleChecks(_ proxy: UnsafePointer<ng_plugin_descriptor>, config: String) {
    check("lifecycle.destroy-busy") {
        let h = Harness()
        let (st, why) = h.addGuard(proxy, config: config)
        guard st == NG_OK else { return .warn("not exercised: create failed with config \(config): \(why)") }
        step("leave a transition, a hold, a touch and a posted request live, then destroy")
        h.ensureDepth(2)
        h.submit(NG_REQ_PUSH, animated: true, screen: h.newScreen("busy"))
        h.submit(NG_REQ_POP, animated: true, source: 55)
        h.holdBegin("validator.live", mask: NG_MASK_KEY)
        h.event(NG_EVENT_TOUCH, phase: NG_TOUCH_BEGAN, touch: 1000, at: Harness.point(of: Harness.multi))
        h.post(NG_REQ_PUSH, screen: h.newScreen("late"))
        step("ng_context_destroy")
        let ds = h.destroy()
        if ds != NG_OK { return .fail("ng_context_destroy: \(statusName(ds))") }
        let bad = Proxy.instances.filter { $0.destroyed != 1 }
        if !bad.isEmpty { return .fail("\(bad.count) instance(s) not destroyed exactly once") }
        return .pass("destroyed with work in flight; " + h.outcomeSummary(since: 0))
    }
    check("lifecycle.two-contexts") {
        let a = Harness(), b = Harness()
        let (sa, wa) = a.addGuard(proxy, config: config)
        let (sb, wb) = b.addGuard(proxy, config: config)
        guard sa == NG_OK, sb == NG_OK else { return .warn("not exercised: create failed: \(sa == NG_OK ? wb : wa)") }
        step("interleave two contexts with one instance each")
        for i in 0..<4 {
            a.submit(NG_REQ_PUSH, animated: i % 2 == 0, screen: a.newScreen("a\(i)"))
            b.submit(NG_REQ_PUSH, animated: i % 2 == 1, screen: b.newScreen("b\(i)"))
            a.touch(on: Harness.button)
            b.touch(on: Harness.multi)
            a.settle()
            b.settle()
        }
        step("destroy the first context, keep using the second")
        a.destroy()
        b.submit(NG_REQ_POP, animated: true)
        b.touch(on: Harness.circle)
        b.settle()
        b.destroy()
        let bad = Proxy.instances.filter { $0.destroyed != 1 }
        if !bad.isEmpty { return .fail("\(bad.count) instance(s) not destroyed exactly once") }
        return .pass("two instances used side by side, each destroyed once")
    }
    check("lifecycle.repeat") {
        step("create and destroy 50 contexts with the guard")
        for _ in 0..<50 {
            let h = Harness()
            let (st, why) = h.addGuard(proxy, config: config)
            if st != NG_OK { return .warn("not exercised: create failed: \(why)") }
            h.submit(NG_REQ_PUSH, screen: h.newScreen("r"))
            h.destroy()
        }
        return .pass("50 create/destroy cycles")
    }
}

func loaderChecks(_ path: String, _ d: UnsafePointer<ng_plugin_descriptor>, config: String) {
    check("loader.ng_plugin_load") {
        let h = Harness()
        step("ng_plugin_load(\(path))")
        let logs0 = h.logs.count
        let st = ng_plugin_load(h.ctx, path, config)
        if st != NG_OK {
            let why = h.failureDetail(st, logsFrom: logs0)
            if st == NG_E_GUARD || st == NG_E_PARSE { return .warn("loaded, but create failed cleanly with config \(config): \(why)") }
            return .fail("ng_plugin_load: \(why)")
        }
        var idp: UnsafePointer<CChar>?
        h.expect(ng_chain_get_id(h.ctx, 0, &idp), "ng_chain_get_id")
        let id = text(idp) ?? ""
        let want = text(d.pointee.id) ?? ""
        step("run a push and a touch through the loaded guard")
        h.submit(NG_REQ_PUSH, animated: true, screen: h.newScreen("loaded"))
        h.touch(on: Harness.button)
        h.settle()
        step("load it a second time into the same context (a duplicate id)")
        let again = ng_plugin_load(h.ctx, path, config)
        h.destroy()
        if id != want { return .fail("the chain has id \"\(id)\", the descriptor says \"\(want)\"") }
        let dup = again == NG_OK ? "a second load of the same id was accepted" : "a second load was refused (\(statusCode(again)))"
        return .pass("loaded through ng_plugin_load as \(id); \(dup)")
    }
}
