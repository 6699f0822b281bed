import CNavGuard
import Glibc
import NavGuardCore

// Validation and conversion of what the host passes in. Nothing here trusts
// the host: every pointer, size, enum value and string is checked.


/// Read a host string: non-NULL (unless allowed), at most NG_MAX_STRING
/// bytes, valid UTF-8 (the core's readCString).
func readString(_ p: UnsafePointer<CChar>?, _ what: String, allowNull: Bool = false,
                intern engine: Engine? = nil) -> Result<CStr?, EngineError> {
    do throws(EngineError) { return .success(try readCString(p, what, allowNull: allowNull, intern: engine)) }
    catch { return .failure(error) }
}

/// A request must at least reach `target_id` (NG_REQUEST_MIN_SIZE); later
/// fields default to zero.
let minRequestSize = Int(NG_REQUEST_MIN_SIZE)

@inline(__always)
func staticC(_ s: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
}
