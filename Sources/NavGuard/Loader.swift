import CNavGuard
import Glibc
import NavGuardC
import NavGuardCore

// Loading guard plugins from shared libraries, and chain configuration.
// Plugins are never unloaded: dlclose of a library that used Swift
// concurrency crashes, and a guard's strings must outlive the context.

let defaultChainJSON: StaticString = """
{"guards":[{"id":"org.navguard.watchdog"},{"id":"org.navguard.global-ignore"},{"id":"org.navguard.exclusive-touch"},{"id":"org.navguard.throttle"},{"id":"org.navguard.dedupe"},{"id":"org.navguard.transition"},{"id":"org.navguard.bar-should"},{"id":"org.navguard.confirm-leave"}]}
"""

/// Resolved once: NAVGUARD_PLUGIN_DIR, else next to libnavguard.so.
nonisolated(unsafe) let pluginDirectory: UnsafeMutablePointer<CChar> = {
    if let env = getenv("NAVGUARD_PLUGIN_DIR"), env[0] != 0 { return strdup(env)! }
    // Never a directory relative to the working directory: without the
    // library's own path, there is no built-in directory ("").
    guard let path = libraryPath(), let slash = path.lastIndex(of: "/") else { return strdup("")! }
    let libdir = String(path[..<slash])
    // The install layout (<libdir>/navguard/plugins), the build tree
    // (build/lib/navguard/plugins) and a program linking NavGuard in
    // statically from <prefix>/bin.
    for candidate in ["\(libdir)/navguard/plugins", "\(libdir)/lib/navguard/plugins", "\(libdir)/../lib/navguard/plugins"]
    where access(candidate, F_OK) == 0 {
        return strdup(candidate)!
    }
    return strdup("\(libdir)/navguard/plugins")!
}()

/// Where a guard named by id is looked up, in order: the directories of
/// NAVGUARD_PLUGIN_PATH (colon-separated; empty parts are skipped), then the
/// built-in directory (ng_plugin_dir). Read at each configuration.
public func pluginSearchPath() -> [String] {
    var dirs: [String] = []
    if let env = getenv("NAVGUARD_PLUGIN_PATH") {
        for part in String(cString: env).split(separator: ":", omittingEmptySubsequences: true) {
            let d = String(part)
            if !dirs.contains(d) { dirs.append(d) }
        }
    }
    let builtin = String(cString: pluginDirectory)
    if !dirs.contains(builtin) { dirs.append(builtin) }
    return dirs
}

/// A guard's file name: the last part of its id (org.navguard.throttle ->
/// throttle.so). The one place this rule lives.
public func pluginFileName(forID id: String) -> String? {
    guard let short = id.split(separator: ".").last, !short.isEmpty,
          short.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else { return nil }
    return "\(short).so"
}

/// The file this code was loaded from (dladdr, in NavGuardC: no /proc).
func libraryPath() -> String? {
    var buf = [CChar](repeating: 0, count: Int(PATH_MAX))
    guard ngc_library_path(&buf, buf.count) else { return nil }
    return buf.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
}

extension String {
    func trimmingSuffixNewline() -> String {
        var s = self
        while s.hasSuffix("\n") { s.removeLast() }
        return s
    }
}

/// Open `path` for reading when it is a regular file; otherwise the reason.
/// Opened with O_NONBLOCK, then checked with fstat: opening a FIFO for
/// reading would wait for a writer forever, a device may block or act.
/// (Regular files ignore O_NONBLOCK, so reads need no change.)
func openRegularFile(_ path: String) -> Result<Int32, FileRefusal> {
    let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
    guard fd >= 0 else { return .failure(FileRefusal(why: String(cString: strerror(errno)))) }
    var st = stat()
    guard fstat(fd, &st) == 0 else {
        let why = String(cString: strerror(errno))
        close(fd)
        return .failure(FileRefusal(why: why))
    }
    guard st.st_mode & S_IFMT == S_IFREG else {
        close(fd)
        return .failure(FileRefusal(why: "it is \(fileKind(st.st_mode)), not a regular file"))
    }
    return .success(fd)
}

/// Why a file was not opened (openRegularFile).
struct FileRefusal: Error { let why: String }

private func fileKind(_ mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFDIR: return "a directory"
    case S_IFIFO: return "a FIFO"
    case S_IFCHR: return "a character device"
    case S_IFBLK: return "a block device"
    case S_IFSOCK: return "a socket"
    default: return "not a file"
    }
}

/// A library opened and its descriptor read, not yet in a chain.
struct LoadedPlugin {
    var descriptor: UnsafePointer<ng_plugin_descriptor>
    var path: String
}

