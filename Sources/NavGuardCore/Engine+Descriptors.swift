// SPDX-License-Identifier: Apache-2.0
import CNavGuard

// The descriptor rules the engine, the loader and the validator share.

extension Engine {
    /// Why a descriptor is refused, or nil (GuardDescriptor.read).
    public static func validate(_ p: UnsafePointer<ng_plugin_descriptor>) -> String? {
        do throws(EngineError) { _ = try GuardDescriptor.read(p) } catch { return error.message }
        return nil
    }

    /// The reverse-DNS id rule (the one place it lives).
    public static func validateID(_ id: UnsafePointer<CChar>) -> String? {
        var n = 0
        var dots = 0
        var prev: CChar = 46
        while id[n] != 0 {
            let c = UInt8(bitPattern: id[n])
            let ok = (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c == 45 || c == 95 || c == 46
            if !ok { return "guard id has a character outside [A-Za-z0-9._-]" }
            if c == 46 {
                if prev == 46 { return "guard id has an empty label" }
                dots += 1
            }
            prev = id[n]
            n += 1
            if n > 128 { return "guard id is longer than 128 bytes" }
        }
        if n == 0 || dots == 0 || prev == 46 { return "guard id must be reverse-DNS (e.g. org.example.guard)" }
        return nil
    }

}

/// A guard's file name: the last part of its id (org.navguard.throttle ->
/// throttle.so). The one place this rule lives.
public func pluginFileName(forID id: String) -> String? {
    guard let short = id.split(separator: ".").last, !short.isEmpty,
          short.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else { return nil }
    return "\(short).so"
}
