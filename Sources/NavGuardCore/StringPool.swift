// SPDX-License-Identifier: Apache-2.0
/// Recently used strings (routes, identities, hold labels, guards' verdict
/// messages), reused so that a push of a known route, a hold with a known
/// label or a guard's usual refusal text allocates nothing.
///
/// Invariants: at most `capacity` strings; a lookup costs at most
/// `capacity` comparisons whatever the stack's depth (the stack itself is
/// not searched: a push at depth 4,000 costs what a push at depth 1 does).
struct StringPool {
    static let capacity = 32
    private var recent: [CStr] = []
    private var next = 0

    init() { recent.reserveCapacity(StringPool.capacity) }

    /// A CStr with these bytes: a recent one, or a new copy remembered in
    /// place of the oldest.
    mutating func intern(_ bytes: UnsafeRawPointer, _ n: Int) -> CStr {
        for c in recent where c.matches(bytes, n) { return c }
        let c = CStr(bytes: bytes, count: n)
        if recent.count < StringPool.capacity {
            recent.append(c)
        } else {
            recent[next] = c
            next = (next + 1) % StringPool.capacity
        }
        return c
    }
}