func openPlugin(_ path: String) -> Result<LoadedPlugin, EngineError> {
    guard access(path, F_OK) == 0 else {
        return .failure(EngineError(NG_E_LOAD, "plugin \(path): no such file"))
    }
    // Only a regular file reaches dlopen, which opens it blocking. (What is
    // checked here is what dlopen opens, unless the file is swapped in
    // between: a race only the directory's owner can cause.)
    switch openRegularFile(path) {
    case .success(let fd): close(fd)
    case .failure(let e): return .failure(EngineError(NG_E_LOAD, "plugin \(path) cannot be loaded: \(e.why)"))
    }
    // A bare file name is a file in the current directory, as access() saw
    // it, not a name for dlopen's library search.
    let openPath = path.contains("/") ? path : "./" + path
    guard let handle = dlopen(openPath, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
        let why = dlerror().map { String(cString: $0) } ?? "unknown error"
        return .failure(EngineError(NG_E_LOAD, "plugin \(path) is not a loadable shared library: \(why)"))
    }
    guard let sym = dlsym(handle, NG_PLUGIN_ENTRY_SYMBOL) else {
        return .failure(EngineError(NG_E_ENTRY, "plugin \(path) does not export \(NG_PLUGIN_ENTRY_SYMBOL)"))
    }
    let entry = unsafeBitCast(sym, to: ng_plugin_entry_fn.self)
    guard let d = entry() else {
        return .failure(EngineError(NG_E_ENTRY, "plugin \(path): \(NG_PLUGIN_ENTRY_SYMBOL)() returned NULL"))
    }
    if case .failure(let e) = GuardDescriptor.read(d) {
        return .failure(EngineError(e.status, "plugin \(path): \(e.message)"))
    }
    return .success(LoadedPlugin(descriptor: d, path: path))
}

/// One guard of a resolved chain: its file, its id when the configuration
/// named one (checked against the plugin's), and its configuration object.
public struct ChainEntry: Sendable {
    public var id: String?
    public var path: String
    public var config: JSONValue
}

/// A guard found on the search path.
public struct FoundGuard: Sendable {
    public var id: String
    public var name: String
    public var version: String
    public var path: String
}

/// Every guard library on the search path, first directory first, read by
/// loading it (libraries are never unloaded). A file that does not load or
/// has no valid descriptor is skipped. Used by `navguard plugins available`
/// and to list what exists when a configuration names an unknown id.
public func availableGuards(limit: Int = 256) -> [FoundGuard] {
    var found: [FoundGuard] = []
    for dir in pluginSearchPath() {
        guard let d = opendir(dir) else { continue }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".so") { names.append(name) }
        }
        closedir(d)
        for name in names.sorted() where found.count < limit {
            let path = "\(dir)/\(name)"
            guard case .success(let p) = openPlugin(path), case .success(let g) = GuardDescriptor.read(p.descriptor) else { continue }
            if found.contains(where: { $0.id == g.id }) { continue }   // shadowed by an earlier directory
            found.append(FoundGuard(id: g.id, name: String(cString: g.d.name), version: String(cString: g.d.version), path: path))
        }
    }
    return found
}

/// A string used as a file path or an id: no NUL inside (it would cut the
/// C string the loader opens).
private func cleanString(_ v: JSONValue?, _ what: String) -> Result<String?, EngineError> {
    guard let v else { return .success(nil) }
    guard let s = v.string else { return .failure(EngineError(NG_E_PARSE, "\(what) must be a string")) }
    if s.utf8.contains(0) { return .failure(EngineError(NG_E_PARSE, "\(what) contains a NUL character")) }
    if s.isEmpty { return .failure(EngineError(NG_E_PARSE, "\(what) is empty")) }
    return .success(s)
}

private func onlyKeys(_ v: JSONValue, _ allowed: [String], _ what: String) -> EngineError? {
    for (k, _) in v.object ?? [] where !allowed.contains(k) {
        return EngineError(NG_E_PARSE, "\(what) has an unknown key \"\(k)\" (allowed: \(allowed.joined(separator: ", ")))")
    }
    return nil
}

