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
#     settings, not the ones below.
#  2. Runtime. Every CMake shared library with Swift code links the Swift
#     runtime statically (-static-stdlib), with no RUNPATH into the toolchain
#     and -z defs; SwiftPM's dynamic `navguard` product needs the toolchain's
#     libswift*.so.
#  3. Linking. Only CMake gives libnavguard a SONAME (libnavguard.so.0),
#     versioned file names and the version script cmake/navguard.map (exports
#     ng_* only); plugins export ng_plugin_entry only (navguard-plugin.map).
#     NavGuardCore and NavGuardPluginKit are static archives linked whole
#     (WHOLE_ARCHIVE), as SwiftPM links a module's objects.
#  4. Optimized configurations (Release, the default of `make`). Both are
#     whole-module with one LLVM thread per core; CMake adds
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

# Options for every Swift module: optimized builds are whole-module, with LLVM
# code generation on every core (one object per file, as SwiftPM); see 4.
cmake_host_system_information(RESULT NAVGUARD_CORES QUERY NUMBER_OF_LOGICAL_CORES)
set(NAVGUARD_SWIFT_OPTIONS
  -parse-as-library
  "$<$<CONFIG:Release,RelWithDebInfo,MinSizeRel>:-wmo;-num-threads;${NAVGUARD_CORES};-enforce-exclusivity=unchecked;-cross-module-optimization>")

# Link options for every shared library containing Swift code; see 2.
set(NAVGUARD_SWIFT_SHARED_LINK_OPTIONS
  -static-stdlib
  -no-toolchain-stdlib-rpath
  LINKER:-z,defs)
