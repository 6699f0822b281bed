// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardC
import NavGuardCore
import NavGuardValidator

// A guard's description, for `navguard plugins info` (text, in the style of
// gst-inspect) and `plugins docs` / `info --markdown` (docs/guards.md): its
// descriptor, hooks and declared options.

/// The events a guard's on_event is called for (its event_mask), or nil
/// when it has no on_event.
func eventsText(_ g: GuardDescriptor) -> String? {
    guard g.d.on_event != nil else { return nil }
    let mask = g.eventMask
    if mask == UInt32(NG_WANT_ALL) { return "every event" }
    var names: [String] = []
    for k in 0..<UInt32(NG_WANT_ALL).nonzeroBitCount where mask & (UInt32(1) << UInt32(k)) != 0 {
        names.append(String(cString: ngc_want_name(UInt32(1) << UInt32(k))))
    }
    return names.joined(separator: ", ")
}

func hookNames(_ d: ng_plugin_descriptor) -> [String] {
    withUnsafePointer(to: d) { p in Hook.optional.filter { $0.isSet(in: p) }.map(\.name) }
}

func rangeText(_ o: OptionDecl) -> String {
    switch o.type {
    case .enum: return o.choices.joined(separator: " | ")
    case .strings where !o.choices.isEmpty:
        return (o.bounded ? "\(Int(o.min))..\(Int(o.max)) of " : "any of ") + o.choices.joined(separator: " | ")
    case .int, .double, .strings:
        guard o.bounded else { return "" }
        func n(_ d: Double) -> String { d > -1e15 && d < 1e15 && Double(Int64(d)) == d ? String(Int64(d)) : String(d) }
        return "\(n(o.min))..\(n(o.max))" + (o.type == .strings ? " items" : "")
    default: return ""
    }
}

/// gst-inspect style.
func guardText(_ g: GuardDescriptor, path: String) -> String {
    let d = g.d
    var s = "Guard Details:\n"
    s += "  id           \(g.id)\n  name         \(String(cString: d.name))\n  version      \(String(cString: d.version))\n"
    s += "  description  \(String(cString: d.description))\n  file         \(path)\n"
    s += "  plugin ABI   \(d.abi_major).\(d.abi_minor) (descriptor \(d.size) bytes)\n"
    s += "\nHooks:\n  " + (hookNames(d).isEmpty ? "(none)" : hookNames(d).joined(separator: ", ")) + "\n"
    if let ev = eventsText(g) { s += "\nEvents (on_event is called for):\n  \(ev)\n" }
    s += "\nOptions:\n"
    if !g.options.declared { return s + "  (not declared: the configuration is not checked)\n" }
    if g.options.options.isEmpty { return s + "  (none: any key is refused)\n" }
    for o in g.options.options {
        s += "  \(o.name)\n"
        s += "      \(o.doc)\n"
        s += "      type: \(OptionDecl.typeName(o.type))"
        let r = rangeText(o)
        if !r.isEmpty { s += "   range: \(r)" }
        s += "   default: \(o.defaultText ?? "(none)")\n"
    }
    return s
}

func guardMarkdown(_ g: GuardDescriptor) -> String {
    let d = g.d
    var s = "## \(g.id)\n\n\(String(cString: d.description))\n\n"
    s += "Version \(String(cString: d.version)); hooks: " + hookNames(d).map { "`\($0)`" }.joined(separator: ", ")
    if let ev = eventsText(g) { s += "; `on_event` is called for: \(ev)" }
    s += ".\n\n"
    if !g.options.declared { return s + "Options are not declared.\n\n" }
    if g.options.options.isEmpty { return s + "No options.\n\n" }
    s += "| option | type | range / choices | default | what it does |\n|---|---|---|---|---|\n"
    for o in g.options.options {
        func cell(_ t: String) -> String { t.split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|") }
        let r = cell(rangeText(o))
        s += "| `\(o.name)` | \(OptionDecl.typeName(o.type)) | \(r.isEmpty ? "" : "`\(r)`") | \(o.defaultText.map { "`\($0)`" } ?? "(none)") | \(cell(o.doc)) |\n"
    }
    return s + "\n"
}
