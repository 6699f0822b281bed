// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardLibc
import NavGuardCore

// A chain configuration (ng_chain_configure, navguard.h): parsed, edited,
// every guard resolved to a file, then loaded and created all or nothing.

/// The default chain as a configuration: the built-in guards of
/// NG_DEFAULT_CHAIN_ORDER (navguard.h, where the chain is written, once), in
/// its order, each by its id ("org.navguard." and its name).
let defaultChain: JSONValue = .object([("guards", .array(
    NG_DEFAULT_CHAIN_ORDER.utf8.split(separator: UInt8(ascii: ",")).map { name in
        let id = "org.navguard." + String(decoding: name.filter { $0 != UInt8(ascii: " ") }, as: UTF8.self)
        return .object([("id", .string(id))])
    }))])

/// The default chain's text (ng_default_chain: static storage, never freed).
package nonisolated(unsafe) let defaultChainJSON: UnsafeMutablePointer<CChar> = strdup(JSON.serialize(defaultChain))!

/// One guard of a resolved chain: its file, its id when the configuration
/// named one (checked against the plugin's), and its configuration object.
public struct ChainEntry: Sendable {
    public var id: String?
    public var path: String
    public var config: JSONValue
}

/// Parse a chain configuration and resolve every guard to a file, without
/// loading anything. Two forms:
///   {"guards": [ {"id": ..., "path": ..., "config": {...}}, ... ]}
///   {"base": "default", "edits": [ {"remove": ID},
///                                  {"configure": ID, "config": {...}},
///                                  {"insert": {guard entry}, "before"|"after": ID} ]}
/// ("edits" may also follow "guards"). A guard named by id only is looked
/// up along pluginSearchPath() as pluginFileName(forID:).
@_optimize(size)
public func resolveChain(_ text: String) throws(EngineError) -> [ChainEntry] {
    let root: JSONValue
    do throws(JSONError) { root = try JSON.parse(text) } catch {
        throw EngineError(NG_E_PARSE, "chain configuration: \(error.message) (at byte \(error.offset))")
    }
    guard root.object != nil else { throw EngineError(NG_E_PARSE, "a chain configuration is a JSON object") }
    try onlyKeys(root, ["guards", "base", "edits"], "the chain configuration")
    var chain: [ChainEntry]
    if let base = root["base"] {
        guard base.string == "default" else {
            throw EngineError(NG_E_PARSE, "\"base\" must be \"default\" (the default chain, ng_default_chain)")
        }
        guard root["guards"] == nil else {
            throw EngineError(NG_E_PARSE, "a configuration has \"base\" or \"guards\", not both")
        }
        chain = try entries(defaultChain, "the default chain")
    } else {
        guard root["guards"] != nil else {
            throw EngineError(NG_E_PARSE, "a chain configuration needs \"guards\" (a list) or \"base\": \"default\"")
        }
        chain = try entries(root, "the chain configuration")
    }
    if let edits = root["edits"] {
        guard let list = edits.array else { throw EngineError(NG_E_PARSE, "\"edits\" must be a list") }
        for (i, edit) in list.enumerated() { try applyEdit(edit, "edits[\(i)]", to: &chain) }
    }
    guard chain.count <= Limits.maxGuards else {
        throw EngineError(NG_E_NO_MEMORY, "a chain has at most \(Limits.maxGuards) guards")
    }
    for i in chain.indices where chain[i].path.isEmpty { chain[i].path = try locate(chain[i].id!) }
    return chain
}

/// Load every plugin first, then create the guards; on any failure the
/// guards created so far are destroyed and the chain stays empty.
@_optimize(size)
package func configureChain(_ engine: Engine, _ text: String) throws(EngineError) {
    if engine.isInsideCallback { throw .inCallback("configuring the chain") }
    guard engine.guardCount == 0 else { throw EngineError(NG_E_STATE, "the chain is not empty") }
    var loaded: [(LoadedPlugin, ChainEntry)] = []
    for e in try resolveChain(text) {
        let p = try openPlugin(e.path)
        if let id = e.id, String(cString: p.descriptor.pointee.id) != id {
            throw EngineError(NG_E_GUARD, "plugin \(e.path) has id \(String(cString: p.descriptor.pointee.id)), not \(id)")
        }
        loaded.append((p, e))
    }
    for (p, e) in loaded {
        do throws(EngineError) { try engine.addGuard(p.descriptor, config: e.config, origin: e.path) } catch {
            engine.removeAllGuards()
            // The core's message already names the guard; add its file.
            throw EngineError(error.status, "\(error.message) (\(e.path))")
        }
    }
}

/// The file of a guard named by id: the first <dir>/<name>.so along the
/// search path. An unknown id says where it looked and what exists there.
@_optimize(size)
package func locate(_ id: String) throws(EngineError) -> String {
    let file = pluginFileName(forID: id)!
    let dirs = pluginSearchPath()
    for dir in dirs where access("\(dir)/\(file)", F_OK) == 0 { return "\(dir)/\(file)" }
    let known = availableGuards(limit: 64).map { $0.id }
    let shown = known.prefix(24).joined(separator: ", ") + (known.count > 24 ? ", and \(known.count - 24) more" : "")
    let list = known.isEmpty ? "none found" : "guards found: " + shown
    throw EngineError(NG_E_LOAD, "unknown guard id \"\(id)\": no \(file) in \(dirs.joined(separator: ":")) (NAVGUARD_PLUGIN_PATH, then the built-in directory); \(list)")
}

