// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore
import NavGuardTrace

// navguard.h, "Requests": submitting on the owner thread, posting from any.

@c @implementation
public func ng_request_submit(_ ctx: OpaquePointer?, _ request: UnsafePointer<ng_request>?, _ out: UnsafeMutablePointer<ng_request_result>?) -> ng_status {
    withContext(ctx, record: .submit) { box throws(EngineError) in
        guard let request else { throw .null("request") }
        var c = ng_request()
        let declared = copySized(request, into: &c)
        guard declared >= Int(NG_REQUEST_MIN_SIZE) else {
            throw EngineError(NG_E_SIZE, "ng_request.size is too small; set it to sizeof(ng_request)")
        }
        if box.engine.stackCount == 0 { throw EngineError(NG_E_STATE, "the stack has no root: call ng_stack_set_root first") }
        if let out { try box.checkSize(out.pointee.size, NG_REQUEST_RESULT_MIN_SIZE, "ng_request_result") }
        var r: Request
        do throws(EngineError) { r = try Request(c, declared: declared, intern: box.engine) } catch {
            // Malformed content is refused, but still gets an id and an
            // outcome; the call succeeds and ng_errmsg says why.
            r = Request(kind: RequestKind(rawValue: c.kind), flags: c.flags, source: c.source)
            r.invalidMessage = error.message
        }
        submitRequest(box, r, out)
    }
}

/// A checked request goes in: recorded, submitted, its result written
/// (ng_request_submit, and replay's malformed requests: SubmitCall).
func submitRequest(_ box: ContextBox, _ r: Request, _ out: UnsafeMutablePointer<ng_request_result>?) {
    if let m = r.invalidMessage { box.setError(m) }
    // A malformed one with why it is refused: SubmitCall states the rule.
    box.recordArgs { SubmitCall.encode(&$0, r) }
    let res = box.engine.submit(r)
    if let m = res.message { box.setError(m.string) }
    box.recordResult(.submit(status: res.status.rawValue, id: res.requestID, reason: res.reason.rawValue, guardID: res.guardID))
    if let out {
        var o = ng_request_result()
        o.status = res.status.rawValue
        o.request_id = res.requestID
        o.reason = res.reason.rawValue
        o.guard_id = res.guardID
        writeSized(o, to: out)
    }
}

@c @implementation
public func ng_request_post(_ ctx: OpaquePointer?, _ request: UnsafePointer<ng_request>?, _ outID: UnsafeMutablePointer<UInt64>?) -> ng_status {
    anyThread { () throws(EngineError) -> ng_status in
        guard registry.isLive(ctx) else { return NG_E_HANDLE }
        guard let request else { return NG_E_NULL }
        var c = ng_request()
        let declared = copySized(request, into: &c)
        guard declared >= Int(NG_REQUEST_MIN_SIZE) else { return NG_E_SIZE }
        let r = try Request(c, declared: declared)
        // Under the registry's lock: the context is not destroyed meanwhile.
        let posted = try registry.withLocked(ctx) { box throws(EngineError) -> (UInt64, DelegateBridge?)? in
            guard let box else { return nil }
            let (id, wake) = try box.mailbox.post(r)
            return (id, wake ? box.bridge : nil)
        }
        guard let (id, wake) = posted else { return NG_E_HANDLE }
        outID?.pointee = id
        // Outside the lock: the host's wake-up may take its own.
        wake?.wake()
        return NG_OK
    }
}
