// SPDX-License-Identifier: Apache-2.0
import Testing
@testable import NavGuardCore

// MARK: - Helpers

private func jsonBytes(_ s: String) -> [UInt8] { Array(s.utf8) }

private func jsonParseError(_ b: [UInt8]) -> JSONError? {
    if case .failure(let e) = parsed(b) { return e }
    return nil
}

/// JSON.parse as a Result, for the tests that look at the failure.
private func parsed(_ s: String) -> Result<JSONValue, JSONError> { Result { () throws(JSONError) in try JSON.parse(s) } }
private func parsed(_ b: [UInt8]) -> Result<JSONValue, JSONError> { Result { () throws(JSONError) in try JSON.parse(b) } }
private func parsed(_ b: UnsafeBufferPointer<UInt8>) -> Result<JSONValue, JSONError> {
    Result { () throws(JSONError) in try JSON.parse(b) }
}

/// An invalid input and a short label for the test report.
struct JSONInvalidCase: CustomTestStringConvertible, Sendable {
    var label: String
    var input: [UInt8]
    /// A fragment the error message must contain (checks the *reason*).
    var reason: String
    init(_ label: String, _ text: String, because reason: String) {
        self.label = label; self.input = Array(text.utf8); self.reason = reason
    }
    init(_ label: String, raw: [UInt8], because reason: String) {
        self.label = label; self.input = raw; self.reason = reason
    }
    var testDescription: String { label }
}

/// A valid input and the value it must parse to.
struct JSONValidCase: CustomTestStringConvertible, Sendable {
    var input: String
    var expected: JSONValue
    init(_ input: String, _ expected: JSONValue) { self.input = input; self.expected = expected }
    var testDescription: String { input.debugDescription }
}

// MARK: - Tables

