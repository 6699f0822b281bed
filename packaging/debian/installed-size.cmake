# SPDX-License-Identifier: Apache-2.0
# CPack post-build script (CPACK_POST_BUILD_SCRIPTS, cmake/NavGuardPackaging.cmake):
# writes each package's Installed-Size as dpkg-gencontrol computes it, in KiB:
# every regular file's size rounded up to a KiB, and 1 KiB for each directory
# and symlink. CPack 3.25 follows symlinks and so counted libnavguard.so.0 as
# a second copy of the library (13.1 MiB for 6.7 MiB of files). The package is
# unpacked with its control files (dpkg-deb -R), the field rewritten, and
# built again (dpkg-deb -b, root-owned as CPack made it); the data is unchanged,
# so DEBIAN/md5sums stays right.
# The same pass drops the postinst and postrm CPack 3.25 writes whenever a
# library lands under /usr/lib, when all they do is call ldconfig: the
# package's ldconfig trigger (packaging/debian/triggers) already does that,
# and lintian warns about the call (maintscript-calls-ldconfig).
cmake_minimum_required(VERSION 3.25)
find_program(DPKG_DEB dpkg-deb REQUIRED)
foreach(deb IN LISTS CPACK_PACKAGE_FILES)
  if(NOT deb MATCHES "\\.deb$")
    continue()
  endif()
  set(tree ${deb}.tree)
  file(REMOVE_RECURSE ${tree})
  execute_process(COMMAND ${DPKG_DEB} -R ${deb} ${tree} COMMAND_ERROR_IS_FATAL ANY)
  set(kib 1)                                   # the package's root directory
  file(GLOB_RECURSE entries LIST_DIRECTORIES true RELATIVE ${tree} ${tree}/*)
  foreach(entry IN LISTS entries)
    if(entry MATCHES "^DEBIAN(/|$)")
      continue()
    elseif(IS_SYMLINK ${tree}/${entry} OR IS_DIRECTORY ${tree}/${entry})
      math(EXPR kib "${kib} + 1")
    else()
      file(SIZE ${tree}/${entry} bytes)
      math(EXPR kib "${kib} + (${bytes} + 1023) / 1024")
    endif()
  endforeach()
  foreach(script postinst postrm)
    if(EXISTS ${tree}/DEBIAN/${script} AND EXISTS ${tree}/DEBIAN/triggers)
      file(READ ${tree}/DEBIAN/${script} body)
      string(REGEX REPLACE "[ \t\n]+" " " body "${body}")
      if(body MATCHES "^#!/bin/sh set -e if \\[ \"\\$1\" = \"(configure|remove)\" \\]; then ldconfig fi ?$")
        file(REMOVE ${tree}/DEBIAN/${script})
      endif()
    endif()
  endforeach()
  file(READ ${tree}/DEBIAN/control control)
  string(REGEX REPLACE "\nInstalled-Size: [0-9]+\n" "\nInstalled-Size: ${kib}\n" control "${control}")
  file(WRITE ${tree}/DEBIAN/control "${control}")
  execute_process(COMMAND ${DPKG_DEB} --root-owner-group -b ${tree} ${deb}
    OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
  file(REMOVE_RECURSE ${tree})
  get_filename_component(name ${deb} NAME)
  message(STATUS "${name}: Installed-Size: ${kib} KiB")
endforeach()
