// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore
import NavGuardTrace

// navguard.h, "Time": ticking, deadlines and the context's clock.

@c @implementation
public func ng_tick(_ ctx: OpaquePointer?) -> ng_status {
    withContext(ctx, record: .tick, flush: true) { box throws(EngineError) in
        if box.engine.isInsideCallback { throw .inCallback("ng_tick") }
        box.recordArgs { NoArgsCall.encode(&$0) }
        box.drainMailbox()
        try box.engine.tick()
    }
}

@c @implementation
public func ng_next_deadline(_ ctx: OpaquePointer?, _ out: UnsafeMutablePointer<Int64>?) -> ng_status {
    withContext(ctx) { box throws(EngineError) in
        guard let out else { throw .null("out_ns") }
        out.pointee = box.mailbox.isEmpty ? box.engine.nextDeadline() : box.engine.now
    }
}

@c @implementation
public func ng_now(_ ctx: OpaquePointer?, _ out: UnsafeMutablePointer<Int64>?) -> ng_status {
    withContext(ctx) { box throws(EngineError) in
        guard let out else { throw .null("out_ns") }
        out.pointee = box.engine.now
    }
}

@c @implementation
public func ng_clock_set(_ ctx: OpaquePointer?, _ nowNs: Int64) -> ng_status {
    withContext(ctx, record: .clockSet) { box throws(EngineError) in
        box.recordArgs { ClockCall.encode(&$0, ns: nowNs) }
        try box.engine.setTime(nowNs)
        box.mailbox.manualClockMoved(to: nowNs)
    }
}

@c @implementation
public func ng_clock_advance(_ ctx: OpaquePointer?, _ deltaNs: Int64) -> ng_status {
    withContext(ctx, record: .clockAdvance) { box throws(EngineError) in
        box.recordArgs { ClockCall.encode(&$0, ns: deltaNs) }
        try box.engine.advanceTime(deltaNs)
        box.mailbox.manualClockMoved(to: box.engine.now)
    }
}
