# SPDX-License-Identifier: Apache-2.0
# The API reference: HTML from the headers' comments, with Doxygen, into
# ${PROJECT_BINARY_DIR}/docs/html, navguard.h, plugin.h and the two adapters'
# headers (target navguard-api-docs, part of the
# default build when doxygen is found; `make docs` builds it too). The
# headers are read through tools/doxygen-filter.py, which turns their section
# banners into groups and their comments into doc comments (thread rule,
# ownership, statuses), so they keep their plain C style. Installed with the
# dev component (libnavguard-dev) to share/doc/navguard/html.
find_program(NAVGUARD_DOXYGEN doxygen)
find_package(Python3 COMPONENTS Interpreter QUIET)
if(NOT NAVGUARD_DOXYGEN OR NOT Python3_Interpreter_FOUND)
  message(STATUS "API reference: doxygen or python3 not found (apt-get install -y doxygen): not built, not installed")
  return()
endif()
set(NAVGUARD_API_DOCS_DIR ${PROJECT_BINARY_DIR}/docs)
configure_file(${PROJECT_SOURCE_DIR}/docs/api/Doxyfile.in ${NAVGUARD_API_DOCS_DIR}/Doxyfile @ONLY)
file(GLOB navguard_api_headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/navguard/*.h)
# The Qt adapter's header and the part headers it includes (installed with it).
file(GLOB navguard_qt6_api_headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/adapters/qt6/navguard_qt6*.h)
list(APPEND navguard_api_headers ${PROJECT_SOURCE_DIR}/adapters/sdl2/navguard_sdl2.h
  ${navguard_qt6_api_headers}
  ${PROJECT_SOURCE_DIR}/adapters/journald/navguard_journald.h ${PROJECT_SOURCE_DIR}/adapters/journald/navguard_metrics.h)
add_custom_command(OUTPUT ${NAVGUARD_API_DOCS_DIR}/html/index.html
  COMMAND ${CMAKE_COMMAND} -E rm -rf ${NAVGUARD_API_DOCS_DIR}/html
  COMMAND ${NAVGUARD_DOXYGEN} ${NAVGUARD_API_DOCS_DIR}/Doxyfile
  # Doxygen writes its warnings to a file and exits 0: show them.
  COMMAND ${CMAKE_COMMAND} -E cat ${NAVGUARD_API_DOCS_DIR}/doxygen-warnings.txt
  DEPENDS ${navguard_api_headers} ${PROJECT_SOURCE_DIR}/tools/doxygen-filter.py
          ${PROJECT_SOURCE_DIR}/docs/api/mainpage.md ${NAVGUARD_API_DOCS_DIR}/Doxyfile
  COMMENT "API reference (Doxygen): ${NAVGUARD_API_DOCS_DIR}/html/index.html"
  VERBATIM)
add_custom_target(navguard-api-docs ALL DEPENDS ${NAVGUARD_API_DOCS_DIR}/html/index.html)
install(DIRECTORY ${NAVGUARD_API_DOCS_DIR}/html/
  DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/navguard/html COMPONENT dev)

# api_reference: the generated reference reads as the headers do (each
# header's group title, every NG_API function with its thread rule and
# statuses, the adapters' functions and the Qt signals' keys, no Doxygen
# warning): ctest/docs/check_api_reference.py.
add_test(NAME api_reference COMMAND ${Python3_EXECUTABLE}
  ${PROJECT_SOURCE_DIR}/ctest/docs/check_api_reference.py
  ${NAVGUARD_API_DOCS_DIR}/html ${PROJECT_SOURCE_DIR}/include/navguard
  ${PROJECT_SOURCE_DIR}/adapters/sdl2/navguard_sdl2.h ${navguard_qt6_api_headers}
  ${PROJECT_SOURCE_DIR}/adapters/journald/navguard_journald.h ${PROJECT_SOURCE_DIR}/adapters/journald/navguard_metrics.h)
