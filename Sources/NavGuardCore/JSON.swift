// SPDX-License-Identifier: Apache-2.0
// A small, strict (RFC 8259) JSON parser and compact writer.
//
// Pure Swift, no Foundation, no I/O, no global mutable state. Used for stack
// snapshots and guard plugin / chain configuration objects.
//
// Strictness: trailing commas, leading zeros, single quotes, comments,
// NaN/Infinity, unescaped control characters, invalid UTF-8, lone surrogate
// escapes, byte-order marks, unterminated input, trailing garbage and
// duplicate object keys (which would make a configuration ambiguous) are all
// rejected.
// Nesting is limited to `JSON.maxDepth` containers and input to
// `JSON.maxInputBytes` bytes.

// MARK: - Value

/// A parsed JSON value. Object members keep their source order (the parser
/// never produces duplicate keys; a value built in code may have them).
public enum JSONValue: Sendable {
    case null
    case bool(Bool)
    /// A number with a fraction or exponent, or an integer outside Int64.
    case number(Double)
    /// An integer literal (no fraction, no exponent) that fits Int64 exactly.
    case integer(Int64)
    case string(String)
    case array([JSONValue])
    /// Members in source order; duplicates are preserved.
    case object([(String, JSONValue)])
}

extension JSONValue: Equatable {
    /// Structural equality. `.integer` and `.number` are distinct cases
    /// (`.integer(1) != .number(1.0)`); objects compare member-by-member in
    /// order, including duplicates.
    @_optimize(size)
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null):
            return true
        case let (.bool(a), .bool(b)):
            return a == b
        case let (.number(a), .number(b)):
            return a == b
        case let (.integer(a), .integer(b)):
            return a == b
        case let (.string(a), .string(b)):
            return a == b
        case let (.array(a), .array(b)):
            return a == b
        case let (.object(a), .object(b)):
            guard a.count == b.count else { return false }
            for i in a.indices where a[i].0 != b[i].0 || a[i].1 != b[i].1 {
                return false
            }
            return true
        default:
            return false
        }
    }
}

extension JSONValue {
    /// First member named `key` for objects; nil for non-objects or a missing key.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        for (k, v) in members where k == key { return v }
        return nil
    }

    /// Element at `index` for arrays; nil for non-arrays or out of range.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let items) = self, items.indices.contains(index) else { return nil }
        return items[index]
    }

    /// `.integer`, or a `.number` that is integral and representable as Int64.
    public var int64: Int64? {
        switch self {
        case .integer(let i): return i
        case .number(let d):
            // Hand-rolled instead of Int64(exactly:), which calls libm's
            // trunc() and would make the core need -lm at link time.
            // The range test also rejects NaN.
            guard d >= -9_223_372_036_854_775_808.0 && d < 9_223_372_036_854_775_808.0 else { return nil }
            let i = Int64(d) // truncates toward zero
            return Double(i) == d ? i : nil
        default: return nil
        }
    }

    /// `.number`, or `.integer` converted to Double.
    public var double: Double? {
        switch self {
        case .number(let d): return d
        case .integer(let i): return Double(i)
        default: return nil
        }
    }

    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var bool: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var array: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var object: [(String, JSONValue)]? {
        if case .object(let o) = self { return o }
        return nil
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

// Literal conveniences (handy for defaults and tests). Dictionary literals
// keep their written order.
extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(elements) }
}

// MARK: - Error

public struct JSONError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Human-readable, e.g. "expected ':' after object key at byte 17".
    public var message: String
    /// Zero-based byte offset into the UTF-8 input where the problem was found.
    public var offset: Int

    public init(message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    public var description: String { message }
}

// MARK: - Entry points

public enum JSON {
    /// Maximum number of nested arrays/objects (a value nested in exactly
    /// `maxDepth` containers is accepted; one more is an error).
    public static let maxDepth = 64
    /// Maximum input size in bytes (1 MiB).
    public static let maxInputBytes = 1 << 20

