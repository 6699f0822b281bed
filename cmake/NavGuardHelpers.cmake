# Helpers for NavGuard's CMake build (included by the top-level CMakeLists.txt).

# navguard_swift_sources(<out-var> <module-dir>)
# The .swift files of one SwiftPM module directory, recursively (as SwiftPM
# sees them). Fails when there are none.
function(navguard_swift_sources out dir)
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${dir}/*.swift)
  list(SORT sources)
  if(NOT sources)
    file(RELATIVE_PATH rel ${PROJECT_SOURCE_DIR} ${dir})
    message(FATAL_ERROR "no Swift sources in ${rel}/")
  endif()
  set(${out} ${sources} PARENT_SCOPE)
endfunction()

# navguard_swift_target(<target>)
# Work around CMake 3.25's Ninja rules for Swift, where one swiftc call
# compiles, emits the module and links (or archives):
#  - swiftc leaves an object or .swiftmodule untouched when its content did
#    not change (multi-threaded WMO compares a module hash; incremental builds
#    skip unchanged files), so Ninja saw the target as dirty forever: touch
#    all of them once the step has succeeded;
#  - swiftc adds to an existing archive, so a renamed or deleted source would
#    leave its old object inside, duplicated under WHOLE_ARCHIVE: remove the
#    archive first.
# It also refuses a target not in the language mode SwiftPM uses
# (NAVGUARD_SWIFT_LANGUAGE_MODE, cmake/NavGuardSwift.cmake).
function(navguard_swift_target target)
  get_target_property(type ${target} TYPE)
  get_target_property(module ${target} Swift_MODULE_NAME)
  get_target_property(module_dir ${target} Swift_MODULE_DIRECTORY)
  get_target_property(mode ${target} Swift_LANGUAGE_VERSION)
  if(NOT mode STREQUAL NAVGUARD_SWIFT_LANGUAGE_MODE)
    message(FATAL_ERROR "${target}: Swift_LANGUAGE_VERSION is '${mode}', not ${NAVGUARD_SWIFT_LANGUAGE_MODE} "
      "as in Package.swift (define Swift targets after include(NavGuardSwift))")
  endif()
  if(type STREQUAL "STATIC_LIBRARY")
    add_custom_command(TARGET ${target} PRE_LINK
      COMMAND ${CMAKE_COMMAND} -E rm -f $<TARGET_FILE:${target}>)
  endif()
  add_custom_command(TARGET ${target} POST_BUILD
    COMMAND ${CMAKE_COMMAND} -E touch $<TARGET_OBJECTS:${target}> ${module_dir}/${module}.swiftmodule
    COMMAND_EXPAND_LISTS)
endfunction()

# navguard_add_subdirectories(<dir>)
# add_subdirectory() every directory below <dir> that has a CMakeLists.txt,
# the shallowest one in each branch (a directory with a CMakeLists.txt adds
# its own children itself).
function(navguard_add_subdirectories dir)
  file(GLOB children LIST_DIRECTORIES true ${dir}/*)
  list(SORT children)
  foreach(child IN LISTS children)
    if(NOT IS_DIRECTORY ${child})
      continue()
    endif()
    if(EXISTS ${child}/CMakeLists.txt)
      add_subdirectory(${child})
    else()
      navguard_add_subdirectories(${child})
    endif()
  endforeach()
endfunction()

# navguard_add_optional_subdirectory(<dir>)
# <dir>/CMakeLists.txt if it exists, else every <dir>/**/CMakeLists.txt.
function(navguard_add_optional_subdirectory dir)
  set(path ${CMAKE_CURRENT_SOURCE_DIR}/${dir})
  if(EXISTS ${path}/CMakeLists.txt)
    add_subdirectory(${path})
  elseif(IS_DIRECTORY ${path})
    navguard_add_subdirectories(${path})
  endif()
endfunction()

# navguard_add_export_check(<test-name> <target>
#                           PATTERN <regex> [REQUIRE <symbol>...] [SONAME <soname>])
# A test: every defined dynamic symbol of <target> matches <regex>, each
# REQUIRE symbol is exported, the SONAME is <soname> (when given), no Swift
# runtime library is NEEDED and no RUNPATH/RPATH points into a Swift toolchain.
function(navguard_add_export_check test target)
  cmake_parse_arguments(ARG "" "PATTERN;SONAME" "REQUIRE" ${ARGN})
  foreach(tool NM READELF)
    if(NOT CMAKE_${tool})
      string(TOLOWER ${tool} prog)
      find_program(CMAKE_${tool} ${prog} REQUIRED)
    endif()
  endforeach()
  string(REPLACE ";" "," require "${ARG_REQUIRE}")
  add_test(NAME ${test} COMMAND ${CMAKE_COMMAND}
    -DLIB=$<TARGET_FILE:${target}>
    -DNM=${CMAKE_NM}
    -DREADELF=${CMAKE_READELF}
    -DPATTERN=${ARG_PATTERN}
    -DREQUIRE=${require}
    -DSONAME=${ARG_SONAME}
    -P ${PROJECT_SOURCE_DIR}/cmake/CheckExports.cmake)
