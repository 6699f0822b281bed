#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# dpkg-shlibdeps for a cross build's packages (make package-arm64), called
# by CPack in place of dpkg-shlibdeps (cmake/NavGuardPackaging.cmake).
# This machine's dpkg knows no arm64 library, so the libraries the binaries
# need are looked up in the sysroot (a Debian arm64 root), and the packages
# providing them come from the sysroot's dpkg database: its shlibs files,
# written as debian/shlibs.local in CPack's directory (dpkg-shlibdeps
# cannot map a library inside the sysroot to its package by path). shlibs
# give each library's package with its shlibs version (libc6 (>= 2.36)),
# not the per-symbol minimum a native build reads from symbols files.
#
# Environment: NAVGUARD_CROSS_SYSROOT (the root), NAVGUARD_CROSS_MULTIARCH
# (aarch64-linux-gnu).
set -eu
root=${NAVGUARD_CROSS_SYSROOT:?the sysroot}
ma=${NAVGUARD_CROSS_MULTIARCH:?the multiarch triplet}
if [ -d debian ]; then
    cat "$root"/var/lib/dpkg/info/*.shlibs | grep -v '^udeb:' > debian/shlibs.local
fi
exec dpkg-shlibdeps -l"$root/lib/$ma" -l"$root/usr/lib/$ma" "$@"
