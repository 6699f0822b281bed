# SPDX-License-Identifier: Apache-2.0
# cmake -DLIB=<shared library> -DNM=<nm> -DREADELF=<readelf> -DPATTERN=<regex>
#       [-DREQUIRE=sym1,sym2] [-DSONAME=<soname>] -P CheckExports.cmake
# Fails unless every defined dynamic symbol of LIB (local ones included)
# matches PATTERN, each REQUIRE symbol is exported, the SONAME is SONAME
# (when given), no Swift runtime library is NEEDED and no RUNPATH/RPATH
# points into a Swift toolchain.
cmake_minimum_required(VERSION 3.25)
foreach(var LIB NM READELF PATTERN)
  if(NOT ${var})
    message(FATAL_ERROR "CheckExports.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT EXISTS "${LIB}")
  message(FATAL_ERROR "${LIB} does not exist")
endif()

set(errors "")

execute_process(COMMAND ${NM} -D --defined-only "${LIB}"
  OUTPUT_VARIABLE nm_out ERROR_VARIABLE nm_err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} -D --defined-only ${LIB} failed: ${nm_err}")
endif()
string(REPLACE "\n" ";" nm_lines "${nm_out}")
set(exported "")
foreach(line IN LISTS nm_lines)
  # Every defined symbol .dynsym lists counts, whatever its binding: a LOCAL
  # one (lowercase type, e.g. a Swift type's metadata that gold kept there
  # for a GOT entry) binds nothing, but it is in the library's dynamic symbol
  # table (nm -D) and says something leaked past the version script.
  set(type "")
  if(line MATCHES "^[0-9a-fA-F]* *([A-Za-z]) +([^ ]+)$")
    set(type "${CMAKE_MATCH_1}")
    set(sym "${CMAKE_MATCH_2}")
  endif()
  if(type)
    string(REGEX REPLACE "@.*$" "" sym "${sym}")  # strip a symbol version
    list(APPEND exported "${sym}")
    if(NOT sym MATCHES "${PATTERN}")
      string(APPEND errors "  symbol in .dynsym not matching ${PATTERN}: ${line}\n")
    endif()
  endif()
endforeach()
list(LENGTH exported count)

string(REPLACE "," ";" required "${REQUIRE}")
foreach(sym IN LISTS required)
  if(NOT sym IN_LIST exported)
    string(APPEND errors "  required symbol not exported: ${sym}\n")
  endif()
endforeach()

execute_process(COMMAND ${READELF} -d "${LIB}"
  OUTPUT_VARIABLE dyn ERROR_VARIABLE dyn_err RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${READELF} -d ${LIB} failed: ${dyn_err}")
endif()
if(SONAME)
  if(NOT dyn MATCHES "\\(SONAME\\)[^\n]*\\[([^]\n]*)\\]")
    string(APPEND errors "  no SONAME (expected ${SONAME})\n")
  elseif(NOT CMAKE_MATCH_1 STREQUAL SONAME)
    string(APPEND errors "  SONAME is ${CMAKE_MATCH_1}, expected ${SONAME}\n")
  endif()
endif()
string(REPLACE "\n" ";" dyn_lines "${dyn}")
foreach(line IN LISTS dyn_lines)
  if(line MATCHES "\\(NEEDED\\).*\\[(libswift[^]]*|libFoundation[^]]*|libdispatch[^]]*|libBlocksRuntime[^]]*)\\]")
    string(APPEND errors "  needs a Swift runtime library (link with -static-stdlib): ${CMAKE_MATCH_1}\n")
  endif()
  if(line MATCHES "\\((RUNPATH|RPATH)\\).*\\[([^]]*)\\]" AND CMAKE_MATCH_2 MATCHES "swift")
    string(APPEND errors "  ${CMAKE_MATCH_1} into a Swift toolchain: ${CMAKE_MATCH_2}\n")
  endif()
endforeach()

if(errors)
  message(FATAL_ERROR "${LIB}:\n${errors}")
endif()
message(STATUS "${LIB}: ${count} exported symbols, all matching ${PATTERN}")
