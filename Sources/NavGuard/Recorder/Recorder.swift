// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardLibc
import NavGuardC
import NavGuardCore
import NavGuardLoader
import NavGuardTrace

/// The flight recorder of one context. A recorded call writes binary
/// records (NavGuardTrace/RecordBytes.swift, laid out by NavGuardTrace/Trace*.swift) into
/// memory allocated when recording starts, and nothing else: the JSON of
/// docs/trace-format.md is made later, when a file or writer recorder
/// flushes (at every ng_tick, and when its buffer fills) or a ring is dumped.
///
/// Owner thread only (every call comes through an [owner] export or a
/// callback on the owner thread); a crash dump reads the ring from any
/// thread through `ring` (navguard_c.h says how).
///
/// Invariants:
///  * `frames` mirrors the recorded host calls in progress (a call made from
///    inside a callback is a deeper frame);
///  * records lie whole in `ring.bytes` from `head` to `tail`, in order, each
///    8-byte aligned; a ring wraps only between records (a pad fills the
///    end), a file or writer buffer never wraps: it is formatted and emptied;
///  * a call's record gets its `ret` in place (one line) when it is still the
///    newest record when the call returns; otherwise a `ret` record follows;
///  * before a record is written, `reserve` bytes are free after `tail`;
///  * in ring mode a checkpoint precedes the first call after the engine's
///    stateVersion moved, and a full one comes at least every quarter of
///    the ring, so a dump can say what its first record found.
final class Recorder {
    enum Sink {
        case file(fd: Int32, path: String)
        case writer(write: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, Int) -> Bool,
                    user: UnsafeMutableRawPointer?)
        case ring
    }

    struct Frame {
        var fn = CallFn.tick
        var argsWritten = false
        /// Its call record's offset, or -1.
        var record = -1
        /// Its record ends with room for the event's short ret
        /// (`CallResult.eventSize` bytes after `lastEnd`): enterEvent's fast path.
        var retRoom = false
        var result = CallResult.none
    }

    let sink: Sink
    let isRing: Bool
    /// The context recorded (its box and engine outlive its recorder).
    unowned(unsafe) let box: ContextBox
    unowned(unsafe) let engine: Engine
    /// The same engine for the hot paths: Embedded Swift retains and
    /// releases an unowned(unsafe) reference around each use (two atomic
    /// operations and a call, per access, per recorded call).
    private let engineRef: Unmanaged<Engine>
    /// The bytes and what a crash dump reads (navguard_c.h).
    let ring: UnsafeMutablePointer<ngc_ring>
    private var base: UnsafeMutableRawPointer
    private var capacity: Int
    private var head = 0
    private var tail = 0
    /// Bytes of records (pads included) from head to tail.
    private var used = 0
    private var seq: UInt32 = 0
    /// Free bytes kept after `tail` for the next record (a larger one is
    /// truncated in a ring; a file or writer buffer grows for it).
    private var reserve: Int
    /// The newest record's offset (-1: none) and where its content ends.
    private var lastStart = -1
    private var lastEnd = 0
    /// The calls in progress (`frameCapacity` allocated).
    private var frames: UnsafeMutablePointer<Frame>
    private var frameCapacity = 8
    private var depth = 0
    /// JSON made from the records (file and writer).
    private let out = TraceLine(capacity: 1 << 16)
    /// Set when writing failed: nothing more is written; the box stops the
    /// recorder when its outermost call returns.
    private(set) var failed: String?
    /// The host's writer is running.
    private(set) var inWriter = false

    // Ring mode.
    let dumpDir: String?
    private var dumps = 0
    private var budget: DumpBudget
    private let windowRecords: Int
    private let windowNs: Int64
    /// The engine's stateVersion at the last checkpoint.
    private var checkpointVersion: UInt64 = .max
    private var bytesSinceFull = Int.max
    /// A full checkpoint at least every this many bytes (a quarter of the ring).
    private var fullEvery = Int.max
    /// Records since the last checkpoint, and at least how many between two.
    private var recordsSinceCheckpoint = Int.max
    private var checkpointGap = 1
    /// The state changed since the last checkpoint, which was not written yet.
    private var stale = false
    /// The stack at the last checkpoint: ids and route storage, to write
    /// only what changed.
    private var shadowIDs: [UInt64] = []
    private var shadowRoutes: [UnsafeMutablePointer<CChar>] = []

    static let fileBuffer = 128 << 10

    /// nil when the memory cannot be had.
    init?(box: ContextBox, sink: Sink, ringRecords: Int, ringNs: Int64, dumpDir: String?, budget: DumpBudget = DumpBudget()) {
        self.box = box
        engine = box.engine
        engineRef = Unmanaged.passUnretained(box.engine)
        self.sink = sink
        self.dumpDir = dumpDir
        self.budget = budget
        windowRecords = ringRecords
        windowNs = ringNs
        if case .ring = sink { isRing = true } else { isRing = false }
        let bytes = isRing ? max(1 << 20, min(ringRecords &* 160, 64 << 20)) : Recorder.fileBuffer
        guard let r = ngc_ring_new(UInt64(bytes)) else { return nil }
        ring = r
        base = UnsafeMutableRawPointer(r.pointee.bytes!)
        capacity = bytes
        reserve = 32 << 10
        if isRing {
            fullEvery = bytes / 4
            // The window loses at most this many of its oldest lines to it
            // (under 1 %); each checkpoint costs about a recorded request.
            checkpointGap = max(1, min(1024, ringRecords / 128))
        }
        frames = .allocate(capacity: frameCapacity)
        frames.initialize(repeating: Frame(), count: frameCapacity)
        shadowIDs.reserveCapacity(64)
        shadowRoutes.reserveCapacity(64)
        let e = box.engine
        r.pointee.owner = ngc_thread_id()
        r.pointee.manual_clock = e.isManualClock ? 1 : 0
        r.pointee.context = UInt32(truncatingIfNeeded: box.slot)
        r.pointee.manual_start_ns = box.manualStartNs
        r.pointee.default_duration_ns = e.defaultTransitionNs
        r.pointee.posted_base = box.mailbox.base
        r.pointee.window_records = UInt64(ringRecords)
        r.pointee.window_ns = ringNs
        var dir = dumpDir ?? "."
        dir.withUTF8 { d in
            d.withMemoryRebound(to: CChar.self) { ngc_ring_set_dir(r, $0.baseAddress, $0.count) }
        }
    }

    deinit {
        frames.deinitialize(count: frameCapacity)
        frames.deallocate()
        ngc_ring_free(ring)
    }

    var path: String? { if case .file(_, let p) = sink { return p } else { return nil } }

    /// Keep the ring for crash dumps (NG_RECORD_CRASH_DUMP); false when 64
    /// rings already are.
    /// With the handler, the calling (owner) thread also gets an alternate
    /// signal stack when it has none (crash_dump.c), so that a stack overflow
    /// is dumped; close() removes it.
    func keepForCrashes(installHandler: Bool) -> Bool { ngc_crash_register(ring, !installHandler) }

    /// The context was attached to the calling thread: a crash dump's owner
    /// check, and the alternate stack, follow it.
    func ownerMoved() { ngc_crash_adopt(ring) }

    // MARK: Header

    /// A file or writer trace's first line (a ring's is written at its dump).
    func writeHeader(midSession: Bool) {
        TraceHeader.write(out, box.engine, manualStartNs: box.manualStartNs, postedBase: box.mailbox.base,
                          nextPosted: box.mailbox.counter, midSession: midSession)
        emit()
    }

    // MARK: Calls

    /// A recorded export begins (before it validates anything).
    @inline(__always)
    func enter(_ fn: CallFn) {
        if depth == 0 && isRing { checkpointIfChanged() }
        if _slowPath(depth == frameCapacity) { growFrames() }
        frames[depth] = Frame(fn: fn)
        depth += 1
    }

    @inline(never)
    private func growFrames() {
        let more = UnsafeMutablePointer<Frame>.allocate(capacity: frameCapacity * 2)
        more.moveInitialize(from: frames, count: frameCapacity)
        (more + frameCapacity).initialize(repeating: Frame(), count: frameCapacity)
        frames.deallocate()
        frames = more
        frameCapacity *= 2
    }

    /// The call's arguments passed validation: its record, dated by
    /// `instant` (a `continuous` event: see there).
    @inline(__always)
    func args(continuous: Bool = false, _ body: (inout RecordWriter) -> Void) {
        let i = depth - 1
        let (t, undated) = engineRef._withUnsafeGuaranteedRef { e in
            if i == 0 { e.trackDatedAt = nil }   // a host call begins
            return instant(e, continuous: continuous)
        }
        frames[i].argsWritten = true
        if i == 0 && !undated { ngc_ring_set_last_ns(ring, t) }
        let flags = (i == 0 && stale ? RecordFlags.stale : 0) | (undated ? RecordFlags.undated : 0)
        frames[i].record = write(.call, frames[i].fn.rawValue, flags: flags) { w in
            w.i64(t)
            body(&w)
        }
    }

    /// The instant a call's record is dated with, and whether it is
    /// `undated`. A file or writer trace replays, so every call is dated as
    /// the engine dates it (for continuous input, `continuousNow`, which
    /// then dates the moves the call stamps). A ring dump does not replay,
    /// so continuous input, for which the engine reads no clock, is dated
    /// with the last instant read (the call before it: about a frame when
    /// the host ticks every frame) and marked so: recording into a ring then
    /// reads no clock either, and stamps moves as not recording does.
    @inline(__always)
    private func instant(_ e: Engine, continuous: Bool) -> (Int64, Bool) {
        guard continuous else { return (e.now, false) }
        if isRing {
            if let t = e.instantIfRead { return (t, false) }
            if e.lastCallTime != 0 { return (e.lastCallTime, true) }
        }
        return (e.continuousNow, false)
    }

    /// A recorded export begins and its arguments passed validation, at
    /// once (withContext's `entersWithArgs`): the records of `enter` then
    /// `args`.
    @inline(__always)
    func enterArgs(_ fn: CallFn, continuous: Bool, _ body: (inout RecordWriter) -> Void) {
        enter(fn)
        args(continuous: continuous, body)
    }

    /// A recorded ng_event_submit begins, its event valid: `enterArgs`, with
    /// what each call checks done once. An outermost call into a ring with
    /// no checkpoint due and `reserve` bytes free after `tail` (the steady
    /// state) writes its record here; any other goes the general way. The
    /// same record either way.
    @inline(__always)
    func enterEvent(_ event: UnsafePointer<ng_event>, continuous: Bool) {
        guard _fastPath(isRing && depth == 0 && !stale && bytesSinceFull < fullEvery && failed == nil
                        && ringHasRoom(reserve)
                        && engineRef._withUnsafeGuaranteedRef({ $0.stateVersion }) == checkpointVersion) else {
            return enterArgs(.event, continuous: continuous) { EventCall.encode(&$0, event.pointee) }
        }
        let (t, undated) = engineRef._withUnsafeGuaranteedRef { e in
            e.trackDatedAt = nil   // a host call begins
            return instant(e, continuous: continuous)
        }
        if !undated { ngc_ring_set_last_ns(ring, t) }
        var record = -1
        if ngc_ring_begin(ring) {
            let start = tail
            var w = RecordWriter(base + start + RecordHeader.size, end: base + start + reserve)
            w.i64(t)
            EventCall.encode(&w, event.pointee)
            // The record's size takes in the room for its short ret, so
            // that writing the ret (leaveEvent) changes neither the ring's
            // tail nor its counts. Until the ret's flag is set, a reader
            // reads the call alone and skips the rest of the record.
            let end = w.p - base
            commit(start, end &+ CallResult.eventSize, .call, CallFn.event.rawValue, undated ? RecordFlags.undated : 0)
            lastEnd = end
            ngc_ring_end(ring)
            record = start
        }
        frames[0] = Frame(fn: .event, argsWritten: true, record: record, retRoom: record >= 0)
        depth = 1
    }

    /// A recorded ng_event_submit returns OK with `v`: when its call took
    /// enterEvent's fast path, is still the newest record, and returns the
    /// common ret (no deciding guard, no transition dated, no work cut),
    /// the ret goes into the room its record kept (the bytes of
    /// CallResult.encodeEvent), the header's flag says so, and the call is
    /// left: true. Otherwise false, and the call returns the general way
    /// (`result`, then withContext's `leave`).
    @inline(__always)
    func leaveEvent(_ v: EventVerdict) -> Bool {
        guard _fastPath(depth == 1 && frames[0].retRoom && frames[0].record == lastStart && v.guardID == nil
                        && engineRef._withUnsafeGuaranteedRef({ $0.trackDatedAt == nil && $0.workCut == nil })) else {
            return false
        }
        depth = 0
        guard ngc_ring_begin(ring) else { return true }
        var w = RecordWriter(base + lastEnd, end: base + lastEnd + CallResult.eventSize)
        CallResult.encodeEvent(&w, verdict: v.verdict.rawValue, reason: v.reason.rawValue, view: v.target)
        lastEnd &+= CallResult.eventSize
        storeRet(at: lastStart, size: nil)
        ngc_ring_end(ring)
        return true
    }

    /// `room` bytes are free after `tail` in a ring (makeRoom has nothing to do).
    @inline(__always)
    private func ringHasRoom(_ room: Int) -> Bool {
        head < tail ? capacity &- tail >= room : (used > 0 && head &- tail >= room)
    }

    /// How many recorded calls are in progress.
    var callDepth: Int { depth }

    /// What the call returns beside its status.
    @inline(__always)
    func result(_ r: CallResult) { frames[depth - 1].result = r }

    /// The call returns `status`; `err` is ng_errmsg's text for a failure.
    @inline(__always)
    func leave(_ status: ng_status, err: UnsafePointer<CChar>?) {
        let i = depth - 1
        depth = i
        guard frames[i].argsWritten else { return rejected(frames[i].fn, status, err, engine.now) }
        // ng_event_submit's common return (CallResult.encode's short form):
        // status OK, no deciding guard, no transition dated, nothing
        // recorded since its call, written after it with its fields stored
        // directly.
        if status == NG_OK, case .event(let verdict, let reason, let view, .none) = frames[i].result,
           frames[i].record >= 0, frames[i].record == lastStart,
           engineRef._withUnsafeGuaranteedRef({ $0.trackDatedAt == nil }),
           extendLast({ CallResult.encodeEvent(&$0, verdict: verdict, reason: reason, view: view) }) {
            return
        }
        let result = frames[i].result
        if case .chain = result { return leaveChain(frames[i], status, err) }
        // A transition this host call began is dated from when the call
        // returned (a real clock moved meanwhile): "tr", for replay.
        let datedAt: Int64? = i != 0 ? nil : engineRef._withUnsafeGuaranteedRef { e in
            defer { e.trackDatedAt = nil }
            return e.trackDatedAt
        }
        if frames[i].record >= 0 && frames[i].record == lastStart
            && extendLast({ CallResult.encode(&$0, status: status, result, err: err, datedAt: datedAt) }) {
            return
        }
        _ = write(.ret, frames[i].fn.rawValue) { CallResult.encode(&$0, status: status, result, err: err, datedAt: datedAt) }
    }

    /// A chain change returns: its result lists the guards it added (the
    /// engine is read for them).
    @inline(never)
    private func leaveChain(_ f: Frame, _ status: ng_status, _ err: UnsafePointer<CChar>?) {
        let e = engine
        if f.record >= 0 && f.record == lastStart && extendLast({ CallResult.encode(&$0, status: status, f.result, err: err, engine: e) }) {
            return
        }
        _ = write(.ret, f.fn.rawValue) { CallResult.encode(&$0, status: status, f.result, err: err, engine: e) }
    }

    /// Refused before it did anything: replay skips it.
    @inline(never)
    private func rejected(_ fn: CallFn, _ status: ng_status, _ err: UnsafePointer<CChar>?, _ t: Int64) {
        _ = write(.rejected, fn.rawValue, flags: depth == 0 && stale ? RecordFlags.stale : 0) { w in
            w.i64(t)
            w.i32(status)
            w.text(err)
        }
    }

    /// No recorded call is in progress.
    var isIdle: Bool { depth == 0 }
    /// A file or writer buffer past half full (flushed between calls).
    var isOverFlushSize: Bool { !isRing && tail >= capacity / 2 }

    // MARK: Callbacks and posted requests

    @inline(__always)
    func callback(_ fn: CallbackFn, _ body: (inout RecordWriter) -> Void) {
        _ = write(.callback, fn.rawValue, body)
    }

    func posted(_ r: Request, at postedNs: Int64) {
        _ = write(.posted, 0) { PostedRecord.encode(&$0, r, postedNs: postedNs) }
    }

    // MARK: Records

    /// Write one record; its offset, or -1 when nothing was written.
    @inline(__always)
    private func write(_ kind: RecordKind, _ code: UInt8, flags: UInt16 = 0, reserving need: Int = 0,
                       _ body: (inout RecordWriter) -> Void) -> Int {
        guard failed == nil else { return -1 }
        guard ngc_ring_begin(ring) else { return -1 }
        defer { ngc_ring_end(ring) }
        let room = max(reserve, need)
        makeRoom(room)
        let start = tail
        var w = RecordWriter(base + start + RecordHeader.size, end: base + start + room)
        body(&w)
        var f = flags
        var end = w.p - base
        if _slowPath(w.overflow) {
            if !isRing { return writeLarge(kind, code, flags, body) }
            // Too large for the ring's records: its kind and instant stay.
            f |= RecordFlags.truncated
            end = start + RecordHeader.size + (kind == .call || kind == .rejected ? 8 : 0)
        }
        commit(start, end, kind, code, f)
        return start
    }

    @inline(__always)
    private func commit(_ start: Int, _ end: Int, _ kind: RecordKind, _ code: UInt8, _ flags: UInt16) {
        // Offsets within the buffer (at most 64 MiB): wrapping arithmetic,
        // no overflow checks on every record.
        let size = (end &- start &+ 7) & ~7
        seq &+= 1
        RecordHeader(size: UInt32(truncatingIfNeeded: size), kind: kind.rawValue, code: code, flags: flags, seq: seq).store(to: base + start)
        lastStart = start
        lastEnd = end
        tail = start &+ size
        used &+= size
        bytesSinceFull &+= size
        recordsSinceCheckpoint &+= 1
        ngc_ring_set_tail(ring, UInt64(tail))
    }

    /// Add to the newest record (a call's `ret`); false when it does not fit.
    @inline(__always)
    private func extendLast(_ body: (inout RecordWriter) -> Void) -> Bool {
        guard failed == nil else { return true }
        guard ngc_ring_begin(ring) else { return true }
        defer { ngc_ring_end(ring) }
        let start = lastStart
        var w = RecordWriter(base + lastEnd, end: base + start + reserve)
        body(&w)
        guard !w.overflow else { return false }
        let end = w.p - base
        let size = (end &- start &+ 7) & ~7
        // The new end first, then the header saying so: a crash dump in
        // between reads the call without its ret, never a torn record.
        let grown = start &+ size &- tail
        used &+= grown
        bytesSinceFull &+= grown
        tail = start &+ size
        lastEnd = end
        ngc_ring_set_tail(ring, UInt64(tail))
        storeRet(at: start, size: size)
        return true
    }

    /// The record at `start` holds its call's ret now, and is `size` bytes
    /// (nil: as it was): one store of its header's first word, made after
    /// the ret's bytes, so a crash dump reads the call with or without its
    /// ret, never half of one.
    @inline(__always)
    private func storeRet(at start: Int, size: Int?) {
        let p = base + start
        var word = UInt64(littleEndian: p.loadUnaligned(as: UInt64.self)) | UInt64(RecordFlags.hasRet) << 48
        if let size { word = (word & ~0xFFFF_FFFF) | UInt64(UInt32(truncatingIfNeeded: size)) }
        ngc_store_word(p, word.littleEndian)
    }

    /// Make `room` bytes free after `tail`: a ring drops its oldest records
    /// (wrapping with a pad at the end), a file or writer buffer is flushed.
    @inline(__always)
    private func makeRoom(_ room: Int) {
        if isRing {
            if head < tail {
                if capacity - tail >= room { return }
            } else if used > 0 && head - tail >= room {
                return
            }
            makeRingRoom(room)
        } else if capacity - tail < room {
            flushRecords()
            if capacity < room { grow(room) }
        }
    }

    @inline(never)
    private func makeRingRoom(_ room: Int) {
        while true {
            if used == 0 {
                head = 0
                tail = 0
                lastStart = -1
                ngc_ring_set_head(ring, 0)
                ngc_ring_set_tail(ring, 0)
                return
            }
            if head < tail {
                if capacity - tail >= room { return }
                // Not enough before the end: a pad to it, and on from the
                // start (the new tail is published with the next record).
                if tail < capacity {
                    RecordHeader(size: UInt32(capacity - tail), kind: RecordKind.pad.rawValue, code: 0, flags: 0, seq: 0)
                        .store(to: base + tail)
                    used += capacity - tail
                }
                tail = 0
                lastStart = -1
                continue
            }
            // Records from head to the end and from the start to tail.
            if head - tail >= room { return }
            dropOldest(room)
        }
    }

    /// Drop the oldest records (a ring) until `room` bytes and
    /// `dropBatch` more are free before `head`, or `head` wraps: the next
    /// records then find their room without coming here.
    private func dropOldest(_ room: Int) {
        let want = room &+ dropBatch
        // In locals, stored once: a full ring comes here for every record it writes.
        let base = base, capacity = capacity, tail = tail
        var head = head, used = used, lines: UInt64 = 0
        repeat {
            // This recorder's own records, whole: the size and kind are read
            // from the header's first word, unchecked (a reader of a dump
            // checks every header).
            let word = UInt64(littleEndian: (base + head).loadUnaligned(as: UInt64.self))
            var size = Int(truncatingIfNeeded: UInt32(truncatingIfNeeded: word))
            if _slowPath(size < 8 || size > capacity &- head) { size = capacity &- head }
            lines &+= RecordFormat.isLine(UInt8(truncatingIfNeeded: word >> 32)) ? 1 : 0
            head &+= size
            used &-= size
            if head >= capacity { head = 0; break }
        } while used > 0 && head &- tail < want
        self.head = head
        self.used = used
        ngc_ring_count_dropped(ring, lines)
        // Published once: the dropped bytes are overwritten only after this.
        ngc_ring_set_head(ring, UInt64(head))
    }

    /// What a full ring drops beyond the room it needs, at once: 1/64 of
    /// it (a 1 MiB ring: 16 KiB, about 136 moved events), within the slack
    /// the ring's size keeps over `ring_records` (160 bytes a record).
    private var dropBatch: Int { capacity >> 6 }

    // MARK: Ring checkpoints

    /// A checkpoint when the state changed, at most one per
    /// `checkpointGap` records (a request changes the state twice: writing
    /// each would cost more than the request); a call begun from a state no
    /// checkpoint shows is marked stale, and a dump then begins at the next
    /// checkpoint (RingReader).
    @inline(__always)
    private func checkpointIfChanged() {
        if engineRef._withUnsafeGuaranteedRef({ $0.stateVersion }) != checkpointVersion {
            if recordsSinceCheckpoint >= checkpointGap || bytesSinceFull >= fullEvery { checkpoint() } else { stale = true }
        } else if bytesSinceFull >= fullEvery {
            checkpoint()
        }
    }

    @inline(never)
    private func checkpoint() {
        let e = engine
        // The engine's state, one value (copies sharing its storage: no allocation).
        let s = e.state
        let full = bytesSinceFull >= fullEvery
        // The screens that are the same as at the last checkpoint, from the root.
        var keep = 0
        if !full {
            let n = min(s.stackCount, shadowIDs.count)
            while keep < n, s.stack[keep].id == shadowIDs[keep], s.stack[keep].route.pointer == shadowRoutes[keep] { keep += 1 }
        }
        let at = write(.checkpoint, 0, flags: full ? RecordFlags.full : 0, reserving: full ? capacity / 8 : reserve) { w in
            TraceCheckpoint.encode(&w, s, full: full, keep: keep)
        }
        guard at >= 0 else { return }
        if full { bytesSinceFull = 0 }
        recordsSinceCheckpoint = 0
        stale = false
        checkpointVersion = e.stateVersion
        shadowIDs.removeAll(keepingCapacity: true)
        shadowRoutes.removeAll(keepingCapacity: true)
        for screen in s.stack {
            shadowIDs.append(screen.id)
            shadowRoutes.append(screen.route.pointer)
        }
    }

    // MARK: Output (file and writer)

    /// Format the buffered records and hand the text to the file or the
    /// host's writer.
    func flush() {
        guard !isRing else { return }
        flushRecords()
    }

    private func flushRecords() {
        var at = 0
        while at < tail {
            guard let h = RecordHeader.load(base + at, available: tail - at) else { break }
            let payload = UnsafeRawBufferPointer(start: base + at + RecordHeader.size, count: Int(h.size) - RecordHeader.size)
            if RecordFormat.line(h, payload, out) { out.newline() }
            at += Int(h.size)
        }
        tail = 0
        used = 0
        lastStart = -1
        for i in 0..<depth { frames[i].record = -1 }
        emit()
    }

    /// A record larger than the buffer (a file or writer): the buffer is
    /// flushed and grows to hold it.
    @inline(never)
    private func writeLarge(_ kind: RecordKind, _ code: UInt8, _ flags: UInt16, _ body: (inout RecordWriter) -> Void) -> Int {
        flushRecords()
        var size = capacity
        while true {
            size *= 2
            grow(size)
            var w = RecordWriter(base + RecordHeader.size, end: base + capacity)
            body(&w)
            if !w.overflow {
                commit(0, w.p - base, kind, code, flags)
                reserve = max(reserve, min(capacity, w.p - base + 4096))
                return 0
            }
        }
    }

    private func grow(_ size: Int) {
        guard size > capacity, let bytes = calloc(1, size) else { return }
        memcpy(bytes, base, tail)
        free(ring.pointee.bytes)
        ring.pointee.bytes = bytes.assumingMemoryBound(to: UInt8.self)
        ring.pointee.capacity = UInt64(size)
        base = bytes
        capacity = size
    }

    /// Write out `out`.
    private func emit() {
        defer { out.reset() }
        guard failed == nil, !out.isEmpty else { return }
        let bytes = out.view
        switch sink {
        case .file(let fd, let path):
            var off = 0
            while off < bytes.count {
                let n = NavGuardLibc.write(fd, bytes.baseAddress! + off, bytes.count - off)
                if n < 0 {
                    if ngc_errno() == EINTR { continue }
                    failed = "writing \(path) failed: \(String(cString: strerror(ngc_errno())))"
                    break
                }
                off += n
            }
        case .writer(let w, let user):
            // The writer runs at any point of a call (a full buffer): calls
            // it makes on the context are refused (withContext), else each
            // would record and flush into the writer again, without end.
            inWriter = true
            let ok = w(user, bytes.baseAddress!.assumingMemoryBound(to: CChar.self), bytes.count)
            inWriter = false
            if !ok { failed = "the host's writer asked to stop" }
        case .ring:
            break
        }
    }

    // MARK: Ring dumps

    /// The ring as a trace: a header with "start":"ring" and the state at
    /// the first record kept, then the records.
    func ringTrace() -> (text: [UInt8], lines: Int) {
        var bytes: [UInt8] = []
        if used == 0 {
        } else if head < tail {
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: base + head, count: tail - head))
        } else {
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: base + head, count: capacity - head))
            bytes.append(contentsOf: UnsafeRawBufferPointer(start: base, count: tail))
        }
        let e = box.engine
        let info = RingInfo(manualClock: e.isManualClock, manualStartNs: box.manualStartNs, defaultDurationNs: e.defaultTransitionNs,
                            postedBase: box.mailbox.base, records: windowRecords, ns: windowNs, atNs: e.now,
                            droppedBefore: Int64(ring.pointee.dropped_lines), crash: nil, damage: nil)
        let t = bytes.withUnsafeBytes { RingReader.trace($0, info) }
        return (t.text, t.lines)
    }

    /// Where the record of what led to a guard's report is, for the host's
    /// on_report: a ring is dumped to a new file for it, within the budget
    /// (the records copied here, the file written by the writer thread:
    /// crash_dump.c); a file or writer is flushed.
    func noteForReport() -> String {
        guard isRing else {
            flush()
            return path.map { "flight recorder: the whole session is in \($0)" }
                ?? "flight recorder: the whole session went to the host's writer"
        }
        let now = engine.now
        if let why = budget.refusal(at: now) { return "flight recorder: no dump written: \(why)" }
        var name = [CChar](repeating: 0, count: 4096 + 128)
        let err = ngc_report_dump(ring, now, UInt32(truncatingIfNeeded: dumps + 1), budget.dirBytes, &name, name.count)
        guard err == 0 else {
            let why = err == EBUSY ? "the writer is still writing 8 earlier dumps"
                : "cannot create a new file in \(dumpDir ?? "."): \(String(cString: strerror(err)))"
            return "flight recorder: no dump written: \(why)"
        }
        dumps += 1
        budget.spend(at: now)
        let file = name.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return "flight recorder: the last records (\((used + 1023) / 1024) KiB) are in \(file) "
            + "(binary, written in the background: `navguard convert` or `navguard timeline` reads it)"
    }

    func close() {
        flush()
        ngc_crash_unregister(ring)
        if case .file(let fd, _) = sink { _ = NavGuardLibc.close(fd) }
    }
}

