# SPDX-License-Identifier: Apache-2.0
# cmake -DTEMPLATE=<examples/plugins/swift-template> -DBINARY=<dir> -DPREFIX=<install>
#       -DSWIFT=<swift> -DCONFIG=<json file>
#       -P BuildTemplateSwiftPM.cmake
# The Swift template built the SwiftPM way against the installed tree PREFIX,
# as a plugin author would: a copy of the template (its Package.swift, its
# sources) built with `swift build` and NAVGUARD_PREFIX=PREFIX, so its
# .package(path:) is PREFIX/share/navguard/swift (the installed kit's
# Package.swift); then libmax-depth.so, named max-depth.so, is validated
# with the installed bin/navguard. Fails when the kit resolved is not the
# installed one, when the guard exports more than ng_plugin_entry, is not
# Embedded Swift's size (200 KB stripped) or needs more than libc, or when it
# does not conform.
cmake_minimum_required(VERSION 3.25)
foreach(var TEMPLATE BINARY PREFIX SWIFT CONFIG)
  if(NOT ${var})
    message(FATAL_ERROR "BuildTemplateSwiftPM.cmake: -D${var}=... is required")
  endif()
endforeach()
include(${CMAKE_CURRENT_LIST_DIR}/RunStep.cmake)

file(REMOVE_RECURSE ${BINARY})
file(MAKE_DIRECTORY ${BINARY})
file(COPY ${TEMPLATE}/Package.swift ${TEMPLATE}/Sources DESTINATION ${BINARY}/package)
run("swift build" ${CMAKE_COMMAND} -E env NAVGUARD_PREFIX=${PREFIX}
    ${SWIFT} build -c release --package-path ${BINARY}/package --scratch-path ${BINARY}/scratch)

# The kit came from the install: the resolved dependency is PREFIX's.
run("swift package show-dependencies" ${CMAKE_COMMAND} -E env NAVGUARD_PREFIX=${PREFIX}
    ${SWIFT} package --package-path ${BINARY}/package --scratch-path ${BINARY}/scratch show-dependencies --format json)
string(FIND "${out}" "\"path\": \"${PREFIX}/share/navguard/swift\"" at)
if(at EQUAL -1)
  message(FATAL_ERROR "the template's NavGuardPluginKit is not the installed one (${PREFIX}/share/navguard/swift):\n${out}")
endif()

set(plugin ${BINARY}/max-depth.so)
file(COPY_FILE ${BINARY}/scratch/release/libmax-depth.so ${plugin})
run("size and NEEDED" ${CMAKE_COMMAND} -DLIB=${plugin} -DSTRIP=strip -DREADELF=readelf
    -DMAX_BYTES=200000 -DNEEDED=libc.so.6 -DOUT=${plugin}.stripped
    -P ${CMAKE_CURRENT_LIST_DIR}/../../cmake/CheckEmbedded.cmake)
string(REGEX REPLACE "^-- |\n$" "" embedded "${out}")
message(STATUS "${embedded}")
run("nm -D" nm -D --defined-only ${plugin})
string(REGEX MATCHALL "[0-9a-f]+ [A-Z] [^\n]+" globals "${out}")
if(NOT globals MATCHES "^[0-9a-f]+ T ng_plugin_entry$")
  message(FATAL_ERROR "${plugin} exports more than ng_plugin_entry: ${globals}")
endif()
execute_process(COMMAND ${PREFIX}/bin/navguard plugins validate --config @${CONFIG} ${plugin}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT out MATCHES "result: [^\n]* conforms")
  message(FATAL_ERROR "navguard plugins validate ${plugin} (${rc}):\n${out}${err}")
endif()
string(REGEX MATCH "summary: [^\n]*" summary "${out}")
message(STATUS "max-depth.so, built with SwiftPM against ${PREFIX}: ${summary}")
