# SPDX-License-Identifier: Apache-2.0
# A build under the sanitizers (`make test-sanitize`; included by the
# top-level CMakeLists.txt after NavGuardSwift, before any target).
#
#   -DNAVGUARD_SANITIZE=address   AddressSanitizer for the Swift and C code,
#                                 UndefinedBehaviorSanitizer for the C code
#   -DNAVGUARD_SANITIZE=thread    ThreadSanitizer for the Swift and C code
#
# The C compiler must be the Swift toolchain's clang: its sanitizer runtimes
# are the ones swiftc instruments for. What is instrumented: libnavguard's
# Swift modules (NavGuardCore and NavGuard, swiftc -sanitize=address or
# =thread; swiftc has no -sanitize=undefined on Linux, and Swift traps on
# overflow and out-of-bounds itself) and its C part (NavGuardC), the built-in
# guard plugins, the C tests, the fuzz harness's replay and the SDL2 adapter
# with its test. Not instrumented: the Swift runtime linked in statically,
# libc, libffi, SDL, Qt. The runtimes are linked into each executable; the
# libraries (libnavguard.so, the plugins) take their symbols from it.
#
# ThreadSanitizer: the toolchain's TSan runtime intercepts libdispatch and
# Blocks (compiler-rt built for Swift), so a C program linked with
# -fsanitize=thread alone fails ("undefined reference to
# 'dispatch_queue_offsets'", "... '_Block_copy'"); executables here also
# link the toolchain's libdispatch and libBlocksRuntime.
#
# Only libnavguard, the plugins and the C tests are meant to be built in
# such a tree: the navguard CLI (SwiftPM), the examples, the benchmarks and
# the tests of an installed tree are left out.
set(NAVGUARD_SANITIZE "" CACHE STRING "Build under sanitizers: address (ASan + UBSan for C) or thread (TSan)")

if(NAVGUARD_SANITIZE STREQUAL "")
  return()
endif()
if(NOT NAVGUARD_SANITIZE MATCHES "^(address|thread)$")
  message(FATAL_ERROR "NAVGUARD_SANITIZE is '${NAVGUARD_SANITIZE}': use address or thread")
endif()
if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "NAVGUARD_SANITIZE needs the Swift toolchain's clang as the C compiler "
    "(-DCMAKE_C_COMPILER=/opt/swift/usr/bin/clang); it is ${CMAKE_C_COMPILER_ID} ${CMAKE_C_COMPILER}")
endif()

if(NAVGUARD_SANITIZE STREQUAL "address")
  set(_navguard_c_sanitizers address,undefined)
else()
  set(_navguard_c_sanitizers thread)
endif()
# Every finding stops the program: a test fails instead of printing on.
add_compile_options(
  "$<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=${_navguard_c_sanitizers};-fno-sanitize-recover=all;-fno-omit-frame-pointer;-g>")
list(APPEND NAVGUARD_SWIFT_OPTIONS -sanitize=${NAVGUARD_SANITIZE} -g)
# Executables carry the runtimes (exported to the libraries they load);
# libnavguard and the plugins leave the runtime's symbols to them, so their
# -z defs goes (here, and for plugins in navguard_plugin_in_tree). Linked
# with the toolchain's lld, as the fuzz harness is: gold warns about every
# sanitizer symbol an executable exports.
list(APPEND NAVGUARD_SWIFT_SHARED_LINK_OPTIONS -sanitize=${NAVGUARD_SANITIZE} -use-ld=lld)
list(REMOVE_ITEM NAVGUARD_SWIFT_SHARED_LINK_OPTIONS LINKER:-z,defs)
add_link_options("$<$<LINK_LANGUAGE:C,CXX>:-fuse-ld=lld>"
  "$<$<AND:$<LINK_LANGUAGE:C,CXX>,$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>>:-fsanitize=${_navguard_c_sanitizers}>")
if(NAVGUARD_SANITIZE STREQUAL "thread")
  get_filename_component(_navguard_swift_bin ${CMAKE_Swift_COMPILER} DIRECTORY)
  set(_navguard_swift_linux ${_navguard_swift_bin}/../lib/swift/linux)
  foreach(lib dispatch BlocksRuntime)
    if(NOT EXISTS ${_navguard_swift_linux}/lib${lib}.so)
      message(FATAL_ERROR "NAVGUARD_SANITIZE=thread: no lib${lib}.so in ${_navguard_swift_linux} (the toolchain's TSan runtime needs it)")
    endif()
  endforeach()
  add_link_options(
    "$<$<AND:$<LINK_LANGUAGE:C,CXX>,$<STREQUAL:$<TARGET_PROPERTY:TYPE>,EXECUTABLE>>:-L${_navguard_swift_linux};-ldispatch;-lBlocksRuntime;-Wl,-rpath,${_navguard_swift_linux}>")
endif()
message(STATUS "NAVGUARD_SANITIZE=${NAVGUARD_SANITIZE}: C -fsanitize=${_navguard_c_sanitizers}, Swift -sanitize=${NAVGUARD_SANITIZE}")
