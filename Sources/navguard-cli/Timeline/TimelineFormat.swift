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
