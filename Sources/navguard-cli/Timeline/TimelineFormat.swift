// SPDX-License-Identifier: Apache-2.0
/// Text for the timeline's outputs: times in milliseconds and XML escapes.
enum TimelineFormat {
    /// "1460 ms", "0.16 ms", "2.001 ms": at most three decimals, none trailing.
    static func ms(_ ns: Int64) -> String {
        let sign = ns < 0 ? "-" : ""
        let micros = (ns.magnitude + 500) / 1_000
        var frac = String(micros % 1_000)
        frac = String(repeating: "0", count: 3 - frac.count) + frac
        while frac.hasSuffix("0") { frac.removeLast() }
        return sign + String(micros / 1_000) + (frac.isEmpty ? "" : "." + frac) + " ms"
    }

    /// A length for a person: "850 ms", "12.3 s", "4 min 5 s".
    static func duration(_ ns: Int64) -> String {
        if ns < 1_000_000_000 { return ms(ns) }
        let s = Double(ns) / 1e9
        if s < 60 { return "\((s * 10).rounded() / 10) s" }
        let whole = Int64(s)
        return "\(whole / 60) min \(whole % 60) s"
    }

    /// Text for XML content and attribute values. Characters XML 1.0 cannot
    /// hold (C0 controls other than tab and newline) become spaces, so a
    /// trace with odd bytes in a label still gives a well-formed picture.
    static func xml(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\t", "\n": out.unicodeScalars.append(u)
            default:
                if u.value < 0x20 || u.value == 0xFFFE || u.value == 0xFFFF { out += " " } else { out.unicodeScalars.append(u) }
            }
        }
        return out
    }
}
