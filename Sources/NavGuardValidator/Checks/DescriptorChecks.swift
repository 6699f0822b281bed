// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardLibc
import NavGuardCore

// The descriptor checks of the load group, finer than the loader's single
// verdict so that each problem has its own name and detail. The rules are
// the loader's: ng_plugin_abi_compatible and the frozen minimum size
// (plugin.h), Engine.validateID, pluginFileName(forID:), and GuardDescriptor
// .read for the options. The ABI and size checks come first and gate the
// rest: only then do the ABI 1.0 fields read here lie inside the plugin's
// descriptor. `options` (ABI 1.1) is read only through GuardDescriptor.read.

func descriptorChecks(_ path: String, _ d: UnsafePointer<ng_plugin_descriptor>) {
    var abiOK = false
    check("descriptor.abi") {
        let major = d.pointee.abi_major, minor = d.pointee.abi_minor
        let built = "built for plugin ABI \(major).\(minor), host has \(NG_PLUGIN_ABI_MAJOR).\(NG_PLUGIN_ABI_MINOR)"
        let hostMajor = UInt32(NG_PLUGIN_ABI_MAJOR), hostMinor = UInt32(NG_PLUGIN_ABI_MINOR)
        guard ng_plugin_abi_compatible(hostMajor, hostMinor, major, minor) else {
            // Which half is at fault, by the same rule: at minor 0 only the major counts.
            let majorOK = ng_plugin_abi_compatible(hostMajor, hostMinor, major, 0)
            return .fail((majorOK ? "newer abi_minor than the host's: " : "abi_major mismatch: ") + built)
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
        // Not a loader rule (it reads at most its own sizeof and accepts the
        // rest): what the plugin's size says about how it was built.
        let ours = MemoryLayout<ng_plugin_descriptor>.size
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
        let set = Hook.optional.filter { $0.isSet(in: d) }
        if set.isEmpty { return .warn("no hook is set: the guard can neither vote nor observe") }
        if set.contains(.onTick) && !set.contains(.nextDeadline) { return .warn("on_tick is set without next_deadline: it is never called") }
        return .pass("set: " + set.map { $0.name }.joined(separator: ", "))
    }
    check("descriptor.file-name") {
        guard !id.isEmpty, let file = pluginFileName(forID: id) else { return .warn("no id to compare with") }
        let base = path.split(separator: "/").last.map(String.init) ?? path
        if base == file { return .pass("\(base) matches the id's last label (loadable as {\"id\": \"\(id)\"})") }
        return .warn("file \(base) is not \(file): a chain entry {\"id\": \"\(id)\"} would not find it on the search path (a {\"path\": ...} entry works)")
    }
    check("descriptor.options") {
        let g: GuardDescriptor
        do throws(EngineError) { g = try GuardDescriptor.read(d) } catch { return .fail(error.message) }
        if !g.options.declared {
            return .warn("no options declared (descriptor `options`, plugin ABI 1.1): the host cannot check its "
                         + "configuration, and `navguard plugins info` cannot list it")
        }
        if g.options.options.isEmpty { return .pass("declares that it takes no options") }
        return .pass("\(g.options.options.count) declared: " + g.options.options.map { "\($0.name) (\(OptionDecl.typeName($0.type)))" }.joined(separator: ", "))
    }
    // event_mask (ABI 1.3) is read through GuardDescriptor.read too: 0 past
    // the plugin's size, refused with bits outside NG_WANT_ALL.
    check("descriptor.event-mask") {
        let g: GuardDescriptor
        do throws(EngineError) { g = try GuardDescriptor.read(d) } catch { return .fail(error.message) }
        if g.d.on_event == nil {
            return g.d.event_mask == 0 ? .pass("no on_event") : .warn("event_mask is set without on_event: it selects nothing")
        }
        if g.d.event_mask == 0 {
            return .pass("on_event is called for every event (no event_mask, plugin ABI 1.3: a guard that "
                         + "asks only for what it uses is skipped for the rest, moves above all)")
        }
        return .pass("event_mask 0x" + String(g.eventMask, radix: 16) + ": on_event is called only for those events")
    }
}

