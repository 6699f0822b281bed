// swift-tools-version: 6.3
// SPDX-License-Identifier: Apache-2.0
// NavGuardPluginKit for guard plugins built with SwiftPM. Installed with
// NavGuard's development files as <prefix>/share/navguard/swift/Package.swift,
// beside the kit's sources (NavGuardPluginKit/) and the C headers as a Swift
// module (CNavGuard/module.modulemap, pointing at <prefix>/include/navguard).
// A guard's own package uses it by path:
//
//     dependencies: [.package(path: "/usr/share/navguard/swift")],
//     ... dependencies: [.product(name: "NavGuardPluginKit", package: "swift")]
//
// (SwiftPM names a path dependency after its directory: "swift"). What the
// guard's package needs besides (one export, Embedded Swift's link):
// examples/plugins/README.md, "Swift with SwiftPM". The kit is sources, built
// by the guard author's compiler: a .swiftmodule loads only in the compiler
// that wrote it.
//
// The kit compiles with Embedded Swift, as the guard must then too (an
// Embedded module imports only Embedded modules), and its link settings,
// which SwiftPM applies to every library that links the kit, make the guard's
// link Embedded too: no Swift runtime, one section per function and
// --gc-sections, and the toolchain's Embedded Unicode tables (String
// comparison and hashing of non-ASCII text need them; found beside the swiftc
// first on PATH). NAVGUARD_SWIFT_EMBEDDED=OFF in the environment builds
// ordinary Swift instead, the runtime linked in (-static-stdlib), for a guard
// whose own code Embedded Swift refuses. Embedded Swift needs whole-module
// compilation in every configuration. These are unsafe flags, which SwiftPM
// accepts in a package a guard depends on by path.
import Foundation
import PackageDescription

let embedded = Context.environment["NAVGUARD_SWIFT_EMBEDDED"] != "OFF"

#if arch(arm64)
let triple = "aarch64-unknown-linux-gnu"
#else
let triple = "x86_64-unknown-linux-gnu"
#endif
let unicodeTables: [String] = (Context.environment["PATH"] ?? "").split(separator: ":").lazy
    .filter { FileManager.default.isExecutableFile(atPath: "\($0)/swiftc") }
    .map { "\($0)/../lib/swift/embedded/\(triple)/libswiftUnicodeDataTables.a" }
    .first { FileManager.default.fileExists(atPath: $0) }.map { [$0] } ?? []

let package = Package(
    name: "NavGuardPluginKit",
    products: [
        .library(name: "NavGuardPluginKit", targets: ["NavGuardPluginKit"]),
    ],
    targets: [
        // navguard.h and plugin.h, as the module CNavGuard.
        .systemLibrary(name: "CNavGuard", path: "CNavGuard"),
        // plugin.h in Swift; imports CNavGuard and Synchronization only.
        .target(name: "NavGuardPluginKit", dependencies: ["CNavGuard"], path: "NavGuardPluginKit",
                swiftSettings: embedded ? [.enableExperimentalFeature("Embedded"),
                                           .unsafeFlags(["-wmo", "-Xfrontend", "-function-sections"])] : [],
                linkerSettings: [.unsafeFlags(embedded
                    ? ["-enable-experimental-feature", "Embedded", "-Xlinker", "--gc-sections"] + unicodeTables
                    : ["-static-stdlib"])]),
    ],
    swiftLanguageModes: [.v6]
)
