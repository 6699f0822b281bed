// SPDX-License-Identifier: Apache-2.0
import CNavGuard

// The host-services table of plugin.h: a guard's only view of and handle on
// the engine. Each function finds its slot through `host_data`.

/// Run `body` with the guard's slot when the call comes from the context's
/// owner thread; otherwise answer `refused(NG_E_NULL or NG_E_THREAD)`: a
/// guard's own thread gets nothing (NG_E_THREAD, zero, false; log drops the
/// message), since the owner may be changing the state it would read. The
/// slot is borrowed, not retained: every guard's every host call passes here.
@inline(__always)
private func withSlot<T>(_ h: UnsafePointer<ng_guard_host>?, _ refused: (Int32) -> T,
                         _ body: (GuardSlot, Engine) -> T) -> T {
    guard let h, let d = h.pointee.host_data else { return refused(NG_E_NULL) }
    return Unmanaged<GuardSlot>.fromOpaque(d)._withUnsafeGuaranteedRef { s in
        s.engineRef._withUnsafeGuaranteedRef { e in
            e.ownerCheck() ? body(s, e) : refused(NG_E_THREAD)
        }
    }
}

/// withSlot for a function that adds work (an action, a report, a log):
/// refused with NG_E_NO_MEMORY once the call's work passed the cap
/// (Engine+WorkCap.swift), and counted to the guard while it runs.
@inline(__always)
private func withActingSlot<T>(_ h: UnsafePointer<ng_guard_host>?, _ refused: (Int32) -> T,
                               _ body: (GuardSlot, Engine) -> T) -> T {
    withSlot(h, refused) { s, e in
        if e.run.overrun { return refused(NG_E_NO_MEMORY) }
        let outer = e.run.actor
        e.run.actor = s.index + 1
        defer { e.run.actor = outer }
        return body(s, e)
    }
}

/// The answer of a status-returning call that got no slot.
@inline(__always)
private func refusal(_ status: Int32) -> Int32 { status }

/// The one way a host-table function answers: what `body` throws becomes
/// its status (a guard gets no message: the status is its answer).
private func status(_ body: () throws(EngineError) -> Void) -> Int32 {
    do { try body(); return NG_OK } catch { return error.status }
}

extension EngineError {
    /// A refusal a host-table function answers with its status alone.
    static func refusal(_ status: Int32) -> EngineError { EngineError(status, "") }
}

/// The configured value of a key, else its declared default, converted by
/// `as` (nil: the value is of another type, NG_E_RANGE).
private func configValue<T>(_ s: GuardSlot, _ key: UnsafePointer<CChar>?,
                            as convert: (JSONValue) -> T?) throws(EngineError) -> T {
    guard let key else { throw .refusal(NG_E_NULL) }
    guard let v = s.options.value(String(cString: key), in: s.config) else { throw .refusal(NG_E_NOT_FOUND) }
    guard let t = convert(v) else { throw .refusal(NG_E_RANGE) }
    return t
}


