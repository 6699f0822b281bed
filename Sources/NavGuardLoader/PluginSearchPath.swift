// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardLibc
import NavGuardC
import NavGuardCore

// Where guard plugins are found: the built-in directory beside the library,
// NAVGUARD_PLUGIN_PATH before it, and a guard's file name from its id.

/// Resolved once: NAVGUARD_PLUGIN_DIR, else next to libnavguard.so.
package nonisolated(unsafe) let pluginDirectory: UnsafeMutablePointer<CChar> = {
    if let env = getenv("NAVGUARD_PLUGIN_DIR"), env[0] != 0 { return strdup(env)! }
    // Never a directory relative to the working directory: without the
    // library's own path, there is no built-in directory ("").
    guard let path = libraryPath(), let slash = path.lastIndex(of: "/") else { return strdup("")! }
    let libdir = String(path[..<slash])
    // The install layout (<libdir>/navguard/plugins), the build tree
    // (build/lib/navguard/plugins) and a program linking NavGuard in
    // statically from <prefix>/bin.
    for candidate in ["\(libdir)/navguard/plugins", "\(libdir)/lib/navguard/plugins", "\(libdir)/../lib/navguard/plugins"]
    where access(candidate, F_OK) == 0 {
        return strdup(candidate)!
    }
    return strdup("\(libdir)/navguard/plugins")!
}()

/// Where a guard named by id is looked up, in order: the directories of
/// NAVGUARD_PLUGIN_PATH (colon-separated; empty parts are skipped), then the
/// built-in directory (ng_plugin_dir). Read at each configuration.
@_optimize(size)
public func pluginSearchPath() -> [String] {
    var dirs: [String] = []
    if let env = getenv("NAVGUARD_PLUGIN_PATH") {
        for part in String(cString: env).split(separator: ":", omittingEmptySubsequences: true) {
            let d = String(part)
            if !dirs.contains(d) { dirs.append(d) }
        }
    }
    let builtin = String(cString: pluginDirectory)
    if !dirs.contains(builtin) { dirs.append(builtin) }
    return dirs
}

/// The file this code was loaded from (dladdr, in NavGuardC: no /proc).
@_optimize(size)
func libraryPath() -> String? {
    var buf = [CChar](repeating: 0, count: Int(PATH_MAX))
    guard ngc_library_path(&buf, buf.count) else { return nil }
    return buf.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
}
