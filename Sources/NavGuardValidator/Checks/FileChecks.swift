// SPDX-License-Identifier: Apache-2.0
import CNavGuard
import NavGuardCore
import NavGuardLibc

// The file group: the plugin file exists and exports exactly ng_plugin_entry
// (read from its ELF dynamic symbol table, without loading it).

func fileChecks(_ input: ValidationInput) {
    let path = input.path
    var ok = false
    check("file.exists") {
        var st = stat()
        guard stat(path, &st) == 0 else { return .fail("\(path): \(String(cString: strerror(ngc_errno())))") }
        guard (Int32(bitPattern: st.st_mode) & S_IFMT) == S_IFREG else { return .fail("\(path) is not a regular file") }
        ok = true
        return .pass("\(realPath(path)), \(st.st_size) bytes")
    }
    guard ok else { return }
    check("file.exports") {
        let bytes: [UInt8]
        do throws(FileError) { bytes = try readFile(path) } catch { return .fail(error.message) }
        let elf: ELFExports
        do throws(ELFError) { elf = try ELF.exports(of: bytes) } catch {
            return error.message.hasPrefix("no section headers") ? .warn("cannot list the exports: \(error.message)") : .fail(error.message)
        }
        let names = elf.exported.map { $0.name }
        if elf.fileType != ELF.ET_DYN { return .fail("ELF type \(elf.fileType), not a shared object (ET_DYN)") }
        if names.isEmpty { return .fail("no exported symbol: \(NG_PLUGIN_ENTRY_SYMBOL) is missing (.dynsym has \(elf.dynsymCount) entries)") }
        if names == [NG_PLUGIN_ENTRY_SYMBOL] {
            let s = elf.exported[0]
            if s.type != 2 && s.type != 10 {
                return .fail("\(NG_PLUGIN_ENTRY_SYMBOL) is \(ELF.typeName(s.type)), not a function")
            }
            return .pass("exactly one exported symbol: \(NG_PLUGIN_ENTRY_SYMBOL) (\(ELF.typeName(s.type)) \(ELF.bindingName(s.binding)))")
        }
        let extra = names.filter { $0 != NG_PLUGIN_ENTRY_SYMBOL }
        let shown = extra.prefix(8).joined(separator: ", ") + (extra.count > 8 ? ", ..." : "")
        let missing = names.contains(NG_PLUGIN_ENTRY_SYMBOL) ? "" : "; \(NG_PLUGIN_ENTRY_SYMBOL) is not exported"
        return .fail("\(names.count) exported symbols, expected only \(NG_PLUGIN_ENTRY_SYMBOL): \(shown)\(missing) (link with a version script: { global: ng_plugin_entry; local: *; };)")
    }
}
