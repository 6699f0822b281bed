// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardLibc
import NavGuardCore
import NavGuardTrace

// navguard.h, "Stack": the root, reading the stack, snapshots, screen flags
// and focus tokens,
// and ng_free for what the library hands out.

@c @implementation
public func ng_stack_set_root(_ ctx: OpaquePointer?, _ root: UnsafePointer<ng_screen>?) -> ng_status {
    withContext(ctx, record: .root) { box throws(EngineError) in
        guard let root else { throw .null("root") }
        if box.engine.isInsideCallback { throw .inCallback("ng_stack_set_root") }
        let s = try Screen(root.pointee, "root")
        box.recordArgs { RootCall.encode(&$0, s) }
        try box.engine.setRoot(s)
    }
}

@c @implementation
public func ng_stack_count(_ ctx: OpaquePointer?, _ out: UnsafeMutablePointer<Int>?) -> ng_status {
    withContext(ctx) { box throws(EngineError) in
        guard let out else { throw .null("out_count") }
        out.pointee = box.engine.stackCount
    }
}

@c @implementation
public func ng_stack_get(_ ctx: OpaquePointer?, _ index: Int, _ out: UnsafeMutablePointer<ng_screen_info>?) -> ng_status {
    withContext(ctx) { box throws(EngineError) in
        guard let out else { throw .null("out") }
        try box.checkSize(out.pointee.size, NG_SCREEN_INFO_MIN_SIZE, "ng_screen_info")
        guard let s = box.engine.screen(at: index) else {
            throw EngineError(NG_E_NOT_FOUND, "index \(index) is outside the stack (\(box.engine.stackCount) screens)")
        }
        writeSized(s.info, to: out)
    }
}

@c @implementation
public func ng_stack_snapshot(_ ctx: OpaquePointer?, _ outText: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, _ outLen: UnsafeMutablePointer<Int>?) -> ng_status {
    withContext(ctx) { box throws(EngineError) in
        guard let outText else { throw .null("out_text") }
        var text = box.engine.snapshot()
        let n = text.utf8.count
        guard let mem = malloc(n + 1)?.assumingMemoryBound(to: CChar.self) else {
            throw EngineError(NG_E_NO_MEMORY, "cannot allocate \(n + 1) bytes")
        }
        text.withUTF8 { buf in
            if let b = buf.baseAddress { UnsafeMutableRawPointer(mem).copyMemory(from: b, byteCount: n) }
        }
        mem[n] = 0
        outText.pointee = mem
        outLen?.pointee = n
    }
}

@c @implementation
public func ng_stack_restore(_ ctx: OpaquePointer?, _ text: UnsafePointer<CChar>?, _ len: Int) -> ng_status {
    withContext(ctx, record: .restore) { box throws(EngineError) in
        guard let text else { throw .null("text") }
        if box.engine.isInsideCallback { throw .inCallback("ng_stack_restore") }
        let buf = UnsafeBufferPointer(start: UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self), count: len)
        box.recordArgs { RestoreCall.encode(&$0, UnsafeRawBufferPointer(buf)) }
        try box.engine.restore(snapshot: buf)
    }
}

@c @implementation
public func ng_screen_set_flags(_ ctx: OpaquePointer?, _ screenID: UInt64, _ flags: UInt32) -> ng_status {
    withContext(ctx, record: .screenFlags) { box throws(EngineError) in
        box.recordArgs { ScreenFlagsCall.encode(&$0, id: screenID, flags: flags) }
        try box.engine.setScreenFlags(screenID, flags)
    }
}

@c @implementation
public func ng_screen_set_focus(_ ctx: OpaquePointer?, _ screenID: UInt64, _ token: UInt64) -> ng_status {
    withContext(ctx, record: .screenFocus) { box throws(EngineError) in
        box.recordArgs { ScreenFocusCall.encode(&$0, id: screenID, token: token) }
        try box.engine.setScreenFocus(screenID, token)
    }
}

@c @implementation
public func ng_screen_get_focus(_ ctx: OpaquePointer?, _ screenID: UInt64, _ outToken: UnsafeMutablePointer<UInt64>?) -> ng_status {
    withContext(ctx) { box throws(EngineError) in
        guard let outToken else { throw .null("out_token") }
        outToken.pointee = try box.engine.screenFocus(screenID)
    }
}

@c @implementation
public func ng_free(_ ptr: UnsafeMutableRawPointer?) { free(ptr) }
