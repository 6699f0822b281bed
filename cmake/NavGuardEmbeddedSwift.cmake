# SPDX-License-Identifier: Apache-2.0
# Embedded Swift: the one place its flags are set, for libnavguard
# (cmake/NavGuardSwift.cmake) and for guard plugins written in Swift
# (cmake/NavGuardGuards.cmake, which includes this file in NavGuard's own
# build and, installed beside it, for plugin authors).
#
# Embedded Swift (-enable-experimental-feature Embedded) compiles a module
# with no Swift runtime to link: generics are specialised, classes keep
# vtables but no reflection metadata, and the few runtime functions used
# (retain/release, allocation, swift_once) are emitted into the module
# itself. A shared library built so needs only libc (and libm for round,
# ceil, sqrt). What the language loses there, and what NavGuard's sources
# therefore avoid: values of protocol type (`any P`; typed throws instead),
# dynamic casts, key paths, reflection, String(describing:), and
# Synchronization.Mutex (not in Embedded Swift's module for Linux).
#
#   NAVGUARD_SWIFT_EMBEDDED   ON (default): Swift targets given to
#                             navguard_embedded_swift() are Embedded; OFF:
#                             ordinary Swift with its runtime linked in
#                             statically (-static-stdlib), the fallback for
#                             code Embedded Swift refuses.
#   NAVGUARD_SWIFT_TARGET     the target triple (default: the host's,
#                             <processor>-unknown-linux-gnu); Embedded Swift's
#                             standard library must exist for it in
#                             <toolchain>/lib/swift/embedded/<triple>/.
#   NAVGUARD_SWIFT_EMBEDDED_FLAGS  more swiftc flags for that triple.
#
# A bare-metal triple (<arch>-none-none-elf) in a build for Linux
# (CMAKE_SYSTEM_NAME Linux: a cross build, cmake/toolchains/) means Linux
# code from Embedded Swift's bare-metal standard library, the only one this
# toolchain has for aarch64 (NAVGUARD_SWIFT_CROSS_LINUX):
#  - the Swift code keeps the bare-metal triple; swiftc's Clang, which reads
#    the C headers (libc, navguard.h) for the same processor, is given the
#    target's glibc headers (CMAKE_SYSROOT's /usr/include/<multiarch> and
#    /usr/include) and the macros a Linux compiler defines (__linux__,
#    __unix__, __gnu_linux__), which the bare-metal triple lacks. The C
#    type sizes and alignments are the processor's ABI (AAPCS64 for both
#    triples); swiftc's -clang-target, which would name Linux instead, makes
#    Embedded Swift lose its standard library;
#  - position-independent code, for shared libraries: swiftc emits it for
#    ELF targets by default (GOT accesses to symbols of other modules);
#    -Xcc -fPIC says so to Clang too, for the C headers' inline functions;
#  - the stack protector stays on (Swift's default): for this triple LLVM
#    reads the canary from the global __stack_chk_guard, which is exactly
#    glibc's aarch64 ABI (the dynamic loader defines it, so a library with a
#    protected function NEEDs ld-linux-aarch64.so.1, as gcc's output does);
#  - the link: swiftc would link for bare metal (crt0.o, no libc, no
#    -shared), so each Swift target is compiled to one object by swiftc
#    and linked by the C compiler (the cross gcc), with the triple's Unicode
#    tables archive (non-PIC code, but it references only its own symbols,
#    which the version scripts keep local, and its pointers are in
#    .data.rel.ro: no text relocation).
#
# navguard_embedded_swift(<target>) applies the mode to one Swift target:
# compile options always, link options too for a shared library or module.

option(NAVGUARD_SWIFT_EMBEDDED "Build libnavguard and Swift guard plugins with Embedded Swift" ON)
if(NOT DEFINED NAVGUARD_SWIFT_TARGET)
  set(_navguard_processor ${CMAKE_SYSTEM_PROCESSOR})
  if(_navguard_processor STREQUAL "amd64")
    set(_navguard_processor x86_64)
  elseif(_navguard_processor STREQUAL "arm64")
    set(_navguard_processor aarch64)
  endif()
  set(NAVGUARD_SWIFT_TARGET ${_navguard_processor}-unknown-linux-gnu CACHE STRING
    "Target triple of the Embedded Swift build (Embedded Swift's stdlib must exist for it)")
