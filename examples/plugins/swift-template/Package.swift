// swift-tools-version: 6.3
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
//  - the Swift runtime linked in (-static-stdlib), so the guard runs in hosts
//    with no Swift: SwiftPM's --static-swift-stdlib applies to executables only;
//  - one export, ng_plugin_entry: the version script installed beside the
//    kit keeps every other symbol (the guard's, the kit's, the runtime's) local.
// These are unsafe flags, which SwiftPM accepts in the package it builds (a
// guard is one), not in a package others depend on.
import PackageDescription

let prefix = Context.environment["NAVGUARD_PREFIX"] ?? "/usr"
let kit = "\(prefix)/share/navguard/swift"

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
            linkerSettings: [
                .unsafeFlags(["-static-stdlib",
                              "-Xlinker", "--version-script=\(kit)/navguard-plugin.map",
                              "-Xlinker", "-z", "-Xlinker", "defs"]),
            ]),
    ],
    swiftLanguageModes: [.v6]
)