/// A guard entry ({"id", "path", "config"}) as written, not yet resolved.
private func parseEntry(_ g: JSONValue, _ what: String) -> Result<ChainEntry, EngineError> {
    guard g.object != nil else { return .failure(EngineError(NG_E_PARSE, "\(what) is not an object")) }
    if let e = onlyKeys(g, ["id", "path", "config"], what) { return .failure(e) }
    let id: String?, path: String?
    switch cleanString(g["id"], "\(what).id") { case .success(let x): id = x; case .failure(let e): return .failure(e) }
    switch cleanString(g["path"], "\(what).path") { case .success(let x): path = x; case .failure(let e): return .failure(e) }
    let config = g["config"] ?? .object([])
    guard config.object != nil else { return .failure(EngineError(NG_E_PARSE, "\(what).config must be an object")) }
    if let id {
        guard Engine.validateID(id) == nil, pluginFileName(forID: id) != nil else {
            return .failure(EngineError(NG_E_PARSE, "\(what).id \"\(id)\" is not a valid guard id (reverse-DNS, e.g. org.example.guard)"))
        }
    }
    guard id != nil || path != nil else { return .failure(EngineError(NG_E_PARSE, "\(what) needs an \"id\" or a \"path\"")) }
    return .success(ChainEntry(id: id, path: path ?? "", config: config))
}

/// Parse a chain configuration and resolve every guard to a file, without
/// loading anything. Two forms:
///   {"guards": [ {"id": ..., "path": ..., "config": {...}}, ... ]}
///   {"base": "default", "edits": [ {"remove": ID},
///                                  {"configure": ID, "config": {...}},
///                                  {"insert": {guard entry}, "before"|"after": ID} ]}
/// ("edits" may also follow "guards"). A guard named by id only is looked
/// up along pluginSearchPath() as pluginFileName(forID:).
public func resolveChain(_ text: String) -> Result<[ChainEntry], EngineError> {
    let root: JSONValue
    switch JSON.parse(text) {
    case .success(let v): root = v
    case .failure(let e): return .failure(EngineError(NG_E_PARSE, "chain configuration: \(e.message) (at byte \(e.offset))"))
    }
    guard root.object != nil else { return .failure(EngineError(NG_E_PARSE, "a chain configuration is a JSON object")) }
    if let e = onlyKeys(root, ["guards", "base", "edits"], "the chain configuration") { return .failure(e) }
    var chain: [ChainEntry] = []
    if let base = root["base"] {
        guard base.string == "default" else {
            return .failure(EngineError(NG_E_PARSE, "\"base\" must be \"default\" (the default chain, ng_default_chain)"))
        }
        guard root["guards"] == nil else {
            return .failure(EngineError(NG_E_PARSE, "a configuration has \"base\" or \"guards\", not both"))
        }
        guard case .success(let d) = resolveChainEntries(JSON.parse(defaultChainJSON.description), "the default chain") else {
            return .failure(EngineError(NG_E_STATE, "the built-in default chain does not parse"))
        }
        chain = d
    } else {
        guard root["guards"] != nil else {
            return .failure(EngineError(NG_E_PARSE, "a chain configuration needs \"guards\" (a list) or \"base\": \"default\""))
        }
        switch resolveChainEntries(.success(root), "the chain configuration") {
        case .success(let c): chain = c
        case .failure(let e): return .failure(e)
        }
    }
    if let edits = root["edits"] {
        guard let list = edits.array else { return .failure(EngineError(NG_E_PARSE, "\"edits\" must be a list")) }
        for (i, edit) in list.enumerated() {
            if case .failure(let e) = applyEdit(edit, "edits[\(i)]", to: &chain) { return .failure(e) }
        }
    }
    guard chain.count <= Limits.maxGuards else {
        return .failure(EngineError(NG_E_NO_MEMORY, "a chain has at most \(Limits.maxGuards) guards"))
    }
    for i in chain.indices where chain[i].path.isEmpty {
        switch locate(chain[i].id!) {
        case .success(let p): chain[i].path = p
        case .failure(let e): return .failure(e)
        }
    }
    return .success(chain)
}

private func resolveChainEntries(_ parsed: Result<JSONValue, JSONError>, _ what: String) -> Result<[ChainEntry], EngineError> {
    guard case .success(let root) = parsed, let guards = root["guards"]?.array else {
        return .failure(EngineError(NG_E_PARSE, "\(what): \"guards\" must be a list"))
    }
    guard guards.count <= Limits.maxGuards else {
        return .failure(EngineError(NG_E_NO_MEMORY, "a chain has at most \(Limits.maxGuards) guards"))
    }
    var out: [ChainEntry] = []
    for (i, g) in guards.enumerated() {
        switch parseEntry(g, "guards[\(i)]") {
        case .success(let e): out.append(e)
        case .failure(let e): return .failure(e)
        }
    }
    return .success(out)
}

