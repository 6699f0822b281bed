# SPDX-License-Identifier: Apache-2.0
# Cross build for aarch64 Linux (arm64) from an x86_64 Debian machine
# (`make cross-arm64`, build-arm64/):
#
#   cmake -S . -B build-arm64 -G Ninja \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake \
#     -DNAVGUARD_CROSS_SYSROOT=<a Debian arm64 root>
#
# C and C++: Debian's cross compilers (gcc-aarch64-linux-gnu,
# g++-aarch64-linux-gnu), which also link everything, the Swift libraries
# included. The sysroot is a Debian 12 arm64 root (ctest/arm64/arm64-root.sh
# makes one with debootstrap): its glibc, libffi and SDL2 are what the
# binaries are compiled and linked against, and what they run with.
#
# Swift: Embedded Swift, whose standard library exists here for the
# bare-metal triple aarch64-none-none-elf only (no aarch64 Linux Swift
# runtime is needed, or installed). What that means for compiling and
# linking is set in cmake/NavGuardEmbeddedSwift.cmake, from the triple given
# here: the Swift code sees the C headers as aarch64 Linux, and the cross gcc
# links. There is no ordinary Swift for aarch64 here: the navguard tool
# (SwiftPM, Foundation, swift-argument-parser) is not built.
#
# Tests run under qemu-user (CMAKE_CROSSCOMPILING_EMULATOR), with the
# sysroot as the prefix its dynamic loader and libraries come from.

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# try_compile projects read this file again: pass the sysroot on.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES NAVGUARD_CROSS_SYSROOT)
if(NOT NAVGUARD_CROSS_SYSROOT OR NOT EXISTS "${NAVGUARD_CROSS_SYSROOT}/usr/include/aarch64-linux-gnu")
  message(FATAL_ERROR "aarch64-linux-gnu.cmake: set -DNAVGUARD_CROSS_SYSROOT to a Debian arm64 root "
    "(ctest/arm64/arm64-root.sh makes one; `make cross-arm64` does it all); got '${NAVGUARD_CROSS_SYSROOT}'")
endif()
set(CMAKE_SYSROOT "${NAVGUARD_CROSS_SYSROOT}")

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
# Headers, libraries and CMake packages from the sysroot only; programs
# (python3, pkg-config, gzip) from this machine.
set(CMAKE_FIND_ROOT_PATH "${NAVGUARD_CROSS_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${NAVGUARD_CROSS_SYSROOT}")
set(ENV{PKG_CONFIG_LIBDIR}
  "${NAVGUARD_CROSS_SYSROOT}/usr/lib/aarch64-linux-gnu/pkgconfig:${NAVGUARD_CROSS_SYSROOT}/usr/share/pkgconfig")

# Swift: the triple of Embedded Swift's aarch64 standard library. CMake
# cannot test-link a Swift program for it (swiftc's own link step targets
# bare metal); the cross gcc links instead (NavGuardEmbeddedSwift.cmake).
set(NAVGUARD_SWIFT_TARGET aarch64-none-none-elf CACHE STRING "Embedded Swift target triple")
set(CMAKE_Swift_COMPILER_WORKS TRUE)

# Programs built here run under qemu-user, their loader and libraries taken
# from the sysroot (-L).
find_program(NAVGUARD_QEMU_AARCH64 qemu-aarch64-static)
if(NOT NAVGUARD_QEMU_AARCH64)
  message(FATAL_ERROR "aarch64-linux-gnu.cmake: qemu-aarch64-static not found: apt-get install -y qemu-user-static")
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR "${NAVGUARD_QEMU_AARCH64};-L;${NAVGUARD_CROSS_SYSROOT}")
