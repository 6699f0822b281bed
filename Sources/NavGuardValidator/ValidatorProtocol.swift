// SPDX-License-Identifier: Apache-2.0
// What a check reports, and the line protocol that carries it from the child
// process (ValidatorChild.swift) to the parent (ValidatorParent.swift).

public enum CheckStatus: String, Sendable {
    case pass = "PASS", fail = "FAIL", warn = "WARN"
}

/// What a check's body returns; the child adds the name and the time.
struct CheckResult {
    var status: CheckStatus
    var detail: String
    static func pass(_ d: String) -> CheckResult { CheckResult(status: .pass, detail: d) }
    static func fail(_ d: String) -> CheckResult { CheckResult(status: .fail, detail: d) }
    static func warn(_ d: String) -> CheckResult { CheckResult(status: .warn, detail: d) }
}

/// One check's outcome, as the parent reports it.
public struct CheckRecord: Equatable, Sendable {
    public var status: CheckStatus
    public var name: String
    public var ns: Int64
    public var detail: String

    public init(status: CheckStatus, name: String, ns: Int64, detail: String) {
        self.status = status
        self.name = name
        self.ns = ns
        self.detail = detail
    }
}

/// One line of the child's stdout. Tab-separated, after the marker:
///   @@NGV BEGIN  <check>
///   @@NGV STEP   <what is about to be done>
///   @@NGV RESULT <PASS|FAIL|WARN> <check> <nanoseconds> <detail>
///   @@NGV END
/// The plugin's own stdout goes to stderr, but a line is still found after
/// stray text on the same line, and anything that is not a line is skipped.
public enum ChildLine: Equatable, Sendable {
    /// A check starts: a crash before its RESULT is reported under its name.
    case begin(String)
    /// What is about to be done (named in a crash report).
    case step(String)
    case result(CheckRecord)
    /// The group ran to its end.
    case end

    public static let marker = "@@NGV"

    /// The line, newline included. Fields are made single-line and tab-free,
    /// so decode(encode(x)) is x with its text passed through oneLine.
    public func encode() -> String {
        let fields: [String]
        switch self {
        case .begin(let name): fields = ["BEGIN", name]
        case .step(let what): fields = ["STEP", what]
        case .result(let r): fields = ["RESULT", r.status.rawValue, r.name, String(r.ns), r.detail]
        case .end: fields = ["END"]
        }
        return ([ChildLine.marker] + fields.map(oneLine)).joined(separator: "\t") + "\n"
    }

    /// The message in one line of output (without its newline), or nil.
    public static func decode(_ line: Substring) -> ChildLine? {
        // (A byte search: Embedded Swift has no String.firstRange(of:).)
        let key = Array((marker + "\t").utf8)
        var at = line.utf8.startIndex
        while !line.utf8[at...].starts(with: key) {
            guard at != line.utf8.endIndex else { return nil }
            line.utf8.formIndex(after: &at)
        }
        let fields = line[line.utf8.index(at, offsetBy: key.count)...].split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        switch fields.first {
        case "BEGIN" where fields.count >= 2: return .begin(fields[1])
        case "STEP" where fields.count >= 2: return .step(fields[1])
        case "RESULT" where fields.count >= 5:
            // An unreadable status or time is the child's fault, not a pass.
            return .result(CheckRecord(status: CheckStatus(rawValue: fields[1]) ?? .fail, name: fields[2],
                                       ns: Int64(fields[3]) ?? 0, detail: fields[4...].joined(separator: " ")))
        case "END": return .end
        default: return nil
        }
    }
}