private func applyEdit(_ edit: JSONValue, _ what: String, to chain: inout [ChainEntry]) -> Result<Void, EngineError> {
    guard edit.object != nil else { return .failure(EngineError(NG_E_PARSE, "\(what) is not an object")) }
    let verbs = ["remove", "configure", "insert"].filter { edit[$0] != nil }
    guard verbs.count == 1 else {
        return .failure(EngineError(NG_E_PARSE, "\(what) needs exactly one of \"remove\", \"configure\" or \"insert\""))
    }
    func index(_ key: String) -> Result<Int, EngineError> {
        let id: String
        switch cleanString(edit[key], "\(what).\(key)") {
        case .success(let x?): id = x
        case .success(nil): return .failure(EngineError(NG_E_PARSE, "\(what).\(key) is missing"))
        case .failure(let e): return .failure(e)
        }
        guard let i = chain.firstIndex(where: { $0.id == id }) else {
            let ids = chain.compactMap { $0.id ?? $0.path }.joined(separator: ", ")
            return .failure(EngineError(NG_E_PARSE, "\(what): \(id) is not in the chain (it has: \(ids))"))
        }
        return .success(i)
    }
    switch verbs[0] {
    case "remove":
        if let e = onlyKeys(edit, ["remove"], what) { return .failure(e) }
        switch index("remove") {
        case .success(let i): chain.remove(at: i)
        case .failure(let e): return .failure(e)
        }
    case "configure":
        if let e = onlyKeys(edit, ["configure", "config"], what) { return .failure(e) }
        guard let add = edit["config"]?.object else { return .failure(EngineError(NG_E_PARSE, "\(what).config must be an object")) }
        switch index("configure") {
        case .success(let i):
            // Keys given replace the guard's; the others stay.
            var members = chain[i].config.object ?? []
            for (k, v) in add {
                if let j = members.firstIndex(where: { $0.0 == k }) { members[j].1 = v } else { members.append((k, v)) }
            }
            chain[i].config = .object(members)
        case .failure(let e): return .failure(e)
        }
    default:
        if let e = onlyKeys(edit, ["insert", "before", "after"], what) { return .failure(e) }
        let entry: ChainEntry
        switch parseEntry(edit["insert"]!, "\(what).insert") {
        case .success(let x): entry = x
        case .failure(let e): return .failure(e)
        }
        if let id = entry.id, chain.contains(where: { $0.id == id }) {
            return .failure(EngineError(NG_E_PARSE, "\(what): \(id) is already in the chain"))
        }
        switch (edit["before"], edit["after"]) {
        case (nil, nil): chain.append(entry)
        case (.some, nil):
            switch index("before") { case .success(let i): chain.insert(entry, at: i); case .failure(let e): return .failure(e) }
        case (nil, .some):
            switch index("after") { case .success(let i): chain.insert(entry, at: i + 1); case .failure(let e): return .failure(e) }
        default:
            return .failure(EngineError(NG_E_PARSE, "\(what) has both \"before\" and \"after\""))
        }
    }
    return .success(())
}

/// The file of a guard named by id: the first <dir>/<name>.so along the
/// search path. An unknown id says where it looked and what exists there.
func locate(_ id: String) -> Result<String, EngineError> {
    let file = pluginFileName(forID: id)!
    let dirs = pluginSearchPath()
    for dir in dirs where access("\(dir)/\(file)", F_OK) == 0 { return .success("\(dir)/\(file)") }
    let known = availableGuards(limit: 64).map(\.id)
    let shown = known.prefix(24).joined(separator: ", ") + (known.count > 24 ? ", and \(known.count - 24) more" : "")
    let list = known.isEmpty ? "none found" : "guards found: " + shown
    return .failure(EngineError(NG_E_LOAD, "unknown guard id \"\(id)\": no \(file) in \(dirs.joined(separator: ":")) (NAVGUARD_PLUGIN_PATH, then the built-in directory); \(list)"))
}

