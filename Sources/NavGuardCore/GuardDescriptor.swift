// SPDX-License-Identifier: Apache-2.0
import CNavGuard

/// A guard's descriptor as a host reads it: at most its `size` bytes of the
/// plugin's struct (capped at ours), the rest zero; checked against the ABI
/// rule, the frozen minimum size, the id rule and its option declarations.
/// The loader, ng_chain_add and the validator all read descriptors here.
public struct GuardDescriptor {
    public let pointer: UnsafePointer<ng_plugin_descriptor>
    /// The zero-extended copy: fields past the plugin's `size` read as zero.
    public let d: ng_plugin_descriptor
    public let options: OptionTable
    public let id: String
    /// The events on_event is called for (NG_WANT_*): the descriptor's
    /// event_mask, where 0 (or a descriptor older than ABI 1.3) means all.
    public var eventMask: UInt32 { GuardDescriptor.eventMask(d) }

    /// The one rule for what a descriptor's event_mask means.
    @inline(__always)
    public static func eventMask(_ d: ng_plugin_descriptor) -> UInt32 {
        d.event_mask == 0 ? UInt32(NG_WANT_ALL) : d.event_mask
    }

    public static func read(_ p: UnsafePointer<ng_plugin_descriptor>) throws(EngineError) -> GuardDescriptor {
        // abi_major, abi_minor and size lead every layout.
        let head = UnsafeRawPointer(p)
        let major = head.load(as: UInt32.self), minor = head.load(fromByteOffset: 4, as: UInt32.self)
        let size = Int(head.load(fromByteOffset: 8, as: UInt32.self))
        guard ng_plugin_abi_compatible(UInt32(NG_PLUGIN_ABI_MAJOR), UInt32(NG_PLUGIN_ABI_MINOR), major, minor) else {
            let what = major != UInt32(NG_PLUGIN_ABI_MAJOR) ? "ABI major mismatch" : "newer ABI minor than the host's"
            throw EngineError(NG_E_ABI, "\(what): guard built for plugin ABI \(major).\(minor), host has \(NG_PLUGIN_ABI_MAJOR).\(NG_PLUGIN_ABI_MINOR)")
        }
        guard size >= Int(NG_PLUGIN_DESCRIPTOR_MIN_SIZE) else {
            throw EngineError(NG_E_GUARD, "descriptor size \(size) is smaller than \(NG_PLUGIN_DESCRIPTOR_MIN_SIZE), the size of plugin ABI 1.0's")
        }
        var d = ng_plugin_descriptor()
        withUnsafeMutableBytes(of: &d) { $0.copyMemory(from: UnsafeRawBufferPointer(start: head, count: Swift.min(size, $0.count))) }
        // A size ending inside a field covers none of it (NG_HAS_FIELD): a
        // partly copied pointer would be garbage.
        let pointer = MemoryLayout<UnsafeRawPointer>.size
        if !covers(size, MemoryLayout<ng_plugin_descriptor>.fieldOffset { $0.offset(of: &$0.pointee.options) }, pointer) { d.options = nil }
        if !covers(size, MemoryLayout<ng_plugin_descriptor>.fieldOffset { $0.offset(of: &$0.pointee.on_answer) }, pointer) { d.on_answer = nil }
        if !covers(size, MemoryLayout<ng_plugin_descriptor>.fieldOffset { $0.offset(of: &$0.pointee.event_mask) },
                   MemoryLayout<UInt32>.size) { d.event_mask = 0 }
        guard let idp = d.id else { throw EngineError(NG_E_GUARD, "descriptor has no id") }
        if let m = Engine.validateID(idp) { throw EngineError(NG_E_GUARD, m) }
        if d.name == nil || d.version == nil || d.description == nil {
            throw EngineError(NG_E_GUARD, "descriptor lacks name, version or description")
        }
        if d.create == nil || d.destroy == nil { throw EngineError(NG_E_GUARD, "descriptor lacks create or destroy") }
        if d.event_mask & ~UInt32(NG_WANT_ALL) != 0 { throw EngineError(NG_E_GUARD, "descriptor's event_mask has bits outside NG_WANT_ALL") }
        let id = String(cString: idp)
        do throws(EngineError) {
            return GuardDescriptor(pointer: p, d: d, options: try OptionTable(d.options), id: id)
        } catch {
            throw EngineError(NG_E_GUARD, "guard \(id): \(error.message)")
        }
    }
}
