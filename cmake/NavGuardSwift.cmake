# SPDX-License-Identifier: Apache-2.0
# Swift settings of the CMake build (included by the top-level CMakeLists.txt
# before any Swift target is defined).
#
# Package.swift and this build compile the same sources in the same language
# mode (6) with the same compiler floor (Swift 6.3: `@c @implementation`,
# SE-0495). Every other difference between the two builds is deliberate and
# listed here, and only here (Package.swift points to this list):
#
#  1. What each builds. CMake ships libnavguard.so, one .so per built-in guard
#     (plugins/), and builds the example plugins, C tests, benchmarks and fuzz
#     harness. SwiftPM builds the same Swift modules for `swift test` (the C
#     guards as one C target, NavGuardBuiltins, linked into the tests) and the
#     `navguard` CLI, which needs swift-argument-parser: CMake does not compile
#     the CLI, it runs `swift build -c release --static-swift-stdlib` into
#     build/swiftpm (cmake/NavGuardCLI.cmake), so bin/navguard has SwiftPM's
#     settings, not the ones below. The validator's checks (NavGuardValidator)
#     and navguard-validator-child are built by both: by SwiftPM into the CLI
#     and as a program, by CMake as a program in Embedded Swift
#     (cmake/NavGuardValidatorChild.cmake), also for a cross build's target.
#  2. Mode and runtime. CMake compiles every Swift module it builds
#     (NavGuardCore, NavGuard, NavGuardPluginKit, Swift guards) with
#     Embedded Swift (cmake/NavGuardEmbeddedSwift.cmake, the one place its
#     flags and the target triple are set): no Swift runtime, so
#     libnavguard.so needs only libc and libm and a Swift guard only libc.
#     SwiftPM compiles the same sources in ordinary Swift, which `swift
#     test` (XCTest, Swift Testing) and the CLI (Foundation,
#     swift-argument-parser) need and Embedded Swift does not have; its
#     dynamic `navguard` product needs the toolchain's libswift*.so. The
#     sources therefore stay inside what both accept: no `any` values or
#     dynamic casts (typed throws; the plugin kit's hook protocols fill in
#     requirements instead of being cast to), no key paths, no reflection or
#     String(describing:), libc through the NavGuardLibc module
#     (Sources/NavGuardLibc/navguard_libc.h) instead of Glibc, and a
#     pthread Lock (Sources/NavGuard/Context/Lock.swift) instead of
#     Synchronization.Mutex, which Embedded Swift lacks on Linux (its
#     Atomic is used in both). `make test` compiles both: SwiftPM's build
#     and `swift test`, then this one. The Embedded build also links
#     Sources/NavGuardC/embedded/ (what Embedded Swift's standard library
#     calls but does not provide; Package.swift excludes it) and the
#     toolchain's Embedded Unicode tables. -DNAVGUARD_SWIFT_EMBEDDED=OFF
#     builds ordinary Swift here too, with the runtime linked in statically
#     (-static-stdlib, no RUNPATH into the toolchain): the fallback, and what
#     `make bench-compare` measures the Embedded build against. Every shared
#     library links with -z defs.
#  3. Linking. Only CMake gives libnavguard a SONAME (libnavguard.so.0),
#     versioned file names and the version script cmake/navguard.map (exports
#     ng_* only); plugins export ng_plugin_entry only (navguard-plugin.map).
#     NavGuardCore and NavGuardPluginKit are static archives linked whole
#     (WHOLE_ARCHIVE), as SwiftPM links a module's objects.
#  4. Optimized configurations (Release, the default of `make`). Both are
#     whole-module, SwiftPM with one LLVM thread per core, CMake in Embedded
#     Swift with one (see NAVGUARD_SWIFT_OPTIONS below; Embedded Swift is
#     whole-module in every configuration, and puts each function in its own
#     section for the linker's --gc-sections); CMake adds
#     -enforce-exclusivity=unchecked (the dynamic exclusivity checks cost ~20%
#     of an event on the hot path; a context is single-threaded by contract)
#     and -cross-module-optimization (the ABI layer inlines the core's hot
#     paths). `swift test` is a SwiftPM debug build: -Onone, exclusivity
#     checked, -enable-testing.
#  5. Debug info. CMake's Release has none (-g only in Debug and
#     RelWithDebInfo); SwiftPM passes -g in both its configurations.
#  6. Defines. Only SwiftPM passes -DSWIFT_PACKAGE (and -DDEBUG in debug) and
#     -package-name (the checkout directory's name); no source tests either
#     define or uses `package` access.
#  7. The C guards. CMake compiles them with the system C compiler, -std=c11,
#     -Wall -Wextra -Wpedantic -Werror, hidden visibility, -O3 -DNDEBUG in
#     Release; SwiftPM with the toolchain's clang and its defaults.

# The floor: older compilers do not know `@c @implementation`.
set(NAVGUARD_SWIFT_MINIMUM_VERSION 6.3)
if(NOT CMAKE_Swift_COMPILER_VERSION OR CMAKE_Swift_COMPILER_VERSION VERSION_LESS NAVGUARD_SWIFT_MINIMUM_VERSION)
  message(FATAL_ERROR
    "NavGuard needs Swift ${NAVGUARD_SWIFT_MINIMUM_VERSION} or newer (`@c @implementation`, SE-0495); "
    "${CMAKE_Swift_COMPILER} is Swift '${CMAKE_Swift_COMPILER_VERSION}'. Put a Swift "
    "${NAVGUARD_SWIFT_MINIMUM_VERSION}+ toolchain first on PATH (or pass -DCMAKE_Swift_COMPILER=) "
    "and configure a fresh build directory.")
endif()

# Swift 6 language mode, as SwiftPM's tools version 6.x: every Swift target
# defined after this line gets -swift-version 6 (navguard_swift_target
# refuses one that does not).
set(NAVGUARD_SWIFT_LANGUAGE_MODE 6)
set(CMAKE_Swift_LANGUAGE_VERSION ${NAVGUARD_SWIFT_LANGUAGE_MODE})

# Options for every Swift module: optimized builds are whole-module; in
# ordinary Swift with LLVM code generation on every core (one object per
# file, as SwiftPM), in Embedded Swift in one LLVM module: Embedded Swift
# emits the runtime functions (retain, release) and the standard library's
# specialisations into the module itself, and split over several objects
# LLVM cannot inline them into their callers (ng_tick on the default chain
# took 83 ns instead of 67). `-num-threads 0` says so explicitly: CMake's
# Swift rule passes -j, which the driver takes as a thread count for WMO
# otherwise. See 4.
cmake_host_system_information(RESULT NAVGUARD_CORES QUERY NUMBER_OF_LOGICAL_CORES)
set(_navguard_codegen_threads ${NAVGUARD_CORES})
if(NAVGUARD_SWIFT_EMBEDDED)
  set(_navguard_codegen_threads 0)
endif()
# -package-name: the modules linked into libnavguard share `package`
# declarations (NavGuardLoader's file and plugin helpers), as SwiftPM's
# package does, without making them public.
set(NAVGUARD_SWIFT_OPTIONS
  -parse-as-library
  "SHELL:-package-name navguard"
  "$<$<CONFIG:Release,RelWithDebInfo,MinSizeRel>:-wmo;-num-threads;${_navguard_codegen_threads};-enforce-exclusivity=unchecked;-cross-module-optimization>")

# Link options for every shared library containing Swift code, beside the
# mode's own (navguard_swift_target); see 2.
set(NAVGUARD_SWIFT_SHARED_LINK_OPTIONS
  LINKER:-z,defs)
