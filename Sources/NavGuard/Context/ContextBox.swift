// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore

/// A context as the ABI layer keeps it: its engine, its place in the
/// registry and the text of its last failure (ng_errmsg). What else it holds
/// is a part with a job of its own: `mailbox`, the requests other threads
/// post; `bridge`, the host's delegate (with the flight recorder, which
/// hears everything the host hears).
///
/// Owner thread only, except `mailbox` and `closing` (under the registry's
/// lock).
final class ContextBox {
    let engine: Engine
    let mailbox = Mailbox()
    let bridge: DelegateBridge
    /// The registry slot (set at insert).
    var slot = 0
    /// Set by destroy, under the registry lock: posts are refused from then on.
    var closing = false
    /// The options' manual clock start (for a trace's header).
    var manualStartNs: Int64 = 0
    /// The latest event timestamp: an earlier one is raised to it.
    var lastEventNs: Int64 = 0
    let errbuf: UnsafeMutablePointer<CChar>
    static let errCapacity = 2048

    init(engine: Engine, delegate: ng_delegate) {
        self.engine = engine
        bridge = DelegateBridge(engine: engine, delegate: delegate)
        errbuf = .allocate(capacity: ContextBox.errCapacity)
        errbuf.initialize(repeating: 0, count: ContextBox.errCapacity)
        setError("no error")
    }

    deinit { errbuf.deallocate() }

    var handle: OpaquePointer? {
        get { bridge.handle }
        set { bridge.handle = newValue }
    }

    // MARK: The last failure

    /// The text ng_errmsg returns; a longer one is cut on a UTF-8 character
    /// boundary and ends with "...".
    func setError(_ message: String) {
        var m = message
        m.withUTF8 { buf in
            var n = buf.count
            let cut = n > ContextBox.errCapacity - 1
            if cut {
                n = ContextBox.errCapacity - 4
                while n > 0 && buf[n] & 0xC0 == 0x80 { n -= 1 }   // not inside a character
            }
            if let base = buf.baseAddress {
                UnsafeMutableRawPointer(errbuf).copyMemory(from: base, byteCount: n)
            }
            if cut {
                errbuf[n] = 46; errbuf[n + 1] = 46; errbuf[n + 2] = 46
                n += 3
            }
            errbuf[n] = 0
        }
    }

    /// A failure as the caller sees it: the status, and the text ng_errmsg
    /// gives until the next failure.
    @inline(never)
    func fail(_ e: EngineError) -> ng_status {
        setError(e.message)
        return e.status
    }

    /// The host call returns (outside any callback) and its work was cut:
    /// its status says so unless it failed on its own.
    @inline(never)
    func endCutCall(_ st: ng_status) -> ng_status {
        guard let e = engine.takeWorkCut() else { return st }
        return st == NG_OK ? fail(EngineError(e.status, "the call was done, but \(e.message)")) : st
    }

    /// The one size check of a struct the host passes to be filled
    /// (`type` "ng_screen_info": NG_SCREEN_INFO_MIN_SIZE, NG_SCREEN_INFO_INIT);
    /// the text is built only on failure.
    @inline(__always)
    func checkSize(_ size: UInt32, _ minimum: Int, _ type: StaticString) throws(EngineError) {
        guard Int(size) < minimum else { return }
        throw ContextBox.undersized(size, type)
    }

    @inline(never)
    static func undersized(_ size: UInt32, _ type: StaticString) -> EngineError {
        // "ng_screen_info" -> "SCREEN_INFO" (ASCII: the names are C identifiers).
        var upper = ""
        for b in type.description.utf8.dropFirst(3) {
            upper.unicodeScalars.append(Unicode.Scalar(b >= 97 && b <= 122 ? b - 32 : b))
        }
        return EngineError(NG_E_SIZE, "\(type).size is \(size), below NG_\(upper)_MIN_SIZE (set it with NG_\(upper)_INIT)")
    }

    // MARK: Posted requests

    /// Move posted requests into the engine (owner thread, from ng_tick).
    func drainMailbox() {
        let (posted, at) = mailbox.take()
        guard !posted.isEmpty else { return }
        // All recorded first, right after the tick's line: replay posts them
        // before its tick.
        if let rec = recorder { for (i, r) in posted.enumerated() { rec.posted(r, at: at[i]) } }
        for r in posted { _ = engine.submit(r) }
    }

    /// Destroy the engine; posted requests that never reached a tick are
    /// dropped by it, recorded where they ended.
    func destroyEngine() {
        let (posted, at) = mailbox.take()
        for (i, r) in posted.enumerated() { recorder?.posted(r, at: at[i]) }
        engine.destroy(dropping: posted)
    }
}
