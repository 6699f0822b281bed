# SPDX-License-Identifier: Apache-2.0
# Debian packages with CPack (DEB generator), one per install component,
# in Debian's multiarch layout (<libdir> = lib/<triplet>, e.g.
# lib/x86_64-linux-gnu: CPack installs into /usr, see "Install layout" in
# CMakeLists.txt):
#
#   libnavguard0     runtime  <libdir>/libnavguard.so.0*, <libdir>/navguard/plugins/*.so
#   libnavguard-dev  dev      include/navguard, <libdir>/libnavguard.so,
#                             <libdir>/pkgconfig/navguard.pc, <libdir>/cmake/NavGuard
#                             (guard helpers included), share/navguard (SDL2
#                             and Qt 6 adapters, Swift plugin kit and its
#                             Package.swift), share/doc/navguard/html (the API
#                             reference), share/doc/libnavguard-dev/{adapters,
#                             examples} (the adapters' guides and out-of-tree
#                             examples; share/doc/navguard/... in a plain install)
#   navguard-tools   tools    bin/navguard
#
# `make package` (cpack in the build directory) writes them to
# build/packages/, installed under /usr. Run-time dependencies come from the
# binaries (dpkg-shlibdeps, from dpkg-dev); libnavguard-dev and navguard-tools
# depend on the libnavguard0 of their own version (the tool finds the
# built-in guards in /usr/<libdir>/navguard/plugins). The version is the
# project's (navguard.h), the Debian revision NAVGUARD_DEB_REVISION. After
# CPack, Installed-Size is computed again (packaging/debian/installed-size.cmake:
# CPack 3.25 counts a symlink as a copy of its target). The ctest
# package_deb builds them again and checks them (ctest/install/CheckPackages.cmake).
#
# The runtime package is named after the SONAME, as Debian's shared-library
# policy asks: a new major version gets a new package (libnavguard1) that can
# be installed beside the old one.

set(NAVGUARD_DEB_REVISION 1 CACHE STRING "Debian revision of the packages (make package)")
# The Maintainer field names whoever builds and ships the packages (they are
# built by integrators, not uploaded to Debian), "Name <address>" as Debian
# policy asks. Set it with -DNAVGUARD_DEB_MAINTAINER="Name <address>"; else
# it is taken from the environment as Debian's tools take it (DEBEMAIL, with
# DEBFULLNAME for the name, as dch reads them), and without DEBEMAIL it names
# the project's maintainer role at the machine that built the packages:
# navguard.localhost is this machine (RFC 6761), so the address names no
# person and invents no remote mailbox, and lintian accepts it (it refuses
# localhost and localhost.localdomain as mail hosts).
set(navguard_deb_maintainer_default "NavGuard Maintainers <maintainers@navguard.localhost>")
if(DEFINED ENV{DEBEMAIL} AND NOT "$ENV{DEBEMAIL}" STREQUAL "")
  if("$ENV{DEBEMAIL}" MATCHES "<.*>")
    set(navguard_deb_maintainer_default "$ENV{DEBEMAIL}")
  elseif(DEFINED ENV{DEBFULLNAME} AND NOT "$ENV{DEBFULLNAME}" STREQUAL "")
    set(navguard_deb_maintainer_default "$ENV{DEBFULLNAME} <$ENV{DEBEMAIL}>")
  else()
    set(navguard_deb_maintainer_default "NavGuard Maintainers <$ENV{DEBEMAIL}>")
  endif()
endif()
set(NAVGUARD_DEB_MAINTAINER "${navguard_deb_maintainer_default}" CACHE STRING
  "Maintainer field of the Debian packages, \"Name <address>\" (make package)")
if(NAVGUARD_DEB_MAINTAINER STREQUAL "NavGuard Dev <dev@navguard.invalid>")   # the old default, cached
  set_property(CACHE NAVGUARD_DEB_MAINTAINER PROPERTY VALUE "${navguard_deb_maintainer_default}")
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME navguard)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)                   # the library and plugins; see bin/navguard below
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dev tools)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)     # <name>_<version>-<revision>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_RELEASE ${NAVGUARD_DEB_REVISION})
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${NAVGUARD_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)  # DEBIAN/shlibs: libnavguard 0 libnavguard0 (>= version)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_COMPONENT_DEV_DEPENDS runtime)
set(CPACK_COMPONENT_TOOLS_DEPENDS runtime)
# A cross build (cmake/toolchains/, make package-arm64): the packages are
# the target's architecture; navguard-tools exists only where the tool was
# built (it needs ordinary Swift for the target); dpkg-shlibdeps looks in
# the sysroot (CPackProjectConfig.cmake, below).
if(CMAKE_CROSSCOMPILING)
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE ${CMAKE_SYSTEM_PROCESSOR})
  if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
    set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
  elseif(CMAKE_SYSTEM_PROCESSOR STREQUAL "x86_64")
    set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
  endif()
endif()
if(NOT TARGET navguard-cli)
  list(REMOVE_ITEM CPACK_COMPONENTS_ALL tools)
endif()

set(navguard_deb_about "NavGuard keeps a stack of screens safe from double pushes, back-button
races, cancelled swipe-backs, touches during transitions and stuck input
blocks, for C and C++ game front-ends, kiosks and embedded touch UIs. Its
core is written in Swift, built with Embedded Swift (no Swift runtime:
the library needs only libc and libm), and driven through a C ABI; every
policy is a guard plugin.")

set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libnavguard${PROJECT_VERSION_MAJOR})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_DEBIAN_RUNTIME_DESCRIPTION "navigation and input guard library for kiosks and touch UIs
${navguard_deb_about}

