// SPDX-License-Identifier: Apache-2.0
import NavGuardValidator

// The validator's report: one line per check, a summary, or JSON (--json).

struct ValidationReport {
    var path: String
    var records: [CheckRecord] = []
    var notRun: [String] = []
    var ns: Int64 = 0
    var failed: Int { records.filter { $0.status == .fail }.count }
    var warned: Int { records.filter { $0.status == .warn }.count }
    var passed: Int { records.filter { $0.status == .pass }.count }
}

func formatRecord(_ r: CheckRecord, nameWidth: Int = 30) -> String {
    let pad = max(nameWidth - r.name.count, 1)
    return "\(r.status.rawValue)  \(r.name)\(String(repeating: " ", count: pad))\(r.detail)  [\(formatMS(r.ns))]"
}

func msValue(_ ns: Int64) -> String {
    let us = ns / 1000
    let frac = us % 1000
    return "\(us / 1000).\(String(repeating: "0", count: 3 - String(frac).count))\(frac)"
}

func reportJSON(_ rep: ValidationReport) -> String {
    var s = "{\n  \"plugin\": \(jsonString(rep.path)),\n  \"ok\": \(rep.failed == 0),\n"
    s += "  \"passed\": \(rep.passed),\n  \"failed\": \(rep.failed),\n  \"warnings\": \(rep.warned),\n"
    s += "  \"time_ms\": \(msValue(rep.ns)),\n"
    s += "  \"not_run\": [" + rep.notRun.map(jsonString).joined(separator: ", ") + "],\n"
    s += "  \"checks\": [\n"
    s += rep.records.map {
        "    {\"name\": \(jsonString($0.name)), \"status\": \(jsonString($0.status.rawValue)), \"time_ms\": \(msValue($0.ns)), \"detail\": \(jsonString($0.detail))}"
    }.joined(separator: ",\n")
    s += "\n  ]\n}"
    return s
}
