// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore
import NavGuardTrace

// navguard.h, "Input: events, views and hit testing": the view tree the
// host mirrors, and hit testing against it.

@c @implementation
public func ng_view_set(_ ctx: OpaquePointer?, _ view: UnsafePointer<ng_view>?) -> ng_status {
    withContext(ctx, record: .viewSet) { box throws(EngineError) in
        guard let view else { throw .null("view") }
        let spec = try ViewSpec(view)
        box.recordArgs { ViewSetCall.encode(&$0, spec) }
        try box.engine.setView(spec)
    }
}

@c @implementation
public func ng_view_remove(_ ctx: OpaquePointer?, _ viewID: UInt64) -> ng_status {
    withContext(ctx, record: .viewRemove) { box throws(EngineError) in
        box.recordArgs { ViewRemoveCall.encode(&$0, id: viewID) }
        try box.engine.removeView(viewID)
    }
}

@c @implementation
public func ng_hit_test(_ ctx: OpaquePointer?, _ x: Double, _ y: Double, _ outView: UnsafeMutablePointer<UInt64>?) -> ng_status {
    withContext(ctx) { box throws(EngineError) in
        guard let outView else { throw .null("out_view") }
        guard !x.isNaN, !y.isNaN else { throw EngineError(NG_E_RANGE, "point is NaN") }
        outView.pointee = box.engine.views.hitTest(Point(x: x, y: y)) ?? 0
    }
}
