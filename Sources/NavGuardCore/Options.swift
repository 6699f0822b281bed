// SPDX-License-Identifier: Apache-2.0
import CNavGuard

/// One configuration key a guard declares (plugin.h ng_option_decl), read
/// and checked once.
public struct OptionDecl: Sendable {
    public var name: String
    public var type: OptionType
    public var doc: String
    /// The declared default, parsed; nil when there is none.
    public var defaultValue: JSONValue?
    public var defaultText: String?
    public var min: Double
    public var max: Double
    public var choices: [String]

    public var bounded: Bool { min <= max }

    public static func typeName(_ t: OptionType) -> String {
        switch t {
        case .int: return "int"
        case .bool: return "bool"
        case .double: return "double"
        case .string: return "string"
        case .enum: return "one-of"
        case .strings: return "string list"
        default: return "unknown"
        }
    }

    /// What a value must be, as said in an error ("an integer in 0..3600000").
    public var expected: String {
        func num(_ d: Double) -> String {
            // (No rounded()/trunc(): the core links no libm.)
            if d > -1e15 && d < 1e15, Double(Int64(d)) == d { return String(Int64(d)) }
            return String(d)
        }
        switch type {
        case .int: return bounded ? "an integer in \(num(min))..\(num(max))" : "an integer"
        case .double: return bounded ? "a number in \(num(min))..\(num(max))" : "a number"
        case .bool: return "true or false"
        case .string: return "a string"
        case .enum: return "one of " + choices.map { "\"\($0)\"" }.joined(separator: ", ")
        default:
            let items = choices.isEmpty ? "strings" : "strings from " + choices.joined(separator: ", ")
            return bounded ? "an array of \(num(min))..\(num(max)) \(items)" : "an array of \(items)"
        }
    }

    /// Why `v` is not a valid value, or nil.
    public func problem(_ v: JSONValue) -> String? {
        switch type {
        case .int:
            guard let i = v.int64, !(bounded && (Double(i) < min || Double(i) > max)) else { return expected }
        case .double:
            guard let d = v.double, d.isFinite, !(bounded && (d < min || d > max)) else { return expected }
        case .bool:
            guard v.bool != nil else { return expected }
        case .string:
            guard v.string != nil else { return expected }
        case .enum:
            guard let s = v.string, choices.contains(s) else { return expected }
        default:
            guard let a = v.array, a.allSatisfy({ $0.string != nil && (choices.isEmpty || choices.contains($0.string!)) }),
                  !(bounded && (Double(a.count) < min || Double(a.count) > max)) else { return expected }
        }
        return nil
    }
}

/// A guard's declared options: read from its descriptor, checked, and used to
/// check every configuration before create() and to answer the typed getters
/// for keys left out.
///
/// Invariants: names are unique, non-empty and at most `Limits.maxString`
/// bytes; every default satisfies its own declaration; `declared` is false
/// only for a guard that declares nothing (its configuration is not checked).
public struct OptionTable: Sendable {
    public private(set) var declared = false
    public private(set) var options: [OptionDecl] = []

    public init() {}

