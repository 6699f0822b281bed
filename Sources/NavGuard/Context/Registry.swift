// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardC
import NavGuardLibc
import NavGuardCore
import Synchronization

// Handles are not pointers: an `ng_context *` encodes (generation << 16 |
// slot + 1). Every slot also records its owner thread. The slot arrays are
// never freed, so a lookup reads only them until it knows the caller owns the
// context: a destroyed, foreign or other thread's handle is refused without
// touching the context, and since only the owner thread can destroy a
// context, the owner's call cannot race its destruction.
final class Registry: @unchecked Sendable {
    static let capacity = Int(NG_MAX_CONTEXTS)

    private let generations: UnsafeMutablePointer<Atomic<UInt64>>
    private let boxes: UnsafeMutablePointer<Atomic<UInt>>
    /// currentThread() of the owner thread; 0 while detached.
    private let owners: UnsafeMutablePointer<Atomic<UInt>>
    /// Free slots and generations; taken by create, destroy, attach and
    /// posting (which must not race a destroy).
    private let state = Lock(State())

    struct State {
        var free: [Int] = Array((0..<Registry.capacity).reversed())
        var nextGeneration: [UInt64] = Array(repeating: 1, count: Registry.capacity)
    }

    init() {
        generations = .allocate(capacity: Registry.capacity)
        boxes = .allocate(capacity: Registry.capacity)
        owners = .allocate(capacity: Registry.capacity)
        for i in 0..<Registry.capacity {
            (generations + i).initialize(to: Atomic(0))
            (boxes + i).initialize(to: Atomic(0))
            (owners + i).initialize(to: Atomic(0))
        }
    }

    /// Register a box owned by the calling thread; nil when NG_MAX_CONTEXTS
    /// contexts are live.
    func insert(_ box: ContextBox) -> OpaquePointer? {
        state.withLock { state -> OpaquePointer? in
            guard let slot = state.free.popLast() else { return nil }
            let gen = state.nextGeneration[slot]
            state.nextGeneration[slot] = gen >= (UInt64(1) << 47) ? 1 : gen + 1
            box.slot = slot
            boxes[slot].store(UInt(bitPattern: Unmanaged.passRetained(box).toOpaque()), ordering: .relaxed)
            owners[slot].store(currentThread(), ordering: .relaxed)
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

    /// The box of a live handle whose owner is the calling thread; otherwise
    /// nil and NG_E_HANDLE or NG_E_THREAD. Lock-free.
    @inline(__always)
    func owned(_ handle: OpaquePointer?, _ status: inout ng_status) -> Unmanaged<ContextBox>? {
        guard let (slot, gen) = decode(handle) else { status = NG_E_HANDLE; return nil }
        let owner = owners[slot].load(ordering: .acquiring)
        guard generations[slot].load(ordering: .acquiring) == gen else { status = NG_E_HANDLE; return nil }
        // Only the owner destroys or detaches: once the owner is us, the box
        // stays alive for this call.
        guard owner == currentThread() else { status = NG_E_THREAD; return nil }
        guard let p = UnsafeRawPointer(bitPattern: boxes[slot].load(ordering: .relaxed)) else {
            status = NG_E_HANDLE
            return nil
        }
        return Unmanaged<ContextBox>.fromOpaque(p)
    }

    /// Whether a handle names a live context (any thread; reads only the
    /// registry).
    func isLive(_ handle: OpaquePointer?) -> Bool {
        guard let (slot, gen) = decode(handle) else { return false }
        return generations[slot].load(ordering: .acquiring) == gen
    }


    /// The address of the slot's owner word, for the engine's owner check.
    func ownerWord(slot: Int) -> Int { Int(bitPattern: UnsafeRawPointer(owners + slot)) }

    /// The owner gives the context up; no thread owns it until one attaches.
    func detach(_ box: ContextBox) {
        owners[box.slot].store(0, ordering: .releasing)
    }

    /// The calling thread takes a detached context (or already owns it).
    func attach(_ handle: OpaquePointer?) -> ng_status {
        state.withLock { _ -> ng_status in
            guard let (slot, gen) = decode(handle), generations[slot].load(ordering: .acquiring) == gen,
                  let p = UnsafeRawPointer(bitPattern: boxes[slot].load(ordering: .relaxed)),
                  !Unmanaged<ContextBox>.fromOpaque(p).takeUnretainedValue().closing else { return NG_E_HANDLE }
            let me = currentThread()
            let (ok, current) = owners[slot].compareExchange(expected: 0, desired: me, ordering: .acquiringAndReleasing)
            return ok || current == me ? NG_OK : NG_E_THREAD
        }
    }

    /// Run `body` with a live, not closing box while holding the registry
    /// lock, so that the context cannot be destroyed meanwhile (posting).
    func withLocked<T>(_ handle: OpaquePointer?, _ body: (ContextBox?) throws(EngineError) -> T) throws(EngineError) -> T {
        try state.withLock { _ throws(EngineError) -> T in
            guard let (slot, gen) = decode(handle), generations[slot].load(ordering: .acquiring) == gen,
                  let p = UnsafeRawPointer(bitPattern: boxes[slot].load(ordering: .relaxed)) else { return try body(nil) }
            let box = Unmanaged<ContextBox>.fromOpaque(p).takeUnretainedValue()
            return try body(box.closing ? nil : box)
        }
    }

    /// Mark a box closing: posts are refused from now on, while its owner
    /// still finishes the teardown (callbacks may read the context).
    func close(_ box: ContextBox) {
        state.withLock { _ in box.closing = true }
    }

    /// Unregister; returns the box (still retained: the caller releases it).
    func remove(_ box: ContextBox) -> Unmanaged<ContextBox> {
        state.withLock { state -> Unmanaged<ContextBox> in
            let slot = box.slot
            let p = UnsafeRawPointer(bitPattern: boxes[slot].load(ordering: .relaxed))!
            generations[slot].store(0, ordering: .releasing)
            owners[slot].store(0, ordering: .relaxed)
            boxes[slot].store(0, ordering: .relaxed)
            state.free.append(slot)
            return Unmanaged<ContextBox>.fromOpaque(p)
        }
    }
}

let registry = Registry()

/// The calling thread's id (never 0): the thread pointer, one register read
/// (NavGuardC), since every owner check pays for it.
@inline(__always)
func currentThread() -> UInt {
    UInt(ngc_thread_id())
}
