import CNavGuard
import Glibc
import NavGuardCore
import Synchronization

// Handles are not pointers: an `ng_context *` encodes (generation << 16 |
// slot + 1). A lookup compares the generation stored for the slot, so a
// destroyed or foreign handle is detected without dereferencing anything.
final class Registry: @unchecked Sendable {
    static let capacity = Int(NG_MAX_CONTEXTS)

    private let generations: UnsafeMutablePointer<Atomic<UInt64>>
    private let boxes: UnsafeMutablePointer<Atomic<UInt>>
    /// Guards create, destroy and posting (which must not race a destroy).
    let lock = Lock()
    private var state = State()

    struct State {
        var free: [Int] = Array((0..<Registry.capacity).reversed())
        var nextGeneration: [UInt64] = Array(repeating: 1, count: Registry.capacity)
    }

    init() {
        generations = .allocate(capacity: Registry.capacity)
        boxes = .allocate(capacity: Registry.capacity)
        for i in 0..<Registry.capacity {
            (generations + i).initialize(to: Atomic(0))
            (boxes + i).initialize(to: Atomic(0))
        }
    }

    /// Register a box; nil when NG_MAX_CONTEXTS contexts are live.
    func insert(_ box: ContextBox) -> OpaquePointer? {
        lock.withLock { () -> OpaquePointer? in
            guard let slot = state.free.popLast() else { return nil }
            let gen = state.nextGeneration[slot]
            state.nextGeneration[slot] = gen >= (UInt64(1) << 47) ? 1 : gen + 1
            boxes[slot].store(UInt(bitPattern: Unmanaged.passRetained(box).toOpaque()), ordering: .relaxed)
            generations[slot].store(gen, ordering: .releasing)
            return OpaquePointer(bitPattern: UInt(gen) << 16 | UInt(slot + 1))
        }
    }

    @inline(__always)
    private func decode(_ handle: OpaquePointer?) -> (slot: Int, gen: UInt64)? {
        guard let handle else { return nil }
        let h = UInt(bitPattern: handle)
        let slot = Int(h & 0xFFFF) - 1
        let gen = UInt64(h >> 16)
        guard slot >= 0, slot < Registry.capacity, gen != 0 else { return nil }
        return (slot, gen)
    }

    /// The box of a live handle (owner-thread lookup, lock-free).
    @inline(__always)
    func lookup(_ handle: OpaquePointer?) -> ContextBox? {
        guard let (slot, gen) = decode(handle),
              generations[slot].load(ordering: .acquiring) == gen else { return nil }
        let raw = boxes[slot].load(ordering: .relaxed)
        guard let p = UnsafeRawPointer(bitPattern: raw) else { return nil }
        return Unmanaged<ContextBox>.fromOpaque(p).takeUnretainedValue()
    }

    /// Run `body` with the box while holding the registry lock, so that the
    /// context cannot be destroyed meanwhile (used by ng_request_post).
    func withLocked<T>(_ handle: OpaquePointer?, _ body: (ContextBox?) -> T) -> T {
        lock.withLock { body(lookup(handle)) }
    }

    /// Unregister; returns the box (still retained: the caller releases it).
    func remove(_ handle: OpaquePointer?) -> Unmanaged<ContextBox>? {
        lock.withLock { () -> Unmanaged<ContextBox>? in
            guard let (slot, gen) = decode(handle),
                  generations[slot].load(ordering: .acquiring) == gen,
                  let p = UnsafeRawPointer(bitPattern: boxes[slot].load(ordering: .relaxed)) else { return nil }
            generations[slot].store(0, ordering: .releasing)
            boxes[slot].store(0, ordering: .relaxed)
            state.free.append(slot)
            return Unmanaged<ContextBox>.fromOpaque(p)
        }
    }
}

let registry = Registry()
