// SPDX-License-Identifier: Apache-2.0
import NavGuardLibc

// The tool's file access: every subcommand reads and writes files through
// these two functions, so a file that cannot be used is reported the same
// way everywhere ("cannot open PATH: No such file or directory").

public struct FileError: Error { public var message: String; public init(message: String) { self.message = message } }

private func errorText(_ code: Int32) -> String { String(cString: strerror(code)) }

/// The whole file at `path`, at most `maxBytes` long. A pipe is read to its
/// end (`--config @<(...)` in a shell).
public func readFile(_ path: String, maxBytes: Int = 1 << 30) throws(FileError) -> [UInt8] {
    let fd = ngc_open(path, O_RDONLY | O_CLOEXEC, 0)
    guard fd >= 0 else { throw FileError(message: "cannot open \(path): \(errorText(ngc_errno()))") }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if ngc_errno() == EINTR { continue }
            // A directory opens, then fails here (EISDIR).
            throw FileError(message: "cannot read \(path): \(errorText(ngc_errno()))")
        }
        if n == 0 { break }
        bytes.append(contentsOf: chunk[0..<n])
        if bytes.count > maxBytes { throw FileError(message: "\(path) is larger than \(maxBytes) bytes") }
    }
    return bytes
}

/// Create or truncate the file at `path` and write `text` to it.
public func writeFile(_ path: String, _ text: String) throws(FileError) {
    let fd = ngc_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
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
