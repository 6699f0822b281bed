// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardLibc
import NavGuardCore

// Opening guard plugins: only regular files, dlopen'd once and never closed
// (dlclose of a library that used Swift concurrency crashes, and a guard's
// strings must outlive the context), and the guards found on the search path.

/// Open `path` for reading when it is a regular file; otherwise the reason.
/// Opened with O_NONBLOCK, then checked with fstat: opening a FIFO for
/// reading would wait for a writer forever, a device may block or act.
/// (Regular files ignore O_NONBLOCK, so reads need no change.)
@_optimize(size)
func openRegularFile(_ path: String) throws(FileRefusal) -> Int32 {
    let fd = ngc_open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0)
    guard fd >= 0 else { throw FileRefusal(why: String(cString: strerror(ngc_errno()))) }
    var st = stat()
    guard fstat(fd, &st) == 0 else {
        let why = String(cString: strerror(ngc_errno()))
        close(fd)
        throw FileRefusal(why: why)
    }
    guard fileType(st.st_mode) == S_IFREG else {
        close(fd)
        throw FileRefusal(why: "it is \(fileKind(st.st_mode)), not a regular file")
    }
    return fd
}

/// A whole regular file of at most `limit` bytes, read with openRegularFile.
@_optimize(size)
package func readRegularFile(_ path: String, limit: Int) throws(FileRefusal) -> [UInt8] {
    let fd = try openRegularFile(path)
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = read(fd, &chunk, chunk.count)
        if n == 0 { return bytes }
        if n < 0 {
            if ngc_errno() == EINTR { continue }
            // A read error part-way would otherwise read a truncated file.
            throw FileRefusal(why: String(cString: strerror(ngc_errno())))
        }
        bytes.append(contentsOf: chunk[0..<n])
        if bytes.count > limit { throw FileRefusal(why: "it is larger than \(limit >> 20) MiB", tooLarge: true) }
    }
}

/// Why a file was not opened or read (openRegularFile, readRegularFile).
package struct FileRefusal: Error {
    package let why: String
    package var tooLarge = false
    package init(why: String, tooLarge: Bool = false) { (self.why, self.tooLarge) = (why, tooLarge) }
}

/// The S_IF* type bits of a mode (the headers' S_IF* constants are Int32).
@_optimize(size)
private func fileType(_ mode: mode_t) -> Int32 { Int32(bitPattern: mode) & S_IFMT }

@_optimize(size)
package func fileKind(_ mode: mode_t) -> String {
    switch fileType(mode) {
    case S_IFDIR: return "a directory"
    case S_IFIFO: return "a FIFO"
    case S_IFCHR: return "a character device"
    case S_IFBLK: return "a block device"
    case S_IFSOCK: return "a socket"
    default: return "not a file"
    }
}

/// A library opened and its descriptor read, not yet in a chain.
package struct LoadedPlugin {
    package var descriptor: UnsafePointer<ng_plugin_descriptor>
    package var path: String
}

@_optimize(size)
package func openPlugin(_ path: String) throws(EngineError) -> LoadedPlugin {
    guard access(path, F_OK) == 0 else {
        throw EngineError(NG_E_LOAD, "plugin \(path): no such file")
    }
    // Only a regular file reaches dlopen, which opens it blocking. (What is
    // checked here is what dlopen opens, unless the file is swapped in
    // between: a race only the directory's owner can cause.)
    do throws(FileRefusal) { close(try openRegularFile(path)) } catch {
        throw EngineError(NG_E_LOAD, "plugin \(path) cannot be loaded: \(error.why)")
    }
    // A bare file name is a file in the current directory, as access() saw
    // it, not a name for dlopen's library search.
    let openPath = path.contains("/") ? path : "./" + path
    guard let handle = dlopen(openPath, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
        let why = dlerror().map { String(cString: $0) } ?? "unknown error"
        throw EngineError(NG_E_LOAD, "plugin \(path) is not a loadable shared library: \(why)")
    }
    guard let sym = dlsym(handle, NG_PLUGIN_ENTRY_SYMBOL) else {
        throw EngineError(NG_E_ENTRY, "plugin \(path) does not export \(NG_PLUGIN_ENTRY_SYMBOL)")
    }
    let entry = unsafeBitCast(sym, to: ng_plugin_entry_fn.self)
    guard let d = entry() else {
        throw EngineError(NG_E_ENTRY, "plugin \(path): \(NG_PLUGIN_ENTRY_SYMBOL)() returned NULL")
    }
    do throws(EngineError) { _ = try GuardDescriptor.read(d) } catch {
        throw EngineError(error.status, "plugin \(path): \(error.message)")
    }
    return LoadedPlugin(descriptor: d, path: path)
}

/// A guard found on the search path.
public struct FoundGuard: Sendable {
    public var id: String
    public var name: String
    public var version: String
    public var path: String
}

/// Every guard library on the search path, first directory first, read by
/// loading it (libraries are never unloaded). A file that does not load or
/// has no valid descriptor is skipped. Used by `navguard plugins available`
/// and to list what exists when a configuration names an unknown id.
@_optimize(size)
public func availableGuards(limit: Int = 256) -> [FoundGuard] {
    var found: [FoundGuard] = []
    for dir in pluginSearchPath() {
        guard let d = opendir(dir) else { continue }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasSuffix(".so") { names.append(name) }
        }
        closedir(d)
        for name in names.sorted() where found.count < limit {
            let path = "\(dir)/\(name)"
            guard let p = try? openPlugin(path), let g = try? GuardDescriptor.read(p.descriptor) else { continue }
            if found.contains(where: { $0.id == g.id }) { continue }   // shadowed by an earlier directory
            found.append(FoundGuard(id: g.id, name: String(cString: g.d.name), version: String(cString: g.d.version), path: path))
        }
    }
    return found
}
