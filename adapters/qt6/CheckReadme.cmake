# SPDX-License-Identifier: Apache-2.0
# cmake -DREADME=<README.md> -DDIR=<adapters/qt6/example> -P CheckReadme.cmake
# README's Qt host is the example, word for word: its main.cpp and Main.qml
# appear in README as they are (the example is built and checked by
# qt6_adapter_find_package, so README's lines are too). The files' licence
# line is left out of README.
file(READ ${README} readme)
foreach(name main.cpp Main.qml)
  file(READ ${DIR}/${name} text)
  string(REGEX REPLACE "^// SPDX-License-Identifier: [^\n]*\n" "" text "${text}")
  string(FIND "${readme}" "${text}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "README.md does not show ${DIR}/${name} as it is: copy it into the Qt 6 adapter section")
  endif()
endforeach()
message(STATUS "README.md shows the example's main.cpp and Main.qml")
