// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore
import NavGuardLibc

// Small helpers of the validator's child and of the navguard tool, which
// imports this module: clocks, C strings, text for the line protocol and
// the table, writes to a file descriptor, and a plugin's descriptor.

/// CLOCK_MONOTONIC in nanoseconds.
public func monotonicNS() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// A NUL-terminated copy of `s` that lives as long as the process (the
/// validator child is short-lived; strings handed to NavGuard or kept by a
/// plugin must outlive the calls that use them).
nonisolated(unsafe) private var internedStrings: [String: UnsafePointer<CChar>] = [:]
public func cstr(_ s: String) -> UnsafePointer<CChar> {
    if let p = internedStrings[s] { return p }
    let p = UnsafePointer(strdup(s)!)
    internedStrings[s] = p
    return p
}

/// "NG_E_GUARD: invalid guard, ..." for a status.
public func statusName(_ status: ng_status) -> String {
    String(cString: ng_strstatus(status))
}

/// The short code of a status ("NG_E_GUARD").
public func statusCode(_ status: ng_status) -> String {
    let full = statusName(status)
    if let colon = full.firstIndex(of: ":") { return String(full[..<colon]) }
    return full
}

/// Text of a C string that may be NULL or not valid UTF-8.
public func text(_ p: UnsafePointer<CChar>?, limit: Int = 4096) -> String? {
    guard let p else { return nil }
    let n = strnlen(p, limit)
    let bytes = UnsafeRawBufferPointer(start: p, count: n)
    return String(decoding: bytes, as: UTF8.self)
}

/// Whether the NUL-terminated bytes at `p` are valid UTF-8 (scans at most
/// `limit` bytes), by the library's own rule (NavGuardCore.isValidUTF8).
public func isValidUTF8C(_ p: UnsafePointer<CChar>, limit: Int = 1 << 16) -> Bool {
    isValidUTF8(UnsafeRawBufferPointer(start: p, count: strnlen(p, limit)))
}


/// One line, no tabs (for the child's line protocol and the table).
public func oneLine(_ s: String) -> String {
    var out = ""
    for u in s.unicodeScalars {
        if u == "\n" || u == "\r" || u == "\t" { out += " " } else { out.unicodeScalars.append(u) }
    }
    return out
}

/// "0.42 ms" with two decimals.
public func formatMS(_ ns: Int64) -> String {
    let hundredths = (ns + 5_000) / 10_000
    let whole = hundredths / 100
    let frac = hundredths % 100
    return "\(whole).\(frac < 10 ? "0" : "")\(frac) ms"
}

public func writeAll(_ fd: Int32, _ s: String) {
    let bytes = Array(s.utf8)
    var off = 0
    while off < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + off, $0.count - off) }
        if n < 0 {
            if ngc_errno() == EINTR { continue }
            return
        }
        off += n
    }
}


/// Standard error, unbuffered.
public func printError(_ s: String) { writeAll(2, s + "\n") }

/// The descriptor of a plugin the chain already loaded (RTLD_NOLOAD: the
/// same copy), or of a plugin file opened now. Unchecked: pass it to
/// GuardDescriptor.read.
public func openLoaded(_ path: String) -> UnsafePointer<ng_plugin_descriptor>? {
    let h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE | RTLD_NOLOAD) ?? dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE)
    guard let h, let sym = dlsym(h, NG_PLUGIN_ENTRY_SYMBOL) else { return nil }
    return unsafeBitCast(sym, to: ng_plugin_entry_fn.self)()
}
