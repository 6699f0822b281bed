// SPDX-License-Identifier: Apache-2.0
// A minimal ELF64 reader: the defined, global (or weak) symbols of a shared
// library's dynamic symbol table (.dynsym), read from the section headers.
// Every read is bounds-checked: a truncated or malformed file gives an error,
// never a trap.

struct ELFSymbol {
    var name: String
    var binding: UInt8     // STB_*
    var type: UInt8        // STT_*
    var sectionIndex: UInt16
}

struct ELFExports {
    var machine: UInt16
    var fileType: UInt16
    /// Defined symbols with STB_GLOBAL, STB_WEAK or STB_GNU_UNIQUE binding
    /// (st_shndx != SHN_UNDEF), in table order. Nothing is ignored.
    var exported: [ELFSymbol]
    var dynsymCount: Int
}

struct ELFError: Error { var message: String }

enum ELF {
    static let SHT_DYNSYM: UInt32 = 11
    static let SHN_UNDEF: UInt16 = 0
    static let STB_GLOBAL: UInt8 = 1
    static let STB_WEAK: UInt8 = 2
    static let STB_GNU_UNIQUE: UInt8 = 10
    static let ET_DYN: UInt16 = 3

    static func bindingName(_ b: UInt8) -> String {
        switch b {
        case 0: return "LOCAL"
        case STB_GLOBAL: return "GLOBAL"
        case STB_WEAK: return "WEAK"
        case STB_GNU_UNIQUE: return "UNIQUE"
        default: return "binding \(b)"
        }
    }

    static func typeName(_ t: UInt8) -> String {
        switch t {
        case 0: return "NOTYPE"
        case 1: return "OBJECT"
        case 2: return "FUNC"
        case 3: return "SECTION"
        case 4: return "FILE"
        case 5: return "COMMON"
        case 6: return "TLS"
        case 10: return "IFUNC"
        default: return "type \(t)"
        }
    }

    static func exports(of bytes: [UInt8]) throws(ELFError) -> ELFExports {
        let r = Reader(bytes: bytes)
        guard bytes.count >= 64, bytes[0] == 0x7f, bytes[1] == 0x45, bytes[2] == 0x4c, bytes[3] == 0x46 else {
            throw ELFError(message: "not an ELF file")
        }
        guard bytes[4] == 2 else { throw ELFError(message: "not a 64-bit ELF file (EI_CLASS \(bytes[4]))") }
        guard bytes[5] == 1 else { throw ELFError(message: "not a little-endian ELF file (EI_DATA \(bytes[5]))") }
        guard let eType = r.u16(16), let machine = r.u16(18), let shoff = r.u64(40),
              let shentsize = r.u16(58), var shnum = r.u16(60).map(Int.init) else {
            throw ELFError(message: "truncated ELF header")
        }
        guard shoff != 0 else { throw ELFError(message: "no section headers (stripped with sstrip?)") }
        guard shentsize >= 64 else { throw ELFError(message: "section header size \(shentsize) is smaller than 64") }
        guard shoff < UInt64(bytes.count) else { throw ELFError(message: "section header table is outside the file") }
        let base = Int(shoff)
        let entsize = Int(shentsize)
        if shnum == 0 {
            // More than 0xff00 sections: the real count is section 0's sh_size.
            guard let n = r.u64(base + 32), n < 1 << 24 else { throw ELFError(message: "bad extended section count") }
            shnum = Int(n)
        }
        guard shnum <= (bytes.count - base) / entsize else {
            throw ELFError(message: "section header table (\(shnum) entries) runs past the end of the file")
        }
        typealias Section = (type: UInt32, offset: UInt64, size: UInt64, link: UInt32, entsize: UInt64)
        func section(_ i: Int) -> Section? {
            let at = base + i * entsize
            guard let type = r.u32(at + 4), let offset = r.u64(at + 24), let size = r.u64(at + 32),
                  let link = r.u32(at + 40), let es = r.u64(at + 56) else { return nil }
            return (type, offset, size, link, es)
        }
        var dynsym: Section?
        for i in 0..<shnum {
            guard let s = section(i) else { throw ELFError(message: "truncated section header \(i)") }
            if s.type == SHT_DYNSYM {
                if dynsym != nil { throw ELFError(message: "more than one SHT_DYNSYM section") }
                dynsym = s
            }
        }
        guard let ds = dynsym else { throw ELFError(message: "no .dynsym section (not a shared library?)") }
        guard Int(ds.link) < shnum, let strtab = section(Int(ds.link)) else {
            throw ELFError(message: ".dynsym links to a missing string table (sh_link \(ds.link))")
        }
        let symSize = ds.entsize == 0 ? 24 : Int(clamping: ds.entsize)
        guard symSize >= 24 else { throw ELFError(message: ".dynsym entry size \(ds.entsize) is smaller than 24") }
        let fileSize = UInt64(bytes.count)
        guard ds.offset <= fileSize, ds.size <= fileSize - ds.offset else {
            throw ELFError(message: ".dynsym runs past the end of the file")
        }
        guard strtab.offset <= fileSize, strtab.size <= fileSize - strtab.offset else {
            throw ELFError(message: ".dynstr runs past the end of the file")
        }
        let count = Int(ds.size) / symSize
        var exported: [ELFSymbol] = []
        // Entry 0 is the reserved null symbol.
        for i in 1..<max(count, 1) {
            let at = Int(ds.offset) + i * symSize
            guard let nameOff = r.u32(at), let info = r.u8(at + 4), let shndx = r.u16(at + 6) else {
                throw ELFError(message: "truncated symbol \(i)")
            }
            let binding = info >> 4
            let type = info & 0xf
            guard binding == STB_GLOBAL || binding == STB_WEAK || binding == STB_GNU_UNIQUE, shndx != SHN_UNDEF else { continue }
            guard UInt64(nameOff) < strtab.size,
                  let name = r.cString(Int(strtab.offset) + Int(nameOff), end: Int(strtab.offset + strtab.size)) else {
                throw ELFError(message: "symbol \(i) has a name outside .dynstr")
            }
            exported.append(ELFSymbol(name: name, binding: binding, type: type, sectionIndex: shndx))
        }
        return ELFExports(machine: machine, fileType: eType, exported: exported, dynsymCount: count)
    }

    /// Little-endian reads that return nil out of bounds.
    struct Reader {
        let bytes: [UInt8]
        func u8(_ at: Int) -> UInt8? { at >= 0 && at < bytes.count ? bytes[at] : nil }
        func le(_ at: Int, _ n: Int) -> UInt64? {
            guard at >= 0, n <= bytes.count, at <= bytes.count - n else { return nil }
            var v: UInt64 = 0
            for k in stride(from: n - 1, through: 0, by: -1) { v = v << 8 | UInt64(bytes[at + k]) }
            return v
        }
        func u16(_ at: Int) -> UInt16? { le(at, 2).map { UInt16($0) } }
        func u32(_ at: Int) -> UInt32? { le(at, 4).map { UInt32($0) } }
        func u64(_ at: Int) -> UInt64? { le(at, 8) }
        func cString(_ at: Int, end: Int) -> String? {
            guard at >= 0, end <= bytes.count, at < end else { return nil }
            var i = at
            while i < end && bytes[i] != 0 { i += 1 }
            guard i < end else { return nil }
            return String(decoding: bytes[at..<i], as: UTF8.self)
        }
    }
}
