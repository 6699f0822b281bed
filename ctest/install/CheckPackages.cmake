# SPDX-License-Identifier: Apache-2.0
# cmake -DCPACK=<cpack> -DCONFIG=<build/CPackConfig.cmake> -DOUT=<dir>
#       -DINSTALLED=<a plain `cmake --install` of the same build> -DVERSION=<0.2.0>
#       -DMAJOR=<0> -DDPKG_DEB=<dpkg-deb> -DLINTIAN=<lintian> -DGENERATOR=<gen>
#       -DTEMPLATE=<examples/plugins/c-minimal> -DSOURCE_DIR=<NavGuard's source tree>
#       -DCC=<C compiler> -DMULTIARCH=<lib/x86_64-linux-gnu> -P CheckPackages.cmake
# The Debian packages of `make package` (cmake/NavGuardPackaging.cmake),
# built again into OUT and checked:
#  - exactly libnavguard<MAJOR>, libnavguard-dev and navguard-tools, at
#    VERSION-<the Debian revision CONFIG sets>;
#  - each holds only its own part of the install, in Debian's multiarch
#    layout (MULTIARCH where a plain install has lib; the adapters' guides and
#    examples in /usr/share/doc/libnavguard-dev where a plain install has
#    share/doc/navguard), and together they hold all of it (the files of
#    INSTALLED), beside their copyright, changelog and lintian overrides;
#  - each one's Installed-Size is what dpkg-gencontrol would write (every
#    file's size rounded up to a KiB, 1 KiB per directory and symlink), not
#    more than 2 % above its files' size (CPack alone counts a symlink as a
#    copy of its target);
#  - -dev and -tools depend on the runtime package of the same version, the
#    runtime on libc6 (dpkg-shlibdeps ran) and libffi8 (the ffi-predicate
#    guard) and nothing else (libnavguard and its Swift guards are Embedded
#    Swift: no libstdc++6, no libgcc-s1), and it has its shlibs line and the
#    ldconfig trigger;
#  - lintian is clean (no error, no warning) and the runtime package has no maintainer script (its ldconfig trigger does the work);
#  - unpacked together, they build the C guard template (find_package) and
#    their navguard tool validates it, and a C host (ctest/dist/host.c) linked
#    to their library runs the default chain: the library finds the guards
#    beside itself, in MULTIARCH/navguard/plugins.
cmake_minimum_required(VERSION 3.25)
foreach(var CPACK CONFIG OUT INSTALLED VERSION DPKG_DEB LINTIAN GENERATOR TEMPLATE SOURCE_DIR CC MULTIARCH)
  if(NOT ${var})
    message(FATAL_ERROR "CheckPackages.cmake: -D${var}=... is required")
  endif()
endforeach()

include(${CMAKE_CURRENT_LIST_DIR}/RunStep.cmake)

