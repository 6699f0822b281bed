# SPDX-License-Identifier: Apache-2.0
# The plugin validator's child as a program of its own (included by the
# top-level CMakeLists.txt, in the host build and in a cross build):
#
#   NavGuardValidator         Sources/NavGuardValidator, the validator's
#                             checks (its child side), static, in Embedded
#                             Swift like every module here;
#   navguard-validator-child  Sources/navguard-validator-child: runs one check
#                             group on a plugin, linked with libnavguard like
#                             any host (the checks reach NavGuard through the
#                             C ABI) and with NavGuardCore (the loader's
#                             descriptor and option rules the checks apply).
#
# `navguard plugins validate --child-program <it>` (the x86_64 tool) runs its
# check groups in this program instead of in itself: in a cross build, under
# the emulator (CMAKE_CROSSCOMPILING_EMULATOR), on the guards built for the
# target (the tests validate_<plugin>_child, below, and ctest/arm64). The
# tool keeps the report, the gates, the timeouts and the crash handling.
navguard_swift_sources(NAVGUARD_VALIDATOR_SOURCES ${PROJECT_SOURCE_DIR}/Sources/NavGuardValidator)
add_library(NavGuardValidator STATIC ${NAVGUARD_VALIDATOR_SOURCES})
set_target_properties(NavGuardValidator PROPERTIES
  Swift_MODULE_NAME NavGuardValidator
  Swift_MODULE_DIRECTORY ${NAVGUARD_SWIFT_MODULE_DIR}
  POSITION_INDEPENDENT_CODE ON)
target_compile_options(NavGuardValidator PRIVATE ${NAVGUARD_SWIFT_OPTIONS})
target_include_directories(NavGuardValidator PUBLIC ${NAVGUARD_INCLUDE_DIR} ${NAVGUARD_SWIFT_MODULE_DIR}
  ${PROJECT_SOURCE_DIR}/Sources/NavGuardC/include ${PROJECT_SOURCE_DIR}/Sources/NavGuardLibc)
target_link_libraries(NavGuardValidator PUBLIC NavGuardCore)
navguard_swift_target(NavGuardValidator)

# The argv capture (module NavGuardCLIArgs) and, in Embedded Swift, what its
# standard library calls but does not provide (as libnavguard links them).
add_library(navguard_validator_child_c OBJECT
  ${PROJECT_SOURCE_DIR}/Sources/NavGuardCLIArgs/args.c
  $<$<BOOL:${NAVGUARD_SWIFT_EMBEDDED}>:${PROJECT_SOURCE_DIR}/Sources/NavGuardC/embedded/swift_stubs.c>
  $<$<BOOL:${NAVGUARD_SWIFT_EMBEDDED}>:${PROJECT_SOURCE_DIR}/Sources/NavGuardC/embedded/random.c>)
