// swift-tools-version: 6.3
// SPDX-License-Identifier: Apache-2.0
// SwiftPM is the source of truth for which sources belong to which module;
// CMakeLists.txt builds the same directories, in the same Swift 6 language
// mode. Tools version 6.3 is the compiler floor (`@c @implementation`,
// SE-0495): an older SwiftPM refuses the package by name. The deliberate
// differences from the CMake build are listed in cmake/NavGuardSwift.cmake.
import PackageDescription

let package = Package(
    name: "NavGuard",
    products: [
        .library(name: "navguard", type: .dynamic, targets: ["NavGuard"]),
        // The `navguard` command-line tool (installed as bin/navguard). The
        // product cannot be named "navguard": SwiftPM would resolve
        // `--product navguard` to the library above and never link the tool.
        .executable(name: "navguard-cli", targets: ["navguard-cli"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // The hand-written C headers, shared by C hosts, plugins and Swift.
        .target(name: "CNavGuard", path: "include", publicHeadersPath: "."),
        // Pure, deterministic core: no I/O, no dlopen, no globals, clock injected.
        .target(name: "NavGuardCore", dependencies: ["CNavGuard"]),
        // The C part of libnavguard: the name functions (ng_strstatus,
        // ng_*_name, ng_version_string) generated from the headers' X-macro
        // tables, and a private header for what Swift cannot write (the
        // thread id read by every owner check).
        // (embedded/: what Embedded Swift's standard library lacks, linked
        // into CMake's Embedded build only; cmake/NavGuardSwift.cmake.)
        .target(name: "NavGuardC", dependencies: ["CNavGuard"], exclude: ["embedded"]),
        .systemLibrary(name: "NavGuardLibc", path: "Sources/NavGuardLibc"),
        // The flight recorder's format: the records' byte layout (each call's
        // encoder beside its reader), their JSON Lines form (the trace), the
        // ring's checkpoint, and the readers of traces and crash dumps. Read by
        // the library (recording, replay) and by `navguard` (timeline, stats).
        // (NavGuardC for the libc headers' module, NavGuardLibc, and the name
        // functions its lines write.)
        .target(name: "NavGuardTrace", dependencies: ["NavGuardCore", "CNavGuard", "NavGuardLibc"]),
        // Thin C ABI: @c @implementation exports of include/navguard/*.h, the
        // flight recorder's glue, replay and the crash handler.
        .target(name: "NavGuardLoader", dependencies: ["NavGuardCore", "CNavGuard", "NavGuardC", "NavGuardLibc"]),
        .target(name: "NavGuard", dependencies: ["NavGuardCore", "NavGuardTrace", "NavGuardLoader", "CNavGuard", "NavGuardC", "NavGuardLibc"]),
        // The built-in guards, written against plugin.h only. CMake also builds
        // each as its own shared library exporting only ng_plugin_entry.
        .target(name: "NavGuardBuiltins", dependencies: ["CNavGuard"], path: "plugins",
                exclude: ["CMakeLists.txt"],
                publicHeadersPath: "include",
                linkerSettings: [.linkedLibrary("ffi"), .linkedLibrary("dl")]),
        // Helpers for guard plugins written in Swift: plugin.h only (imports
        // CNavGuard, never the core). CMake links it into every Swift plugin.
        .target(name: "NavGuardPluginKit", dependencies: ["CNavGuard"]),
        // The tool's argv, captured in C: Swift reads it from /proc otherwise.
        .target(name: "NavGuardCLIArgs"),
        // The plugin validator's checks, run in a child process per group
        // (its child side), and the helpers the tool shares with it. No
        // Foundation: CMake also compiles it in Embedded Swift, into
        // navguard-validator-child. Calls NavGuard through the C ABI only.
        .target(name: "NavGuardValidator", dependencies: ["NavGuardCore", "CNavGuard", "NavGuardC", "NavGuardLibc"]),
        // The validator's child as a program of its own (`navguard plugins
        // validate --child-program`): what runs the checks on a guard built
        // for another machine, under an emulator (make test-arm64).
        .executableTarget(name: "navguard-validator-child",
                          dependencies: ["NavGuardValidator", "NavGuard", "NavGuardCLIArgs", "NavGuardLibc"]),
        // `navguard plugins validate|list`, `navguard version`. Links the NavGuard
        // module statically (a target dependency, not the dynamic product).
        .executableTarget(name: "navguard-cli",
                          dependencies: ["NavGuard", "NavGuardTrace", "NavGuardLoader", "NavGuardCore", "CNavGuard", "NavGuardC", "NavGuardCLIArgs", "NavGuardValidator",
                                         .product(name: "ArgumentParser", package: "swift-argument-parser")],
                          path: "Sources/navguard-cli"),
        .testTarget(name: "NavGuardCoreTests", dependencies: ["NavGuardCore", "CNavGuard"]),
        .testTarget(name: "NavGuardABITests", dependencies: ["NavGuard", "NavGuardTrace", "CNavGuard"]),
        // --export-dynamic: the ffi-predicate tests look up predicates defined
        // in the test program by name, as a host linked with -rdynamic would.
        .testTarget(name: "NavGuardGuardTests", dependencies: ["NavGuardCore", "CNavGuard", "NavGuardBuiltins"],
                    linkerSettings: [.unsafeFlags(["-Xlinker", "--export-dynamic"])]),
        // NavGuardCore only drives an Engine for the kit's guards.
        .testTarget(name: "NavGuardPluginKitTests", dependencies: ["NavGuardPluginKit", "CNavGuard", "NavGuardCore"]),
    ],
    // The default for tools version 6.x, written out: CMake sets the same.
    swiftLanguageModes: [.v6]
)
