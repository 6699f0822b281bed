// SPDX-License-Identifier: Apache-2.0
import NavGuardLibc

// The tool's file access: every subcommand reads and writes files through
// these two functions, so a file that cannot be used is reported the same
// way everywhere ("cannot open PATH: No such file or directory").

public struct FileError: Error { public var message: String; public init(message: String) { self.message = message } }

private func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

/// How long a file may be, said from its first bytes: at most `bytes`
/// (`what` names the limit in the refusal: "a crash dump can be").
public struct FileLimit {
    public var bytes: Int
    public var what: String
    public init(bytes: Int, what: String) {
        self.bytes = bytes
        self.what = what
    }
}

/// The first bytes `readFile` hands its `limit` (fewer only when the file is shorter).
public let fileLimitPrefix = 1 << 16

/// The whole file at `path`, at most `maxBytes` long. A pipe is read to its
/// end (`--config @<(...)` in a shell). With `limit`, the file's first bytes
/// (up to `fileLimitPrefix`) say how long it may be, or why it is refused
/// (the closure's error): a longer file is refused before the rest is read
/// (a regular file by its size), and no more than the limit and a byte is
/// ever read or held (/dev/zero costs the first bytes, not the limit).
public func readFile(_ path: String, maxBytes: Int = 1 << 30, maxWhat: String = "the largest file read",
                     limit: ((UnsafeRawBufferPointer) throws(FileError) -> FileLimit)? = nil) throws(FileError) -> [UInt8] {
    let fd = ngc_open(path, O_RDONLY | O_CLOEXEC, 0)
    guard fd >= 0 else { throw FileError(message: "cannot open \(path): \(errorText(ngc_errno()))") }
    defer { close(fd) }
    var st = stat()
    let size: Int? = fstat(fd, &st) == 0 && (Int32(bitPattern: st.st_mode) & S_IFMT) == S_IFREG ? Int(st.st_size) : nil
    var cap = FileLimit(bytes: maxBytes, what: maxWhat)
    func refuse(_ c: FileLimit) -> FileError { FileError(message: "\(path) is larger than \(c.what) (\(c.bytes) bytes)") }
    if let size, size > cap.bytes { throw refuse(cap) }
    var bytes: [UInt8] = []
    if let size { bytes.reserveCapacity(min(size, cap.bytes, fileLimitPrefix)) }
    var asked = limit == nil
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        // Reads stop at limit + 1 byte (to tell "longer" from "as long").
        var want = min(chunk.count, cap.bytes + 1 - bytes.count)
        if !asked { want = min(want, fileLimitPrefix - bytes.count) }
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, want) }
        if n < 0 {
            if ngc_errno() == EINTR { continue }
            // A directory opens, then fails here (EISDIR).
            throw FileError(message: "cannot read \(path): \(errorText(ngc_errno()))")
        }
        bytes.append(contentsOf: chunk[0..<n])
        if !asked && (n == 0 || bytes.count >= fileLimitPrefix), let limit {
            asked = true
            let said = bytes.withUnsafeBytes { b in Result { () throws(FileError) in try limit(b) } }
            let c = try said.get()
            if c.bytes < cap.bytes { cap = c }
            if let size, size > cap.bytes { throw refuse(cap) }
            if let size { bytes.reserveCapacity(min(size, cap.bytes)) }
        }
        if bytes.count > cap.bytes { throw refuse(cap) }
        if n == 0 { break }
    }
    return bytes
}

/// Create or truncate the file at `path` and write `text` to it; with
/// `exclusive`, create it only: a file or symlink already there is an error,
/// never followed (a temporary file's predictable name cannot be planted).
public func writeFile(_ path: String, _ text: String, exclusive: Bool = false) throws(FileError) {
    let how = exclusive ? O_EXCL | O_NOFOLLOW : O_TRUNC
    let fd = ngc_open(path, O_WRONLY | O_CREAT | how | O_CLOEXEC, 0o666)
    guard fd >= 0 else { throw FileError(message: "cannot write \(path): \(errorText(ngc_errno()))") }
    let bytes = Array(text.utf8)
    var off = 0, err: Int32 = 0
    while off < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + off, $0.count - off) }
        if n < 0 {
            if ngc_errno() == EINTR { continue }
            err = ngc_errno()
            break
        }
        off += n
    }
    if close(fd) != 0 && err == 0 { err = ngc_errno() }
    if err != 0 { throw FileError(message: "cannot write \(path): \(errorText(err))") }
}

/// The absolute, symlink-free form of a path, or the path itself.
public func realPath(_ path: String) -> String {
    guard let r = realpath(path, nil) else { return path }
    defer { free(r) }
    return String(cString: r)
}

public func isDirectory(_ path: String) -> Bool {
    var st = stat()
    return stat(path, &st) == 0 && (Int32(bitPattern: st.st_mode) & S_IFMT) == S_IFDIR
}

/// Whether `path` names something to read that is not a directory (a file,
/// or a pipe such as /dev/stdin).
public func isReadableNonDirectory(_ path: String) -> Bool {
    var st = stat()
    return stat(path, &st) == 0 && (Int32(bitPattern: st.st_mode) & S_IFMT) != S_IFDIR
}
