// swift-tools-version: 6.3
// SPDX-License-Identifier: Apache-2.0
// examples/plugins/swift-template with SwiftPM instead of CMake: the guard
// org.example.max-depth as a shared library, against an installed NavGuard
// (the libnavguard-dev package: /usr; any other prefix: NAVGUARD_PREFIX).
//
//   NAVGUARD_PREFIX=$HOME/navguard swift build -c release
//   cp .build/release/libmax-depth.so max-depth.so     # named after the id's last label
//   navguard plugins validate --config '{"max_depth": 3}' max-depth.so
//
// What a guard's package needs (examples/plugins/README.md, "Swift with SwiftPM"):
//  - a .dynamic library product, which NavGuard dlopens;
//  - NavGuardPluginKit from the installed package, by path;
//  - Embedded Swift, as the kit: the feature and whole-module compilation for
//    the guard's own target (the kit's package sets its link: no Swift
//    runtime, the guard needs only libc and weighs a few tens of KiB);
//  - one export, ng_plugin_entry: the version script installed beside the
//    kit keeps every other symbol (the guard's, the kit's) local; lld, which
//    lists no Swift type in .dynsym.
// NAVGUARD_SWIFT_EMBEDDED=OFF builds the ordinary Swift fallback instead, the
// kit and the guard (the runtime linked in with -static-stdlib: several MiB,
// no Swift needed at run time either). These are unsafe flags, which SwiftPM
// accepts in the package it builds (a guard is one) and in packages it
// depends on by path.
import PackageDescription

let prefix = Context.environment["NAVGUARD_PREFIX"] ?? "/usr"
let kit = "\(prefix)/share/navguard/swift"
let embedded = Context.environment["NAVGUARD_SWIFT_EMBEDDED"] != "OFF"

let package = Package(
    name: "max-depth",
    products: [
        .library(name: "max-depth", type: .dynamic, targets: ["MaxDepth"]),
    ],
    dependencies: [
        .package(path: kit),
    ],
    targets: [
        .target(
            name: "MaxDepth",
            dependencies: [.product(name: "NavGuardPluginKit", package: "swift")],
            path: "Sources",
            swiftSettings: embedded ? [.enableExperimentalFeature("Embedded"),
                                       .unsafeFlags(["-wmo", "-Xfrontend", "-function-sections"])] : [],
            linkerSettings: [
                .unsafeFlags(["-use-ld=lld",
                              "-Xlinker", "--version-script=\(kit)/navguard-plugin.map",
                              "-Xlinker", "-z", "-Xlinker", "defs"]),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
