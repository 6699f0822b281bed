# SPDX-License-Identifier: Apache-2.0
# cmake -DBUILD_DIR=<build> -DWORK=<dir> -DCC=<cc> -DPKG_CONFIG=<pkg-config>
#       -DGENERATOR=<gen> -P CheckRelocated.cmake
# Installs BUILD_DIR to WORK/first, copies the tree to WORK/moved and removes
# the original, so nothing can still point at it; then builds
# ctest/install/config_host.c against the copy twice and runs it: with
# pkg-config (PKG_CONFIG_PATH=WORK/moved/lib/pkgconfig, an rpath to the
# library's directory) and with find_package (CMAKE_PREFIX_PATH=WORK/moved).
# Each run must pass its checks and report the plugin directory of the copy.
cmake_minimum_required(VERSION 3.25)
foreach(var BUILD_DIR WORK CC PKG_CONFIG GENERATOR)
  if(NOT ${var})
    message(FATAL_ERROR "CheckRelocated.cmake: -D${var}=... is required")
  endif()
endforeach()
get_filename_component(here ${CMAKE_CURRENT_LIST_DIR} ABSOLUTE)

include(${CMAKE_CURRENT_LIST_DIR}/RunStep.cmake)

file(REMOVE_RECURSE ${WORK})
run("install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK}/first)
run("copy" cp -a ${WORK}/first ${WORK}/moved)
file(REMOVE_RECURSE ${WORK}/first)
set(prefix ${WORK}/moved)
# The library finds its plugins beside itself, wherever it was loaded from.
set(ENV{NAVGUARD_PLUGIN_DIR} "")
set(ENV{NAVGUARD_PLUGIN_PATH} "")
string(REGEX REPLACE "([][+.*?()^$|\\])" "\\\\\\1" prefix_re "${prefix}")
set(expect "config_host: all [0-9]+ checks passed \\(library [^,]*, plugins ${prefix_re}/lib/navguard/plugins\\)")

# pkg-config: prefix=${pcfiledir}/../.. follows the copy.
set(ENV{PKG_CONFIG_PATH} ${prefix}/lib/pkgconfig)
run("pkg-config" ${PKG_CONFIG} --cflags --libs navguard)
separate_arguments(flags UNIX_COMMAND "${out}")
run("pkg-config --variable=libdir" ${PKG_CONFIG} --variable=libdir navguard)
string(STRIP "${out}" libdir)
if(NOT libdir MATCHES "^${prefix_re}/")
  message(FATAL_ERROR "navguard.pc's libdir is ${libdir}, not in the copy ${prefix}")
endif()
run("cc (pkg-config)" ${CC} -std=c11 -Wall -Wextra -Wpedantic -Werror -o ${WORK}/pkg_config_host
    ${here}/config_host.c ${flags} -Wl,-rpath,${libdir})
run("the pkg-config host" ${WORK}/pkg_config_host)
if(NOT out MATCHES "${expect}")
  message(FATAL_ERROR "the pkg-config host ran, but not on the copy:\n${out}")
endif()
message(STATUS "pkg-config: ${out}")

# find_package: NavGuardConfig.cmake computes every path from its own place.
run("configure (find_package)" ${CMAKE_COMMAND} -S ${here}/host -B ${WORK}/cmake-host -G ${GENERATOR}
    -DCMAKE_C_COMPILER=${CC} -DCMAKE_PREFIX_PATH=${prefix})
run("build (find_package)" ${CMAKE_COMMAND} --build ${WORK}/cmake-host)
run("the find_package host" ${WORK}/cmake-host/config_host)
if(NOT out MATCHES "${expect}")
  message(FATAL_ERROR "the find_package host ran, but not on the copy:\n${out}")
endif()
message(STATUS "find_package: ${out}")
