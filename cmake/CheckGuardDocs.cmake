# SPDX-License-Identifier: Apache-2.0
# cmake -DCLI=navguard -DDOC=docs/guards.md -DPLUGIN_DIR=dir -DOUT=file -P CheckGuardDocs.cmake
# Fails when DOC differs from what `navguard plugins docs` prints for the
# built-in guards in PLUGIN_DIR (the declarations are the source of truth).
cmake_minimum_required(VERSION 3.25)
set(ENV{NAVGUARD_PLUGIN_DIR} "${PLUGIN_DIR}")
set(ENV{NAVGUARD_PLUGIN_PATH} "")
execute_process(COMMAND ${CLI} plugins docs OUTPUT_VARIABLE generated RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "navguard plugins docs failed (${rc}): ${err}")
endif()
if(NOT EXISTS "${DOC}")
  message(FATAL_ERROR "${DOC} is missing: run `make docs`")
endif()
file(READ "${DOC}" committed)
if(NOT committed STREQUAL generated)
  file(WRITE "${OUT}" "${generated}")
  message(FATAL_ERROR "${DOC} is out of date with the guards' declarations: run `make docs` "
                      "(the generated text is in ${OUT}; diff -u ${DOC} ${OUT})")
endif()
message(STATUS "${DOC} matches the guards' declarations")
