# SPDX-License-Identifier: Apache-2.0
# The API fuzz harness without libFuzzer, in every build (included by the
# top-level CMakeLists.txt; the libFuzzer target is fuzz/CMakeLists.txt, only
# with -DNAVGUARD_FUZZ=ON).
#
# fuzz_api_replay = fuzz/api/*.c (the harness the libFuzzer target uses)
# + fuzz/replay.c (a main() running files and programs generated from a
# fixed seed). ctest runs it as fuzz_api_smoke: the seed corpus, the saved
# crashers (steered around their known findings unless NGF_FINDINGS=1) and
# NAVGUARD_FUZZ_SMOKE_RUNS generated programs, so `make test` exercises the
# harness on every run.
#
# fuzz_read_replay = fuzz/fuzz_read.c (the trace and crash-dump readers,
# through ng_replay) + the same replay.c; ctest fuzz_read_smoke runs
# fuzz/corpus-read (real traces and crash dumps), the saved reader crashers
# (fuzz/crashers/read, steered around their open findings unless
# NGF_FINDINGS=1) and NAVGUARD_FUZZ_READ_SMOKE_RUNS inputs generated from them.

set(NAVGUARD_FUZZ_SOURCE_DIR ${PROJECT_SOURCE_DIR}/fuzz)
# The API harness, one file per section of navguard.h (fuzz/api/ngf.h).
set(NAVGUARD_FUZZ_API_SOURCES harness chain context holds input questions recorder requests stack time transitions views)
list(TRANSFORM NAVGUARD_FUZZ_API_SOURCES PREPEND ${NAVGUARD_FUZZ_SOURCE_DIR}/api/)
list(TRANSFORM NAVGUARD_FUZZ_API_SOURCES APPEND .c)
set(NAVGUARD_FUZZ_SMOKE_RUNS 20000 CACHE STRING "Generated programs fuzz_api_smoke runs")
set(NAVGUARD_FUZZ_READ_SMOKE_RUNS 20000 CACHE STRING "Generated inputs fuzz_read_smoke runs")

# The statuses each API function may return, as the harnesses check them:
# status_masks.py reads them from navguard.h's comments into
# ng_status_masks.h (also used by fuzz/CMakeLists.txt's fuzz_api), and stops
# the build, naming the function, where the header's lists cannot be read.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(NOT Python3_Interpreter_FOUND)
  message(WARNING "python3 not found: fuzz_api_replay is not built (fuzz/status_masks.py generates its status masks)")
  add_test(NAME fuzz_api_smoke COMMAND ${CMAKE_COMMAND}
    "-DMESSAGE=fuzz_api_smoke needs python3 (fuzz/status_masks.py): apt-get install -y python3"
    -P ${PROJECT_SOURCE_DIR}/cmake/Fail.cmake)
  return()
endif()
set(NAVGUARD_FUZZ_GENERATED_DIR ${PROJECT_BINARY_DIR}/fuzz)
add_custom_command(OUTPUT ${NAVGUARD_FUZZ_GENERATED_DIR}/ng_status_masks.h
  COMMAND Python3::Interpreter ${NAVGUARD_FUZZ_SOURCE_DIR}/status_masks.py
          ${NAVGUARD_INCLUDE_DIR}/navguard/navguard.h ${NAVGUARD_FUZZ_GENERATED_DIR}/ng_status_masks.h
  DEPENDS ${NAVGUARD_FUZZ_SOURCE_DIR}/status_masks.py ${NAVGUARD_INCLUDE_DIR}/navguard/navguard.h
  COMMENT "Reading each function's statuses from navguard.h (fuzz/status_masks.py)"
  VERBATIM)
add_custom_target(navguard_fuzz_status_masks DEPENDS ${NAVGUARD_FUZZ_GENERATED_DIR}/ng_status_masks.h)

add_executable(fuzz_api_replay ${NAVGUARD_FUZZ_API_SOURCES} ${NAVGUARD_FUZZ_SOURCE_DIR}/replay.c)
add_dependencies(fuzz_api_replay navguard_fuzz_status_masks)
target_include_directories(fuzz_api_replay PRIVATE ${NAVGUARD_FUZZ_GENERATED_DIR})
set_target_properties(fuzz_api_replay PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/fuzz
  C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF
  # ngf_predicate is called by the ffi-predicate guard through dlopen(NULL).
  ENABLE_EXPORTS ON)
target_compile_options(fuzz_api_replay PRIVATE -UNDEBUG -Wall -Wextra -Wpedantic)
target_compile_definitions(fuzz_api_replay PRIVATE
  NAVGUARD_FUZZ_PLUGIN_DIR="${NAVGUARD_PLUGIN_BUILD_DIR}")
find_package(Threads REQUIRED)
target_link_libraries(fuzz_api_replay PRIVATE navguard Threads::Threads m)
# The chain configurations load the built-in plugins of this build.
get_property(_navguard_fuzz_plugins DIRECTORY ${PROJECT_SOURCE_DIR}/plugins PROPERTY BUILDSYSTEM_TARGETS)
if(_navguard_fuzz_plugins)
  add_dependencies(fuzz_api_replay ${_navguard_fuzz_plugins})