    /// Parses exactly the bytes in `bytes` as one JSON text.
    @_optimize(size)
    public static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONError) -> JSONValue {
        if bytes.count > maxInputBytes {
            throw JSONError(
                message: "input of \(bytes.count) bytes exceeds the \(maxInputBytes)-byte limit at byte \(maxInputBytes)",
                offset: maxInputBytes)
        }
        var parser = JSONParser(bytes)
        return try parser.parseDocument()
    }

    /// Parses the UTF-8 encoding of `text`. Offsets are UTF-8 byte offsets.
    @_optimize(size)
    public static func parse(_ text: String) throws(JSONError) -> JSONValue {
        var text = text
        // withUTF8 rethrows untyped: carry the typed error out in a Result.
        let result = text.withUTF8 { b in Result { () throws(JSONError) in try parse(b) } }
        return try result.get()
    }

    /// Parses a byte array.
    @_optimize(size)
    public static func parse(_ bytes: [UInt8]) throws(JSONError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { b in Result { () throws(JSONError) in try parse(b) } }.get()
    }

    /// Compact, deterministic serialization: no whitespace, object keys in
    /// stored order, strings escaped per RFC 8259, non-ASCII emitted as UTF-8.
    /// Non-finite doubles (which JSON cannot represent) are written as `null`.
    @_optimize(size)
    public static func serialize(_ v: JSONValue) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        serialize(v, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the compact serialization of `v` to `out` as UTF-8.
    @_optimize(size)
    public static func serialize(_ v: JSONValue, into out: inout [UInt8]) {
        JSONWriter.write(v, into: &out)
    }
}

// MARK: - Parser

private enum JSONByte {
    static let tab: UInt8 = 0x09
    static let lf: UInt8 = 0x0A
    static let cr: UInt8 = 0x0D
    static let space: UInt8 = 0x20
    static let quote: UInt8 = 0x22       // "
    static let plus: UInt8 = 0x2B        // +
    static let comma: UInt8 = 0x2C       // ,
    static let minus: UInt8 = 0x2D       // -
    static let dot: UInt8 = 0x2E         // .
    static let slash: UInt8 = 0x2F       // /
    static let zero: UInt8 = 0x30        // 0
    static let one: UInt8 = 0x31         // 1
    static let nine: UInt8 = 0x39        // 9
    static let colon: UInt8 = 0x3A       // :
    static let upperE: UInt8 = 0x45      // E
    static let lbracket: UInt8 = 0x5B    // [
    static let backslash: UInt8 = 0x5C   // \
    static let rbracket: UInt8 = 0x5D    // ]
    static let lowerE: UInt8 = 0x65      // e
    static let lbrace: UInt8 = 0x7B      // {
    static let rbrace: UInt8 = 0x7D      // }
}

private struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var pos = 0
    var depth = 0
    /// Reused buffer for strings that contain escapes.
    var scratch: [UInt8] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    // MARK: helpers

    @_optimize(size)
    func fail(_ what: String, at offset: Int) -> JSONError {
        JSONError(message: "\(what) at byte \(offset)", offset: offset)
    }

    /// Describes the byte at `pos` (or end of input) for error messages.
    @_optimize(size)
    func describeCurrent() -> String {
        guard pos < bytes.count else { return "unexpected end of input" }
        let b = bytes[pos]
        if b >= 0x21 && b < 0x7F {
            return "unexpected character '\(Character(Unicode.Scalar(b)))'"
        }
        return "unexpected byte 0x\(jsonHex2(b))"
    }

    @_optimize(size)
    mutating func skipWhitespace() {
        while pos < bytes.count {
            switch bytes[pos] {
            case JSONByte.space, JSONByte.tab, JSONByte.lf, JSONByte.cr: pos += 1
            default: return
            }
        }
    }

    // MARK: grammar

    @_optimize(size)
    mutating func parseDocument() throws(JSONError) -> JSONValue {
        skipWhitespace()
        if pos >= bytes.count {
            throw fail("unexpected end of input, expected a value", at: pos)
        }
        let value = try parseValue()
        skipWhitespace()
        if pos < bytes.count {
            throw fail("\(describeCurrent()) after the top-level value", at: pos)
        }
        return value
    }

    /// Parses one value starting at `pos` (whitespace already skipped).
    @_optimize(size)
    mutating func parseValue() throws(JSONError) -> JSONValue {
        guard pos < bytes.count else {
            throw fail("unexpected end of input, expected a value", at: pos)
        }
        switch bytes[pos] {
        case JSONByte.lbrace:
            return try parseObject()
        case JSONByte.lbracket:
            return try parseArray()
        case JSONByte.quote:
            return .string(try parseString())
        case JSONByte.minus, JSONByte.zero...JSONByte.nine:
            return try parseNumber()
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        default:
            throw fail("\(describeCurrent()), expected a value", at: pos)
        }
    }

    @_optimize(size)
    mutating func expectLiteral(_ word: StaticString) throws(JSONError) {
        let start = pos
        let n = word.utf8CodeUnitCount
        let w = word.utf8Start
        for k in 0..<n {
            guard pos < bytes.count, bytes[pos] == w[k] else {
                throw fail("invalid literal, expected '\(word)'", at: start)
            }
            pos += 1
        }
        // Reject things like `truex` / `nullnull` right here for a clearer message.
        if pos < bytes.count, Self.isIdentifierByte(bytes[pos]) {
            throw fail("invalid literal, expected '\(word)'", at: start)
        }
    }

    @_optimize(size)
    static func isIdentifierByte(_ b: UInt8) -> Bool {
        (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || (b >= 0x30 && b <= 0x39) || b == 0x5F
    }

    @_optimize(size)
    mutating func enterContainer() throws(JSONError) {
        depth += 1
        if depth > JSON.maxDepth {
            throw fail("nesting depth exceeds the limit of \(JSON.maxDepth)", at: pos)
        }
    }

    @_optimize(size)
    mutating func parseArray() throws(JSONError) -> JSONValue {
        let open = pos
        try enterContainer()
        pos += 1 // [
        var items: [JSONValue] = []
        skipWhitespace()
        if pos < bytes.count && bytes[pos] == JSONByte.rbracket {
            pos += 1
            depth -= 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            if pos >= bytes.count {
                throw fail("unterminated array (opened at byte \(open)): unexpected end of input", at: pos)
            }
            if bytes[pos] == JSONByte.rbracket {
                throw fail("trailing comma in array", at: pos)
            }
            items.append(try parseValue())
            skipWhitespace()
            guard pos < bytes.count else {
                throw fail("unterminated array (opened at byte \(open)): unexpected end of input", at: pos)
            }
            switch bytes[pos] {
            case JSONByte.comma:
                pos += 1
            case JSONByte.rbracket:
                pos += 1
                depth -= 1
                return .array(items)
            default:
                throw fail("\(describeCurrent()), expected ',' or ']' in array", at: pos)
            }
        }
    }

    @_optimize(size)
    mutating func parseObject() throws(JSONError) -> JSONValue {
        let open = pos
        try enterContainer()
        pos += 1 // {
        var members: [(String, JSONValue)] = []
        // Keys seen, kept in a set once the object is large enough for a
        // linear scan to cost (1 MiB of keys would be quadratic).
        var seen: Set<String>?
        skipWhitespace()
        if pos < bytes.count && bytes[pos] == JSONByte.rbrace {
            pos += 1
            depth -= 1
            return .object(members)
        }
        var afterComma = false
        while true {
            skipWhitespace()
            guard pos < bytes.count else {
                throw fail("unterminated object (opened at byte \(open)): unexpected end of input", at: pos)
            }
            if bytes[pos] != JSONByte.quote {
                if afterComma && bytes[pos] == JSONByte.rbrace {
                    throw fail("trailing comma in object", at: pos)
                }
                throw fail("\(describeCurrent()), expected a string object key", at: pos)
            }
            let keyAt = pos
            let key = try parseString()
            if seen == nil && members.count >= 16 { seen = Set(members.map { $0.0 }) }
            let duplicate = seen != nil ? !seen!.insert(key).inserted : members.contains { $0.0 == key }
            if duplicate { throw fail("duplicate object key \"\(key)\"", at: keyAt) }
            skipWhitespace()
            guard pos < bytes.count, bytes[pos] == JSONByte.colon else {
                if pos >= bytes.count {
                    throw fail("expected ':' after object key, found end of input", at: pos)
                }
                throw fail("expected ':' after object key", at: pos)
            }
            pos += 1
            skipWhitespace()
            let value = try parseValue()
            members.append((key, value))
            skipWhitespace()
            guard pos < bytes.count else {
                throw fail("unterminated object (opened at byte \(open)): unexpected end of input", at: pos)
            }
            switch bytes[pos] {
            case JSONByte.comma:
                pos += 1
                afterComma = true
            case JSONByte.rbrace:
                pos += 1
                depth -= 1
                return .object(members)
            default:
                throw fail("\(describeCurrent()), expected ',' or '}' in object", at: pos)
            }
        }
    }

    // MARK: numbers

    @_optimize(size)
    mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = pos
        var negative = false
        if bytes[pos] == JSONByte.minus {
            negative = true
            pos += 1
        }
        // Integer part: 0 | [1-9][0-9]*
        guard pos < bytes.count, isDigit(bytes[pos]) else {
            throw fail("invalid number: expected a digit", at: pos)
        }
        var integral = true
        // Accumulate towards negative so Int64.min is representable.
        var acc: Int64 = 0
        var overflow = false
        if bytes[pos] == JSONByte.zero {
            pos += 1
            if pos < bytes.count, isDigit(bytes[pos]) {
                throw fail("invalid number: leading zeros are not allowed", at: start)
            }
        } else {
            while pos < bytes.count, isDigit(bytes[pos]) {
                if !overflow {
                    let d = Int64(bytes[pos] &- JSONByte.zero)
                    let (m, o1) = acc.multipliedReportingOverflow(by: 10)
                    let (s, o2) = m.subtractingReportingOverflow(d)
                    if o1 || o2 { overflow = true } else { acc = s }
                }
                pos += 1
            }
        }
        // Fraction
        if pos < bytes.count, bytes[pos] == JSONByte.dot {
            integral = false
            pos += 1
            guard pos < bytes.count, isDigit(bytes[pos]) else {
                throw fail("invalid number: expected a digit after '.'", at: pos)
            }
            while pos < bytes.count, isDigit(bytes[pos]) { pos += 1 }
        }
        // Exponent
        if pos < bytes.count, bytes[pos] == JSONByte.lowerE || bytes[pos] == JSONByte.upperE {
            integral = false
            pos += 1
            if pos < bytes.count, bytes[pos] == JSONByte.plus || bytes[pos] == JSONByte.minus {
                pos += 1
            }
            guard pos < bytes.count, isDigit(bytes[pos]) else {
                throw fail("invalid number: expected a digit in exponent", at: pos)
            }
            while pos < bytes.count, isDigit(bytes[pos]) { pos += 1 }
        }
        // A number must not run straight into letters/dots (e.g. `1x`, `1.2.3`).
        if pos < bytes.count, Self.isIdentifierByte(bytes[pos]) || bytes[pos] == JSONByte.dot {
            throw fail("invalid number: \(describeCurrent())", at: pos)
        }

        if integral && !overflow {
            if negative { return .integer(acc) }
            if acc != Int64.min { return .integer(-acc) }
            // "9223372036854775808" does not fit; fall through to Double.
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<pos]), as: UTF8.self)
        guard let d = Double(text), d.isFinite else {
            throw fail("number out of range", at: start)
        }
        return .number(d)
    }

    @inline(__always)
    func isDigit(_ b: UInt8) -> Bool { b >= JSONByte.zero && b <= JSONByte.nine }

    // MARK: strings

    /// Parses a string starting at the opening quote at `pos`.
    @_optimize(size)
    mutating func parseString() throws(JSONError) -> String {
        let open = pos
        pos += 1
        let contentStart = pos
        // Fast path: no escapes. Validate and slice.
        while true {
            guard pos < bytes.count else {
                throw fail("unterminated string (opened at byte \(open)): unexpected end of input", at: pos)
            }
            let b = bytes[pos]
            if b == JSONByte.quote {
                let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[contentStart..<pos]), as: UTF8.self)
                pos += 1
                return s
            }
            if b == JSONByte.backslash { break }
            if b < 0x20 {
                throw fail("unescaped control character 0x\(jsonHex2(b)) in string", at: pos)
            }
            if b < 0x80 {
                pos += 1
            } else {
                try skipUTF8Sequence()
            }
        }
        // Slow path: copy what we have so far, then decode escapes.
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[contentStart..<pos]))
        while true {
            guard pos < bytes.count else {
                throw fail("unterminated string (opened at byte \(open)): unexpected end of input", at: pos)
            }
            let b = bytes[pos]
            if b == JSONByte.quote {
                pos += 1
                return String(decoding: scratch, as: UTF8.self)
            }
            if b == JSONByte.backslash {
                try parseEscape()
            } else if b < 0x20 {
                throw fail("unescaped control character 0x\(jsonHex2(b)) in string", at: pos)
            } else if b < 0x80 {
                scratch.append(b)
                pos += 1
            } else {
                let s = pos
                try skipUTF8Sequence()
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[s..<pos]))
            }
        }
    }

    /// Decodes one escape sequence at `pos` (the backslash) into `scratch`.
    @_optimize(size)
    mutating func parseEscape() throws(JSONError) {
        let escStart = pos
        pos += 1
        guard pos < bytes.count else {
            throw fail("unterminated escape sequence", at: escStart)
        }
        let c = bytes[pos]
        pos += 1
        switch c {
        case JSONByte.quote: scratch.append(JSONByte.quote)
        case JSONByte.backslash: scratch.append(JSONByte.backslash)
        case JSONByte.slash: scratch.append(JSONByte.slash)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(JSONByte.lf)
        case UInt8(ascii: "r"): scratch.append(JSONByte.cr)
        case UInt8(ascii: "t"): scratch.append(JSONByte.tab)
        case UInt8(ascii: "u"):
            let first = try parseHex4(escapeAt: escStart)
            var scalarValue: UInt32
            if first >= 0xD800 && first <= 0xDBFF {
                // High surrogate: a low surrogate escape must follow.
                let lowStart = pos
                guard pos + 1 < bytes.count, bytes[pos] == JSONByte.backslash, bytes[pos + 1] == UInt8(ascii: "u") else {
                    throw fail("lone high surrogate \\u\(jsonHex4(first)) in string", at: escStart)
                }
                pos += 2
                let second = try parseHex4(escapeAt: lowStart)
                guard second >= 0xDC00 && second <= 0xDFFF else {
                    throw fail("high surrogate \\u\(jsonHex4(first)) not followed by a low surrogate", at: escStart)
                }
                scalarValue = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
            } else if first >= 0xDC00 && first <= 0xDFFF {
                throw fail("lone low surrogate \\u\(jsonHex4(first)) in string", at: escStart)
            } else {
                scalarValue = first
            }
            // Valid by construction (non-surrogate, <= 0x10FFFF).
            let scalar = Unicode.Scalar(scalarValue)!
            for unit in UTF8.encode(scalar)! { scratch.append(unit) }
        default:
            throw fail("invalid escape sequence '\\\(describeByte(c))' in string", at: escStart)
        }
    }

    /// Reads four hex digits at `pos`.
    @_optimize(size)
    mutating func parseHex4(escapeAt escStart: Int) throws(JSONError) -> UInt32 {
        var v: UInt32 = 0
        for _ in 0..<4 {
            guard pos < bytes.count else {
                throw fail("unterminated \\u escape", at: escStart)
            }
            let b = bytes[pos]
            let d: UInt32
            switch b {
            case 0x30...0x39: d = UInt32(b - 0x30)
            case 0x41...0x46: d = UInt32(b - 0x41 + 10)
            case 0x61...0x66: d = UInt32(b - 0x61 + 10)
            default:
                throw fail("invalid \\u escape: expected 4 hex digits", at: escStart)
            }
            v = v << 4 | d
            pos += 1
        }
        return v
    }

    /// Validates one multi-byte UTF-8 sequence at `pos` (lead byte >= 0x80)
    /// and advances past it. Rejects overlong forms, surrogates and values
    /// above U+10FFFF (Unicode Table 3-7).
    @_optimize(size)
    mutating func skipUTF8Sequence() throws(JSONError) {
        let start = pos
        let b0 = bytes[pos]
        let n: Int
        var lo: UInt8 = 0x80
        var hi: UInt8 = 0xBF
        switch b0 {
        case 0xC2...0xDF: n = 2
        case 0xE0: n = 3; lo = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: n = 3
        case 0xED: n = 3; hi = 0x9F
        case 0xF0: n = 4; lo = 0x90
        case 0xF1...0xF3: n = 4
        case 0xF4: n = 4; hi = 0x8F
        default:
            throw fail("invalid UTF-8 lead byte 0x\(jsonHex2(b0))", at: start)
        }
        guard start + n <= bytes.count else {
            throw fail("truncated UTF-8 sequence", at: start)
        }
        let b1 = bytes[start + 1]
        guard b1 >= lo && b1 <= hi else {
            throw fail("invalid UTF-8 sequence", at: start)
        }
        for k in 2..<n {
            let b = bytes[start + k]
            guard b >= 0x80 && b <= 0xBF else {
                throw fail("invalid UTF-8 sequence", at: start)
            }
        }
        pos = start + n
    }

    @_optimize(size)
    func describeByte(_ b: UInt8) -> String {
        if b >= 0x21 && b < 0x7F { return String(Character(Unicode.Scalar(b))) }
        return "0x" + jsonHex2(b)
    }
}

