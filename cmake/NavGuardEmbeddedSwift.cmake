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
#   NAVGUARD_SWIFT_EMBEDDED_FLAGS  more swiftc flags for that triple (e.g. a
#                             cross build's -Xcc --sysroot=...).
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

# Compile: Embedded Swift needs whole-module compilation in every
# configuration; one section per function lets the linker drop what no
# export reaches (the runtime functions and specialisations each module
# emits for itself).
set(NAVGUARD_SWIFT_EMBEDDED_COMPILE_OPTIONS
  -enable-experimental-feature Embedded
  -target ${NAVGUARD_SWIFT_TARGET}
  -wmo
  "SHELL:-Xfrontend -function-sections"
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
  set(${out}
    -enable-experimental-feature Embedded
    -target ${NAVGUARD_SWIFT_TARGET}
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