/// The budget of a ring's report dumps (navguard.h, ng_record_options): at
/// most `limit` dumps in any `windowNs` of the context's clock.
/// Invariant: `times` holds the instants of the last `count` dumps, the
/// oldest at `next` once `count == limit` (a ring).
struct DumpBudget {
    static let maxDumps = 1000
    /// Three dumps show a burst's beginning, which is what explains it; the
    /// rest would repeat it (a soak's 1,905 reports wrote 5.1 GB).
    static let defaultDumps = 3
    static let defaultWindowNs: Int64 = 600_000_000_000
    /// Eight full rings of the default size (100000 records, 16 MiB).
    static let defaultDirBytes: UInt64 = 128 << 20

    let limit: Int
    let windowNs: Int64
    let dirBytes: UInt64
    private var times: [Int64]
    private var next = 0
    private var count = 0

    /// 0 for any of them: its default.
    init(dumps: UInt32 = 0, windowNs: Int64 = 0, dirBytes: UInt64 = 0) {
        limit = dumps == 0 ? DumpBudget.defaultDumps : min(Int(dumps), DumpBudget.maxDumps)
        self.windowNs = windowNs == 0 ? DumpBudget.defaultWindowNs : windowNs
        self.dirBytes = dirBytes == 0 ? DumpBudget.defaultDirBytes : dirBytes
        times = [Int64](repeating: 0, count: limit)
    }

