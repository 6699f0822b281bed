// SPDX-License-Identifier: Apache-2.0
/// Who acts on the engine: the host (through the C API) or the guard in a
/// chain slot (through its host-services table). Rules that depend on the
/// actor (a hold ended by someone other than its owner is RELEASED, only the
/// deferring guard may apply or drop a deferred request) compare actors.
public enum Actor: Equatable, Sendable {
    case host
    case guardSlot(Int)

    /// The chain slot, or nil for the host.
    var slot: Int? {
        if case .guardSlot(let i) = self { return i }
        return nil
    }
}
