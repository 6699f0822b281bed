// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore
import NavGuardTrace

// navguard.h, "Holds": named, counted, optionally time-limited blocks.

@c @implementation
public func ng_hold_begin(_ ctx: OpaquePointer?, _ label: UnsafePointer<CChar>?, _ mask: UInt32, _ maxDurationNs: Int64, _ outToken: UnsafeMutablePointer<UInt64>?) -> ng_status {
    withContext(ctx, record: .holdBegin) { box throws(EngineError) in
        guard let outToken else { throw .null("out_token") }
        let l = try readCString(label, "label", allowNull: true, intern: box.engine)
        box.recordArgs { HoldBeginCall.encode(&$0, label: l, mask: mask, maxNs: maxDurationNs) }
        let token = try box.engine.beginHold(label: l, mask: mask, maxDurationNs: maxDurationNs)
        outToken.pointee = token
        box.recordResult(.token(token))
    }
}

@c @implementation
public func ng_hold_end(_ ctx: OpaquePointer?, _ token: UInt64) -> ng_status {
    withContext(ctx, record: .holdEnd) { box throws(EngineError) in
        box.recordArgs { HoldEndCall.encode(&$0, token: token) }
        try box.engine.endHold(token)
    }
}

@c @implementation
public func ng_hold_state(_ ctx: OpaquePointer?, _ outMask: UnsafeMutablePointer<UInt32>?, _ outCount: UnsafeMutablePointer<Int>?) -> ng_status {
    withContext(ctx) { box throws(EngineError) in
        outMask?.pointee = box.engine.holdMask
        outCount?.pointee = box.engine.holdCount
    }
}

@c @implementation
public func ng_hold_get(_ ctx: OpaquePointer?, _ index: Int, _ out: UnsafeMutablePointer<ng_hold_view>?) -> ng_status {
    withContext(ctx) { box throws(EngineError) in
        guard let out else { throw .null("out") }
        try box.checkSize(out.pointee.size, NG_HOLD_VIEW_MIN_SIZE, "ng_hold_view")
        guard let v = box.engine.holdView(at: index) else {
            throw EngineError(NG_E_NOT_FOUND, "index \(index) is outside the live holds (\(box.engine.holdCount))")
        }
        writeSized(v, to: out)
    }
}
