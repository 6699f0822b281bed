// SPDX-License-Identifier: Apache-2.0
// Declared configuration options (plugin.h ng_option_decl, ABI 1.1).
//
// A guard that conforms to OptionDeclaring lists its configuration keys;
// makeDescriptor turns the list into the descriptor's `options` array. The
// host then checks every configuration before init(host:) runs (an unknown
// key, a wrong type or an out-of-range value fails with NG_E_PARSE, saying
// which), and the typed getters return the declared default for a key that
// is absent:
//
//     final class MaxDepth: RequestVoting, OptionDeclaring {
//         static let options: [GuardOption] = [
//             .int("max_depth", default: 8, range: 1...4096, doc: "deepest stack allowed"),
//         ]
//         ...
//     }
import CNavGuard

/// One configuration key. Names, docs and choices are literals (the
/// descriptor points at them).
public struct GuardOption: Sendable {
    let type: ng_option_type
    let name: StaticString
    let doc: StaticString
    let defaultJSON: String?
    let min: Double
    let max: Double
    let choices: [StaticString]

    /// An integer in `range`.
    public static func int(_ name: StaticString, default value: Int64?, range: ClosedRange<Int64>,
                           doc: StaticString) -> GuardOption {
        GuardOption(type: NG_OPT_INT, name: name, doc: doc, defaultJSON: value.map { String($0) },
                    min: Double(range.lowerBound), max: Double(range.upperBound), choices: [])
    }

    /// A number in `range`.
    public static func double(_ name: StaticString, default value: Double?, range: ClosedRange<Double>,
                              doc: StaticString) -> GuardOption {
        GuardOption(type: NG_OPT_DOUBLE, name: name, doc: doc, defaultJSON: value.map { "\($0)" },
                    min: range.lowerBound, max: range.upperBound, choices: [])
    }

    public static func bool(_ name: StaticString, default value: Bool?, doc: StaticString) -> GuardOption {
        GuardOption(type: NG_OPT_BOOL, name: name, doc: doc, defaultJSON: value.map { $0 ? "true" : "false" },
                    min: 1, max: 0, choices: [])
    }

    public static func string(_ name: StaticString, default value: String?, doc: StaticString) -> GuardOption {
        GuardOption(type: NG_OPT_STRING, name: name, doc: doc, defaultJSON: value.map(jsonString),
                    min: 1, max: 0, choices: [])
    }

    /// A string, one of `choices`.
    public static func oneOf(_ name: StaticString, default value: String?, _ choices: [StaticString],
                             doc: StaticString) -> GuardOption {
        GuardOption(type: NG_OPT_ENUM, name: name, doc: doc, defaultJSON: value.map(jsonString),
                    min: 1, max: 0, choices: choices)
    }

    /// A list of strings with a number of items in `count`, each one of
    /// `items` when given.
    public static func strings(_ name: StaticString, default value: [String]?, count: ClosedRange<Int>,
                               items: [StaticString] = [], doc: StaticString) -> GuardOption {
        GuardOption(type: NG_OPT_STRINGS, name: name, doc: doc,
                    defaultJSON: value.map { "[" + $0.map(jsonString).joined(separator: ",") + "]" },
                    min: Double(count.lowerBound), max: Double(count.upperBound), choices: items)
    }
}

/// A guard that declares its configuration keys. A guard that takes no
/// options declares `[]`: then any key is refused.
public protocol OptionDeclaring: NavGuardGuard {
    static var options: [GuardOption] { get }
}

extension OptionDeclaring {
    public static var _options: [GuardOption]? { options }
}

/// The descriptor's `options` array for a guard that declares `list`;
/// built once, never freed (the descriptor points at it).
func optionArray(_ list: [GuardOption]) -> UnsafePointer<ng_option_decl> {
    let out = UnsafeMutablePointer<ng_option_decl>.allocate(capacity: list.count + 1)
    for (i, o) in list.enumerated() {
        var choices: UnsafePointer<UnsafePointer<CChar>?>?
        if !o.choices.isEmpty {
            let c = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: o.choices.count + 1)
            for (k, s) in o.choices.enumerated() { c[k] = permanentCString(s) }
            c[o.choices.count] = nil
            choices = UnsafePointer(c)
        }
        out[i] = ng_option_decl(size: UInt32(MemoryLayout<ng_option_decl>.size), type: o.type,
                                name: permanentCString(o.name), doc: permanentCString(o.doc),
                                default_json: o.defaultJSON.map(permanentCopy), min: o.min, max: o.max,
                                choices: choices)
    }
    out[list.count] = ng_option_decl(size: UInt32(MemoryLayout<ng_option_decl>.size), type: 0, name: nil,
                                     doc: nil, default_json: nil, min: 0, max: 0, choices: nil)
    return UnsafePointer(out)
}

/// A JSON string literal.
private func jsonString(_ s: String) -> String {
    var out = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        case "\r": out += "\\r"
        default:
            if u.value < 0x20 {
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(u)
            }
        }
    }
    return out + "\""
}

/// A copy of `s` that is never freed.
private func permanentCopy(_ s: String) -> UnsafePointer<CChar> {
    let bytes = Array(s.utf8)
    let p = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
    for (i, b) in bytes.enumerated() { p[i] = CChar(bitPattern: b) }
    p[bytes.count] = 0
    return UnsafePointer(p)
}
