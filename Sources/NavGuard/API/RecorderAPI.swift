// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardLibc
import NavGuardCore
import NavGuardLoader
import NavGuardTrace

// navguard.h, "Flight recorder and replay": recording a context (Recorder/
// is how). Replaying: ReplayAPI.swift.

@c @implementation
public func ng_record_start(_ ctx: OpaquePointer?, _ options: UnsafePointer<ng_record_options>?) -> ng_status {
    withContext(ctx) { box throws(EngineError) in
        guard let options else { throw .null("options") }
        var o = ng_record_options()
        guard copySized(options, into: &o) >= Int(NG_RECORD_OPTIONS_MIN_SIZE) else {
            throw EngineError(NG_E_SIZE, "ng_record_options.size is below NG_RECORD_OPTIONS_MIN_SIZE (NG_RECORD_OPTIONS_INIT)")
        }
        if box.engine.isInsideCallback { throw EngineError(NG_E_CALLBACK, "recording cannot start inside a callback") }
        guard box.recorder == nil else { throw EngineError(NG_E_STATE, "the context is already recording (ng_record_stop first)") }
        let ring = o.ring_records > 0 || o.ring_ns > 0
        guard o.ring_ns >= 0 else { throw EngineError(NG_E_RANGE, "ring_ns is negative") }
        let destinations = (o.path != nil ? 1 : 0) + (o.write != nil ? 1 : 0) + (ring ? 1 : 0)
        guard destinations == 1 else {
            throw EngineError(NG_E_RANGE, destinations == 0
                ? "no destination: set path, write, or ring_records/ring_ns"
                : "more than one destination: set exactly one of path, write, ring_records/ring_ns")
        }
        let knownCrash = UInt32(NG_RECORD_CRASH_DUMP | NG_RECORD_CRASH_NO_HANDLER)
        guard o.crash & ~knownCrash == 0 else { throw EngineError(NG_E_RANGE, "unknown NG_RECORD_CRASH_* bits in crash") }
        guard o.crash == 0 || (ring && o.crash & UInt32(NG_RECORD_CRASH_DUMP) != 0) else {
            throw EngineError(NG_E_RANGE, "crash needs NG_RECORD_CRASH_DUMP and a ring (ring_records or ring_ns)")
        }
        guard o.report_dump_window_ns >= 0 else { throw EngineError(NG_E_RANGE, "report_dump_window_ns is negative") }
        guard o.report_dumps <= UInt32(DumpBudget.maxDumps) else {
            throw EngineError(NG_E_RANGE, "report_dumps is \(o.report_dumps), above \(DumpBudget.maxDumps)")
        }
        let budget = DumpBudget(dumps: o.report_dumps, windowNs: o.report_dump_window_ns, dirBytes: o.dump_dir_bytes)
        let dumpDir = try readCString(o.dump_dir, "dump_dir", allowNull: true)?.string
        let sink: Recorder.Sink
        var fd: Int32 = -1
        if o.path != nil {
            let path = try readCString(o.path, "path")!.string
            do throws(FileRefusal) { fd = try openTraceFile(path) } catch {
                throw EngineError(NG_E_IO, "cannot record to \(path): \(error.why)")
            }
            sink = .file(fd: fd, path: path)
        } else if let w = o.write {
            sink = .writer(write: w, user: o.user)
        } else {
            sink = .ring
        }
        guard let rec = Recorder(box: box, sink: sink, ringRecords: ring ? Int(o.ring_records > 0 ? o.ring_records : 100_000) : 0,
                                 ringNs: o.ring_ns, dumpDir: dumpDir, budget: budget) else {
            if fd >= 0 { close(fd) }
            throw EngineError(NG_E_NO_MEMORY, "cannot allocate the flight recorder's memory")
        }
        if o.crash & UInt32(NG_RECORD_CRASH_DUMP) != 0,
           !rec.keepForCrashes(installHandler: o.crash & UInt32(NG_RECORD_CRASH_NO_HANDLER) == 0) {
            rec.close()
            throw EngineError(NG_E_NO_MEMORY, "64 rings already keep crash dumps")
        }
        let fresh = box.isFresh
        // Set first: calls the host's writer makes on the context are refused.
        box.recorder = rec
        if !ring { rec.writeHeader(midSession: !fresh) }
    }
}

@c @implementation
public func ng_record_stop(_ ctx: OpaquePointer?) -> ng_status {
    withContext(ctx) { box throws(EngineError) in
        if box.engine.isInsideCallback { throw EngineError(NG_E_CALLBACK, "recording cannot stop inside a callback") }
        guard box.recorder != nil else { throw EngineError(NG_E_STATE, "the context is not recording") }
        box.stopRecording()
    }
}

@c @implementation
public func ng_record_dump(_ ctx: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> ng_status {
    withContext(ctx) { box throws(EngineError) in
        guard let rec = box.recorder else { throw EngineError(NG_E_STATE, "the context is not recording") }
        guard rec.isRing else { return rec.flush() }
        guard let path else { throw EngineError(NG_E_NULL, "path is NULL (a ring is dumped to a file)") }
        let p = try readCString(path, "path")!.string
        if let err = writeNewFile(p, rec.ringTrace().text) { throw EngineError(NG_E_IO, err) }
    }
}
