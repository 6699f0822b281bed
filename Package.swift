// swift-tools-version: 6.1
// SwiftPM is the source of truth for which sources belong to which module;
// CMakeLists.txt builds the same directories.
import PackageDescription

let package = Package(
    name: "NavGuard",
    products: [
        .library(name: "navguard", type: .dynamic, targets: ["NavGuard"]),
    ],
    targets: [
        // The hand-written C headers, shared by C hosts, plugins and Swift.
        .target(name: "CNavGuard", path: "include", publicHeadersPath: "."),
        // Pure, deterministic core: no I/O, no dlopen, no globals, clock injected.
        .target(name: "NavGuardCore", dependencies: ["CNavGuard"]),
        // Thin C ABI: @c @implementation exports of include/navguard/*.h.
        .target(name: "NavGuard", dependencies: ["NavGuardCore", "CNavGuard"]),
        // The built-in guards, written against plugin.h only. CMake also builds
        // each as its own shared library exporting only ng_plugin_entry.
        .target(name: "NavGuardBuiltins", dependencies: ["CNavGuard"], path: "plugins",
                exclude: ["CMakeLists.txt"],
                publicHeadersPath: "include",
                linkerSettings: [.linkedLibrary("ffi"), .linkedLibrary("dl")]),
        .testTarget(name: "NavGuardCoreTests", dependencies: ["NavGuardCore", "CNavGuard"]),
        .testTarget(name: "NavGuardABITests", dependencies: ["NavGuard", "CNavGuard"]),
        .testTarget(name: "NavGuardGuardTests", dependencies: ["NavGuardCore", "CNavGuard", "NavGuardBuiltins"]),
    ]
)