// MARK: The configuration's parts

/// A string used as a file path or an id: no NUL inside (it would cut the
/// C string the loader opens).
@_optimize(size)
private func cleanString(_ v: JSONValue?, _ what: String) throws(EngineError) -> String? {
    guard let v else { return nil }
    guard let s = v.string else { throw EngineError(NG_E_PARSE, "\(what) must be a string") }
    if s.utf8.contains(0) { throw EngineError(NG_E_PARSE, "\(what) contains a NUL character") }
    if s.isEmpty { throw EngineError(NG_E_PARSE, "\(what) is empty") }
    return s
}

@_optimize(size)
private func onlyKeys(_ v: JSONValue, _ allowed: [String], _ what: String) throws(EngineError) {
    for (k, _) in v.object ?? [] where !allowed.contains(k) {
        throw EngineError(NG_E_PARSE, "\(what) has an unknown key \"\(k)\" (allowed: \(allowed.joined(separator: ", ")))")
    }
}

/// A guard entry ({"id", "path", "config"}) as written, not yet resolved.
@_optimize(size)
private func parseEntry(_ g: JSONValue, _ what: String) throws(EngineError) -> ChainEntry {
    guard g.object != nil else { throw EngineError(NG_E_PARSE, "\(what) is not an object") }
    try onlyKeys(g, ["id", "path", "config"], what)
    let id = try cleanString(g["id"], "\(what).id")
    let path = try cleanString(g["path"], "\(what).path")
    let config = g["config"] ?? .object([])
    guard config.object != nil else { throw EngineError(NG_E_PARSE, "\(what).config must be an object") }
    if let id {
        guard Engine.validateID(id) == nil, pluginFileName(forID: id) != nil else {
            throw EngineError(NG_E_PARSE, "\(what).id \"\(id)\" is not a valid guard id (reverse-DNS, e.g. org.example.guard)")
        }
    }
    guard id != nil || path != nil else { throw EngineError(NG_E_PARSE, "\(what) needs an \"id\" or a \"path\"") }
    return ChainEntry(id: id, path: path ?? "", config: config)
}

@_optimize(size)
private func entries(_ root: JSONValue, _ what: String) throws(EngineError) -> [ChainEntry] {
    guard let guards = root["guards"]?.array else {
        throw EngineError(NG_E_PARSE, "\(what): \"guards\" must be a list")
    }
    guard guards.count <= Limits.maxGuards else {
        throw EngineError(NG_E_NO_MEMORY, "a chain has at most \(Limits.maxGuards) guards")
    }
    var out: [ChainEntry] = []
    for (i, g) in guards.enumerated() { out.append(try parseEntry(g, "guards[\(i)]")) }
    return out
}

@_optimize(size)
private func applyEdit(_ edit: JSONValue, _ what: String, to chain: inout [ChainEntry]) throws(EngineError) {
    guard edit.object != nil else { throw EngineError(NG_E_PARSE, "\(what) is not an object") }
    let verbs = ["remove", "configure", "insert"].filter { edit[$0] != nil }
    guard verbs.count == 1 else {
        throw EngineError(NG_E_PARSE, "\(what) needs exactly one of \"remove\", \"configure\" or \"insert\"")
    }
    @_optimize(size)
    func index(_ key: String) throws(EngineError) -> Int {
        guard let id = try cleanString(edit[key], "\(what).\(key)") else {
            throw EngineError(NG_E_PARSE, "\(what).\(key) is missing")
        }
        guard let i = chain.firstIndex(where: { $0.id == id }) else {
            let ids = chain.compactMap { $0.id ?? $0.path }.joined(separator: ", ")
            throw EngineError(NG_E_PARSE, "\(what): \(id) is not in the chain (it has: \(ids))")
        }
        return i
    }
    switch verbs[0] {
    case "remove":
        try onlyKeys(edit, ["remove"], what)
        chain.remove(at: try index("remove"))
    case "configure":
        try onlyKeys(edit, ["configure", "config"], what)
        guard let add = edit["config"]?.object else { throw EngineError(NG_E_PARSE, "\(what).config must be an object") }
        let i = try index("configure")
        // Keys given replace the guard's; the others stay.
        var members = chain[i].config.object ?? []
        for (k, v) in add {
            if let j = members.firstIndex(where: { $0.0 == k }) { members[j].1 = v } else { members.append((k, v)) }
        }
        chain[i].config = .object(members)
    default:
        try onlyKeys(edit, ["insert", "before", "after"], what)
        let entry = try parseEntry(edit["insert"]!, "\(what).insert")
        if let id = entry.id, chain.contains(where: { $0.id == id }) {
            throw EngineError(NG_E_PARSE, "\(what): \(id) is already in the chain")
        }
        switch (edit["before"], edit["after"]) {
        case (nil, nil): chain.append(entry)
        case (.some, nil): chain.insert(entry, at: try index("before"))
        case (nil, .some): chain.insert(entry, at: try index("after") + 1)
        default: throw EngineError(NG_E_PARSE, "\(what) has both \"before\" and \"after\"")
        }
    }
}
