# SPDX-License-Identifier: Apache-2.0
# Helpers for NavGuard's CMake build (included by the top-level CMakeLists.txt).
# They use NavGuard_SOURCE_DIR, not PROJECT_SOURCE_DIR: a template under
# examples/ is a project() of its own, also when added to this build.

# navguard_add_guard, navguard_add_swift_guard: the guard rule, also installed.
include(NavGuardGuards)

# navguard_install_adapter_docs(<adapter> <example files...>)
# An adapter's guide (README.md beside the calling CMakeLists.txt) and its
# out-of-tree example, for readers of an install: `make install` puts them in
# share/doc/navguard/adapters/<adapter> and share/doc/navguard/examples/<adapter>
# (component docs, which no package takes); the -dev package in Debian's place
# for its documentation, /usr/share/doc/libnavguard-dev/{adapters,examples}/<adapter>
# (EXCLUDE_FROM_ALL: only CPack installs it). ctest package_deb checks that the
# two hold the same files, installed_adapter_docs that an install has them.
function(navguard_install_adapter_docs adapter)
  foreach(dest navguard:docs: libnavguard-dev:dev:EXCLUDE_FROM_ALL)
    string(REPLACE ":" ";" dest "${dest}")
    list(GET dest 0 docdir)
    list(GET dest 1 component)
    list(GET dest 2 exclude)
    install(FILES README.md DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${docdir}/adapters/${adapter}
      COMPONENT ${component} ${exclude})
    install(FILES ${ARGN} DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${docdir}/examples/${adapter}
      COMPONENT ${component} ${exclude})
  endforeach()
endfunction()

