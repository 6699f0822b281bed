# SPDX-License-Identifier: Apache-2.0
# cmake -DLIB=<shared library> -DSTRIP=<strip> -DREADELF=<readelf>
#       -DMAX_BYTES=<n> -DNEEDED=<lib1,lib2> -DOUT=<scratch file> -P CheckEmbedded.cmake
# What an Embedded Swift build promises (cmake/NavGuardEmbeddedSwift.cmake):
# LIB, stripped (a copy at OUT), is at most MAX_BYTES, and needs no shared
# library but those in NEEDED (libc, and libm for the library). An ordinary
# Swift build, with its runtime linked in, is several MiB and needs libstdc++
# and libgcc_s: this fails for it.
cmake_minimum_required(VERSION 3.25)
foreach(var LIB STRIP READELF MAX_BYTES NEEDED OUT)
  if(NOT ${var})
    message(FATAL_ERROR "CheckEmbedded.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT EXISTS "${LIB}")
  message(FATAL_ERROR "${LIB} does not exist")
endif()

set(errors "")
execute_process(COMMAND ${STRIP} -o "${OUT}" "${LIB}" RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${STRIP} -o ${OUT} ${LIB} failed: ${err}")
endif()
file(SIZE "${OUT}" size)
if(size GREATER MAX_BYTES)
  string(APPEND errors "  ${size} bytes stripped, more than ${MAX_BYTES} (configured with -DNAVGUARD_SWIFT_EMBEDDED=OFF?)\n")
endif()

execute_process(COMMAND ${READELF} -d "${LIB}" OUTPUT_VARIABLE dyn RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${READELF} -d ${LIB} failed: ${err}")
endif()
string(REPLACE "," ";" allowed "${NEEDED}")
string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*\\[[^]\n]*\\]" lines "${dyn}")
set(needed "")
foreach(line IN LISTS lines)
  string(REGEX REPLACE ".*\\[([^]]*)\\]" "\\1" lib "${line}")
  list(APPEND needed ${lib})
  if(NOT lib IN_LIST allowed)
    string(APPEND errors "  needs ${lib} (allowed: ${NEEDED})\n")
  endif()
endforeach()

if(errors)
  message(FATAL_ERROR "${LIB}:\n${errors}")
endif()
string(REPLACE ";" ", " needed "${needed}")
message(STATUS "${LIB}: ${size} bytes stripped (at most ${MAX_BYTES}); needs ${needed}")