// MARK: - Writer

private let jsonHexDigits: StaticString = "0123456789abcdef"

@inline(__always)
private func jsonHexDigit(_ v: UInt8) -> UInt8 {
    jsonHexDigits.utf8Start[Int(v & 0xF)]
}

@_optimize(size)
private func jsonHex2(_ b: UInt8) -> String {
    String(decoding: [jsonHexDigit(b >> 4), jsonHexDigit(b)], as: UTF8.self)
}

@_optimize(size)
private func jsonHex4(_ v: UInt32) -> String {
    String(decoding: [jsonHexDigit(UInt8(truncatingIfNeeded: v >> 12)),
                      jsonHexDigit(UInt8(truncatingIfNeeded: v >> 8)),
                      jsonHexDigit(UInt8(truncatingIfNeeded: v >> 4)),
                      jsonHexDigit(UInt8(truncatingIfNeeded: v))], as: UTF8.self)
}

private enum JSONWriter {
    @_optimize(size)
    static func write(_ v: JSONValue, into out: inout [UInt8]) {
        switch v {
        case .null:
            appendASCII("null", &out)
        case .bool(let b):
            appendASCII(b ? "true" : "false", &out)
        case .integer(let i):
            out.append(contentsOf: String(i).utf8)
        case .number(let d):
            writeDouble(d, into: &out)
        case .string(let s):
            writeString(s, into: &out)
        case .array(let items):
            out.append(JSONByte.lbracket)
            var first = true
            for item in items {
                if !first { out.append(JSONByte.comma) }
                first = false
                write(item, into: &out)
            }
            out.append(JSONByte.rbracket)
        case .object(let members):
            out.append(JSONByte.lbrace)
            var first = true
            for (k, value) in members {
                if !first { out.append(JSONByte.comma) }
                first = false
                writeString(k, into: &out)
                out.append(JSONByte.colon)
                write(value, into: &out)
            }
            out.append(JSONByte.rbrace)
        }
    }

