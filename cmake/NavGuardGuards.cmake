# SPDX-License-Identifier: Apache-2.0
# Guard plugins with CMake: navguard_add_guard (C, C++ or Swift) and
# navguard_add_swift_guard (Swift with NavGuardPluginKit).
#
# One file, two users: it is installed beside NavGuardConfig.cmake, which
# includes it (find_package(NavGuard) -> these functions), and NavGuard's own
# build includes it from cmake/NavGuardHelpers.cmake and builds the built-in
# guards and the templates with it (navguard_plugin_in_tree adds the in-tree
# checks). So a guard is linked by the same rule in this source tree and
# against an install.
#
# Needs the target NavGuard::plugin: the headers (navguard.h, plugin.h) and,
# for Swift, the directory of the CNavGuard module map. A Swift guard also
# needs the Swift language enabled (project(... LANGUAGES Swift), Ninja
# generator) and the NavGuardPluginKit target, which navguard_add_swift_guard
# compiles from the kit's installed sources (NavGuard_SWIFT_DIR) when the
# project does not already have one (NavGuard's own build does).

# navguard-plugin.map sits beside this file, in the source tree and installed.
set(_NAVGUARD_GUARD_MAP ${CMAKE_CURRENT_LIST_DIR}/navguard-plugin.map)
# Embedded Swift (NAVGUARD_SWIFT_EMBEDDED, the target triple): beside it too.
include(${CMAKE_CURRENT_LIST_DIR}/NavGuardEmbeddedSwift.cmake)

# Swift options of a guard and of the kit: library files (no top-level code),
# whole-module in optimized builds as SwiftPM does.
set(_NAVGUARD_GUARD_SWIFT_OPTIONS
  -parse-as-library
  "$<$<CONFIG:Release,RelWithDebInfo,MinSizeRel>:-wmo>")

