# SPDX-License-Identifier: Apache-2.0
# cmake -DTEMPLATE=<examples/plugins/x> -DBINARY=<dir> -DPREFIX=<install> -DPLUGIN=<x.so>
#       -DGENERATOR=<gen> -DSOURCE_DIR=<NavGuard's source tree> [-DCONFIG=<json file>]
#       [-DCMAKE_ARGS=<-D...;-D...>] [-DMAX_BYTES=<n> -DNEEDED=<libs> -DSTRIP=<strip> -DREADELF=<readelf>]
#       -P BuildTemplate.cmake
# Builds a plugin template as a project of its own against the installed
# tree PREFIX (CMAKE_PREFIX_PATH), as a plugin author without the source tree
# would, then validates the plugin with the installed bin/navguard. Fails
# when NavGuard was found elsewhere than PREFIX, when the build used a file
# of the source tree other than the template's own, or when the plugin does
# not conform; with MAX_BYTES, also when the plugin is larger stripped or
# needs a library not in NEEDED (cmake/CheckEmbedded.cmake: an Embedded Swift
# guard).
cmake_minimum_required(VERSION 3.25)
foreach(var TEMPLATE BINARY PREFIX PLUGIN GENERATOR SOURCE_DIR)
  if(NOT ${var})
    message(FATAL_ERROR "BuildTemplate.cmake: -D${var}=... is required")
  endif()
endforeach()

include(${CMAKE_CURRENT_LIST_DIR}/RunStep.cmake)

file(REMOVE_RECURSE ${BINARY})
run("configure" ${CMAKE_COMMAND} -S ${TEMPLATE} -B ${BINARY} -G ${GENERATOR}
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${PREFIX} ${CMAKE_ARGS})
run("build" ${CMAKE_COMMAND} --build ${BINARY})

file(STRINGS ${BINARY}/CMakeCache.txt dir REGEX "^NavGuard_DIR:")
string(REGEX REPLACE "^[^=]*=" "" dir "${dir}")
if(NOT dir MATCHES "^${PREFIX}/lib(/[^/]+-linux-gnu[^/]*)?/cmake/NavGuard$")   # lib, or Debian's lib/<triplet>
  message(FATAL_ERROR "find_package(NavGuard) found ${dir}, not the install ${PREFIX}")
endif()
# Of the source tree, only the template's own directory may appear among the
# build's inputs (the build and install directories may lie inside it).
file(READ ${BINARY}/build.ninja ninja)
foreach(dir TEMPLATE BINARY PREFIX)
  string(REPLACE "${${dir}}" "<${dir}>" ninja "${ninja}")
endforeach()
string(FIND "${ninja}" "${SOURCE_DIR}/" at)
if(NOT at EQUAL -1)
  string(SUBSTRING "${ninja}" ${at} 200 line)
  string(REGEX REPLACE "[ \n].*" "" line "${line}")
  message(FATAL_ERROR "the template's build used the source tree, not only the install: ${line}")
endif()

if(MAX_BYTES)
  run("size and NEEDED" ${CMAKE_COMMAND} -DLIB=${BINARY}/${PLUGIN} -DSTRIP=${STRIP} -DREADELF=${READELF}
      -DMAX_BYTES=${MAX_BYTES} -DNEEDED=${NEEDED} -DOUT=${BINARY}/${PLUGIN}.stripped
      -P ${SOURCE_DIR}/cmake/CheckEmbedded.cmake)
  string(REGEX REPLACE "^-- |\n$" "" embedded "${out}")
  message(STATUS "${embedded}")
endif()

set(args plugins validate)
if(CONFIG)
  list(APPEND args --config @${CONFIG})
endif()
execute_process(COMMAND ${PREFIX}/bin/navguard ${args} ${BINARY}/${PLUGIN}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "result: [^\n]* conforms")
  message(FATAL_ERROR "navguard plugins validate ${BINARY}/${PLUGIN} (${rc}):\n${out}${err}")
endif()
string(REGEX MATCH "summary: [^\n]*" summary "${out}")
message(STATUS "${PLUGIN}, built against ${PREFIX}: ${summary}")
