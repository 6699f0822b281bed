# SPDX-License-Identifier: Apache-2.0
# The `navguard` command-line tool (Sources/navguard-cli), included by the
# top-level CMakeLists.txt.
#
# The tool depends on swift-argument-parser, a SwiftPM package, so SwiftPM
# builds it: the custom target `navguard-cli` runs
#   swift build -c release --product navguard-cli --static-swift-stdlib
# into ${CMAKE_BINARY_DIR}/swiftpm, and its NAVGUARD_CLI_FILE property names
# the binary, which the top-level install step installs as bin/navguard. The
# NavGuard module is linked into the tool statically (a target dependency, not
# the libnavguard product) and so is the Swift runtime: bin/navguard needs
# only libc, libm and libstdc++ (checked by the test navguard_cli_self_contained).
#
# Tests (ctest, so `make test` runs them):
#   validate_<plugin>        `navguard plugins validate` on every guard plugin
#                            target built into ${NAVGUARD_PLUGIN_BUILD_DIR}
#                            (the built-ins and the examples), added at the end
#                            of the configure step once every plugin target
#                            exists;
#   navguard_cli_*           version, plugins list, a bad chain configuration,
#                            and a validator self-test on a deliberately broken
#                            plugin (a crash must be reported, not crash us);
#   navguard_cli_timeline_*  `navguard timeline` on traces recorded by
#                            ctest/c/trace_host.c, checked by
#                            ctest/cli/check_timeline.py;
#   navguard_cli_readers_*   the trace readers on malformed crash dumps, empty
#                            files, /dev/zero and files past their limit
#                            (ctest/cli/check_readers.py).
#
# A plugin target may set the property NAVGUARD_VALIDATE_CONFIG to the guard
# configuration (JSON) its hook checks should use, and NAVGUARD_VALIDATE_TEST
# to ON when it adds its own validation test (no validate_<plugin> is added);
# see navguard_validate_args in cmake/NavGuardValidatorChild.cmake.

# Script mode: cmake -DNAVGUARD_CLI_CHECK=self-contained -DBIN=<tool>
#                    -DREADELF=<readelf> -P NavGuardCLI.cmake
if(NAVGUARD_CLI_CHECK STREQUAL "self-contained")
  execute_process(COMMAND ${READELF} -d ${BIN} OUTPUT_VARIABLE dyn RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${READELF} -d ${BIN} failed")
  endif()
  string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*\\[([^]\n]*)\\]" needed_lines "${dyn}")
  set(needed "")
  foreach(line IN LISTS needed_lines)
    string(REGEX REPLACE ".*\\[([^]]*)\\]" "\\1" lib "${line}")
    list(APPEND needed ${lib})
    if(lib MATCHES "^(libswift|libFoundation|libdispatch|libBlocksRuntime|lib_Foundation|libnavguard)")
      message(SEND_ERROR "${BIN} needs ${lib}: it must link NavGuard and the Swift runtime statically")
    endif()
  endforeach()
  # SwiftPM sets RUNPATH $ORIGIN, which is harmless; a path into the Swift
  # toolchain is not.
  if(dyn MATCHES "\\((RUNPATH|RPATH)\\)[^\n]*\\[([^]\n]*)\\]" AND CMAKE_MATCH_2 MATCHES "swift|toolchain")
    message(SEND_ERROR "${BIN} has a ${CMAKE_MATCH_1} into the Swift toolchain (${CMAKE_MATCH_2})")
  endif()
  string(REPLACE ";" ", " needed "${needed}")
  message(STATUS "${BIN} needs only: ${needed}")
  return()
endif()

option(NAVGUARD_BUILD_CLI "Build the navguard command-line tool with SwiftPM" ON)
if(NOT NAVGUARD_BUILD_CLI)
  return()
endif()

get_filename_component(_navguard_swift_bin ${CMAKE_Swift_COMPILER} DIRECTORY)
find_program(NAVGUARD_SWIFT swift HINTS ${_navguard_swift_bin} REQUIRED)

set(NAVGUARD_CLI_SCRATCH ${CMAKE_BINARY_DIR}/swiftpm)
set(NAVGUARD_CLI_BINARY ${NAVGUARD_CLI_SCRATCH}/release/navguard-cli)