endif()
set(NAVGUARD_SWIFT_EMBEDDED_FLAGS "" CACHE STRING "More swiftc flags for the Embedded Swift build (a ;-list)")

# Shared libraries an Embedded Swift library may need beyond libc (and libm):
# on aarch64 the dynamic loader, which defines the stack protector's canary,
# __stack_chk_guard (glibc's aarch64 ABI; x86_64 reads it from the thread
# control block instead).
set(NAVGUARD_SWIFT_EMBEDDED_NEEDED "")
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
  set(NAVGUARD_SWIFT_EMBEDDED_NEEDED ld-linux-aarch64.so.1)
endif()

set(NAVGUARD_SWIFT_CROSS_LINUX OFF)
set(_navguard_swift_cross_flags "")
if(NAVGUARD_SWIFT_EMBEDDED AND CMAKE_SYSTEM_NAME STREQUAL "Linux"
   AND NAVGUARD_SWIFT_TARGET MATCHES "^([^-]+)-none-none-elf$")
  set(NAVGUARD_SWIFT_CROSS_LINUX ON)
  set(_navguard_swift_cross_flags "SHELL:-Xcc -fPIC")
  foreach(macro __linux__ __linux __gnu_linux__ __unix__ __unix)
    list(APPEND _navguard_swift_cross_flags "SHELL:-Xcc -D${macro}=1")
  endforeach()
  set(_navguard_multiarch ${CMAKE_LIBRARY_ARCHITECTURE})
  if(NOT _navguard_multiarch)
    set(_navguard_multiarch ${CMAKE_MATCH_1}-linux-gnu)
  endif()
  # (Without a sysroot: Debian's cross packages, /usr/<multiarch>/include.)
  set(_navguard_libc_includes /usr/${_navguard_multiarch}/include)
  if(CMAKE_SYSROOT)
    set(_navguard_libc_includes ${CMAKE_SYSROOT}/usr/include/${_navguard_multiarch} ${CMAKE_SYSROOT}/usr/include)
  endif()
  foreach(dir IN LISTS _navguard_libc_includes)
    list(APPEND _navguard_swift_cross_flags "SHELL:-Xcc -isystem -Xcc ${dir}")
  endforeach()
  # Every Swift target's rules (CMake 3.25 compiles and links a Swift target
  # in one step): swiftc compiles the module into one object,
  # <module>.o (-num-threads 0 last: one object even where the options ask
  # for more), then the C compiler links it, or ar archives it.
  set(_navguard_swift_compile
    "<CMAKE_Swift_COMPILER> -c -o <OBJECT_DIR>/<SWIFT_MODULE_NAME>.o -module-name <SWIFT_MODULE_NAME> -emit-module -emit-module-path <SWIFT_MODULE> <DEFINES> <FLAGS> <INCLUDES> <SWIFT_SOURCES> -num-threads 0")
  set(_navguard_swift_c_link "<CMAKE_C_COMPILER>")   # CMake adds --sysroot=${CMAKE_SYSROOT}
  set(CMAKE_Swift_CREATE_SHARED_LIBRARY
    "${_navguard_swift_compile} && ${_navguard_swift_c_link} -shared -o <TARGET> <OBJECT_DIR>/<SWIFT_MODULE_NAME>.o <LINK_FLAGS> <SONAME_FLAG> <TARGET_SONAME> <LINK_LIBRARIES>")
  set(CMAKE_Swift_CREATE_SHARED_MODULE ${CMAKE_Swift_CREATE_SHARED_LIBRARY})
  set(CMAKE_Swift_LINK_EXECUTABLE
    "${_navguard_swift_compile} && ${_navguard_swift_c_link} -o <TARGET> <OBJECT_DIR>/<SWIFT_MODULE_NAME>.o <LINK_FLAGS> <LINK_LIBRARIES>")
  set(CMAKE_Swift_CREATE_STATIC_LIBRARY
    "${_navguard_swift_compile} && <CMAKE_AR> crs <TARGET> <OBJECT_DIR>/<SWIFT_MODULE_NAME>.o")