extension Engine {
    func installHostTable(_ slot: GuardSlot) {
        let h = slot.host
        h.pointee.size = UInt32(MemoryLayout<ng_guard_host>.size)
        h.pointee.abi_major = UInt32(NG_PLUGIN_ABI_MAJOR)
        h.pointee.abi_minor = UInt32(NG_PLUGIN_ABI_MINOR)
        h.pointee.host_data = Unmanaged.passUnretained(slot).toOpaque()

        h.pointee.now = { h in withSlot(h, { _ in 0 }) { $1.now } }
        h.pointee.stack_count = { h in withSlot(h, { _ in 0 }) { $1.stackCount } }
        h.pointee.stack_get = { h, index, out in
            withSlot(h, refusal) { s, e in
                guard let out else { return NG_E_NULL }
                guard let sc = e.screen(at: index) else { return NG_E_NOT_FOUND }
                writeSized(sc.info, to: out)
                return NG_OK
            }
        }
        h.pointee.track_get = { h, track, out in
            withSlot(h, { _ in false }) { s, e in
                guard let info = e.trackView(Track(rawValue: track)) else { return false }
                if let out { writeSized(info, to: out) }
                return true
            }
        }
        h.pointee.hold_mask = { h in withSlot(h, { _ in 0 }) { $1.holdMask } }
        h.pointee.hold_count = { h in withSlot(h, { _ in 0 }) { $1.holdCount } }
        h.pointee.hold_get = { h, index, out in
            withSlot(h, refusal) { s, e in
                guard let out else { return NG_E_NULL }
                guard let v = e.holdView(at: index) else { return NG_E_NOT_FOUND }
                writeSized(v, to: out)
                return NG_OK
            }
        }
        h.pointee.deferred_count = { h in withSlot(h, { _ in 0 }) { $1.deferredCount } }
        h.pointee.deferred_get = { h, index, out in
            withSlot(h, refusal) { s, e in
                guard let out else { return NG_E_NULL }
                guard let r = e.deferredRequest(at: index) else { return NG_E_NOT_FOUND }
                writeSized(e.guardRequest(r, slot: s), to: out)
                return NG_OK
            }
        }

        h.pointee.touch_count = { h in withSlot(h, { _ in 0 }) { $1.touchCount } }
        h.pointee.touch_get = { h, index, out in
            withSlot(h, refusal) { s, e in
                guard let out else { return NG_E_NULL }
                guard let t = e.touch(at: index) else { return NG_E_NOT_FOUND }
                writeSized(t, to: out)
                return NG_OK
            }
        }
        h.pointee.view_touch_count = { h, view in withSlot(h, { _ in 0 }) { $1.deliveredTouches(on: view) } }
        h.pointee.view_flags = { h, view, out in
            withSlot(h, refusal) { s, e in
                guard let out else { return NG_E_NULL }
                guard let f = e.views.flags(of: view) else { return NG_E_NOT_FOUND }
                out.pointee = f.cValue
                return NG_OK
            }
        }
        h.pointee.touch_cancel = { h, id in
            withActingSlot(h, refusal) { s, e in
                return e.guardCancelTouch(id) ? NG_OK : NG_E_NOT_FOUND
            }
        }

        h.pointee.hold_begin = { h, label, mask, duration, out in
            withActingSlot(h, refusal) { s, e in
                guard let out else { return NG_E_NULL }
                return status { () throws(EngineError) in
                    let l = try readCString(label, "label", allowNull: true, intern: e)
                    out.pointee = try e.beginHold(label: l, mask: mask, maxDurationNs: duration, by: .guardSlot(s.index))
                }
            }
        }
        h.pointee.hold_end = { h, token in
            withActingSlot(h, refusal) { s, e in
                return status { () throws(EngineError) in try e.endHold(token, by: .guardSlot(s.index)) }
            }
        }
        h.pointee.transition_finish = { h, track in
            withActingSlot(h, refusal) { s, e in
                return status { () throws(EngineError) in try e.finishTransition(Track(rawValue: track), forced: true) }
            }
        }
        h.pointee.interactive_cancel = { h in
            withActingSlot(h, refusal) { s, e in
                return status { () throws(EngineError) in try e.cancelInteractive(forced: true) }
            }
        }
        h.pointee.deferred_apply = { h, id in
            withActingSlot(h, refusal) { s, e in
                return e.deferredApply(id, slot: s.index) ? NG_OK : NG_E_NOT_FOUND
            }
        }
        h.pointee.deferred_drop = { h, id, reason, message in
            withActingSlot(h, refusal) { s, e in
                status { () throws(EngineError) in
                    let m = try readCString(message, "message", allowNull: true)
                    guard e.deferredDrop(id, slot: s.index, reason: Reason(givenByGuard: reason), message: m) else {
                        throw .refusal(NG_E_NOT_FOUND)
                    }
                }
            }
        }
        h.pointee.report = { h, text in
            withActingSlot(h, refusal) { s, e in
                status { () throws(EngineError) in
                    let t = try readCString(text, "text", limit: Limits.maxReport)!
                    e.post(.report(guardID: s.guardID, text: t))
                }
            }
        }
        h.pointee.log = { h, severity, message in
            withActingSlot(h, { _ in }) { s, e in
                // A message that cannot be read is logged as what was wrong with it.
                let text: CStr
                do throws(EngineError) { text = try readCString(message, "message")! } catch {
                    text = CStr(error.status == NG_E_NULL ? "(null log message)" : "(log message was not valid UTF-8 or too long)")
                }
                let sev = severity < NG_LOG_DEBUG || severity > NG_LOG_ERROR ? NG_LOG_ERROR : severity
                if s.creating && sev >= NG_LOG_WARN { s.createReason = text.string }
                e.post(.log(guardID: s.guardID, severity: sev, message: text))
            }
        }

        installActingTable(h)

        h.pointee.config_int = { h, key, out in
            withSlot(h, refusal) { s, e in
                guard let out else { return NG_E_NULL }
                return status { () throws(EngineError) in out.pointee = try configValue(s, key) { $0.int64 } }
            }
        }
        h.pointee.config_bool = { h, key, out in
            withSlot(h, refusal) { s, e in
                guard let out else { return NG_E_NULL }
                return status { () throws(EngineError) in out.pointee = try configValue(s, key) { $0.bool } }
            }
        }
        h.pointee.config_double = { h, key, out in
            withSlot(h, refusal) { s, e in
                guard let out else { return NG_E_NULL }
                return status { () throws(EngineError) in out.pointee = try configValue(s, key) { $0.double } }
            }
        }
        h.pointee.config_string = { h, key, out in
            withSlot(h, refusal) { s, e in
                guard let out, let key else { return NG_E_NULL }
                return status { () throws(EngineError) in
                    out.pointee = s.cached(String(cString: key), try configValue(s, key) { $0.string })
                }
            }
        }
        h.pointee.config_list_count = { h, key, out in
            withSlot(h, refusal) { s, e in
                guard let out else { return NG_E_NULL }
                return status { () throws(EngineError) in
                    let a = try configValue(s, key) { v in v.array.flatMap { a in a.allSatisfy { $0.string != nil } ? a : nil } }
                    out.pointee = a.count
                }
            }
        }
        h.pointee.config_list_get = { h, key, index, out in
            withSlot(h, refusal) { s, e in
                guard let out, let key else { return NG_E_NULL }
                return status { () throws(EngineError) in
                    let a = try configValue(s, key) { $0.array }
                    // size_t arrives as Int: SIZE_MAX is negative here.
                    guard index >= 0, index < a.count else { throw .refusal(NG_E_NOT_FOUND) }
                    guard let str = a[index].string else { throw .refusal(NG_E_RANGE) }
                    out.pointee = s.cached("\(String(cString: key))[\(index)]", str)
                }
            }
        }
    }
}