# Always runs (SwiftPM decides what is out of date; a no-op build takes ~1 s).
add_custom_target(navguard-cli ALL
  COMMAND ${NAVGUARD_SWIFT} build -c release --product navguard-cli
          --static-swift-stdlib --scratch-path ${NAVGUARD_CLI_SCRATCH}
  BYPRODUCTS ${NAVGUARD_CLI_BINARY}
  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
  USES_TERMINAL
  COMMENT "Building the navguard CLI (SwiftPM, release, static Swift runtime)")
set_target_properties(navguard-cli PROPERTIES NAVGUARD_CLI_FILE ${NAVGUARD_CLI_BINARY})

# --- CLI tests -------------------------------------------------------------
# The plugin ABI it reports is the header's.
file(STRINGS ${NAVGUARD_INCLUDE_DIR}/navguard/plugin.h navguard_abi_lines
  REGEX "^#define NG_PLUGIN_ABI_(MAJOR|MINOR) [0-9]+")
string(REGEX REPLACE ".*NG_PLUGIN_ABI_MAJOR ([0-9]+).*" "\\1" navguard_abi_major "${navguard_abi_lines}")
string(REGEX REPLACE ".*NG_PLUGIN_ABI_MINOR ([0-9]+).*" "\\1" navguard_abi_minor "${navguard_abi_lines}")
add_test(NAME navguard_cli_version COMMAND ${NAVGUARD_CLI_BINARY} version)
set_tests_properties(navguard_cli_version PROPERTIES
  PASS_REGULAR_EXPRESSION "plugin ABI: ${navguard_abi_major}\\.${navguard_abi_minor}[^0-9]")

# Every subcommand and option the tool's --help shows is in docs/navguard.1.
add_test(NAME navguard_cli_manual COMMAND ${NAVGUARD_PYTHON}
  ${PROJECT_SOURCE_DIR}/ctest/cli/check_manual.py ${NAVGUARD_CLI_BINARY} ${PROJECT_SOURCE_DIR}/docs/navguard.1)

# The default chain resolves from the build tree's plugin directory (found by
# the tool next to itself: build/lib/navguard/plugins).
add_test(NAME navguard_cli_dash_version COMMAND ${NAVGUARD_CLI_BINARY} --version)
set_tests_properties(navguard_cli_dash_version PROPERTIES
  PASS_REGULAR_EXPRESSION "^navguard ${PROJECT_VERSION}\n$")
add_test(NAME navguard_cli_plugins_list COMMAND ${NAVGUARD_CLI_BINARY} plugins list)
set_tests_properties(navguard_cli_plugins_list PROPERTIES
  ENVIRONMENT "NAVGUARD_PLUGIN_DIR=${NAVGUARD_PLUGIN_BUILD_DIR}"
  PASS_REGULAR_EXPRESSION "0 +org\\.navguard\\.watchdog .*5 +org\\.navguard\\.transition .*6 +org\\.navguard\\.bar-should .*7 +org\\.navguard\\.confirm-leave .*8 guards in the chain")

# A chain naming a missing plugin: NG_E_LOAD and ng_errmsg on stderr, exit 1.
file(WRITE ${CMAKE_BINARY_DIR}/navguard-cli-tests/missing-chain.json
  "{\"guards\": [{\"id\": \"org.navguard.throttle\"}, {\"path\": \"/nonexistent/guard.so\"}]}\n")
add_test(NAME navguard_cli_plugins_list_missing
  COMMAND ${NAVGUARD_CLI_BINARY} plugins list --config ${CMAKE_BINARY_DIR}/navguard-cli-tests/missing-chain.json)
set_tests_properties(navguard_cli_plugins_list_missing PROPERTIES
  ENVIRONMENT "NAVGUARD_PLUGIN_DIR=${NAVGUARD_PLUGIN_BUILD_DIR}"
  WILL_FAIL ON)

