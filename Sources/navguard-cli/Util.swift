import CNavGuard
import Glibc
import NavGuardC
import NavGuardCore

// Small helpers shared by the subcommands: clocks, C strings, text
// escaping and the plugin directory fallback (files: Files.swift).

/// CLOCK_MONOTONIC in nanoseconds.
func monotonicNS() -> Int64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
}

/// A NUL-terminated copy of `s` that lives as long as the process (the
/// validator child is short-lived; strings handed to NavGuard or kept by a
/// plugin must outlive the calls that use them).
nonisolated(unsafe) private var internedStrings: [String: UnsafePointer<CChar>] = [:]
func cstr(_ s: String) -> UnsafePointer<CChar> {
    if let p = internedStrings[s] { return p }
    let p = UnsafePointer(strdup(s)!)
    internedStrings[s] = p
    return p
}

/// "NG_E_GUARD: invalid guard, ..." for a status.
func statusName(_ status: ng_status) -> String {
    String(cString: ng_strstatus(status))
}

/// The short code of a status ("NG_E_GUARD").
func statusCode(_ status: ng_status) -> String {
    let full = statusName(status)
    if let colon = full.firstIndex(of: ":") { return String(full[..<colon]) }
    return full
}

/// Text of a C string that may be NULL or not valid UTF-8.
func text(_ p: UnsafePointer<CChar>?, limit: Int = 4096) -> String? {
    guard let p else { return nil }
    let n = strnlen(p, limit)
    let bytes = UnsafeRawBufferPointer(start: p, count: n)
    return String(decoding: bytes, as: UTF8.self)
}

/// Whether the NUL-terminated bytes at `p` are valid UTF-8 (scans at most
/// `limit` bytes), by the library's own rule (NavGuardCore.isValidUTF8).
func isValidUTF8C(_ p: UnsafePointer<CChar>, limit: Int = 1 << 16) -> Bool {
    isValidUTF8(UnsafeRawBufferPointer(start: p, count: strnlen(p, limit)))
}

/// The executable of this process (/proc/self/exe resolved).
func selfExecutable() -> String {
    // NavGuard is linked into this program: the library's own file is ours.
    // (dladdr and AT_EXECFN, not /proc: a chroot may not mount it.)
    var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard ngc_library_path(&buf, buf.count) else { return "navguard" }
    return buf.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
}

/// Debian's multiarch directory name for this machine (lib/<triplet>).
#if arch(x86_64)
let multiarchTriplet = "x86_64-linux-gnu"
#elseif arch(arm64)
let multiarchTriplet = "aarch64-linux-gnu"
#else
let multiarchTriplet = "unknown-linux-gnu"
#endif

/// The navguard tool links the NavGuard module statically, so ng_plugin_dir()
/// finds the executable (<prefix>/bin/navguard) instead of libnavguard.so and
/// would look in <prefix>/bin/navguard/plugins. Unless NAVGUARD_PLUGIN_DIR is
/// set, point it at the first <dir>/lib/navguard/plugins found going up from
/// the executable: <prefix>/lib/navguard/plugins when installed, and
/// build/lib/navguard/plugins for the CMake build tree's copy. Must run before
/// the first call to ng_plugin_dir (the library resolves it once).
func setDefaultPluginDirectory() {
    if let env = getenv("NAVGUARD_PLUGIN_DIR"), env[0] != 0 { return }
    var dir = selfExecutable()
    for _ in 0..<5 {
        guard let slash = dir.lastIndex(of: "/"), slash != dir.startIndex else { return }
        dir = String(dir[..<slash])
        // <prefix>/lib/navguard/plugins, or a Debian multiarch libdir.
        for candidate in [dir + "/lib/navguard/plugins", dir + "/lib/\(multiarchTriplet)/navguard/plugins"]
        where isDirectory(candidate) {
            setenv("NAVGUARD_PLUGIN_DIR", candidate, 1)
            return
        }
    }
}

/// JSON string literal for `s` (the core's writer: one escaping rule).
func jsonString(_ s: String) -> String { JSON.serialize(.string(s)) }

/// One line, no tabs (for the child's line protocol and the table).
func oneLine(_ s: String) -> String {
    var out = ""
    for u in s.unicodeScalars {
        if u == "\n" || u == "\r" || u == "\t" { out += " " } else { out.unicodeScalars.append(u) }
    }
    return out
}

/// "0.42 ms" with two decimals.
func formatMS(_ ns: Int64) -> String {
    let hundredths = (ns + 5_000) / 10_000
    let whole = hundredths / 100
    let frac = hundredths % 100
    return "\(whole).\(frac < 10 ? "0" : "")\(frac) ms"
}

func writeAll(_ fd: Int32, _ s: String) {
    let bytes = Array(s.utf8)
    var off = 0
    while off < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + off, $0.count - off) }
        if n < 0 {
            if errno == EINTR { continue }
            return
        }
        off += n
    }
}

/// Standard error, unbuffered.
func printError(_ s: String) { writeAll(2, s + "\n") }
