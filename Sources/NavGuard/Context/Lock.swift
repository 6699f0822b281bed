// SPDX-License-Identifier: Apache-2.0
import NavGuardLibc

/// A value only one thread at a time may touch, behind a pthread mutex, with
/// Synchronization.Mutex's `withLock`. Embedded Swift's Synchronization has
/// Atomic but no Mutex on Linux; this one serves both builds, so both run
/// (and the sanitizer runs test) the same code. Off the hot path only:
/// create, destroy, attach, post, take.
final class Lock<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    init(_ value: Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