# Every --config is JSON text or @FILE (Sources/navguard-cli/JSONArgument.swift);
# a file named without @ is read too when it exists. A name that is neither
# is reported as a file that cannot be opened, by list and replay alike.
file(WRITE ${CMAKE_BINARY_DIR}/navguard-cli-tests/two-guards.json
  "{\"guards\": [{\"id\": \"org.navguard.throttle\"}, {\"id\": \"org.navguard.dedupe\"}]}\n")
foreach(form at bare)
  set(_navguard_arg ${CMAKE_BINARY_DIR}/navguard-cli-tests/two-guards.json)
  if(form STREQUAL "at")
    set(_navguard_arg @${_navguard_arg})
  endif()
  add_test(NAME navguard_cli_config_${form}_file
    COMMAND ${NAVGUARD_CLI_BINARY} plugins list --config ${_navguard_arg})
  set_tests_properties(navguard_cli_config_${form}_file PROPERTIES
    ENVIRONMENT "NAVGUARD_PLUGIN_DIR=${NAVGUARD_PLUGIN_BUILD_DIR}"
    PASS_REGULAR_EXPRESSION "chain: [^\n]*/two-guards\.json\n.*0 +org\.navguard\.throttle .*1 +org\.navguard\.dedupe .*2 guards in the chain")
endforeach()
add_test(NAME navguard_cli_config_misspelt
  COMMAND ${NAVGUARD_CLI_BINARY} plugins list --config ${CMAKE_BINARY_DIR}/navguard-cli-tests/tow-guards.json)
set_tests_properties(navguard_cli_config_misspelt PROPERTIES
  PASS_REGULAR_EXPRESSION "^navguard plugins list: --config: cannot open [^\n]*/tow-guards\.json: No such file or directory, and it is not JSON text either\n$")
add_test(NAME navguard_cli_replay_config_unreadable
  COMMAND ${NAVGUARD_CLI_BINARY} replay ${CMAKE_BINARY_DIR}/navguard-cli-tests/two-guards.json
          --config @${CMAKE_BINARY_DIR}/navguard-cli-tests/missing.json)
set_tests_properties(navguard_cli_replay_config_unreadable PROPERTIES
  PASS_REGULAR_EXPRESSION "^navguard replay: --config: cannot open [^\n]*/missing\.json: No such file or directory\n$")

# bin/navguard is self-contained: no libnavguard, no Swift runtime library
# NEEDED, no RUNPATH (this file in script mode, below).
add_test(NAME navguard_cli_self_contained COMMAND ${CMAKE_COMMAND}
  -DNAVGUARD_CLI_CHECK=self-contained -DBIN=${NAVGUARD_CLI_BINARY} -DREADELF=${CMAKE_READELF}
  -P ${CMAKE_CURRENT_LIST_FILE})

# Validator self-test: a plugin that exports a second symbol and crashes in
# on_request for a pop. The validator must report both as failed checks, run
# the other checks, and exit 1 (not crash itself).
# (The guard: navguard_validator_crashing_guard, cmake/NavGuardValidatorChild.cmake.)
add_test(NAME navguard_cli_validate_selftest
  COMMAND ${NAVGUARD_CLI_BINARY} plugins validate $<TARGET_FILE:navguard_validator_crashing_guard>)
set_tests_properties(navguard_cli_validate_selftest PROPERTIES
  PASS_REGULAR_EXPRESSION "FAIL  file\\.exports +2 exported symbols.*FAIL  request\\.pop +crashed: killed by SIGSEGV.*PASS  loader\\.ng_plugin_load.*does NOT conform")

