// swift-tools-version: 6.3
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
// Embedded module imports only Embedded modules); NAVGUARD_SWIFT_EMBEDDED=OFF
// in the environment builds it in ordinary Swift instead, for a guard whose
// own code Embedded Swift refuses. Embedded Swift needs whole-module
// compilation in every configuration: -wmo is an unsafe flag, which SwiftPM
// accepts in a package a guard depends on by path.
import PackageDescription

let embedded = Context.environment["NAVGUARD_SWIFT_EMBEDDED"] != "OFF"

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
                                           .unsafeFlags(["-wmo", "-Xfrontend", "-function-sections"])] : []),
    ],
    swiftLanguageModes: [.v6]
)
