# cmake -DCPACK=<cpack> -DCONFIG=<build/CPackConfig.cmake> -DOUT=<dir>
#       -DINSTALLED=<a plain `cmake --install` of the same build> -DVERSION=<0.2.0>
#       -DMAJOR=<0> -DDPKG_DEB=<dpkg-deb> -DLINTIAN=<lintian> -DGENERATOR=<gen>
#       -DTEMPLATE=<examples/plugins/c-minimal> -DSOURCE_DIR=<NavGuard's source tree>
#       -P CheckPackages.cmake
# The Debian packages of `make package` (cmake/NavGuardPackaging.cmake),
# built again into OUT and checked:
#  - exactly libnavguard<MAJOR>, libnavguard-dev and navguard-tools, at
#    VERSION-<the Debian revision CONFIG sets>;
#  - each holds only its own part of the install, and together they hold all
#    of it (the files of INSTALLED), beside their copyright, changelog and
#    lintian overrides;
#  - -dev and -tools depend on the runtime package of the same version, the
#    runtime on libc6 (dpkg-shlibdeps ran), and it has its shlibs line and
#    the ldconfig trigger;
#  - lintian reports no error;
#  - unpacked together, they build the C guard template (find_package) and
#    their navguard tool validates it.
cmake_minimum_required(VERSION 3.25)
foreach(var CPACK CONFIG OUT INSTALLED VERSION DPKG_DEB LINTIAN GENERATOR TEMPLATE SOURCE_DIR)
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
# which package.
set(own_${runtime}        "^lib/libnavguard\\.so\\.[0-9]|^lib/navguard/plugins/")
set(own_libnavguard-dev   "^include/navguard/|^lib/libnavguard\\.so$|^lib/pkgconfig/navguard\\.pc$|^lib/cmake/NavGuard/|^share/navguard/")
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
    if(path MATCHES "^share/doc/${name}/(copyright|changelog\\.Debian\\.gz)$|^share/lintian/overrides/${name}$")
      list(APPEND debian_files ${name}:${path})
    elseif(path MATCHES "${own_${name}}")
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
  message(STATUS "${deb}: ${count} files; Depends: ${depends_${name}}")
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
run("dpkg-deb -I shlibs" ${DPKG_DEB} -I ${OUT}/${runtime}_${VERSION}_${arch}.deb shlibs)
if(NOT out MATCHES "^libnavguard ${MAJOR} ${runtime} \\(>= ${VERSION}\\)")
  string(APPEND errors "  ${runtime}'s shlibs is not 'libnavguard ${MAJOR} ${runtime} (>= ${VERSION})': ${out}\n")
endif()
run("dpkg-deb -I triggers" ${DPKG_DEB} -I ${OUT}/${runtime}_${VERSION}_${arch}.deb triggers)
if(NOT out MATCHES "activate-noawait ldconfig")
  string(APPEND errors "  ${runtime} does not activate the ldconfig trigger: ${out}\n")
endif()

# lintian: errors fail (its exit status), warnings are shown.
list(TRANSFORM debs PREPEND ${OUT}/ OUTPUT_VARIABLE deb_paths)
execute_process(COMMAND ${LINTIAN} ${deb_paths} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  string(APPEND errors "  lintian failed (${rc}):\n${out}${err}")
else()
  message(STATUS "lintian: no errors\n${out}")
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

if(errors)
  message(FATAL_ERROR "the Debian packages in ${OUT}:\n${errors}")
endif()
