// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import Glibc
import NavGuardC
import NavGuardCore
import NavGuardValidator

// Small helpers shared by the subcommands: the tool's own file and the
// plugin directory fallback (the others, and files, are NavGuardValidator's:
// Support.swift, Files.swift).

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

