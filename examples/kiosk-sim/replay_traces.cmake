# SPDX-License-Identifier: Apache-2.0
# ctest example_kiosk_sim_replay (cmake -P): kiosk-sim records every
# scenario's trace, then `navguard replay` re-runs each one.
#
#   cmake -DSIM=<kiosk-sim> -DCLI=<navguard-cli> -DDIR=<trace dir>
#         -DTRACES=<how many kiosk-sim writes> [-DEMULATOR=<cmd;args>]
#         [-DCLI_PLUGIN_DIR=<dir>] -P replay_traces.cmake
#
# A cross build (make test-arm64) runs kiosk-sim under EMULATOR (qemu-user)
# and replays its traces with this machine's navguard tool, whose guards
# are in CLI_PLUGIN_DIR (NAVGUARD_PLUGIN_DIR for the tool only).
#
# Fails (naming the trace) when kiosk-sim fails, writes another number of
# traces, a trace does not replay identically (exit 0), or a guarded trace
# replayed against the empty chain does not diverge (exit 1, "diverged"):
# that last check shows the replay compares, rather than accepting anything.
foreach(v SIM CLI DIR TRACES)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "replay_traces.cmake: -D${v}=... is missing")
  endif()
endforeach()

# Traces of an earlier run would hide a scenario that no longer records.
file(REMOVE_RECURSE "${DIR}")
set(cli_env "")
if(CLI_PLUGIN_DIR)
  set(cli_env "${CMAKE_COMMAND}" -E env "NAVGUARD_PLUGIN_DIR=${CLI_PLUGIN_DIR}")
endif()
execute_process(COMMAND ${EMULATOR} "${SIM}" --strict --record "${DIR}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kiosk-sim --strict --record ${DIR} exited with ${rc}:\n${err}\n${out}")
endif()

file(GLOB traces "${DIR}/*.jsonl")
list(LENGTH traces n)
if(NOT n EQUAL TRACES)
  string(REPLACE ";" "\n  " listed "${traces}")
  message(FATAL_ERROR "kiosk-sim --record wrote ${n} traces to ${DIR}, expected ${TRACES}:\n  ${listed}")
endif()

set(failures 0)
set(lines 0)
set(guarded 0)
string(TIMESTAMP t0 "%s%f")
foreach(trace IN LISTS traces)
  get_filename_component(name "${trace}" NAME)
  file(STRINGS "${trace}" trace_lines)
  list(LENGTH trace_lines count)
  math(EXPR lines "${lines} + ${count}")

  execute_process(COMMAND ${cli_env} "${CLI}" replay "${trace}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "^replay: identical")
    message(SEND_ERROR "${name}: navguard replay exited with ${rc}, expected 0 (identical):\n${out}${err}")
    math(EXPR failures "${failures} + 1")
  else()
    string(STRIP "${out}" out)
    message(STATUS "${name} (${count} lines): ${out}")
  endif()

  # A guarded run's guards changed what happened: without them it diverges.
  if(name MATCHES "^guarded-")
    math(EXPR guarded "${guarded} + 1")
    execute_process(COMMAND ${cli_env} "${CLI}" replay "${trace}" --config "{\"guards\":[]}"
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 1 OR NOT out MATCHES "diverged")
      message(SEND_ERROR "${name}: navguard replay --config '{\"guards\":[]}' exited with ${rc}, "
                         "expected 1 with a report that says \"diverged\":\n${out}${err}")
      math(EXPR failures "${failures} + 1")
    else()
      string(REGEX MATCH "^[^\n]*" first "${out}")
      message(STATUS "${name} against the empty chain: ${first}")
    endif()
  endif()
endforeach()
string(TIMESTAMP t1 "%s%f")
math(EXPR ms "(${t1} - ${t0}) / 1000")

if(guarded EQUAL 0)
  message(SEND_ERROR "no guarded-*.jsonl trace among the ${n}: the empty-chain check did not run")
  math(EXPR failures "${failures} + 1")
endif()
if(failures GREATER 0)
  message(FATAL_ERROR "${failures} replay check(s) failed (traces kept in ${DIR})")
endif()
message(STATUS "${n} traces (${lines} lines) replayed identically, ${guarded} guarded ones diverged "
               "against the empty chain; ${ms} ms for the replays")