# navguard_add_guard(<target> SOURCES <file>... [ID <id>] [OUTPUT_NAME <name>])
# A guard plugin: a MODULE library (dlopened, never linked to) that exports
# only ng_plugin_entry (version script navguard-plugin.map; hidden visibility
# for C and C++), links with -z defs and sees navguard.h and plugin.h (or the
# Swift module CNavGuard). It does not link libnavguard: a guard reaches the
# host through the table handed to its create(). The file is
# <last label of ID>.so (quiet-hours.so for org.example.quiet-hours), the name
# a chain entry {"id": ...} is looked up by; OUTPUT_NAME overrides it, and
# without either it is <target>.so. Swift sources are compiled in Swift 6
# mode unless the project chose another, with Embedded Swift (no Swift
# runtime: the guard needs only libc, and a few tens of KiB), or with
# -DNAVGUARD_SWIFT_EMBEDDED=OFF in ordinary Swift with the runtime linked in
# statically (-static-stdlib, several MiB), for code Embedded Swift refuses
# (NavGuardEmbeddedSwift.cmake). Either way the guard runs in hosts without
# a Swift toolchain.
function(navguard_add_guard target)
  cmake_parse_arguments(ARG "" "ID;OUTPUT_NAME" "SOURCES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "navguard_add_guard(${target}): no SOURCES")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "navguard_add_guard(${target}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  set(name ${target})
  if(ARG_OUTPUT_NAME)
    set(name ${ARG_OUTPUT_NAME})
  elseif(DEFINED ARG_ID)
    # plugin.h's id rule: [A-Za-z0-9._-], at least one dot, no empty label.
    if(NOT ARG_ID MATCHES "^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)+$")
      message(FATAL_ERROR "navguard_add_guard(${target}): ID '${ARG_ID}' is not a reverse-DNS id (org.example.name)")
    endif()
    string(REGEX REPLACE "^.*\\." "" name "${ARG_ID}")
  endif()

  set(swift_sources ${ARG_SOURCES})
  list(FILTER swift_sources INCLUDE REGEX "\\.swift$")
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(swift_sources AND NOT "Swift" IN_LIST languages)
    message(FATAL_ERROR "navguard_add_guard(${target}): Swift sources, but Swift is not enabled: "
      "project(<name> LANGUAGES Swift), with the Ninja generator (-G Ninja)")
  endif()

  add_library(${target} MODULE ${ARG_SOURCES})
  string(MAKE_C_IDENTIFIER "${target}" module)
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    OUTPUT_NAME ${name}
    POSITION_INDEPENDENT_CODE ON
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    Swift_MODULE_NAME ${module}
    Swift_MODULE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/swift
    LINK_DEPENDS ${_NAVGUARD_GUARD_MAP})
  target_link_libraries(${target} PRIVATE NavGuard::plugin)
  target_link_options(${target} PRIVATE "LINKER:--version-script=${_NAVGUARD_GUARD_MAP}" LINKER:-z,defs)

  if(swift_sources)
    get_target_property(mode ${target} Swift_LANGUAGE_VERSION)
    if(NOT mode)
      set_target_properties(${target} PROPERTIES Swift_LANGUAGE_VERSION 6)
    endif()
    target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:Swift>:${_NAVGUARD_GUARD_SWIFT_OPTIONS}>")
    navguard_embedded_swift(${target})
    _navguard_swift_ninja(${target})
  endif()
endfunction()

# navguard_add_swift_guard(<target> SOURCES <file.swift>... [ID <id>] [OUTPUT_NAME <name>])
# navguard_add_guard, with NavGuardPluginKit (import NavGuardPluginKit)
# linked in whole, as SwiftPM links a module: no kit object (type metadata, a
# protocol conformance) is dropped for lack of a direct reference; the
# version script keeps all of it local.
function(navguard_add_swift_guard target)
  navguard_add_guard(${target} ${ARGN})
  _navguard_plugin_kit()
  target_link_libraries(${target} PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,NavGuardPluginKit>")
endfunction()

# The NavGuardPluginKit static library, compiled once per project from the
# installed sources: a .swiftmodule only loads in the compiler that wrote it,
# so the kit ships as source.
function(_navguard_plugin_kit)
  if(TARGET NavGuardPluginKit)
    return()
  endif()
  file(GLOB_RECURSE sources ${NavGuard_SWIFT_DIR}/NavGuardPluginKit/*.swift)
  if(NOT sources)
    message(FATAL_ERROR "navguard_add_swift_guard: no NavGuardPluginKit sources in '${NavGuard_SWIFT_DIR}/NavGuardPluginKit' (is the NavGuard -dev install complete?)")
  endif()
  set(module_dir ${CMAKE_BINARY_DIR}/navguard-plugin-kit)
  add_library(NavGuardPluginKit STATIC ${sources})
  set_target_properties(NavGuardPluginKit PROPERTIES
    Swift_MODULE_NAME NavGuardPluginKit
    Swift_MODULE_DIRECTORY ${module_dir}
    Swift_LANGUAGE_VERSION 6                 # the kit is written for Swift 6 mode
    POSITION_INDEPENDENT_CODE ON)
  target_compile_options(NavGuardPluginKit PRIVATE ${_NAVGUARD_GUARD_SWIFT_OPTIONS})
  target_include_directories(NavGuardPluginKit PUBLIC ${module_dir})
  target_link_libraries(NavGuardPluginKit PUBLIC NavGuard::plugin)
  navguard_embedded_swift(NavGuardPluginKit)
  _navguard_swift_ninja(NavGuardPluginKit)
endfunction()

# _navguard_swift_ninja(<target>)
# Work around CMake 3.25's Ninja rules for Swift, where one swiftc call
# compiles, emits the module and links (or archives):
#  - swiftc leaves an object or .swiftmodule untouched when its content did
#    not change (multi-threaded WMO compares a module hash; incremental builds
#    skip unchanged files), so Ninja saw the target as dirty forever: touch
#    all of them once the step has succeeded;
#  - swiftc adds to an existing archive, so a renamed or deleted source would
#    leave its old object inside, duplicated under WHOLE_ARCHIVE: remove the
#    archive first.
function(_navguard_swift_ninja target)
  get_target_property(type ${target} TYPE)
  get_target_property(module ${target} Swift_MODULE_NAME)
  get_target_property(module_dir ${target} Swift_MODULE_DIRECTORY)
  if(type STREQUAL "STATIC_LIBRARY")
    add_custom_command(TARGET ${target} PRE_LINK
      COMMAND ${CMAKE_COMMAND} -E rm -f $<TARGET_FILE:${target}>)
  endif()
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -E touch $<TARGET_OBJECTS:${target}> ${module_dir}/${module}.swiftmodule
    COMMAND_EXPAND_LISTS)
endfunction()