# The validator refuses a guard that cancels or blocks a touch from inside
# that touch's began vote (it takes a touch-blocking hold there).
set(_navguard_selfcancel_src ${CMAKE_BINARY_DIR}/navguard-cli-tests/began-hold-guard.c)
file(WRITE ${_navguard_selfcancel_src} [[
/* Generated by cmake/NavGuardCLI.cmake: a guard that blocks touches from a began vote. */
#include <navguard/plugin.h>
#include <stdlib.h>
static void *create(const ng_guard_host *h, const char *c) { (void)c; return (void *)h; }
static void destroy(void *i) { (void)i; }
static ng_vote on_event(void *i, const ng_guard_event *e, ng_verdict *v) {
    const ng_guard_host *h = i;
    uint64_t token;
    (void)v;
    if (e->event->type == NG_EVENT_TOUCH && e->event->phase == NG_TOUCH_BEGAN)
        h->hold_begin(h, "began-hold", NG_MASK_TOUCH, 0, &token);
    return NG_VOTE_ALLOW;
}
static const ng_option_decl options[] = { NG_OPTION_END };
static const ng_plugin_descriptor d = {
    NG_PLUGIN_DESCRIPTOR_ABI, .id = "org.navguard.selftest.began-hold", .name = "began-hold", .version = "0",
    .description = "takes a touch hold inside a began vote", .create = create, .destroy = destroy,
    .on_event = on_event, .options = options };
__attribute__((visibility("default"))) const ng_plugin_descriptor *ng_plugin_entry(void) { return &d; }
]])
add_library(navguard_cli_selfcancel_plugin MODULE ${_navguard_selfcancel_src})
set_target_properties(navguard_cli_selfcancel_plugin PROPERTIES
  PREFIX "" OUTPUT_NAME began-hold
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/navguard-cli-tests)
target_include_directories(navguard_cli_selfcancel_plugin PRIVATE ${NAVGUARD_INCLUDE_DIR})
add_test(NAME navguard_cli_validate_began_self_cancel
  COMMAND ${NAVGUARD_CLI_BINARY} plugins validate $<TARGET_FILE:navguard_cli_selfcancel_plugin>)
set_tests_properties(navguard_cli_validate_began_self_cancel PROPERTIES
  PASS_REGULAR_EXPRESSION "FAIL  event\\.touch-phases +the guard's action inside a touch's began vote cancelled or blocked that very touch.*does NOT conform")

# A configuration the guard cannot be created with fails the validation (its
# hooks never ran), unless --expect-create-failure says that is the point.
add_test(NAME navguard_cli_validate_bad_config
  COMMAND ${NAVGUARD_CLI_BINARY} plugins validate --config "not json" ${NAVGUARD_PLUGIN_BUILD_DIR}/throttle.so)
set_tests_properties(navguard_cli_validate_bad_config PROPERTIES
  PASS_REGULAR_EXPRESSION "FAIL  create\\.config +the guard cannot be created with not json.*does NOT conform")
add_test(NAME navguard_cli_validate_expected_failure
  COMMAND ${NAVGUARD_CLI_BINARY} plugins validate --config "{\"interval_ms\":-5}" --expect-create-failure
          ${NAVGUARD_PLUGIN_BUILD_DIR}/throttle.so)
set_tests_properties(navguard_cli_validate_expected_failure PROPERTIES
  PASS_REGULAR_EXPRESSION "PASS  create\\.config +refused, as expected: NG_E_PARSE.*interval_ms.*conforms")

# The child's result lines (ChildLine) survive text with a tab, a newline and
# the protocol marker: it arrives as one line, and no later group is lost.
add_test(NAME navguard_cli_validate_protocol
  COMMAND ${NAVGUARD_CLI_BINARY} plugins validate --config "{\"x\":\"a\tb\"}\n@@NGV\tEND" ${NAVGUARD_PLUGIN_BUILD_DIR}/throttle.so)
set_tests_properties(navguard_cli_validate_protocol PROPERTIES
  PASS_REGULAR_EXPRESSION "FAIL  create\\.config +the guard cannot be created with \\{\"x\":\"a b\"\\} @@NGV END, so its hooks.*WARN  loader\\.ng_plugin_load +loaded, but create failed cleanly with config \\{\"x\":\"a b\"\\} @@NGV END:.*does NOT conform")

# plugins info / available / list with composition given as JSON text.
add_test(NAME navguard_cli_plugins_info COMMAND ${NAVGUARD_CLI_BINARY} plugins info org.navguard.throttle)
set_tests_properties(navguard_cli_plugins_info PROPERTIES
  PASS_REGULAR_EXPRESSION "id +org\\.navguard\\.throttle.*Hooks:.*on_request, on_outcome.*Options:.*interval_ms.*type: int +range: 0\\.\\.3600000 +default: 300")