    @inline(__always)
    static func appendASCII(_ s: StaticString, _ out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    /// Shortest round-tripping form. Swift's description is locale-independent
    /// and always contains '.' or 'e' for finite values, so the result parses
    /// back as `.number`, never `.integer`.
    @_optimize(size)
    static func writeDouble(_ d: Double, into out: inout [UInt8]) {
        guard d.isFinite else {
            appendASCII("null", &out)
            return
        }
        out.append(contentsOf: d.description.utf8)
    }

    @_optimize(size)
    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(JSONByte.quote)
        for b in s.utf8 {
            if JSONStringEscape.needsEscape(b) { JSONStringEscape.escape(b) { out.append($0) } } else { out.append(b) }
        }
        out.append(JSONByte.quote)
    }
}

/// How a byte goes into a JSON string (RFC 8259): the one rule the
/// serializer and the flight recorder's writer share. `"`, `\` and control
/// bytes are escaped (the short forms where JSON has them); every other
/// byte, UTF-8 included, goes as it is.
public enum JSONStringEscape {
    @inlinable @inline(__always)
    public static func needsEscape(_ b: UInt8) -> Bool { b < 0x20 || b == 0x22 || b == 0x5C }

    /// The escape of a byte that needs one, byte by byte to `emit`.
    @_optimize(size)
    public static func escape(_ b: UInt8, _ emit: (UInt8) -> Void) {
        emit(JSONByte.backslash)
        switch b {
        case JSONByte.quote: emit(JSONByte.quote)
        case JSONByte.backslash: emit(JSONByte.backslash)
        case JSONByte.lf: emit(UInt8(ascii: "n"))
        case JSONByte.cr: emit(UInt8(ascii: "r"))
        case JSONByte.tab: emit(UInt8(ascii: "t"))
        case 0x08: emit(UInt8(ascii: "b"))
        case 0x0C: emit(UInt8(ascii: "f"))
        default:
            emit(UInt8(ascii: "u")); emit(JSONByte.zero); emit(JSONByte.zero)
            emit(jsonHexDigit(b >> 4)); emit(jsonHexDigit(b))
        }
    }
}