/// Load every plugin first, then create the guards; on any failure the
/// guards created so far are destroyed and the chain stays empty.
func configureChain(_ box: ContextBox, _ text: String) -> ng_status {
    let engine = box.engine
    if engine.isInsideCallback { return box.fail(NG_E_CALLBACK, "the chain cannot be configured inside a callback") }
    guard engine.guardCount == 0 else { return box.fail(NG_E_STATE, "the chain is not empty") }
    let entries: [ChainEntry]
    switch resolveChain(text) {
    case .success(let e): entries = e
    case .failure(let e): return box.fail(e)
    }
    var loaded: [(LoadedPlugin, ChainEntry)] = []
    for e in entries {
        switch openPlugin(e.path) {
        case .failure(let err): return box.fail(err)
        case .success(let p):
            if let id = e.id, String(cString: p.descriptor.pointee.id) != id {
                return box.fail(NG_E_GUARD, "plugin \(e.path) has id \(String(cString: p.descriptor.pointee.id)), not \(id)")
            }
            loaded.append((p, e))
        }
    }
    for (p, e) in loaded {
        do { try engine.addGuard(p.descriptor, configText: JSON.serialize(e.config), origin: e.path) } catch {
            let status = box.fail(error)
            let detail = String(cString: box.errbuf)
            engine.removeAllGuards()
            // The core's message already names the guard; add its file.
            box.setError("\(detail) (\(e.path))")
            return status
        }
    }
    return NG_OK
}

@c @implementation
public func ng_plugin_load(_ ctx: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ configJSON: UnsafePointer<CChar>?) -> ng_status {
    withContext(ctx, record: "chain") { box in
        let p: String
        switch readString(path, "path") {
        case .success(let s): p = s!.string
        case .failure(let e): return box.fail(e)
        }
        var config: String?
        if let configJSON {
            switch readStringUnbounded(configJSON, "config_json") {
            case .success(let s): config = s
            case .failure(let e): return box.fail(e)
            }
        }
        if box.engine.isInsideCallback { return box.fail(NG_E_CALLBACK, "plugins cannot be loaded inside a callback") }
        return box.recordChain("ng_plugin_load", config: config, path: p) {
            switch openPlugin(p) {
            case .failure(let e): return box.fail(e)
            case .success(let plugin):
                do { try box.engine.addGuard(plugin.descriptor, configText: config, origin: p) } catch { return box.fail(error) }
                return NG_OK
            }
        }
    }
}

@c @implementation
public func ng_chain_configure(_ ctx: OpaquePointer?, _ json: UnsafePointer<CChar>?) -> ng_status {
    withContext(ctx, record: "chain") { box in
        guard let json else {
            let text = defaultChainJSON.description
            return box.recordChain("ng_chain_configure", config: text) { configureChain(box, text) }
        }
        let text: String
        switch readStringUnbounded(json, "json") {
        case .success(let s): text = s
        case .failure(let e): return box.fail(e)
        }
        return box.recordChain("ng_chain_configure", config: text) { configureChain(box, text) }
    }
}

@c @implementation
public func ng_chain_configure_file(_ ctx: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> ng_status {
    withContext(ctx, record: "chain") { box in
        guard let path else { return box.fail(NG_E_NULL, "path is NULL") }
        let fd: Int32
        switch openRegularFile(String(cString: path)) {
        case .success(let f): fd = f
        case .failure(let e): return box.fail(NG_E_LOAD, "cannot read chain configuration \(String(cString: path)): \(e.why)")
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                // A read error part-way would otherwise configure from a truncated file.
                return box.fail(NG_E_LOAD, "cannot read chain configuration \(String(cString: path)): \(String(cString: strerror(errno)))")
            }
            bytes.append(contentsOf: chunk[0..<n])
            if bytes.count > 1 << 20 { return box.fail(NG_E_TOO_LONG, "chain configuration is larger than 1 MiB") }
        }
        guard bytes.withUnsafeBytes({ isValidUTF8($0) }) else {
            return box.fail(NG_E_UTF8, "chain configuration is not valid UTF-8")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        return box.recordChain("ng_chain_configure_file", config: text, path: String(cString: path)) {
            configureChain(box, text)
        }
    }
}

@c @implementation
public func ng_plugin_dir() -> UnsafePointer<CChar>! { UnsafePointer(pluginDirectory) }

@c @implementation
public func ng_default_chain() -> UnsafePointer<CChar>! {
    UnsafeRawPointer(defaultChainJSON.utf8Start).assumingMemoryBound(to: CChar.self)
}

/// A NUL-terminated UTF-8 text of up to 1 MiB (configurations).
func readStringUnbounded(_ p: UnsafePointer<CChar>, _ what: String) -> Result<String, EngineError> {
    switch checkedLength(p, limit: 1 << 20) {
    case .success(let n): return .success(String(decoding: UnsafeRawBufferPointer(start: p, count: n), as: UTF8.self))
    case .failure(.tooLong): return .failure(EngineError(NG_E_TOO_LONG, "\(what) is larger than 1 MiB"))
    case .failure(.notUTF8): return .failure(EngineError(NG_E_UTF8, "\(what) is not valid UTF-8"))
    }
}