let jsonInvalidCases: [JSONInvalidCase] = [
    // empty / unterminated
    JSONInvalidCase("empty input", "", because: "end of input"),
    JSONInvalidCase("whitespace only", "  \n\t ", because: "end of input"),
    JSONInvalidCase("unterminated string", "\"abc", because: "unterminated string"),
    JSONInvalidCase("unterminated array", "[1,2", because: "unterminated array"),
    JSONInvalidCase("unterminated empty array", "[", because: "unterminated array"),
    JSONInvalidCase("unterminated object", "{\"a\":1", because: "unterminated object"),
    JSONInvalidCase("unterminated object after key", "{\"a\"", because: "expected ':'"),
    JSONInvalidCase("unterminated object after colon", "{\"a\":", because: "end of input"),
    JSONInvalidCase("unterminated escape", "\"ab\\", because: "unterminated escape"),
    // trailing commas
    JSONInvalidCase("trailing comma in array", "[1,2,]", because: "trailing comma"),
    JSONInvalidCase("trailing comma in object", "{\"a\":1,}", because: "trailing comma"),
    JSONInvalidCase("lone comma in array", "[,]", because: "unexpected character ','"),
    JSONInvalidCase("leading comma in array", "[,1]", because: "unexpected character ','"),
    JSONInvalidCase("empty object with comma", "{,}", because: "expected a string object key"),
    // numbers
    JSONInvalidCase("leading zero", "01", because: "leading zeros"),
    JSONInvalidCase("negative leading zero", "-01", because: "leading zeros"),
    JSONInvalidCase("leading zero in array", "[00]", because: "leading zeros"),
    JSONInvalidCase("leading plus", "+1", because: "unexpected character '+'"),
    JSONInvalidCase("bare minus", "-", because: "expected a digit"),
    JSONInvalidCase("minus then space", "- 1", because: "expected a digit"),
    JSONInvalidCase("missing fraction digits", "1.", because: "after '.'"),
    JSONInvalidCase("missing integer digits", ".5", because: "unexpected character '.'"),
    JSONInvalidCase("missing exponent digits", "1e", because: "exponent"),
    JSONInvalidCase("missing signed exponent digits", "1e+", because: "exponent"),
    JSONInvalidCase("hex number", "0x10", because: "invalid number"),
    JSONInvalidCase("two dots", "1.2.3", because: "invalid number"),
    JSONInvalidCase("number out of range", "1e400", because: "out of range"),
    JSONInvalidCase("negative number out of range", "-1e400", because: "out of range"),
    JSONInvalidCase("NaN", "NaN", because: "unexpected character 'N'"),
    JSONInvalidCase("Infinity", "Infinity", because: "unexpected character 'I'"),
    JSONInvalidCase("-Infinity", "-Infinity", because: "expected a digit"),
    JSONInvalidCase("NaN in array", "[NaN]", because: "unexpected character 'N'"),
    // quotes / comments
    JSONInvalidCase("single-quoted string", "'a'", because: "unexpected character '''"),
    JSONInvalidCase("single-quoted key", "{'a':1}", because: "expected a string object key"),
    JSONInvalidCase("unquoted key", "{a:1}", because: "expected a string object key"),
    JSONInvalidCase("numeric key", "{1:2}", because: "expected a string object key"),
    JSONInvalidCase("line comment", "// c\n1", because: "unexpected character '/'"),
    JSONInvalidCase("block comment", "/* c */ 1", because: "unexpected character '/'"),
    JSONInvalidCase("comment inside array", "[1 /* c */]", because: "unexpected character '/'"),
    JSONInvalidCase("trailing line comment", "1 // c", because: "after the top-level value"),
    JSONInvalidCase("hash comment", "# c\n1", because: "unexpected character '#'"),
    // literals
    JSONInvalidCase("truncated true", "tru", because: "expected 'true'"),
    JSONInvalidCase("truncated null", "nul", because: "expected 'null'"),
    JSONInvalidCase("capitalised True", "True", because: "unexpected character 'T'"),
    JSONInvalidCase("literal with suffix", "truex", because: "expected 'true'"),
    JSONInvalidCase("undefined", "undefined", because: "unexpected character 'u'"),
    // control characters
    JSONInvalidCase("raw U+0001 in string", "\"a\u{01}b\"", because: "unescaped control character 0x01"),
    JSONInvalidCase("raw newline in string", "\"a\nb\"", because: "unescaped control character 0x0a"),
    JSONInvalidCase("raw tab in string", "\"a\tb\"", because: "unescaped control character 0x09"),
    JSONInvalidCase("raw NUL in string", raw: [0x22, 0x61, 0x00, 0x22], because: "unescaped control character 0x00"),
    JSONInvalidCase("raw control after escape", "\"\\n\u{1F}\"", because: "unescaped control character 0x1f"),
    // escapes
    JSONInvalidCase("invalid escape \\x", "\"\\x41\"", because: "invalid escape sequence"),
    JSONInvalidCase("invalid escape \\'", "\"\\'\"", because: "invalid escape sequence"),
    JSONInvalidCase("uppercase \\U", "\"\\U0041\"", because: "invalid escape sequence"),
    JSONInvalidCase("short \\u", "\"\\u12\"", because: "4 hex digits"),
    JSONInvalidCase("non-hex \\u", "\"\\u12G4\"", because: "4 hex digits"),
    JSONInvalidCase("lone high surrogate", "\"\\uD800\"", because: "lone high surrogate"),
    JSONInvalidCase("lone low surrogate", "\"\\uDC00\"", because: "lone low surrogate"),
    JSONInvalidCase("high surrogate then text", "\"\\uD834x\"", because: "lone high surrogate"),
    JSONInvalidCase("high surrogate then BMP escape", "\"\\uD834\\u0041\"", because: "not followed by a low surrogate"),
    JSONInvalidCase("two high surrogates", "\"\\uD834\\uD834\"", because: "not followed by a low surrogate"),
    JSONInvalidCase("reversed surrogate pair", "\"\\uDD1E\\uD834\"", because: "lone low surrogate"),
    // invalid UTF-8
    JSONInvalidCase("0xFF byte", raw: [0x22, 0xFF, 0x22], because: "UTF-8"),
    JSONInvalidCase("lone continuation byte", raw: [0x22, 0x80, 0x22], because: "UTF-8"),
    JSONInvalidCase("overlong '/'", raw: [0x22, 0xC0, 0xAF, 0x22], because: "UTF-8"),
    JSONInvalidCase("overlong 3-byte", raw: [0x22, 0xE0, 0x80, 0xAF, 0x22], because: "UTF-8"),
    JSONInvalidCase("truncated 3-byte sequence", raw: [0x22, 0xE2, 0x82, 0x22], because: "UTF-8"),
    JSONInvalidCase("truncated at end of input", raw: [0x22, 0xE2, 0x82], because: "UTF-8"),
    JSONInvalidCase("UTF-8 encoded surrogate", raw: [0x22, 0xED, 0xA0, 0x80, 0x22], because: "UTF-8"),
    JSONInvalidCase("above U+10FFFF", raw: [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], because: "UTF-8"),
    JSONInvalidCase("5-byte lead", raw: [0x22, 0xF8, 0x88, 0x80, 0x80, 0x80, 0x22], because: "UTF-8"),
    JSONInvalidCase("invalid UTF-8 after escape", raw: [0x22, 0x5C, 0x6E, 0xC3, 0x28, 0x22], because: "UTF-8"),
    JSONInvalidCase("non-ASCII outside string", raw: [0x5B, 0xC3, 0xA9, 0x5D], because: "unexpected byte 0xc3"),
    JSONInvalidCase("byte order mark", raw: [0xEF, 0xBB, 0xBF, 0x31], because: "unexpected byte 0xef"),
    // structure / trailing garbage
    JSONInvalidCase("two top-level values", "1 2", because: "after the top-level value"),
    JSONInvalidCase("garbage after object", "{} x", because: "after the top-level value"),
    JSONInvalidCase("extra closing bracket", "[1]]", because: "after the top-level value"),
    JSONInvalidCase("mismatched brackets", "[1}", because: "expected ',' or ']'"),
    JSONInvalidCase("missing comma in array", "[1 2]", because: "expected ',' or ']'"),
    JSONInvalidCase("missing comma in object", "{\"a\":1 \"b\":2}", because: "expected ',' or '}'"),
    JSONInvalidCase("missing colon", "{\"a\" 1}", because: "expected ':' after object key"),
    JSONInvalidCase("missing value", "{\"a\":}", because: "expected a value"),
    JSONInvalidCase("colon in array", "[\"a\":1]", because: "expected ',' or ']'"),
    JSONInvalidCase("NUL after value", raw: [0x31, 0x00], because: "after the top-level value"),
    JSONInvalidCase("form feed is not whitespace", "\u{0C}1", because: "unexpected byte 0x0c"),
    JSONInvalidCase("vertical tab is not whitespace", "\u{0B}1", because: "unexpected byte 0x0b"),
    JSONInvalidCase("non-breaking space is not whitespace", "\u{A0}1", because: "unexpected byte 0xc2"),
]

