import CNavGuard
import Glibc
import NavGuardCore

// Loading guard plugins from shared libraries, and chain configuration.
// Plugins are never unloaded: dlclose of a library that used Swift
// concurrency crashes, and a guard's strings must outlive the context.

let defaultChainJSON: StaticString = """
{"guards":[{"id":"org.navguard.watchdog"},{"id":"org.navguard.global-ignore"},{"id":"org.navguard.exclusive-touch"},{"id":"org.navguard.throttle"},{"id":"org.navguard.dedupe"},{"id":"org.navguard.bar-should"},{"id":"org.navguard.transition","config":{"mode":"queue","keep":"all","limit":8}}]}
"""

/// Resolved once: NAVGUARD_PLUGIN_DIR, else next to libnavguard.so.
nonisolated(unsafe) let pluginDirectory: UnsafeMutablePointer<CChar> = {
    if let env = getenv("NAVGUARD_PLUGIN_DIR"), env[0] != 0 { return strdup(env)! }
    var libdir = "."
    if let path = libraryPath() {
        if let slash = path.lastIndex(of: "/") { libdir = String(path[..<slash]) }
    }
    // The install layout (<libdir>/navguard/plugins), the build tree
    // (build/lib/navguard/plugins) and a program linking NavGuard in
    // statically from <prefix>/bin.
    for candidate in ["\(libdir)/navguard/plugins", "\(libdir)/lib/navguard/plugins", "\(libdir)/../lib/navguard/plugins"]
    where access(candidate, F_OK) == 0 {
        return strdup(candidate)!
    }
    return strdup("\(libdir)/navguard/plugins")!
}()

/// The file this code was loaded from, from /proc/self/maps (dladdr needs
/// _GNU_SOURCE, which Swift's Glibc module does not expose).
func libraryPath() -> String? {
    let anchor = UInt(bitPattern: unsafeBitCast(ng_plugin_dir as @convention(c) () -> UnsafePointer<CChar>?, to: UnsafeRawPointer.self))
    guard let f = fopen("/proc/self/maps", "r") else { return nil }
    defer { fclose(f) }
    var line = [CChar](repeating: 0, count: 4096)
    while fgets(&line, Int32(line.count), f) != nil {
        let text = line.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        let fields = text.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count >= 6, let dash = fields[0].firstIndex(of: "-") else { continue }
        guard let lo = UInt(fields[0][..<dash], radix: 16),
              let hi = UInt(fields[0][fields[0].index(after: dash)...], radix: 16) else { continue }
        if anchor >= lo && anchor < hi {
            return fields[5...].joined(separator: " ").trimmingSuffixNewline()
        }
    }
    return nil
}

extension String {
    func trimmingSuffixNewline() -> String {
        var s = self
        while s.hasSuffix("\n") { s.removeLast() }
        return s
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
    if let m = Engine.validate(d) {
        let abi = d.pointee.abi_major != UInt32(NG_PLUGIN_ABI_MAJOR) || d.pointee.abi_minor > UInt32(NG_PLUGIN_ABI_MINOR)
        return .failure(EngineError(abi ? NG_E_ABI : NG_E_GUARD, "plugin \(path): \(m)"))
    }
    return .success(LoadedPlugin(descriptor: d, path: path))
}

/// One entry of a chain configuration, resolved to a file.
struct ChainEntry {
    var id: String?
    var path: String
    var config: String
}

func parseChain(_ text: String) -> Result<[ChainEntry], EngineError> {
    let root: JSONValue
    switch JSON.parse(text) {
    case .success(let v): root = v
    case .failure(let e): return .failure(EngineError(NG_E_PARSE, "chain configuration: \(e.message)"))
    }
    guard let guards = root["guards"]?.array else {
        return .failure(EngineError(NG_E_PARSE, "chain configuration needs a \"guards\" array"))
    }
    guard guards.count <= Limits.maxGuards else {
        return .failure(EngineError(NG_E_NO_MEMORY, "a chain has at most \(Limits.maxGuards) guards"))
    }
    let dir = String(cString: pluginDirectory)
    var out: [ChainEntry] = []
    for (i, g) in guards.enumerated() {
        guard g.object != nil else { return .failure(EngineError(NG_E_PARSE, "guards[\(i)] is not an object")) }
        let id = g["id"]?.string
        let path = g["path"]?.string
        if g["id"] != nil && id == nil { return .failure(EngineError(NG_E_PARSE, "guards[\(i)].id must be a string")) }
        if g["path"] != nil && path == nil { return .failure(EngineError(NG_E_PARSE, "guards[\(i)].path must be a string")) }
        var config = "{}"
        if let c = g["config"] {
            guard c.object != nil else { return .failure(EngineError(NG_E_PARSE, "guards[\(i)].config must be an object")) }
            config = JSON.serialize(c)
        }
        if let path {
            out.append(ChainEntry(id: id, path: path, config: config))
        } else if let id {
            guard let short = id.split(separator: ".").last, !short.isEmpty,
                  short.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                return .failure(EngineError(NG_E_PARSE, "guards[\(i)].id \"\(id)\" is not a valid guard id"))
            }
            out.append(ChainEntry(id: id, path: "\(dir)/\(short).so", config: config))
        } else {
            return .failure(EngineError(NG_E_PARSE, "guards[\(i)] needs an \"id\" or a \"path\""))
        }
    }
    return .success(out)
}

