// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore
import NavGuardTrace

// navguard.h, "Guard chain": adding a guard from a descriptor the host
// holds, and reading the chain. (Loading guards from files: PluginsAPI.swift.)

@c @implementation
public func ng_chain_add(_ ctx: OpaquePointer?, _ descriptor: UnsafePointer<ng_plugin_descriptor>?, _ configJSON: UnsafePointer<CChar>?) -> ng_status {
    withContext(ctx, record: .chain) { box throws(EngineError) in
        guard let descriptor else { throw .null("descriptor") }
        let config = try configJSON.map { p throws(EngineError) in try readConfiguration(p, "config_json") }
        try box.recordChain("ng_chain_add", config: config) { () throws(EngineError) in
            try box.engine.addGuard(descriptor, configText: config)
        }
    }
}

@c @implementation
public func ng_chain_count(_ ctx: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?) -> ng_status {
    withContext(ctx) { box throws(EngineError) in
        guard let out else { throw .null("out_count") }
        out.pointee = box.engine.guardCount
    }
}

@c @implementation
public func ng_chain_get_id(_ ctx: OpaquePointer?, _ index: Int, _ out: UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> ng_status {
    withContext(ctx) { box throws(EngineError) in
        guard let out else { throw .null("out_id") }
        guard let id = box.engine.guardID(at: index) else {
            throw EngineError(NG_E_NOT_FOUND, "index \(index) is outside the chain (\(box.engine.guardCount) guards)")
        }
        out.pointee = id
    }
}

/// A configuration the host passes as text: NUL-terminated UTF-8 of up to
/// 1 MiB (JSON, parsed by the caller).
func readConfiguration(_ p: UnsafePointer<CChar>, _ what: String) throws(EngineError) -> String {
    do throws(StringProblem) {
        let n = try checkedLength(p, limit: maxConfigurationBytes)
        return String(decoding: UnsafeRawBufferPointer(start: p, count: n), as: UTF8.self)
    } catch {
        switch error {
        case .tooLong: throw EngineError(NG_E_TOO_LONG, "\(what) is larger than 1 MiB")
        case .notUTF8: throw EngineError(NG_E_UTF8, "\(what) is not valid UTF-8")
        }
    }
}

let maxConfigurationBytes = 1 << 20