endif()

# Compile: Embedded Swift needs whole-module compilation in every
# configuration; one section per function lets the linker drop what no
# export reaches (the runtime functions and specialisations each module
# emits for itself).
set(NAVGUARD_SWIFT_EMBEDDED_COMPILE_OPTIONS
  -enable-experimental-feature Embedded
  -target ${NAVGUARD_SWIFT_TARGET}
  -wmo
  "SHELL:-Xfrontend -function-sections"
  ${_navguard_swift_cross_flags}
  ${NAVGUARD_SWIFT_EMBEDDED_FLAGS})
# The ordinary fallback's link: the runtime inside, no RUNPATH into the
# toolchain (the library runs where no Swift is installed).
set(NAVGUARD_SWIFT_ORDINARY_LINK_OPTIONS
  -static-stdlib
  -no-toolchain-stdlib-rpath)

# _navguard_embedded_swift_link_options(<out-var>)
# The link of an Embedded Swift shared library or module: swiftc links no
# Swift runtime in this mode; the standard library's Unicode tables (String
# comparison and hashing normalise non-ASCII text), a static archive in the
# toolchain's Embedded Swift directory for the triple, and libm are all it
# needs beyond libc (libm only if used: --as-needed). --gc-sections goes
# with -function-sections. (Computed
# when first needed: a project with no Swift, such as a C guard's, includes
# this file too.)
function(_navguard_embedded_swift_link_options out)
  get_filename_component(bin ${CMAKE_Swift_COMPILER} DIRECTORY)
  set(dir ${bin}/../lib/swift/embedded/${NAVGUARD_SWIFT_TARGET})
  cmake_path(NORMAL_PATH dir)
  if(NOT EXISTS ${dir}/libswiftUnicodeDataTables.a)
    message(FATAL_ERROR "NAVGUARD_SWIFT_EMBEDDED: this Swift toolchain has no Embedded Swift library for "
      "${NAVGUARD_SWIFT_TARGET} (no ${dir}/libswiftUnicodeDataTables.a). Use Swift 6.3 or newer, "
      "set NAVGUARD_SWIFT_TARGET, or configure with -DNAVGUARD_SWIFT_EMBEDDED=OFF (ordinary Swift).")
  endif()
  set(driver -enable-experimental-feature Embedded -target ${NAVGUARD_SWIFT_TARGET})
  if(NAVGUARD_SWIFT_CROSS_LINUX)
    set(driver "")      # the C compiler links
  endif()
  set(${out}
    ${driver}
    LINKER:--gc-sections
    ${dir}/libswiftUnicodeDataTables.a
    LINKER:--push-state,--as-needed,-lm,--pop-state
    PARENT_SCOPE)
endfunction()

# navguard_embedded_swift(<target>)
# <target>'s Swift sources in the mode NAVGUARD_SWIFT_EMBEDDED selects, and
# for a SHARED or MODULE library its link: Embedded (no runtime; Unicode
# tables, libm) or ordinary (-static-stdlib).
function(navguard_embedded_swift target)
  get_target_property(type ${target} TYPE)
  set(linked FALSE)
  if(type STREQUAL "SHARED_LIBRARY" OR type STREQUAL "MODULE_LIBRARY")
    set(linked TRUE)
  endif()
  if(NAVGUARD_SWIFT_EMBEDDED)
    target_compile_options(${target} PRIVATE
      "$<$<COMPILE_LANGUAGE:Swift>:${NAVGUARD_SWIFT_EMBEDDED_COMPILE_OPTIONS}>")
    if(linked)
      _navguard_embedded_swift_link_options(link)
      target_link_options(${target} PRIVATE ${link})
    endif()
  elseif(linked)
    target_link_options(${target} PRIVATE ${NAVGUARD_SWIFT_ORDINARY_LINK_OPTIONS})
  endif()
endfunction()