set_target_properties(navguard_validator_child_c PROPERTIES POSITION_INDEPENDENT_CODE ON
  C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
target_compile_options(navguard_validator_child_c PRIVATE -Wall -Wextra -Werror)
target_include_directories(navguard_validator_child_c PRIVATE ${PROJECT_SOURCE_DIR}/Sources/NavGuardCLIArgs/include)

add_executable(navguard-validator-child ${PROJECT_SOURCE_DIR}/Sources/navguard-validator-child/ChildProgram.swift)
set_target_properties(navguard-validator-child PROPERTIES
  Swift_MODULE_NAME navguard_validator_child
  Swift_MODULE_DIRECTORY ${NAVGUARD_SWIFT_MODULE_DIR}
  RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/bin
  LINK_DEPENDS "$<TARGET_OBJECTS:navguard_validator_child_c>")
target_compile_options(navguard-validator-child PRIVATE ${NAVGUARD_SWIFT_OPTIONS})
target_include_directories(navguard-validator-child PRIVATE ${PROJECT_SOURCE_DIR}/Sources/NavGuardCLIArgs/include)
add_dependencies(navguard-validator-child navguard_validator_child_c)
target_link_libraries(navguard-validator-child PRIVATE NavGuardValidator NavGuardCore navguard)
target_link_options(navguard-validator-child PRIVATE $<TARGET_OBJECTS:navguard_validator_child_c>)
navguard_swift_target(navguard-validator-child)
if(NAVGUARD_SWIFT_EMBEDDED)
  _navguard_embedded_swift_link_options(_navguard_child_link)
  target_link_options(navguard-validator-child PRIVATE ${_navguard_child_link})
endif()

# A deliberately broken guard (a second export, a crash in on_request for a
# pop), built for the build's machine: the validator must report both as
# failed checks, run the others, and not crash itself (the tests
# navguard_cli_validate_selftest, cmake/NavGuardCLI.cmake, and
# validate_child_crashing, below). Not a plugin of the plugin directory.
add_library(navguard_validator_crashing_guard MODULE ${PROJECT_SOURCE_DIR}/ctest/validator/crashing-guard.c)
set_target_properties(navguard_validator_crashing_guard PROPERTIES
  PREFIX "" OUTPUT_NAME crashing
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/navguard-cli-tests)
target_include_directories(navguard_validator_crashing_guard PRIVATE ${NAVGUARD_INCLUDE_DIR})

# --- Which plugins are validated, and how -------------------------------------
# Every guard plugin target built into ${NAVGUARD_PLUGIN_BUILD_DIR} (the
# built-ins and the examples), once every target exists (call these from a
# deferred call). The tool's tests validate_<plugin> (cmake/NavGuardCLI.cmake)
# and validate_child_<plugin> (below) share them.

# Guard configurations for the hook checks of built-ins that cannot run with
# "{}" (ffi-predicate needs a function to call: abs(kind) from libc, which
# refuses pushes, kind 0, and allows the rest).
set(NAVGUARD_VALIDATE_CONFIG_ffi-predicate
  [[{"library": "libc.so.6", "symbol": "abs", "args": ["kind"], "returns": "int"}]])

function(_navguard_collect_targets dir out)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    _navguard_collect_targets(${sub} more)
    list(APPEND targets ${more})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# navguard_validated_plugins(<out>): the plugin targets.
function(navguard_validated_plugins out)
  _navguard_collect_targets(${PROJECT_SOURCE_DIR} targets)
  set(plugins "")
  foreach(t IN LISTS targets)
    get_target_property(type ${t} TYPE)
    get_target_property(outdir ${t} LIBRARY_OUTPUT_DIRECTORY)
    if(type STREQUAL "MODULE_LIBRARY" AND outdir STREQUAL NAVGUARD_PLUGIN_BUILD_DIR)
      list(APPEND plugins ${t})
    endif()
  endforeach()
  set(${out} ${plugins} PARENT_SCOPE)
endfunction()

# navguard_validate_args(<target> <name-var> <args-var>): the plugin's name
# (its file's, without .so) and the options `plugins validate` takes for it:
# --config @FILE when the target's NAVGUARD_VALIDATE_CONFIG or
# NAVGUARD_VALIDATE_CONFIG_<name> gives a configuration.
function(navguard_validate_args t name_var args_var)
  get_target_property(name ${t} OUTPUT_NAME)
  if(NOT name)
    set(name ${t})
  endif()
  get_target_property(config ${t} NAVGUARD_VALIDATE_CONFIG)
  if(NOT config AND DEFINED NAVGUARD_VALIDATE_CONFIG_${name})
    set(config "${NAVGUARD_VALIDATE_CONFIG_${name}}")
  endif()
  set(args "")
  if(config)
    set(config_file ${CMAKE_BINARY_DIR}/navguard-cli-tests/validate-${name}.json)
    file(WRITE ${config_file} "${config}\n")
    set(args --config @${config_file})
  endif()
  set(${name_var} ${name} PARENT_SCOPE)
  set(${args_var} ${args} PARENT_SCOPE)
endfunction()

# --- validate_child_<plugin> ---------------------------------------------------
# Every plugin validated with its check groups run by navguard-validator-child
# (ctest/validator/validate-child.sh): the results must be those of the
# tool's own children. In the host build: the tool of this build, this
# program built for x86_64 (the same code path as on arm64, natively), the
# plugin itself as the reference. In a cross build (NAVGUARD_HOST_CLI and
# NAVGUARD_HOST_PLUGIN_DIR from a host build: make cross-arm64): the host's
# tool, this program and the plugin built for the target, run under
# CMAKE_CROSSCOMPILING_EMULATOR, against the host's build of the same plugin.
function(navguard_add_validate_child_tests)
  if(CMAKE_CROSSCOMPILING)
    if(NOT NAVGUARD_HOST_CLI OR NOT NAVGUARD_HOST_PLUGIN_DIR)
      message(STATUS "validate_child_* tests: not added (no NAVGUARD_HOST_CLI and NAVGUARD_HOST_PLUGIN_DIR)")
      return()
    endif()
    set(cli ${NAVGUARD_HOST_CLI})
  elseif(TARGET navguard-cli)
    get_target_property(cli navguard-cli NAVGUARD_CLI_FILE)
  else()
    return()
  endif()
  set(wrapper "")
  if(CMAKE_CROSSCOMPILING)
    foreach(word IN LISTS CMAKE_CROSSCOMPILING_EMULATOR)
      list(APPEND wrapper --wrapper ${word})
    endforeach()
  endif()
  navguard_validated_plugins(targets)
  set(names "")
  foreach(t IN LISTS targets)
    navguard_validate_args(${t} name args)
    set(reference $<TARGET_FILE:${t}>)
    if(CMAKE_CROSSCOMPILING)
      set(reference ${NAVGUARD_HOST_PLUGIN_DIR}/$<TARGET_FILE_NAME:${t}>)
    endif()
    add_test(NAME validate_child_${name}
      COMMAND ${PROJECT_SOURCE_DIR}/ctest/validator/validate-child.sh ${cli}
              $<TARGET_FILE:navguard-validator-child> $<TARGET_FILE:${t}> ${reference} ${wrapper} -- ${args})
    set_tests_properties(validate_child_${name} PROPERTIES TIMEOUT 900)
    list(APPEND names ${name})
  endforeach()
  # The crash of a plugin in the child program (under the emulator: qemu
  # dies of the guest's signal) fails the check it was in, as in the tool.
  set(child_wrapper "")
  if(CMAKE_CROSSCOMPILING)
    foreach(word IN LISTS CMAKE_CROSSCOMPILING_EMULATOR)
      list(APPEND child_wrapper --child-wrapper ${word})
    endforeach()
  endif()
  add_test(NAME validate_child_crashing
    COMMAND ${cli} plugins validate --timeout 300 --child-program $<TARGET_FILE:navguard-validator-child>
            ${child_wrapper} $<TARGET_FILE:navguard_validator_crashing_guard>)
  set_tests_properties(validate_child_crashing PROPERTIES TIMEOUT 900
    PASS_REGULAR_EXPRESSION "check groups run by [^\n]*navguard-validator-child\n.*FAIL  file\\.exports +2 exported symbols.*FAIL  request\\.pop +crashed: killed by SIGSEGV.*PASS  loader\\.ng_plugin_load.*does NOT conform")
  list(SORT names)
  string(REPLACE ";" ", " names "${names}")
  message(STATUS "validate_child tests (navguard-validator-child): ${names}, and crashing")
endfunction()
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL navguard_add_validate_child_tests)