extension Engine {
    /// The host-table functions of plugin ABI 1.2: requests guards make,
    /// questions to the host, holds tied to a transition, and the wake-up.
    func installActingTable(_ h: UnsafeMutablePointer<ng_guard_host>) {
        h.pointee.request_submit = { h, request, out in
            withActingSlot(h, refusal) { s, e in
                guard let request else { return NG_E_NULL }
                var c = ng_request()
                let declared = copySized(request, into: &c)
                guard declared >= Int(NG_REQUEST_MIN_SIZE) else { return NG_E_SIZE }
                return status { () throws(EngineError) in
                    let id = try e.guardSubmit(try Request(c, declared: declared, intern: e))
                    out?.pointee = id
                }
            }
        }
        h.pointee.ask = { h, spec, out in
            withActingSlot(h, refusal) { s, e in
                guard let spec, let out else { return NG_E_NULL }
                var q = ng_question_spec()
                guard copySized(spec, into: &q) >= Int(NG_QUESTION_SPEC_MIN_SIZE) else { return NG_E_SIZE }
                return status { () throws(EngineError) in
                    guard let topic = try readCString(q.topic, "topic", limit: 128) else { return }
                    if let m = Engine.validateID(topic.pointer) { throw EngineError(NG_E_PARSE, "question topic: \(m)") }
                    let text = try readCString(q.text, "text", allowNull: true)
                    out.pointee = try e.ask(topic: topic, text: text, requestID: q.request_id,
                                            kind: RequestKind(rawValue: q.kind),
                                            source: q.source, screenID: q.screen_id, timeoutNs: q.timeout_ns,
                                            slot: s.index)
                }
            }
        }
        h.pointee.withdraw = { h, id in
            withActingSlot(h, refusal) { s, e in e.withdrawQuestion(id, slot: s.index) ? NG_OK : NG_E_NOT_FOUND }
        }
        h.pointee.hold_begin_transition = { h, label, mask, out in
            withActingSlot(h, refusal) { s, e in
                guard let out else { return NG_E_NULL }
                return status { () throws(EngineError) in
                    let l = try readCString(label, "label", allowNull: true, intern: e)
                    out.pointee = try e.beginHold(label: l, mask: mask, maxDurationNs: 0, by: .guardSlot(s.index),
                                                  tiedToTransition: true)
                }
            }
        }
        // Any thread: the slot and its hook outlive every call a guard's
        // worker can make (guards stop their threads in destroy).
        h.pointee.wake = { h in
            guard let h, let d = h.pointee.host_data else { return }
            Unmanaged<GuardSlot>.fromOpaque(d)._withUnsafeGuaranteedRef { $0.wakeHook() }
        }
    }
}