let jsonValidCases: [JSONValidCase] = [
    JSONValidCase("null", .null),
    JSONValidCase("true", .bool(true)),
    JSONValidCase("false", .bool(false)),
    JSONValidCase("0", .integer(0)),
    JSONValidCase("-0", .integer(0)),
    JSONValidCase("42", .integer(42)),
    JSONValidCase("-17", .integer(-17)),
    JSONValidCase("9223372036854775807", .integer(Int64.max)),
    JSONValidCase("-9223372036854775808", .integer(Int64.min)),
    JSONValidCase("9223372036854775808", .number(9223372036854775808.0)),
    JSONValidCase("-9223372036854775809", .number(-9223372036854775809.0)),
    JSONValidCase("123456789012345678901234567890", .number(1.2345678901234568e29)),
    JSONValidCase("1.0", .number(1.0)),
    JSONValidCase("-0.0", .number(-0.0)),
    JSONValidCase("0.5", .number(0.5)),
    JSONValidCase("1e2", .number(100)),
    JSONValidCase("1E2", .number(100)),
    JSONValidCase("1e+2", .number(100)),
    JSONValidCase("1e-2", .number(0.01)),
    JSONValidCase("-2.5E-3", .number(-0.0025)),
    JSONValidCase("0e0", .number(0)),
    JSONValidCase("1e-400", .number(0)),
    JSONValidCase("\"\"", .string("")),
    JSONValidCase("\"abc\"", .string("abc")),
    JSONValidCase(#""\"\\\/\b\f\n\r\t""#, .string("\"\\/\u{08}\u{0C}\n\r\t")),
    JSONValidCase(#""\u0041\u00e9\u00E9""#, .string("Aéé")),
    JSONValidCase(#""\u0000""#, .string("\u{0}")),
    JSONValidCase(#""\uD834\uDD1E""#, .string("𝄞")),
    JSONValidCase(#""Caf\u00e9 \u2615 \ud834\udd1e""#, .string("Café ☕ 𝄞")),
    JSONValidCase("\"Café ☕ 𝄞\"", .string("Café ☕ 𝄞")),
    JSONValidCase("\"\u{7F}\"", .string("\u{7F}")),
    JSONValidCase("\"\u{10FFFF}\"", .string("\u{10FFFF}")),
    JSONValidCase("[]", .array([])),
    JSONValidCase("{}", .object([])),
    JSONValidCase(" \t\r\n[ 1 , \"a\" , null ]\n ", .array([.integer(1), .string("a"), .null])),
    JSONValidCase("[[[]]]", .array([.array([.array([])])])),
    JSONValidCase("{\"a\":{\"b\":[true,false]}}", .object([("a", .object([("b", .array([.bool(true), .bool(false)]))]))])),
    JSONValidCase("{\"\":0}", .object([("", .integer(0))])),
]

// MARK: - Tests

@Suite("JSONTests")
struct JSONTests {

    @Test("valid inputs parse to the expected value", arguments: jsonValidCases)
    func valid(_ c: JSONValidCase) throws {
        let v = try JSON.parse(c.input)
        #expect(v == c.expected)
    }

    @Test("invalid inputs are rejected", arguments: jsonInvalidCases)
    func invalid(_ c: JSONInvalidCase) {
        let result = parsed(c.input)
        guard case .failure(let e) = result else {
            Issue.record("accepted invalid input \(c.label): \(result)")
            return
        }
        #expect(e.offset >= 0 && e.offset <= c.input.count)
        #expect(e.message.hasSuffix("at byte \(e.offset)"))
        #expect(e.message.contains(c.reason), "\(c.label): \(e.message)")
    }

    @Test func invalidTableIsLargeEnough() {
        #expect(jsonInvalidCases.count >= 30)
    }

    @Test("error messages and offsets")
    func errorOffsets() {
        let cases: [(String, Int, String)] = [
            ("{\"navguard_mode\" 1}", 17, "expected ':' after object key at byte 17"),
            ("[1,2,]", 5, "trailing comma in array at byte 5"),
            ("{\"a\":1,}", 7, "trailing comma in object at byte 7"),
            ("01", 0, "leading zeros"),
            ("1 2", 2, "after the top-level value"),
            ("\"ab", 3, "unterminated string"),
            ("[1 2]", 3, "expected ',' or ']'"),
            ("\"\\uD800\"", 1, "lone high surrogate"),
            ("\"\\uDC00\"", 1, "lone low surrogate"),
            ("\"a\nb\"", 2, "unescaped control character"),
            ("'x'", 0, "unexpected character '''"),
            ("nul", 0, "expected 'null'"),
            ("", 0, "unexpected end of input"),
            ("1e400", 0, "out of range"),
        ]
        for (input, offset, fragment) in cases {
            let e = jsonParseError(jsonBytes(input))
            #expect(e?.offset == offset, "\(input.debugDescription)")
            #expect(e?.message.contains(fragment) == true, "\(input.debugDescription): \(e?.message ?? "nil")")
        }
        #expect(jsonParseError([0x22, 0x61, 0xFF, 0x22]) == JSONError(message: "invalid UTF-8 lead byte 0xff at byte 2", offset: 2))
        // Offsets are UTF-8 byte offsets even for the String entry point.
        if case .failure(let e) = parsed("[\"é\" 1]") {
            #expect(e.offset == 6)
        } else {
            Issue.record("expected failure")
        }
    }

    @Test("snapshot and config examples")
    func examples() throws {
        let snap = try JSON.parse(#"{"navguard_snapshot":1,"screens":[{"id":1,"route":"home","identity":"home"}]}"#)
        #expect(snap["navguard_snapshot"]?.int64 == 1)
        let screens = try #require(snap["screens"]?.array)
        #expect(screens.count == 1)
        #expect(screens[0]["route"]?.string == "home")
        #expect(screens[0]["id"] == .integer(1))
        #expect(snap["screens"]?[0]?["identity"] == "home")

        let cfgText = #"{"mode":"queue","keep":"last","limit":8,"every_view_exclusive":true,"recover_after_ms":2000,"args":["kind","route"]}"#
        let cfg = try JSON.parse(cfgText)
        #expect(cfg["mode"]?.string == "queue")
        #expect(cfg["limit"]?.int64 == 8)
        #expect(cfg["every_view_exclusive"]?.bool == true)
        #expect(cfg["recover_after_ms"]?.double == 2000)
        #expect(cfg["args"]?.array?.compactMap(\.string) == ["kind", "route"])
        #expect(cfg["missing"] == nil)
        #expect(cfg.object?.map(\.0) == ["mode", "keep", "limit", "every_view_exclusive", "recover_after_ms", "args"])
        // Serialization is compact and keeps key order: exact byte round trip.
        #expect(JSON.serialize(cfg) == cfgText)
        #expect(JSON.serialize(snap) == #"{"navguard_snapshot":1,"screens":[{"id":1,"route":"home","identity":"home"}]}"#)
    }

    @Test("accessors")
    func accessors() {
        #expect(JSONValue.integer(3).int64 == 3)
        #expect(JSONValue.integer(3).double == 3.0)
        #expect(JSONValue.number(2.0).int64 == 2)
        #expect(JSONValue.number(-2.0).int64 == -2)
        #expect(JSONValue.number(2.5).int64 == nil)
        #expect(JSONValue.number(1e19).int64 == nil)
        #expect(JSONValue.number(-9223372036854775808.0).int64 == Int64.min)
        #expect(JSONValue.number(9223372036854775808.0).int64 == nil)
        #expect(JSONValue.number(.nan).int64 == nil)
        #expect(JSONValue.number(.infinity).int64 == nil)
        #expect(JSONValue.number(2.5).double == 2.5)
        #expect(JSONValue.string("1").int64 == nil)
        #expect(JSONValue.string("x").string == "x")
        #expect(JSONValue.integer(1).string == nil)
        #expect(JSONValue.bool(false).bool == false)
        #expect(JSONValue.null.bool == nil)
        #expect(JSONValue.null.isNull)
        #expect(JSONValue.array([.null]).array == [.null])
        #expect(JSONValue.array([.null])["a"] == nil)
        #expect(JSONValue.array([.null])[1] == nil)
        #expect(JSONValue.string("a")["a"] == nil)
        #expect(JSONValue.object([("k", .null)]).object?.count == 1)
        #expect(JSONValue.integer(1).object == nil)
        #expect(JSONValue.integer(1).array == nil)
    }

    @Test("duplicate keys are refused, in small and large objects, at any depth")
    func duplicateKeys() throws {
        for text in [#"{"a":1,"b":2,"a":3}"#, #"{"x":{"k":1,"k":1}}"#, #"[{"a":1},{"a":1,"a":2}]"#] {
            guard case .failure(let e) = parsed(text) else { Issue.record("\(text) parsed"); continue }
            #expect(e.message.hasPrefix("duplicate object key"), "\(text): \(e.message)")
        }
        var big = (0..<40).map { "\"k\($0)\":\($0)" }
        #expect(throws: Never.self) { try JSON.parse("{" + big.joined(separator: ",") + "}") }
        big.append("\"k7\":0")
        guard case .failure(let e) = parsed("{" + big.joined(separator: ",") + "}") else { Issue.record("big parsed"); return }
        #expect(e.message.hasPrefix("duplicate object key \"k7\""), "\(e.message)")
        // Keys differing only by escapes are the same key.
        guard case .failure = parsed(#"{"a":1,"\u0061":2}"#) else { Issue.record("escaped duplicate parsed"); return }
        // A value built in code may still have them; the writer keeps them.
        #expect(JSON.serialize(.object([("a", .integer(1)), ("a", .integer(2))])) == #"{"a":1,"a":2}"#)
    }

    @Test("equality")
    func equality() {
        #expect(JSONValue.integer(1) != .number(1.0))
        #expect(JSONValue.object([("a", 1), ("b", 2)]) != .object([("b", 2), ("a", 1)]))
        #expect(JSONValue.object([("a", 1)]) != .object([("a", 1), ("a", 1)]))
        #expect(JSONValue.object([("a", 1)]) != .object([("b", 1)]))
        #expect(JSONValue.object([("a", [1, "x", nil])]) == .object([("a", .array([.integer(1), .string("x"), .null]))]))
        #expect(JSONValue.array([]) != .object([]))
        #expect(JSONValue.null != .bool(false))
        let literal: JSONValue = ["mode": "queue", "limit": 8, "ratio": 0.5, "on": true, "none": nil]
        #expect(literal == .object([("mode", .string("queue")), ("limit", .integer(8)), ("ratio", .number(0.5)), ("on", .bool(true)), ("none", .null)]))
    }

    @Test("integer / double split")
    func integerDoubleSplit() throws {
        #expect(try JSON.parse("8") == .integer(8))
        #expect(try JSON.parse("8.0") == .number(8))
        #expect(try JSON.parse("8e0") == .number(8))
        #expect(try JSON.parse("2000").int64 == 2000)
        #expect(try JSON.parse("2e3").int64 == 2000)
        #expect(try JSON.parse("2.5e3").int64 == 2500)
        #expect(try JSON.parse("0.1").int64 == nil)
        #expect(try JSON.parse("9223372036854775807") == .integer(.max))
        #expect(try JSON.parse("9223372036854775808") == .number(9.223372036854775808e18))
        #expect(try JSON.parse("-9223372036854775808") == .integer(.min))
        #expect(try JSON.parse("99999999999999999999") == .number(1e20))
        // Serialization preserves the split on a round trip.
        #expect(JSON.serialize(.integer(8)) == "8")
        #expect(JSON.serialize(.number(8)) == "8.0")
        #expect(JSON.serialize(.integer(.min)) == "-9223372036854775808")
        for v: JSONValue in [.integer(8), .number(8), .number(1e16), .number(1e300), .number(-1e-300), .number(0.1),
                             .number(.leastNonzeroMagnitude), .number(1.7976931348623157e308), .number(-0.0), .number(123.456),
                             .integer(.max), .integer(.min), .integer(0), .integer(-1)] {
            let back = try JSON.parse(JSON.serialize(v))
            #expect(back == v, "\(JSON.serialize(v))")
            if case .number(let a) = v, case .number(let b) = back {
                #expect(a.bitPattern == b.bitPattern, "exact double round trip for \(a)")
            }
        }
        // JSON cannot represent non-finite numbers.
        #expect(JSON.serialize([.number(.nan), .number(.infinity), .number(-.infinity)]) == "[null,null,null]")
    }

    @Test("string escaping on output")
    func escaping() throws {
        let s = "q\" b\\ s/ n\n r\r t\t b\u{08} f\u{0C} z\u{0} o\u{01} u\u{1F} d\u{7F}"
        let out = JSON.serialize(.string(s))
        #expect(out == #""q\" b\\ s/ n\n r\r t\t b\b f\f z\u0000 o\u0001 u\u001f d"# + "\u{7F}\"")
        #expect(try JSON.parse(out) == .string(s))
        // Every control character escapes and round-trips.
        var all = ""
        for c in 0..<0x20 { all.unicodeScalars.append(Unicode.Scalar(UInt8(c))) }
        let allOut = JSON.serialize(.string(all))
        #expect(!allOut.utf8.contains { $0 < 0x20 })
        #expect(try JSON.parse(allOut) == .string(all))
    }

    @Test("unicode is emitted as UTF-8 and round-trips")
    func unicode() throws {
        let s = "Café ☕ 𝄞"
        #expect(JSON.serialize(.string(s)) == "\"Café ☕ 𝄞\"")
        #expect(Array(JSON.serialize(.string("é")).utf8) == [0x22, 0xC3, 0xA9, 0x22])
        #expect(try JSON.parse(JSON.serialize(.string(s))) == .string(s))
        #expect(try JSON.parse(#""Caf\u00e9 \u2615 \uD834\uDD1E""#) == .string(s))
        // Keys too, mixed escapes and raw UTF-8.
        let obj = try JSON.parse(#"{"clé\n☕":"x\u00e9y𝄞z"}"#)
        #expect(obj["clé\n☕"] == .string("xéy𝄞z"))
        #expect(JSON.serialize(obj) == #"{"clé\n☕":"xéy𝄞z"}"#)
    }

    @Test("round trip of nested values")
    func roundTrip() throws {
        let values: [JSONValue] = [
            .null, true, false, 0, -1, 1.5, "", "x",
            [], [:], [[], [[]], [:]],
            ["navguard_snapshot": 1, "screens": [["id": 1, "route": "home", "identity": "home"],
                                                  ["id": 2, "route": "detail/42", "identity": "detail:42"]]],
            ["chain": [["plugin": "dedupe", "config": ["args": ["kind", "route"]]],
                       ["plugin": "throttle", "config": ["mode": "queue", "keep": "last", "limit": 8,
                                                          "every_view_exclusive": true, "recover_after_ms": 2000]]],
             "ratio": 0.25, "neg": -3.5e-9, "big": 1e300, "nothing": nil, "dup": 1],
            ["Café ☕ 𝄞": ["\u{0}\u{1F}\"\\/": "\u{10FFFF}\u{FFFF}\u{7F}"]],
            .array((0..<100).map { .integer(Int64($0) * 1_000_000_007) }),
        ]
        for v in values {
            let text = JSON.serialize(v)
            let back = try JSON.parse(text)
            #expect(back == v, "\(text)")
            #expect(JSON.serialize(back) == text, "serialization is deterministic")
            // Also through the byte-level entry point and serialize(into:).
            var buf: [UInt8] = [0x41]
            JSON.serialize(v, into: &buf)
            #expect(Array(buf.dropFirst()) == Array(text.utf8))
            let back2 = try JSON.parse(Array(text.utf8))
            #expect(back2 == v)
        }
    }

    @Test("nesting depth limit")
    func depthLimit() throws {
        func arrays(_ n: Int) -> String { String(repeating: "[", count: n) + String(repeating: "]", count: n) }
        func objects(_ n: Int) -> String { String(repeating: "{\"a\":", count: n) + "0" + String(repeating: "}", count: n) }

        #expect(JSON.maxDepth == 64)
        let ok = try JSON.parse(arrays(64))
        var depth = 0
        var cur = ok
        while let inner = cur.array { depth += 1; cur = inner.first ?? .null }
        #expect(depth == 64)
        #expect((try? JSON.parse(objects(64))) != nil)
        // Scalars inside 64 containers are fine.
        #expect((try? JSON.parse(String(repeating: "[", count: 64) + "1" + String(repeating: "]", count: 64))) != nil)

        for text in [arrays(65), objects(65), arrays(100_000), String(repeating: "[", count: 200_000),
                     String(repeating: "{\"a\":[", count: 50_000)] {
            let e = jsonParseError(jsonBytes(text))
            #expect(e?.message.contains("depth") == true)
        }
        let e = try #require(jsonParseError(jsonBytes(arrays(65))))
        #expect(e.offset == 64)
        #expect(e.message == "nesting depth exceeds the limit of 64 at byte 64")
        // Mixed containers count together.
        let mixed = String(repeating: "[{\"k\":", count: 32) + "1" + String(repeating: "}]", count: 32)
        #expect((try? JSON.parse(mixed)) != nil)
        let mixedDeep = "[" + mixed + "]"
        #expect(jsonParseError(jsonBytes(mixedDeep))?.message.contains("depth") == true)
        // Depth is per nesting, not per total container count.
        let wide = "[" + Array(repeating: arrays(63), count: 1000).joined(separator: ",") + "]"
        #expect((try? JSON.parse(wide)) != nil)
    }

    @Test("input size limit")
    func sizeLimit() throws {
        #expect(JSON.maxInputBytes == 1_048_576)
        // Exactly 1 MiB is accepted.
        let exact = "\"" + String(repeating: "a", count: 1_048_576 - 2) + "\""
        #expect(exact.utf8.count == 1_048_576)
        #expect(try JSON.parse(exact).string?.utf8.count == 1_048_574)
        // One byte more is rejected (even if it is only whitespace).
        let over = exact + " "
        let e = try #require(jsonParseError(jsonBytes(over)))
        #expect(e.message.contains("limit"))
        #expect(e.offset == 1_048_576)
    }

    @Test("parse(UnsafeBufferPointer) reads exactly the given bytes")
    func bufferBounds() throws {
        let storage = Array("[1,\"a\"]garbage".utf8)
        try storage.withUnsafeBufferPointer { (buf) throws -> Void in
            let prefix = UnsafeBufferPointer(rebasing: buf[0..<7])
            #expect(try JSON.parse(prefix) == [1, "a"])
            // Cutting inside a string / number must not read past the end.
            let cut = UnsafeBufferPointer(rebasing: buf[0..<5])
            #expect(jsonParseError(Array(cut))?.message.contains("unterminated string") == true)
            if case .success = parsed(cut) { Issue.record("accepted truncated buffer") }
            let num = UnsafeBufferPointer(rebasing: buf[1..<2])
            #expect(try JSON.parse(num) == .integer(1))
        }
        let empty = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
        if case .failure(let e) = parsed(empty) {
            #expect(e.offset == 0)
        } else {
            Issue.record("accepted empty buffer")
        }
        // Truncated \u escape and truncated surrogate pair at end of buffer.
        for text in ["\"\\u00", "\"\\uD834\\u", "\"\\uD834\\uDD", "tr", "-", "1e", "{\"a\":tru"] {
            #expect(jsonParseError(jsonBytes(text)) != nil, "\(text.debugDescription)")
        }
    }

    @Test("JSONError is equatable and descriptive")
    func errorType() {
        let a = JSONError(message: "x at byte 1", offset: 1)
        #expect(a == JSONError(message: "x at byte 1", offset: 1))
        #expect(a != JSONError(message: "x at byte 1", offset: 2))
        #expect(a.description == "x at byte 1")
    }
}