endfunction()

# navguard_add_plugin(<name> SOURCES <file>... [OUTPUT_NAME <n>] [LINK_LIBRARIES <lib>...])
# A guard plugin: a shared library (C and/or Swift) exporting only
# ng_plugin_entry, built into ${NAVGUARD_PLUGIN_BUILD_DIR}, installed into
# <prefix>/lib/navguard/plugins, with an export check test plugin_<name>_exports.
# It sees include/ (navguard.h, plugin.h; module CNavGuard for Swift) and does
# not link libnavguard. Swift plugins link NavGuardPluginKit when it exists
# and carry their own static Swift runtime.
function(navguard_add_plugin name)
  cmake_parse_arguments(ARG "NO_INSTALL" "OUTPUT_NAME" "SOURCES;LINK_LIBRARIES" ${ARGN})
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "navguard_add_plugin(${name}): no SOURCES")
  endif()
  set(map ${PROJECT_SOURCE_DIR}/cmake/navguard-plugin.map)
  add_library(${name} SHARED ${ARG_SOURCES})
  string(MAKE_C_IDENTIFIER "NavGuardPlugin_${name}" module)
  set_target_properties(${name} PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY ${NAVGUARD_PLUGIN_BUILD_DIR}
    NO_SONAME ON
    POSITION_INDEPENDENT_CODE ON
    Swift_MODULE_NAME ${module}
    Swift_MODULE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/swift
    LINK_DEPENDS ${map})
  if(ARG_OUTPUT_NAME)
    set_target_properties(${name} PROPERTIES OUTPUT_NAME ${ARG_OUTPUT_NAME})
  endif()
  target_include_directories(${name} PRIVATE ${NAVGUARD_INCLUDE_DIR})
  target_link_options(${name} PRIVATE "LINKER:--version-script=${map}" LINKER:-z,defs)
  set(swift_sources ${ARG_SOURCES})
  list(FILTER swift_sources INCLUDE REGEX "\\.swift$")
  if(swift_sources)
    target_compile_options(${name} PRIVATE "$<$<COMPILE_LANGUAGE:Swift>:${NAVGUARD_SWIFT_OPTIONS}>")
    target_link_options(${name} PRIVATE -static-stdlib -no-toolchain-stdlib-rpath)
    navguard_swift_target(${name})
    if(TARGET NavGuardPluginKit)
      # Whole archive, as SwiftPM links a module: no kit object (its type
      # metadata, protocol conformances) is dropped for lack of a direct
      # reference; the version script keeps all of it local.
      target_link_libraries(${name} PRIVATE "$<LINK_LIBRARY:WHOLE_ARCHIVE,NavGuardPluginKit>")
    endif()
  endif()
  if(ARG_LINK_LIBRARIES)
    target_link_libraries(${name} PRIVATE ${ARG_LINK_LIBRARIES})
  endif()
  if(NOT ARG_NO_INSTALL)   # examples and test plugins stay in the build tree
    install(TARGETS ${name} LIBRARY DESTINATION ${NAVGUARD_INSTALL_PLUGINDIR})
  endif()
  navguard_add_export_check(plugin_${name}_exports ${name}
    PATTERN "^ng_plugin_entry$" REQUIRE ng_plugin_entry)
endfunction()

# navguard_add_bench(<name> SOURCES <file>... [LINK_LIBRARIES <lib>...])
# A C benchmark executable linked to libnavguard, built into
# ${NAVGUARD_BENCH_BUILD_DIR} (`make bench` runs every executable there).
function(navguard_add_bench name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LINK_LIBRARIES" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${NAVGUARD_BENCH_BUILD_DIR}
    C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
  find_package(Threads REQUIRED)
  target_link_libraries(${name} PRIVATE navguard Threads::Threads m ${ARG_LINK_LIBRARIES})
  target_compile_options(${name} PRIVATE "$<$<COMPILE_LANGUAGE:C,CXX>:-Wall;-Wextra>")
endfunction()