This package has the shared library and the built-in guard plugins.")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libnavguard-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_DEV_DESCRIPTION "navigation and input guard library (development files)
${navguard_deb_about}

This package has the C headers, pkg-config and CMake files
(find_package(NavGuard)), the SDL2 and Qt 6 adapters' sources, and what
writing a guard plugin needs: the CMake helpers navguard_add_guard and
navguard_add_swift_guard and the Swift plugin kit's sources.")
# The adapters are sources a host compiles with its own toolkit: suggested,
# never depended on, so the -dev package pulls in neither SDL2 nor Qt.
set(CPACK_DEBIAN_DEV_PACKAGE_SUGGESTS "libsdl2-dev, qt6-declarative-dev")

set(CPACK_DEBIAN_TOOLS_PACKAGE_NAME navguard-tools)
set(CPACK_DEBIAN_TOOLS_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_TOOLS_DESCRIPTION "command-line tool for NavGuard guard plugins
${navguard_deb_about}

This package has the navguard tool: it validates a guard plugin out of
process, lists and describes guards and chain configurations, and replays
flight-recorder traces.")

# Each package's /usr/share/doc/<package>/copyright and changelog.Debian.gz,
# which Debian requires, and its lintian overrides (a comment in the file
# says why). Only in the packages: EXCLUDE_FROM_ALL keeps them out of a plain
# `cmake --install`, CPack installs each component by name.
string(TIMESTAMP NAVGUARD_DEB_DATE "%a, %d %b %Y %H:%M:%S +0000" UTC)   # honours SOURCE_DATE_EPOCH
set(NAVGUARD_DEB_VERSION ${PROJECT_VERSION}-${NAVGUARD_DEB_REVISION})
configure_file(${PROJECT_SOURCE_DIR}/packaging/debian/changelog.in
  ${PROJECT_BINARY_DIR}/debian/changelog.Debian @ONLY)
navguard_gzip(${PROJECT_BINARY_DIR}/debian/changelog.Debian ${PROJECT_BINARY_DIR}/debian/changelog.Debian.gz)
foreach(component IN LISTS CPACK_COMPONENTS_ALL)
  string(TOUPPER ${component} upper)
  set(package ${CPACK_DEBIAN_${upper}_PACKAGE_NAME})
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/debian/copyright
                ${PROJECT_BINARY_DIR}/debian/changelog.Debian.gz
    DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/${package}
    COMPONENT ${component} EXCLUDE_FROM_ALL)
  install(FILES ${PROJECT_SOURCE_DIR}/packaging/debian/lintian-overrides
    DESTINATION ${CMAKE_INSTALL_DATADIR}/lintian/overrides RENAME ${package}
    COMPONENT ${component} EXCLUDE_FROM_ALL)
endforeach()
# libnavguard.so.0 is in a directory ldconfig caches: dpkg's ldconfig trigger.
# (CPack 3.25 also writes a postinst and postrm that call ldconfig; the
# post-build step below drops them, since the trigger does their work.)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/packaging/debian/triggers)

# bin/navguard is installed with install(PROGRAMS) (SwiftPM built it), which
# CPACK_STRIP_FILES does not strip: strip it when the install asks for it.
if(TARGET navguard-cli)
  install(CODE "if(CMAKE_INSTALL_DO_STRIP)
    execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-unneeded \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}/navguard\" COMMAND_ERROR_IS_FATAL ANY)
  endif()" COMPONENT tools)
endif()

# CPack warns, once per guard plugin, that a shared library without a SONAME
# gets no line in DEBIAN/shlibs: right for plugins (dlopened, never linked
# against), so its developer warnings are off while it packages.
file(WRITE ${PROJECT_BINARY_DIR}/CPackProjectConfig.cmake
  "set(CMAKE_SUPPRESS_DEVELOPER_WARNINGS ON CACHE INTERNAL \"\")\n")
# A cross build's dependencies: this machine's dpkg knows no library of the
# target, so dpkg-shlibdeps runs through packaging/debian/cross-shlibdeps.sh,
# which finds them, and their packages, in the sysroot (a Debian root).
if(CMAKE_CROSSCOMPILING AND CMAKE_SYSROOT AND CMAKE_LIBRARY_ARCHITECTURE)
  file(APPEND ${PROJECT_BINARY_DIR}/CPackProjectConfig.cmake
    "set(SHLIBDEPS_EXECUTABLE \"${PROJECT_SOURCE_DIR}/packaging/debian/cross-shlibdeps.sh\")\n"
    "set(ENV{NAVGUARD_CROSS_SYSROOT} \"${CMAKE_SYSROOT}\")\n"
    "set(ENV{NAVGUARD_CROSS_MULTIARCH} \"${CMAKE_LIBRARY_ARCHITECTURE}\")\n")
endif()
set(CPACK_PROJECT_CONFIG_FILE ${PROJECT_BINARY_DIR}/CPackProjectConfig.cmake)

# Installed-Size as dpkg-gencontrol computes it, written into each package
# once CPack has made them (CPack 3.25 counts libnavguard.so.0, a symlink, as
# a second copy of the library).
set(CPACK_POST_BUILD_SCRIPTS ${PROJECT_SOURCE_DIR}/packaging/debian/installed-size.cmake)

include(CPack)
