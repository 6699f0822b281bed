// SPDX-License-Identifier: Apache-2.0
// What the flight recorder's tests (RecorderTests, TraceFormatTests) set up
// alike: an opaque view at the origin and a touch event, as a host makes
// them. (The context itself is Ctx, ABITests.swift; a trace's sink and
// replay are in RecorderTests.swift.)
import CNavGuard

/// An opaque `side`×`side` view at the origin, ready for ng_view_set.
func squareView(id: UInt64, parent: UInt64 = 0, side: Double = 100) -> ng_view {
    var v = ng_view()
    v.size = UInt32(MemoryLayout<ng_view>.size)
    v.id = id
    v.parent = parent
    v.frame = ng_rect(x: 0, y: 0, width: side, height: side)
    v.alpha = 1
    return v
}

/// A touch event of finger `id` at (x, y), ready for ng_event_submit.
func touchEvent(_ phase: Int32, id: UInt64, x: Double, y: Double) -> ng_event {
    var e = ng_event()
    e.size = UInt32(MemoryLayout<ng_event>.size)
    e.type = NG_EVENT_TOUCH
    e.phase = phase
    e.touch_id = id
    e.x = x
    e.y = y
    return e
}
