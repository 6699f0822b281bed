// SPDX-License-Identifier: Apache-2.0
/// Requests a guard deferred, in deferral order, each with the slot of the
/// guard that deferred it.
///
/// Invariants: a request id appears at most once; only the deferring guard
/// may apply or drop its request (lookups match id and slot); every entry
/// leaves with exactly one outcome (re-evaluated, dropped, or DESTROYED).
struct DeferredRequests {
    private(set) var items: [(request: Request, slot: Int)] = []

    var count: Int { items.count }
    subscript(i: Int) -> Request { items[i].request }

    mutating func append(_ r: Request, slot: Int) { items.append((r, slot)) }

    func contains(_ id: UInt64, slot: Int) -> Bool { items.contains { $0.request.id == id && $0.slot == slot } }

    /// Remove and return the request `slot` deferred under `id`.
    mutating func take(_ id: UInt64, slot: Int) -> Request? {
        guard let i = items.firstIndex(where: { $0.request.id == id && $0.slot == slot }) else { return nil }
        return items.remove(at: i).request
    }

    mutating func takeAll() -> [Request] {
        defer { items.removeAll() }
        return items.map { $0.request }
    }
}