    /// Why no dump may be written at `now`, or nil.
    func refusal(at now: Int64) -> String? {
        guard count == limit, now &- times[next] < windowNs else { return nil }
        return "\(limit) dumps in the last \(windowNs / 1_000_000_000) s already (ng_record_options.report_dumps, report_dump_window_ns)"
    }

    mutating func spend(at now: Int64) {
        times[next] = now
        next = (next + 1) % limit
        count = min(count + 1, limit)
    }
}

/// Open the file a file recorder writes (ng_record_start's `path`, which
/// the host chose): a regular file, created or truncated, or /dev/null.
/// Opened with O_NONBLOCK (a FIFO would block open for ever) and
/// O_NOFOLLOW, checked with fstat before anything is truncated: a FIFO, a
/// device, a directory or a socket is refused.
func openTraceFile(_ path: String) throws(FileRefusal) -> Int32 {
    let fd = ngc_open(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0o644)
    guard fd >= 0 else {
        let err = ngc_errno()
        var st = stat()
        if lstat(path, &st) == 0 {
            // ELOOP: a link; ENXIO: a FIFO with no reader; EISDIR...
            if Int32(bitPattern: st.st_mode) & S_IFMT == S_IFLNK { throw FileRefusal(why: "it is a symbolic link (not followed)") }
            if Int32(bitPattern: st.st_mode) & S_IFMT != S_IFREG { throw FileRefusal(why: "it is \(fileKind(st.st_mode)), not a regular file") }
        }
        throw FileRefusal(why: String(cString: strerror(err)))
    }
    var st = stat()
    guard fstat(fd, &st) == 0 else {
        let why = String(cString: strerror(ngc_errno()))
        _ = close(fd)
        throw FileRefusal(why: why)
    }
    let type = Int32(bitPattern: st.st_mode) & S_IFMT
    if type == S_IFCHR {
        // The null device only (a benchmark's, or a host's that wants none).
        var null = stat()
        if stat("/dev/null", &null) == 0 && (null.st_mode & mode_t(S_IFMT)) == mode_t(S_IFCHR) && null.st_rdev == st.st_rdev {
            return fd
        }
    }
    guard type == S_IFREG else {
        _ = close(fd)
        throw FileRefusal(why: "it is \(fileKind(st.st_mode)), not a regular file")
    }
    guard ftruncate(fd, 0) == 0 else {
        let why = String(cString: strerror(ngc_errno()))
        _ = close(fd)
        throw FileRefusal(why: why)
    }
    return fd
}

/// Write a whole byte array to a new file (ngc_create_new: never a name
/// that exists); nil or the error text.
func writeNewFile(_ path: String, _ bytes: [UInt8]) -> String? {
    let fd = ngc_create_new(path)
    guard fd >= 0 else {
        let err = ngc_errno()
        if err == EEXIST { return "\(path) exists: a dump is written to a new file only (remove it or choose another name)" }
        return "cannot create \(path): \(String(cString: strerror(err)))"
    }
    defer { _ = close(fd) }
    var off = 0
    while off < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + off, bytes.count - off) }
        if n < 0 {
            if ngc_errno() == EINTR { continue }
            return "writing \(path) failed: \(String(cString: strerror(ngc_errno())))"
        }
        off += n
    }
    return nil
}