# navguard_swift_sources(<out-var> <module-dir>)
# The .swift files of one SwiftPM module directory, recursively (as SwiftPM
# sees them). Fails when there are none.
function(navguard_swift_sources out dir)
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${dir}/*.swift)
  list(SORT sources)
  if(NOT sources)
    file(RELATIVE_PATH rel ${NavGuard_SOURCE_DIR} ${dir})
    message(FATAL_ERROR "no Swift sources in ${rel}/")
  endif()
  set(${out} ${sources} PARENT_SCOPE)
endfunction()

# navguard_swift_module(<target> <module> <module-dir> SOURCES <files>...
#                       [PRIVATE_INCLUDES <dirs>...] [DEPENDS <targets>...]
#                       [OPTIONS <swiftc options>...])
# One Swift module as a static library linked whole into a shared one
# (libnavguard, or the fuzz build's instrumented copy): position-independent,
# its .swiftmodule written to <module-dir>, which its users search with the
# public headers. DEPENDS: the modules it imports, built first.
function(navguard_swift_module target module moddir)
  cmake_parse_arguments(arg "" "" "SOURCES;PRIVATE_INCLUDES;DEPENDS;OPTIONS" ${ARGN})
  add_library(${target} STATIC ${arg_SOURCES})
  set_target_properties(${target} PROPERTIES
    Swift_MODULE_NAME ${module}
    Swift_MODULE_DIRECTORY ${moddir}
    POSITION_INDEPENDENT_CODE ON)
  target_compile_options(${target} PRIVATE ${NAVGUARD_SWIFT_OPTIONS} ${arg_OPTIONS})
  target_include_directories(${target} PUBLIC ${NAVGUARD_INCLUDE_DIR} ${moddir} PRIVATE ${arg_PRIVATE_INCLUDES})
  if(arg_DEPENDS)
    add_dependencies(${target} ${arg_DEPENDS})
  endif()
  navguard_swift_target(${target})
endfunction()

# navguard_swift_target(<target>)
# A Swift module of this build: refuses a target not in the language mode
# SwiftPM uses (NAVGUARD_SWIFT_LANGUAGE_MODE, cmake/NavGuardSwift.cmake),
# compiles it (and links it, if it is a shared library) with Embedded Swift
# or, with -DNAVGUARD_SWIFT_EMBEDDED=OFF, ordinary Swift
# (navguard_embedded_swift, cmake/NavGuardEmbeddedSwift.cmake), and works
# around CMake 3.25's Ninja rules for Swift (_navguard_swift_ninja,
# cmake/NavGuardGuards.cmake).
function(navguard_swift_target target)
  get_target_property(mode ${target} Swift_LANGUAGE_VERSION)
  if(NOT mode STREQUAL NAVGUARD_SWIFT_LANGUAGE_MODE)
    message(FATAL_ERROR "${target}: Swift_LANGUAGE_VERSION is '${mode}', not ${NAVGUARD_SWIFT_LANGUAGE_MODE} "
      "as in Package.swift (define Swift targets after include(NavGuardSwift))")
  endif()
  navguard_embedded_swift(${target})
  _navguard_swift_ninja(${target})
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
    -P ${NavGuard_SOURCE_DIR}/cmake/CheckExports.cmake)
endfunction()

# navguard_add_embedded_check(<test-name> <target> MAX_BYTES <n> NEEDED <lib>...)
# A test: <target>, stripped, is at most <n> bytes and needs no shared
# library but the NEEDED ones (cmake/CheckEmbedded.cmake): what building it
# with Embedded Swift promises.
function(navguard_add_embedded_check test target)
  cmake_parse_arguments(ARG "" "MAX_BYTES" "NEEDED" ${ARGN})
  foreach(tool STRIP READELF)
    if(NOT CMAKE_${tool})
      string(TOLOWER ${tool} prog)
      find_program(CMAKE_${tool} ${prog} REQUIRED)
    endif()
  endforeach()
  string(REPLACE ";" "," needed "${ARG_NEEDED}")
  add_test(NAME ${test} COMMAND ${CMAKE_COMMAND}
    -DLIB=$<TARGET_FILE:${target}>
    -DSTRIP=${CMAKE_STRIP}
    -DREADELF=${CMAKE_READELF}
    -DMAX_BYTES=${ARG_MAX_BYTES}
    -DNEEDED=${needed}
    -DOUT=${CMAKE_CURRENT_BINARY_DIR}/${test}.stripped
    -P ${NavGuard_SOURCE_DIR}/cmake/CheckEmbedded.cmake)
endfunction()

# navguard_plugin_in_tree(<target> [NO_INSTALL])
# What this build adds to a guard made by navguard_add_guard or
# navguard_add_swift_guard (cmake/NavGuardGuards.cmake, the rule installed for
# plugin authors): the file goes to ${NAVGUARD_PLUGIN_BUILD_DIR}, where ctest
# runs `navguard plugins validate` on it (cmake/NavGuardCLI.cmake), an export
# check test plugin_<target>_exports, and install into
# <libdir>/navguard/plugins (component runtime) unless NO_INSTALL
# (examples and test plugins stay in the build tree).
function(navguard_plugin_in_tree target)
  cmake_parse_arguments(ARG "NO_INSTALL" "" "" ${ARGN})
  set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${NAVGUARD_PLUGIN_BUILD_DIR})
  if(NOT ARG_NO_INSTALL)
    install(TARGETS ${target} LIBRARY DESTINATION ${NAVGUARD_INSTALL_PLUGINDIR} COMPONENT runtime)
  endif()
  navguard_add_export_check(plugin_${target}_exports ${target}
    PATTERN "^ng_plugin_entry$" REQUIRE ng_plugin_entry)
  # A Swift guard is Embedded Swift: at most 200 KB, libc only.
  get_target_property(sources ${target} SOURCES)
  list(FILTER sources INCLUDE REGEX "\\.swift$")
  if(sources AND NOT NAVGUARD_SANITIZE)
    navguard_add_embedded_check(plugin_${target}_embedded ${target} MAX_BYTES 200000
      NEEDED libc.so.6 ${NAVGUARD_SWIFT_EMBEDDED_NEEDED})
  endif()
  if(NAVGUARD_SANITIZE)
    # The sanitizer runtime's symbols come from the executable that loads
    # the plugin (cmake/NavGuardSanitize.cmake): no -z defs.
    get_target_property(opts ${target} LINK_OPTIONS)
    list(REMOVE_ITEM opts "LINKER:-z,defs")
    set_target_properties(${target} PROPERTIES LINK_OPTIONS "${opts}")
  endif()
endfunction()

# navguard_add_bench(<name> SOURCES <file>... [LINK_LIBRARIES <lib>...])
# A C benchmark executable linked to libnavguard, measuring with
# bench/bench_measure.h, built into
# ${NAVGUARD_BENCH_BUILD_DIR} (`make bench` runs every executable there).
function(navguard_add_bench name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LINK_LIBRARIES" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${NAVGUARD_BENCH_BUILD_DIR}
    C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
  find_package(Threads REQUIRED)
  target_link_libraries(${name} PRIVATE navguard Threads::Threads m ${ARG_LINK_LIBRARIES})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/bench)   # bench_measure.h
  target_compile_options(${name} PRIVATE "$<$<COMPILE_LANGUAGE:C,CXX>:-Wall;-Wextra>")
endfunction()

# navguard_gzip(<in> <out>)
# <out> is `gzip -9n <in>` (no file name or time inside, as Debian wants
# manual pages and changelogs), written at configure time; editing <in>
# reconfigures.
function(navguard_gzip in out)
  find_program(NAVGUARD_GZIP gzip REQUIRED)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${in})
  get_filename_component(dir ${out} DIRECTORY)
  file(MAKE_DIRECTORY ${dir})
  execute_process(COMMAND ${NAVGUARD_GZIP} -9nc ${in} OUTPUT_FILE ${out} COMMAND_ERROR_IS_FATAL ANY)
endfunction()
