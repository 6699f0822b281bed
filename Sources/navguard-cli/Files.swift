import Glibc

// The tool's file access: every subcommand reads and writes files through
// these two functions, so a file that cannot be used is reported the same
// way everywhere ("cannot open PATH: No such file or directory").

struct FileError: Error { var message: String }

/// The whole file at `path`, at most `maxBytes` long. A pipe is read to its
/// end (`--config @<(...)` in a shell).
func readFile(_ path: String, maxBytes: Int = 1 << 30) throws(FileError) -> [UInt8] {
    guard let f = fopen(path, "rb") else {
        throw FileError(message: "cannot open \(path): \(String(cString: strerror(errno)))")
    }
    defer { fclose(f) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = fread(&chunk, 1, chunk.count, f)
        if n <= 0 { break }
        bytes.append(contentsOf: chunk[0..<n])
        if bytes.count > maxBytes { throw FileError(message: "\(path) is larger than \(maxBytes) bytes") }
    }
    // A directory opens, then fails here (EISDIR).
    if ferror(f) != 0 { throw FileError(message: "cannot read \(path): \(String(cString: strerror(errno)))") }
    return bytes
}

/// Create or truncate the file at `path` and write `text` to it.
func writeFile(_ path: String, _ text: String) throws(FileError) {
    guard let f = fopen(path, "wb") else {
        throw FileError(message: "cannot write \(path): \(String(cString: strerror(errno)))")
    }
    let bytes = Array(text.utf8)
    let written = fwrite(bytes, 1, bytes.count, f)
    let failed = written != bytes.count || fflush(f) != 0
    let err = errno
    if fclose(f) != 0 || failed {
        throw FileError(message: "cannot write \(path): \(String(cString: strerror(failed ? err : errno)))")
    }
}

/// The absolute, symlink-free form of a path, or the path itself.
func realPath(_ path: String) -> String {
    guard let r = realpath(path, nil) else { return path }
    defer { free(r) }
    return String(cString: r)
}

func isDirectory(_ path: String) -> Bool {
    var st = stat()
    return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
}

/// Whether `path` names something to read that is not a directory (a file,
/// or a pipe such as /dev/stdin).
func isReadableNonDirectory(_ path: String) -> Bool {
    var st = stat()
    return stat(path, &st) == 0 && (st.st_mode & S_IFMT) != S_IFDIR
}
