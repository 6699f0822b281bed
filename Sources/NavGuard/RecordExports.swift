import CNavGuard
import Glibc
import NavGuardCore

// The flight recorder's exports (navguard.h "Flight recorder and replay").

@c @implementation
public func ng_record_start(_ ctx: OpaquePointer?, _ options: UnsafePointer<ng_record_options>?) -> ng_status {
    withContext(ctx) { box in
        guard let options else { return box.fail(NG_E_NULL, "options is NULL") }
        var o = ng_record_options()
        guard copySized(options, into: &o) >= MemoryLayout<ng_record_options>.size else {
            return box.fail(NG_E_SIZE, "ng_record_options.size is not sizeof(ng_record_options) (NG_RECORD_OPTIONS_INIT)")
        }
        if box.engine.isInsideCallback { return box.fail(NG_E_CALLBACK, "recording cannot start inside a callback") }
        guard box.recorder == nil else { return box.fail(NG_E_STATE, "the context is already recording (ng_record_stop first)") }
        let ring = o.ring_records > 0 || o.ring_ns > 0
        guard o.ring_ns >= 0 else { return box.fail(NG_E_RANGE, "ring_ns is negative") }
        let destinations = (o.path != nil ? 1 : 0) + (o.write != nil ? 1 : 0) + (ring ? 1 : 0)
        guard destinations == 1 else {
            return box.fail(NG_E_RANGE, destinations == 0
                ? "no destination: set path, write, or ring_records/ring_ns"
                : "more than one destination: set exactly one of path, write, ring_records/ring_ns")
        }
        var dumpDir: String?
        if let d = o.dump_dir {
            switch readString(d, "dump_dir") {
            case .success(let s): dumpDir = s?.string
            case .failure(let e): return box.fail(e)
            }
        }
        let sink: Recorder.Sink
        if let p = o.path {
            let path: String
            switch readString(p, "path") {
            case .success(let s): path = s!.string
            case .failure(let e): return box.fail(e)
            }
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else { return box.fail(NG_E_LOAD, "cannot create \(path): \(String(cString: strerror(errno)))") }
            sink = .file(fd: fd, path: path)
        } else if let w = o.write {
            sink = .writer(write: w, user: o.user)
        } else {
            sink = .ring
        }
        let rec = Recorder(sink: sink, ringRecords: ring ? Int(o.ring_records > 0 ? o.ring_records : 100_000) : 0,
                           ringNs: o.ring_ns, dumpDir: dumpDir)
        rec.writeHeader(box, start: box.isFresh ? .create : .midSession)
        box.recorder = rec
        rec.flush()
        return NG_OK
    }
}

@c @implementation
public func ng_record_stop(_ ctx: OpaquePointer?) -> ng_status {
    withContext(ctx) { box in
        if box.engine.isInsideCallback { return box.fail(NG_E_CALLBACK, "recording cannot stop inside a callback") }
        guard box.recorder != nil else { return box.fail(NG_E_STATE, "the context is not recording") }
        box.stopRecording()
        return NG_OK
    }
}

@c @implementation
public func ng_record_dump(_ ctx: OpaquePointer?, _ path: UnsafePointer<CChar>?) -> ng_status {
    withContext(ctx) { box in
        guard let rec = box.recorder else { return box.fail(NG_E_STATE, "the context is not recording") }
        guard rec.isRing else {
            rec.flush()
            return NG_OK
        }
        guard let path else { return box.fail(NG_E_NULL, "path is NULL (a ring is dumped to a file)") }
        let p: String
        switch readString(path, "path") {
        case .success(let s): p = s!.string
        case .failure(let e): return box.fail(e)
        }
        if let err = writeFile(p, rec.ringTrace(box)) { return box.fail(NG_E_LOAD, err) }
        return NG_OK
    }
}