    /// Read a descriptor's list (NULL: nothing declared). Throws NG_E_GUARD
    /// with the reason when a declaration is malformed.
    public init(_ list: UnsafePointer<ng_option_decl>?) throws(EngineError) {
        guard let list else { return }
        declared = true
        // The array's stride is the plugin's sizeof(ng_option_decl), which its
        // entries carry in `size`: a later, larger declaration still reads.
        // Bounded on both sides before it is used as a stride: a wild size
        // would step the reads below far outside the plugin's array.
        let stride = Int(list.pointee.size)
        guard stride >= Int(NG_OPTION_DECL_MIN_SIZE) else {
            throw EngineError(NG_E_GUARD, "options[0].size is \(stride), below \(NG_OPTION_DECL_MIN_SIZE)")
        }
        guard stride <= Limits.maxOptionDeclSize else {
            throw EngineError(NG_E_GUARD, "options[0].size is \(stride), above \(Limits.maxOptionDeclSize) (set it to sizeof(ng_option_decl))")
        }
        var raw = UnsafeRawPointer(list)
        var i = 0
        while true {
            guard i <= Int(NG_MAX_OPTIONS) else {
                throw EngineError(NG_E_GUARD, "more than \(NG_MAX_OPTIONS) options, or the list lacks NG_OPTION_END")
            }
            guard Int(raw.load(as: UInt32.self)) == stride else {
                throw EngineError(NG_E_GUARD, "options[\(i)].size differs from options[0].size (\(stride))")
            }
            var d = ng_option_decl()
            withUnsafeMutableBytes(of: &d) { $0.copyMemory(from: UnsafeRawBufferPointer(start: raw, count: Swift.min(stride, $0.count))) }
            raw += stride
            guard let cname = d.name else { break }
            func text(_ c: UnsafePointer<CChar>?, _ what: String) throws(EngineError) -> String? {
                guard let c else { return nil }
                let n = boundedLength(c)
                guard c[n] == 0, isValidUTF8(UnsafeRawBufferPointer(start: c, count: n)) else {
                    throw EngineError(NG_E_GUARD, "options[\(i)].\(what) is not UTF-8 text of at most \(Limits.maxString) bytes")
                }
                return String(decoding: UnsafeRawBufferPointer(start: c, count: n), as: UTF8.self)
            }
            let name = try text(cname, "name")!
            guard !name.isEmpty else { throw EngineError(NG_E_GUARD, "options[\(i)] has an empty name") }
            guard !options.contains(where: { $0.name == name }) else {
                throw EngineError(NG_E_GUARD, "option \"\(name)\" is declared twice")
            }
            let type = OptionType(rawValue: d.type)
            guard type.isKnown else {
                throw EngineError(NG_E_GUARD, "option \"\(name)\" has an unknown type \(d.type)")
            }
            guard !d.min.isNaN, !d.max.isNaN else { throw EngineError(NG_E_GUARD, "option \"\(name)\" has a NaN bound") }
            var choices: [String] = []
            if type == .enum || type == .strings, let list = d.choices {
                var k = 0
                while let c = list[k] {
                    guard k < 64 else { throw EngineError(NG_E_GUARD, "option \"\(name)\" has more than 64 choices") }
                    let choice = try text(c, "choices[\(k)]")!
                    // A repeated choice is a slip in the list (and would print twice in docs).
                    guard !choices.contains(choice) else {
                        throw EngineError(NG_E_GUARD, "option \"\(name)\" lists the choice \"\(choice)\" twice")
                    }
                    choices.append(choice)
                    k += 1
                }
            }
            if type == .enum && choices.isEmpty {
                throw EngineError(NG_E_GUARD, "option \"\(name)\" (one-of) has no choices")
            }
            var o = OptionDecl(name: name, type: type, doc: try text(d.doc, "doc") ?? "", defaultValue: nil,
                               defaultText: try text(d.default_json, "default_json"),
                               min: d.min, max: d.max, choices: choices)
            if let t = o.defaultText {
                let v: JSONValue
                do throws(JSONError) { v = try JSON.parse(t) } catch {
                    throw EngineError(NG_E_GUARD, "option \"\(name)\": its default is not JSON (\(error.message))")
                }
                if let why = o.problem(v) {
                    throw EngineError(NG_E_GUARD, "option \"\(name)\": its default \(t) is not \(why)")
                }
                o.defaultValue = v
            }
            options.append(o)
            i += 1
        }
    }

    public func option(_ name: String) -> OptionDecl? { options.first { $0.name == name } }

    /// Check a configuration object against the declarations; the error
    /// (NG_E_PARSE) names the guard, the key and what was expected.
    public func check(_ config: JSONValue, guardID: String) throws(EngineError) {
        guard declared, let members = config.object else { return }
        for (key, value) in members {
            guard let o = option(key) else {
                let valid = options.isEmpty ? "it takes no options" : "valid keys: " + options.map { $0.name }.joined(separator: ", ")
                throw EngineError(NG_E_PARSE, "guard \(guardID): unknown option \"\(key)\"; \(valid)")
            }
            if let why = o.problem(value) {
                throw EngineError(NG_E_PARSE, "guard \(guardID): option \"\(key)\" must be \(why), not \(JSON.serialize(value))")
            }
        }
    }

    /// The value a getter reads: the configured one, else the declared default.
    public func value(_ key: String, in config: JSONValue) -> JSONValue? {
        config[key] ?? option(key)?.defaultValue
    }
}