/// Load every plugin first, then create the guards; on any failure the
/// guards created so far are destroyed and the chain stays empty.
func configureChain(_ box: ContextBox, _ text: String) -> ng_status {
    let engine = box.engine
    if engine.isInsideCallback { return box.fail(NG_E_CALLBACK, "the chain cannot be configured inside a callback") }
    guard engine.guardCount == 0 else { return box.fail(NG_E_STATE, "the chain is not empty") }
    let entries: [ChainEntry]
    switch parseChain(text) {
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
        do { try engine.addGuard(p.descriptor, configText: e.config) } catch {
            let status = box.fail(error)
            let detail = String(cString: box.errbuf)
            engine.removeAllGuards()
            box.setError("\(e.id ?? e.path): \(detail)")
            return status
        }
    }
    return NG_OK
}

@c @implementation
public func ng_plugin_load(_ ctx: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ configJSON: UnsafePointer<CChar>?) -> ng_status {
    withContext(ctx) { box in
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
        switch openPlugin(p) {
        case .failure(let e): return box.fail(e)
        case .success(let plugin):
            do { try box.engine.addGuard(plugin.descriptor, configText: config) } catch { return box.fail(error) }
            return NG_OK
        }
    }
}

@c @implementation
public func ng_chain_configure(_ ctx: OpaquePointer?, _ json: UnsafePointer<CChar>?) -> ng_status {
    withContext(ctx) { box in
        guard let json else { return configureChain(box, defaultChainJSON.description) }
        let text: String
        switch readStringUnbounded(json, "json") {
        case .success(let s): text = s
        case .failure(let e): return box.fail(e)
        }
        return configureChain(box, text)
    }
}

@c @implementation
public func ng_chain_configure_file(_ ctx: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> ng_status {
    withContext(ctx) { box in
        guard let path else { return box.fail(NG_E_NULL, "path is NULL") }
        guard let f = fopen(path, "rb") else {
            return box.fail(NG_E_LOAD, "cannot read chain configuration \(String(cString: path)): \(String(cString: strerror(errno)))")
        }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&chunk, 1, chunk.count, f)
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            if bytes.count > 1 << 20 { return box.fail(NG_E_TOO_LONG, "chain configuration is larger than 1 MiB") }
        }
        guard bytes.withUnsafeBytes({ isValidUTF8($0) }) else {
            return box.fail(NG_E_UTF8, "chain configuration is not valid UTF-8")
        }
        return configureChain(box, String(decoding: bytes, as: UTF8.self))
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
    let n = strnlen(p, (1 << 20) + 1)
    guard n <= 1 << 20 else { return .failure(EngineError(NG_E_TOO_LONG, "\(what) is larger than 1 MiB")) }
    let buf = UnsafeRawBufferPointer(start: p, count: n)
    guard isValidUTF8(buf) else { return .failure(EngineError(NG_E_UTF8, "\(what) is not valid UTF-8")) }
    return .success(String(decoding: buf, as: UTF8.self))
}