add_test(NAME navguard_cli_plugins_available COMMAND ${NAVGUARD_CLI_BINARY} plugins available)
set_tests_properties(navguard_cli_plugins_available PROPERTIES
  PASS_REGULAR_EXPRESSION "org\\.navguard\\.bar-should.*org\\.navguard\\.watchdog.*guards found")
# A FIFO named x.so on the search path is skipped, not opened (opening it
# for reading waited for a writer forever); TIMEOUT fails a regression.
set(_navguard_fifo_dir ${CMAKE_BINARY_DIR}/navguard-cli-tests/fifo-path)
add_test(NAME navguard_cli_plugins_available_fifo COMMAND sh -c
  "rm -rf '${_navguard_fifo_dir}' && mkdir -p '${_navguard_fifo_dir}' && mkfifo '${_navguard_fifo_dir}/x.so' && NAVGUARD_PLUGIN_PATH='${_navguard_fifo_dir}' exec '${NAVGUARD_CLI_BINARY}' plugins available")
set_tests_properties(navguard_cli_plugins_available_fifo PROPERTIES
  PASS_REGULAR_EXPRESSION "search path: [^\n]*fifo-path:.*org\\.navguard\\.watchdog.*guards found"
  TIMEOUT 60)
add_test(NAME navguard_cli_plugins_list_edits COMMAND ${NAVGUARD_CLI_BINARY} plugins list
  --config "{\"base\":\"default\",\"edits\":[{\"remove\":\"org.navguard.throttle\"},{\"configure\":\"org.navguard.watchdog\",\"config\":{\"report\":false}}]}")
set_tests_properties(navguard_cli_plugins_list_edits PROPERTIES
  PASS_REGULAR_EXPRESSION "0 +org\\.navguard\\.watchdog .*config \\{\"report\":false\\}.*3 +org\\.navguard\\.dedupe .*7 guards in the chain")

# docs/guards.md is what `navguard plugins docs` prints (make docs rewrites it).
add_test(NAME navguard_docs_guards COMMAND ${CMAKE_COMMAND}
  -DCLI=${NAVGUARD_CLI_BINARY} -DDOC=${PROJECT_SOURCE_DIR}/docs/guards.md
  -DPLUGIN_DIR=${NAVGUARD_PLUGIN_BUILD_DIR} -DOUT=${CMAKE_BINARY_DIR}/navguard-cli-tests/guards.md
  -P ${PROJECT_SOURCE_DIR}/cmake/CheckGuardDocs.cmake)

# navguard timeline: trace_host records a kiosk session (a forced transition,
# one never finished, holds, dropped touches, refused requests, a swipe);
# check_timeline.py draws it and checks the Chrome trace and the page, for the
# whole trace, a ring dump, the trace with its last line cut in half, and
# malformed input (exit 2, the line named).
add_executable(trace_host ${PROJECT_SOURCE_DIR}/ctest/c/trace_host.c)
set_target_properties(trace_host PROPERTIES
  C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF
  RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/navguard-cli-tests)
target_compile_options(trace_host PRIVATE -Wall -Wextra -Wpedantic -Werror)
target_link_libraries(trace_host PRIVATE navguard)
find_program(NAVGUARD_PYTHON python3)
foreach(case full ring truncated malformed incident drivelimit idlereturn presses fleet stats)
  if(NAVGUARD_PYTHON)
    add_test(NAME navguard_cli_timeline_${case}
      COMMAND ${NAVGUARD_PYTHON} ${PROJECT_SOURCE_DIR}/ctest/cli/check_timeline.py
              --cli ${NAVGUARD_CLI_BINARY} --host $<TARGET_FILE:trace_host>
              --work ${CMAKE_BINARY_DIR}/navguard-cli-tests/timeline-${case} ${case})
    set_tests_properties(navguard_cli_timeline_${case} PROPERTIES
      ENVIRONMENT "NAVGUARD_PLUGIN_DIR=${NAVGUARD_PLUGIN_BUILD_DIR}")
  else()
    add_test(NAME navguard_cli_timeline_${case} COMMAND ${CMAKE_COMMAND}
      "-DMESSAGE=navguard_cli_timeline_${case} needs python3: apt-get install -y python3"
      -P ${PROJECT_SOURCE_DIR}/cmake/Fail.cmake)
  endif()
