// SPDX-License-Identifier: Apache-2.0
/// A map from non-zero 64-bit ids to slot numbers: open addressing with
/// linear probing over a power-of-two table, a multiplicative hash, and
/// backward-shift deletion (no tombstones).
///
/// Why not `Dictionary`: its per-lookup SipHash is most of the cost of a
/// host-table `view_flags` call, which a guard makes on every touch's began.
/// Ids come from the host, not from a network: no flooding to resist.
///
/// Invariants:
///  * key 0 marks an empty bucket (ids are never 0);
///  * every stored key is found by probing forward from its home bucket
///    without crossing an empty bucket (backward-shift deletion keeps this);
///  * the table is at most 1/2 full, so probes stay short; storage grows by
///    doubling and never shrinks (steady state allocates nothing).
struct IDTable {
    private var keys: [UInt64]
    private var values: [Int32]
    private var mask: Int
    private(set) var count = 0

    init() {
        keys = Array(repeating: 0, count: 16)
        values = Array(repeating: 0, count: 16)
        mask = 15
    }

    @inline(__always)
    private func home(_ id: UInt64) -> Int {
        // Fibonacci hashing: the high bits of id * 2^64/phi.
        Int(truncatingIfNeeded: (id &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    @inline(__always)
    subscript(id: UInt64) -> Int32? {
        get {
            var i = home(id)
            while true {
                let k = keys[i]
                if k == 0 { return nil }      // also answers id 0: never stored
                if k == id { return values[i] }
                i = (i + 1) & mask
            }
        }
        set {
            precondition(id != 0, "id 0 is reserved")
            if let v = newValue { insert(id, v) } else { remove(id) }
        }
    }

    private mutating func insert(_ id: UInt64, _ v: Int32) {
        var i = home(id)
        while true {
            let k = keys[i]
            if k == 0 { break }
            if k == id { values[i] = v; return }
            i = (i + 1) & mask
        }
        if (count + 1) * 2 > keys.count {
            grow()
            insert(id, v)
            return
        }
        keys[i] = id
        values[i] = v
        count += 1
    }

    private mutating func remove(_ id: UInt64) {
        var i = home(id)
        while true {
            let k = keys[i]
            if k == 0 { return }
            if k == id { break }
            i = (i + 1) & mask
        }
        // Backward shift: move later members of the run into the hole when
        // their home is not between the hole and them.
        var hole = i
        var j = (i + 1) & mask
        while keys[j] != 0 {
            let h = home(keys[j])
            let between = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j)
            if !between {
                keys[hole] = keys[j]
                values[hole] = values[j]
                hole = j
            }
            j = (j + 1) & mask
        }
        keys[hole] = 0
        count -= 1
    }

    private mutating func grow() {
        let oldKeys = keys, oldValues = values
        keys = Array(repeating: 0, count: oldKeys.count * 2)
        values = Array(repeating: 0, count: oldKeys.count * 2)
        mask = keys.count - 1
        count = 0
        for (k, v) in zip(oldKeys, oldValues) where k != 0 { insert(k, v) }
    }

    mutating func removeAll() {
        for i in keys.indices { keys[i] = 0 }
        count = 0
    }
}
