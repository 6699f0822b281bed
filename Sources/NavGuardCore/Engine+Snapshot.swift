// SPDX-License-Identifier: Apache-2.0
// Stack snapshots: JSON text the host stores and later restores.
// {"navguard_snapshot":1,"screens":[{"id":1,"route":"home","identity":"home"}]}
// A screen with NG_SCREENF_* flags also has "flags": 1 (NavGuard 0.3), one
// with a focus token "focus" (0.4; above 2^63-1 as its two's complement).

import CNavGuard

extension Engine {
    public static let snapshotVersion: Int64 = 1

    /// The stack's snapshot, as its state writes it (`State.snapshot`).
    public func snapshot() -> String { State.snapshot(of: stack.screens) }

    /// Parse a snapshot into screens without touching the stack.
    @_optimize(size)
    public static func parseSnapshot(_ bytes: UnsafeBufferPointer<UInt8>) throws(EngineError) -> [Screen] {
        try State(snapshot: bytes).stack
    }

    /// Restore a snapshot; malformed input leaves the stack unchanged.
    @_optimize(size)
    public func restore(snapshot bytes: UnsafeBufferPointer<UInt8>) throws(EngineError) {
        try restore(try State(snapshot: bytes))
    }
}

extension Engine.State {
    /// The snapshot of the stack (a state without a stack writes an empty
    /// list, which no restore accepts).
    public func snapshot() -> String { Engine.State.snapshot(of: stack) }

    /// The one writer of this format.
    @_optimize(size)
    static func snapshot(of stack: [Screen]) -> String {
        var screens: [JSONValue] = []
        screens.reserveCapacity(stack.count)
        for s in stack {
            var fields: [(String, JSONValue)] = [("id", .integer(Int64(bitPattern: s.id))),
                                                 ("route", .string(s.route.string)),
                                                 ("identity", .string(s.identity.string))]
            if s.flags != 0 { fields.append(("flags", .integer(Int64(s.flags)))) }
            if s.focus != 0 { fields.append(("focus", .integer(Int64(bitPattern: s.focus)))) }
            screens.append(.object(fields))
        }
        return JSON.serialize(.object([("navguard_snapshot", .integer(Engine.snapshotVersion)),
                                       ("screens", .array(screens))]))
    }

    /// A snapshot read into a state holding its stack.
    @_optimize(size)
    public init(snapshot bytes: UnsafeBufferPointer<UInt8>) throws(EngineError) {
        let snapshotVersion = Engine.snapshotVersion
        let value: JSONValue
        do throws(JSONError) { value = try JSON.parse(bytes) } catch {
            throw EngineError(NG_E_PARSE, "snapshot is not valid JSON: \(error.message)")
        }
        guard case .object = value else { throw EngineError(NG_E_PARSE, "snapshot must be a JSON object") }
        guard let v = value["navguard_snapshot"]?.int64 else {
            throw EngineError(NG_E_PARSE, "snapshot lacks \"navguard_snapshot\": 1")
        }
        guard v == snapshotVersion else {
            throw EngineError(NG_E_RANGE, "snapshot version \(v) is not supported (expected \(snapshotVersion))")
        }
        guard let list = value["screens"]?.array else {
            throw EngineError(NG_E_PARSE, "snapshot lacks a \"screens\" array")
        }
        var out: [Screen] = []
        out.reserveCapacity(list.count)
        for (i, item) in list.enumerated() {
            guard case .object = item else { throw EngineError(NG_E_PARSE, "screens[\(i)] is not an object") }
            // Ids above 2^63-1 are written as their two's-complement Int64.
            guard let idv = item["id"]?.int64, idv != 0 else {
                throw EngineError(NG_E_RANGE, "screens[\(i)].id must be a non-zero integer")
            }
            guard let route = item["route"]?.string else {
                throw EngineError(NG_E_PARSE, "screens[\(i)].route must be a string")
            }
            // A present identity must be a string (absent or null: the route).
            let idItem = item["identity"]
            if let idItem, !idItem.isNull, idItem.string == nil {
                throw EngineError(NG_E_PARSE, "screens[\(i)].identity must be a string")
            }
            var flags: UInt32 = 0
            if let f = item["flags"], !f.isNull {
                guard let v = f.int64, let u = UInt32(exactly: v) else {
                    throw EngineError(NG_E_RANGE, "screens[\(i)].flags must be NG_SCREENF_* bits")
                }
                flags = u
            }
            var focus: UInt64 = 0
            if let f = item["focus"], !f.isNull {
                guard let v = f.int64 else { throw EngineError(NG_E_RANGE, "screens[\(i)].focus must be an integer") }
                focus = UInt64(bitPattern: v)
            }
            out.append(try Engine.State.screen(id: UInt64(bitPattern: idv), route: route, identity: idItem?.string,
                                               flags: flags, focus: focus, what: "screens", index: i))
        }
        if let m = ScreenStack.problem(out) { throw EngineError(NG_E_RANGE, "snapshot: \(m)") }
        self.init(stack: out)
    }
}
