// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardLibc
import NavGuardCore
import NavGuardLoader
import NavGuardTrace

// navguard.h, "Plugins: loading guards from shared libraries": one plugin,
// a whole chain from a configuration (text or file), and where the built-in
// guards are. (How: Sources/NavGuardLoader.)

@c @implementation
public func ng_plugin_load(_ ctx: OpaquePointer?, _ path: UnsafePointer<CChar>?, _ configJSON: UnsafePointer<CChar>?) -> ng_status {
    withContext(ctx, record: .chain) { box throws(EngineError) in
        let p = try readCString(path, "path")!.string
        let config = try configJSON.map { c throws(EngineError) in try readConfiguration(c, "config_json") }
        if box.engine.isInsideCallback { throw EngineError(NG_E_CALLBACK, "plugins cannot be loaded inside a callback") }
        try box.recordChain("ng_plugin_load", config: config, path: p) { () throws(EngineError) in
            let plugin = try openPlugin(p)
            try box.engine.addGuard(plugin.descriptor, configText: config, origin: p)
        }
    }
}

@c @implementation
public func ng_chain_configure(_ ctx: OpaquePointer?, _ json: UnsafePointer<CChar>?) -> ng_status {
    withContext(ctx, record: .chain) { box throws(EngineError) in
        let text = try json.map { j throws(EngineError) in try readConfiguration(j, "json") } ?? String(cString: defaultChainJSON)
        try box.recordChain("ng_chain_configure", config: text) { () throws(EngineError) in
            try configureChain(box.engine, text)
        }
    }
}

@c @implementation
public func ng_chain_configure_file(_ ctx: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> ng_status {
    withContext(ctx, record: .chain) { box throws(EngineError) in
        guard let path else { throw .null("path") }
        let name = String(cString: path)
        let bytes: [UInt8]
        do throws(FileRefusal) { bytes = try readRegularFile(name, limit: maxConfigurationBytes) } catch {
            if error.tooLarge { throw EngineError(NG_E_TOO_LONG, "chain configuration is larger than 1 MiB") }
            throw EngineError(NG_E_LOAD, "cannot read chain configuration \(name): \(error.why)")
        }
        guard bytes.withUnsafeBytes({ isValidUTF8($0) }) else {
            throw EngineError(NG_E_UTF8, "chain configuration is not valid UTF-8")
        }
        let text = String(decoding: bytes, as: UTF8.self)
        try box.recordChain("ng_chain_configure_file", config: text, path: name) { () throws(EngineError) in
            try configureChain(box.engine, text)
        }
    }
}

@c @implementation
public func ng_plugin_dir() -> UnsafePointer<CChar>! { UnsafePointer(pluginDirectory) }

@c @implementation
public func ng_default_chain() -> UnsafePointer<CChar>! { UnsafePointer(defaultChainJSON) }
