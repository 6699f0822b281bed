// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore
import NavGuardTrace

// navguard.h, "Presses": a device that is gone ends its presses.

/// The same as submitting an event of `type` with phase
/// NG_KEY_DEVICE_REMOVED: one path, which the flight recorder records as the
/// event it is, so a trace replays it with no call of its own.
@c @implementation
public func ng_device_removed(_ ctx: OpaquePointer?, _ type: ng_event_type, _ device: UInt64) -> ng_status {
    guard type == NG_EVENT_KEY || type == NG_EVENT_REMOTE else {
        // The context's message says why (a bad handle answers first).
        return withContext(ctx) { _ throws(EngineError) in
            throw EngineError(NG_E_RANGE, "ng_device_removed: type \(type) is not NG_EVENT_KEY or NG_EVENT_REMOTE")
        }
    }
    var e = Engine.deviceRemovedEvent(type: type, device: device)
    return ng_event_submit(ctx, &e, nil)
}