endif()

add_test(NAME fuzz_api_smoke
  COMMAND fuzz_api_replay -n ${NAVGUARD_FUZZ_SMOKE_RUNS} -seed 1 -max_len 1024
          -artifact_prefix ${PROJECT_BINARY_DIR}/fuzz/smoke-
          ${NAVGUARD_FUZZ_SOURCE_DIR}/corpus ${NAVGUARD_FUZZ_SOURCE_DIR}/crashers)
set_tests_properties(fuzz_api_smoke PROPERTIES
  ENVIRONMENT "NAVGUARD_PLUGIN_DIR=${NAVGUARD_PLUGIN_BUILD_DIR};NGF_FINDINGS=0;NGF_VERBOSE=0"
  TIMEOUT 900)

add_executable(fuzz_read_replay ${NAVGUARD_FUZZ_SOURCE_DIR}/fuzz_read.c ${NAVGUARD_FUZZ_SOURCE_DIR}/replay.c)
add_dependencies(fuzz_read_replay navguard_fuzz_status_masks)
target_include_directories(fuzz_read_replay PRIVATE ${NAVGUARD_FUZZ_GENERATED_DIR})
set_target_properties(fuzz_read_replay PROPERTIES
  RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/fuzz
  C_STANDARD 11 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
target_compile_options(fuzz_read_replay PRIVATE -UNDEBUG -Wall -Wextra -Wpedantic)
target_compile_definitions(fuzz_read_replay PRIVATE
  NAVGUARD_FUZZ_PLUGIN_DIR="${NAVGUARD_PLUGIN_BUILD_DIR}")
target_link_libraries(fuzz_read_replay PRIVATE navguard)
if(_navguard_fuzz_plugins)
  add_dependencies(fuzz_read_replay ${_navguard_fuzz_plugins})
endif()

add_test(NAME fuzz_read_smoke
  COMMAND fuzz_read_replay -n ${NAVGUARD_FUZZ_READ_SMOKE_RUNS} -seed 1 -max_len 16384
          -artifact_prefix ${PROJECT_BINARY_DIR}/fuzz/smoke-read-
          ${NAVGUARD_FUZZ_SOURCE_DIR}/corpus-read ${NAVGUARD_FUZZ_SOURCE_DIR}/crashers/read)
set_tests_properties(fuzz_read_smoke PROPERTIES
  ENVIRONMENT "NAVGUARD_PLUGIN_DIR=${NAVGUARD_PLUGIN_BUILD_DIR};NGF_FINDINGS=0;NGF_VERBOSE=0"
  TIMEOUT 900)

# The corpora and crashers alone, no generated inputs: real sessions recorded
# and replayed (every context of fuzz/corpus records its life through a host
# writer and replays it; fuzz/corpus-read holds recorded traces and crash
# dumps). Quick natively; `make test-sanitize` runs them under valgrind's
# memcheck (ctest/memcheck/memcheck.sh), where the smoke tests' generated inputs would
# take too long.
add_test(NAME fuzz_api_corpus
  COMMAND fuzz_api_replay -artifact_prefix ${PROJECT_BINARY_DIR}/fuzz/corpus-
          ${NAVGUARD_FUZZ_SOURCE_DIR}/corpus ${NAVGUARD_FUZZ_SOURCE_DIR}/crashers)
add_test(NAME fuzz_read_corpus
  COMMAND fuzz_read_replay -artifact_prefix ${PROJECT_BINARY_DIR}/fuzz/corpus-read-
          ${NAVGUARD_FUZZ_SOURCE_DIR}/corpus-read ${NAVGUARD_FUZZ_SOURCE_DIR}/crashers/read)
set_tests_properties(fuzz_api_corpus fuzz_read_corpus PROPERTIES
  ENVIRONMENT "NAVGUARD_PLUGIN_DIR=${NAVGUARD_PLUGIN_BUILD_DIR};NGF_FINDINGS=0;NGF_VERBOSE=0"
  TIMEOUT 600)

# The navguard tool's readers (replay, timeline, stats, convert) on every
# file of fuzz/corpus-read and fuzz/crashers/read (fuzz/cli_readers.sh): an
# exit status of its own, never a signal. Where the tool is built (not in a
# sanitizer tree, nor with -DNAVGUARD_BUILD_CLI=OFF).
if(NOT NAVGUARD_SANITIZE AND (NAVGUARD_BUILD_CLI OR NOT DEFINED NAVGUARD_BUILD_CLI))
  add_test(NAME navguard_cli_readers
    COMMAND sh ${NAVGUARD_FUZZ_SOURCE_DIR}/cli_readers.sh ${CMAKE_BINARY_DIR}/swiftpm/release/navguard-cli
            ${PROJECT_BINARY_DIR}/fuzz/cli-readers
            ${NAVGUARD_FUZZ_SOURCE_DIR}/corpus-read ${NAVGUARD_FUZZ_SOURCE_DIR}/crashers/read)
  set_tests_properties(navguard_cli_readers PROPERTIES
    ENVIRONMENT "NAVGUARD_PLUGIN_DIR=${NAVGUARD_PLUGIN_BUILD_DIR}"
    TIMEOUT 300)
endif()