endforeach()

# The trace readers (convert, stats, timeline, replay) on crash dumps whose
# header does not describe the file, empty files, /dev/zero and files past
# their limit: exit 2 and a message naming what is wrong, never a signal.
# ctest/c/test_dump_reader.c --dump writes the real dump the files are made from.
# A hang is a failure too: TIMEOUT ends one (the axis of a damaged trace
# stepped through 10^9 microseconds).
foreach(case header empty trace size)
  if(NAVGUARD_PYTHON)
    add_test(NAME navguard_cli_readers_${case}
      COMMAND ${NAVGUARD_PYTHON} ${PROJECT_SOURCE_DIR}/ctest/cli/check_readers.py
              --cli ${NAVGUARD_CLI_BINARY} --host $<TARGET_FILE:c_test_dump_reader>
              --work ${CMAKE_BINARY_DIR}/navguard-cli-tests/readers-${case} ${case})
    set_tests_properties(navguard_cli_readers_${case} PROPERTIES TIMEOUT 120)
  else()
    add_test(NAME navguard_cli_readers_${case} COMMAND ${CMAKE_COMMAND}
      "-DMESSAGE=navguard_cli_readers_${case} needs python3: apt-get install -y python3"
      -P ${PROJECT_SOURCE_DIR}/cmake/Fail.cmake)
  endif()
endforeach()

# navguard_cli_convert_old_dump: a crash dump written before 0.4 (the
# corpus's crash-ring-4096.ngbox, whose session is also ring-4096.jsonl)
# converts to the same lines: 0.4's request and transition records grew
# (a request's device, a transition's focus token) without breaking older ones.
add_test(NAME navguard_cli_convert_old_dump COMMAND sh -c
  "mkdir -p \"$(dirname \"$3\")\" && \"$1\" convert \"$2/crash-ring-4096.ngbox\" -o \"$3\" && tail -n +2 \"$3\" > \"$3.body\" && tail -n +2 \"$2/ring-4096.jsonl\" | diff - \"$3.body\""
  sh ${NAVGUARD_CLI_BINARY} ${PROJECT_SOURCE_DIR}/fuzz/corpus-read ${CMAKE_BINARY_DIR}/navguard-cli-tests/old-dump.jsonl)

# navguard_cli_convert_output: convert -o writes a temporary file and renames
# it into place, as stats --output does (ctest/cli/check_convert_output.py):
# an old file a reader holds stays whole, nothing is left behind on failure.
if(NAVGUARD_PYTHON)
  add_test(NAME navguard_cli_convert_output
    COMMAND ${NAVGUARD_PYTHON} ${PROJECT_SOURCE_DIR}/ctest/cli/check_convert_output.py
            --cli ${NAVGUARD_CLI_BINARY} --dump ${PROJECT_SOURCE_DIR}/fuzz/corpus-read/crash-ring-4096.ngbox
            --work ${CMAKE_BINARY_DIR}/navguard-cli-tests/convert-output)
  set_tests_properties(navguard_cli_convert_output PROPERTIES TIMEOUT 120)
endif()

# --- validate_<plugin> for every guard plugin target -------------------------
# Deferred to the end of the top-level directory, when plugins/ and examples/
# have defined their targets.
function(navguard_cli_add_validate_tests)
  navguard_validated_plugins(targets)
  set(names "")
  foreach(t IN LISTS targets)
    get_target_property(own_test ${t} NAVGUARD_VALIDATE_TEST)
    if(own_test)
      continue()
    endif()
    navguard_validate_args(${t} name args)
    add_test(NAME validate_${name}
      COMMAND ${NAVGUARD_CLI_BINARY} plugins validate ${args} $<TARGET_FILE:${t}>)
    set_tests_properties(validate_${name} PROPERTIES TIMEOUT 600)
    list(APPEND names ${name})
  endforeach()
  list(SORT names)
  string(REPLACE ";" ", " names "${names}")
  message(STATUS "navguard plugins validate tests: ${names}")
endfunction()
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL navguard_cli_add_validate_tests)