include(${CONFIG})                          # CPACK_DEBIAN_PACKAGE_RELEASE
set(VERSION ${VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE})
set(errors "")
file(REMOVE_RECURSE ${OUT})
run("cpack" ${CPACK} --config ${CONFIG} -B ${OUT})
file(GLOB debs RELATIVE ${OUT} ${OUT}/*.deb)
list(SORT debs)
execute_process(COMMAND dpkg --print-architecture OUTPUT_VARIABLE arch OUTPUT_STRIP_TRAILING_WHITESPACE)
set(runtime libnavguard${MAJOR})
set(expected libnavguard-dev_${VERSION}_${arch}.deb ${runtime}_${VERSION}_${arch}.deb navguard-tools_${VERSION}_${arch}.deb)
if(NOT debs STREQUAL expected)
  message(FATAL_ERROR "cpack made: ${debs}\nexpected:   ${expected}")
endif()

# Which installed paths (relative to the prefix, /usr in a package) belong to
# which package; a packaged path under MULTIARCH is compared with the plain
# install's lib/.
set(own_${runtime}        "^lib/libnavguard\\.so\\.[0-9]|^lib/navguard/plugins/")
set(own_libnavguard-dev   "^include/navguard/|^lib/libnavguard\\.so$|^lib/pkgconfig/navguard\\.pc$|^lib/cmake/NavGuard/|^share/navguard/|^share/doc/navguard/html/|^share/doc/libnavguard-dev/(adapters|examples)/")
set(own_navguard-tools    "^bin/navguard$|^share/man/man1/navguard\\.1\\.gz$")
set(packaged "")
set(debian_files "")
foreach(deb IN LISTS debs)
  string(REGEX REPLACE "_.*" "" name ${deb})
  run("dpkg-deb -c ${deb}" ${DPKG_DEB} -c ${OUT}/${deb})
  string(REGEX MATCHALL "\\./usr/[^\n]*" paths "${out}")
  set(count 0)
  foreach(path IN LISTS paths)
    string(REGEX REPLACE " -> .*" "" path "${path}")          # a symlink's target
    if(path MATCHES "/$")
      continue()                                                # directories
    endif()
    string(REGEX REPLACE "^\\./usr/" "" path "${path}")
    if(path MATCHES "^lib/")
      if(path MATCHES "^${MULTIARCH}/")
        string(REGEX REPLACE "^${MULTIARCH}/" "lib/" path "${path}")
      else()
        string(APPEND errors "  ${deb} has /usr/${path}, outside Debian's multiarch /usr/${MULTIARCH}\n")
      endif()
    endif()
    if(path MATCHES "^share/doc/${name}/(copyright|changelog\\.Debian\\.gz)$|^share/lintian/overrides/${name}$")
      list(APPEND debian_files ${name}:${path})
    elseif(path MATCHES "${own_${name}}")
      # The adapters' guides and examples: Debian's documentation place in
      # the package, share/doc/navguard in a plain install (the same files).
      string(REGEX REPLACE "^share/doc/libnavguard-dev/(adapters|examples)/" "share/doc/navguard/\\1/" path "${path}")
      list(APPEND packaged ${path})
      math(EXPR count "${count} + 1")
    else()
      string(APPEND errors "  ${deb} has /usr/${path}, which belongs to another package\n")
    endif()
  endforeach()
  foreach(doc share/doc/${name}/copyright share/doc/${name}/changelog.Debian.gz share/lintian/overrides/${name})
    if(NOT "${name}:${doc}" IN_LIST debian_files)
      string(APPEND errors "  ${deb} lacks /usr/${doc}\n")
    endif()
  endforeach()
  run("dpkg-deb -f ${deb}" ${DPKG_DEB} -f ${OUT}/${deb} Depends)
  string(STRIP "${out}" depends_${name})

  # Installed-Size, from the package's own listing (dpkg-deb -c): regular
  # files' sizes rounded up to a KiB, 1 KiB for each directory and symlink.
  run("dpkg-deb -c ${deb}" ${DPKG_DEB} -c ${OUT}/${deb})
  string(REGEX MATCHALL "[^\n]+" entries "${out}")
  set(kib 0)
  set(bytes 0)
  foreach(entry IN LISTS entries)
    if(NOT entry MATCHES "^([-dlhcbps])[^ ]+ +[^ ]+ +([0-9]+) ")
      string(APPEND errors "  ${deb}: a listing line not understood: ${entry}\n")
      continue()
    endif()
    if(CMAKE_MATCH_1 STREQUAL "-")
      math(EXPR kib "${kib} + (${CMAKE_MATCH_2} + 1023) / 1024")
      math(EXPR bytes "${bytes} + ${CMAKE_MATCH_2}")
    else()
      math(EXPR kib "${kib} + 1")
    endif()
  endforeach()
  run("dpkg-deb -f ${deb}" ${DPKG_DEB} -f ${OUT}/${deb} Installed-Size)
  string(STRIP "${out}" installed_size)
  math(EXPR limit "${bytes} * 102 / 100 / 1024 + ${count} + 64")
  if(NOT installed_size EQUAL kib)
    string(APPEND errors "  ${deb}: Installed-Size ${installed_size} KiB; its files take ${kib} KiB (dpkg-gencontrol's rule)\n")
  elseif(installed_size GREATER limit)
    string(APPEND errors "  ${deb}: Installed-Size ${installed_size} KiB is more than its ${bytes} bytes of files\n")
  endif()
  message(STATUS "${deb}: ${count} files; Installed-Size: ${installed_size} KiB (${bytes} bytes of files); Depends: ${depends_${name}}")
endforeach()

# Together the packages hold exactly what a plain install holds.
file(GLOB_RECURSE installed LIST_DIRECTORIES false RELATIVE ${INSTALLED} ${INSTALLED}/*)
list(SORT installed)
list(SORT packaged)
foreach(path IN LISTS installed)
  if(NOT path IN_LIST packaged)
    string(APPEND errors "  ${path} is installed but in no package (an install() rule without COMPONENT?)\n")
  endif()
endforeach()
foreach(path IN LISTS packaged)
  if(NOT path IN_LIST installed)
    string(APPEND errors "  /usr/${path} is packaged but not installed by `cmake --install`\n")
  endif()
endforeach()

foreach(name libnavguard-dev navguard-tools)
  if(NOT depends_${name} MATCHES "(^|, )${runtime} \\(= ${VERSION}\\)(,|$)")
    string(APPEND errors "  ${name} does not depend on ${runtime} (= ${VERSION}): ${depends_${name}}\n")
  endif()
endforeach()
if(NOT depends_${runtime} MATCHES "(^|, )libc6 \\(>= ")
  string(APPEND errors "  ${runtime}'s dependencies were not computed (dpkg-shlibdeps): ${depends_${runtime}}\n")
endif()
string(REPLACE ", " ";" runtime_needs "${depends_${runtime}}")
foreach(dep IN LISTS runtime_needs)
  string(REGEX REPLACE " .*" "" dep "${dep}")
  if(NOT dep MATCHES "^(libc6|libffi8)$")
    string(APPEND errors "  ${runtime} depends on ${dep}: only libc6 and libffi8 are expected: ${depends_${runtime}}\n")
  endif()
endforeach()
run("dpkg-deb -I shlibs" ${DPKG_DEB} -I ${OUT}/${runtime}_${VERSION}_${arch}.deb shlibs)
if(NOT out MATCHES "^libnavguard ${MAJOR} ${runtime} \\(>= ${VERSION}\\)")
  string(APPEND errors "  ${runtime}'s shlibs is not 'libnavguard ${MAJOR} ${runtime} (>= ${VERSION})': ${out}\n")
endif()
run("dpkg-deb -I triggers" ${DPKG_DEB} -I ${OUT}/${runtime}_${VERSION}_${arch}.deb triggers)
if(NOT out MATCHES "activate-noawait ldconfig")
  string(APPEND errors "  ${runtime} does not activate the ldconfig trigger: ${out}\n")
endif()

# The trigger runs ldconfig: no maintainer script calls it (lintian's
# maintscript-calls-ldconfig), so the runtime package has none at all.
foreach(script postinst postrm)
  execute_process(COMMAND ${DPKG_DEB} -I ${OUT}/${runtime}_${VERSION}_${arch}.deb ${script}
    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    string(APPEND errors "  ${runtime} has a ${script}; its ldconfig trigger is all it needs\n")
  endif()
endforeach()

# lintian: clean, errors and warnings alike (informational tags are shown).
list(TRANSFORM debs PREPEND ${OUT}/ OUTPUT_VARIABLE deb_paths)
execute_process(COMMAND ${LINTIAN} --fail-on error,warning ${deb_paths}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  string(APPEND errors "  lintian is not clean (${rc}):\n${out}${err}")
else()
  message(STATUS "lintian: no errors or warnings\n${out}")
endif()

# The unpacked packages are a prefix (/usr moved to OUT/root/usr) a guard
# builds against.
foreach(deb IN LISTS debs)
  run("dpkg-deb -x ${deb}" ${DPKG_DEB} -x ${OUT}/${deb} ${OUT}/root)
endforeach()
run("the C template against the packages" ${CMAKE_COMMAND}
  -DTEMPLATE=${TEMPLATE} -DBINARY=${OUT}/template-c -DPREFIX=${OUT}/root/usr -DPLUGIN=quiet-hours.so
  -DGENERATOR=${GENERATOR} -DSOURCE_DIR=${SOURCE_DIR} -P ${CMAKE_CURRENT_LIST_DIR}/BuildTemplate.cmake)
message(STATUS "built and validated the C template against the unpacked packages")

# A host linked to the packaged library runs the default chain: the library
# finds the built-in guards beside itself in the multiarch layout (nothing
# tells it where: no NAVGUARD_PLUGIN_DIR, no NAVGUARD_PLUGIN_PATH).
set(libdir ${OUT}/root/usr/${MULTIARCH})
run("the host against the packages" ${CC} -std=c11 -Wall -Wextra -o ${OUT}/host
  ${SOURCE_DIR}/ctest/dist/host.c -I${OUT}/root/usr/include -L${libdir} -lnavguard -Wl,-rpath,${libdir})
run("the host" ${CMAKE_COMMAND} -E env --unset=NAVGUARD_PLUGIN_DIR --unset=NAVGUARD_PLUGIN_PATH ${OUT}/host)
if(NOT out MATCHES "plugins in ${libdir}/navguard/plugins\n" OR NOT out MATCHES "chain: [1-9][0-9]* guards" OR NOT out MATCHES "host: ok")
  string(APPEND errors "  the packaged library did not load the default chain from ${libdir}/navguard/plugins:\n${out}\n")
endif()
message(STATUS "a host linked to the packaged library ran the default chain from ${libdir}/navguard/plugins")

if(errors)
  message(FATAL_ERROR "the Debian packages in ${OUT}:\n${errors}")
endif()
